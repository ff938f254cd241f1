"""A client for the Splendor games service's REST API and event stream, a
runner that plays an account's games with a bot (``splendor-bot``), and
learning environments (``SplendorEnv``, from :mod:`splendor_client.env`, with
the ``env`` extra)."""

from __future__ import annotations

from typing import Any

from ._core import RetryPolicy
from .client import AsyncClient, Client
from .errors import ApiError, AuthError, ConflictError, IllegalMoveError, NotFoundError, RateLimitedError, SplendorError
from .stream import Event, Reconnect

__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    # SplendorEnv needs numpy and Gymnasium (the env extra): imported when asked for.
    if name == "SplendorEnv":
        from .env import SplendorEnv

        return SplendorEnv
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
    "SplendorEnv",
    "SplendorError",
    "__version__",
]
