"""The site under ASGI (uvicorn): Django's handler, and ``/api/v1/stream/`` (with the
game page's ``/games/<id>/events/``) served by ``streams.asgi`` so that an open stream holds no thread (docs/deploy.md, "The
event stream"). Run it with ``uvicorn splendor_site.asgi:application``."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "splendor_site.settings")

django_application = get_asgi_application()

from streams.asgi import PAGE_PATH, PATH, Receive, Scope, Send, page_stream_app, stream_app  # noqa: E402


async def application(scope: Scope, receive: Receive, send: Send) -> None:
    if scope["type"] == "lifespan":
        # Nothing to start or stop: the stream's hub starts with its first stream.
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return
    if scope["type"] == "http" and scope["path"] == PATH:
        await stream_app(scope, receive, send)
        return
    page = PAGE_PATH.fullmatch(scope["path"]) if scope["type"] == "http" else None
    if page is not None:
        await page_stream_app(scope, receive, send, page["game_id"])
        return
    await django_application(scope, receive, send)
