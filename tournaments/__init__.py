"""Correspondence tournaments; pairing.py is the pure pairing core, the Django app comes later."""
