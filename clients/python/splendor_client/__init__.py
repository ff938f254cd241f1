"""A client for the Splendor games service's REST API and event stream, and a
runner that plays an account's games with a bot (``splendor-bot``)."""

from __future__ import annotations

from ._core import RetryPolicy
from .client import AsyncClient, Client
from .errors import ApiError, AuthError, ConflictError, IllegalMoveError, NotFoundError, RateLimitedError, SplendorError
from .stream import Event, Reconnect

__version__ = "0.1.0"

__all__ = [
    "ApiError",
    "AsyncClient",
    "AuthError",
    "Client",
    "ConflictError",
    "Event",
    "IllegalMoveError",
    "NotFoundError",
    "RateLimitedError",
    "Reconnect",
    "RetryPolicy",
    "SplendorError",
    "__version__",
]
