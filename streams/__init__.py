"""The event stream (docs/stream.md): each account's news from its games, kept in
order for a while so that a client that reconnects gets what it missed.

Rows are written in the same transaction as the game change (``services``, through
this app's game extension, ``extension``), then the processes that
hold open streams are woken (``bus``: Redis pub/sub, or a poll of the database on
the embedded default). ``asgi`` serves the stream without a thread per connection;
``views`` serves it under WSGI (the development server, or gunicorn) with one.
"""
