"""ETags and conditional requests (RFC 9110 section 13) for resources with an
integer version: the ETag of version 7 is ``"7"``."""

from __future__ import annotations

import hashlib

# Versions are stored in a PositiveIntegerField; a tag of more digits than any
# such number has names no version. Bounding the length also keeps int() away
# from Python's limit on converting long digit strings (a ValueError past
# 4,300 digits).
MAX_VERSION_DIGITS = 20


def etag_for(version: int) -> str:
    return f'"{version}"'


def _tags(header: str) -> list[str]:
    tags = []
    for candidate in header.split(","):
        candidate = candidate.strip()
        if candidate.startswith("W/"):
            candidate = candidate[2:]
        tags.append(candidate)
    return tags


def etag_matches(header: str, version: int) -> bool:
    """True when an If-Match / If-None-Match header names ``version`` (or is ``*``)."""
    return any(tag == "*" or tag.strip('"') == str(version) for tag in _tags(header))


def names_any_version(header: str | None) -> bool:
    """False for no header and for ``*``, which matches every version and so names none."""
    return header is not None and header.strip() != "*"


def header_for_message(header: str, limit: int = 60) -> str:
    """An If-Match value as a refusal may quote it: cut short, since a client may
    send one of any length."""
    return header if len(header) <= limit else header[: limit - 1] + "…"


def versions_named(header: str) -> set[int]:
    """The versions an If-Match header names; tags that are not versions name none."""
    versions = set()
    for tag in _tags(header):
        text = tag.strip('"')
        if text.isascii() and text.isdigit() and len(text) <= MAX_VERSION_DIGITS:
            versions.add(int(text))
    return versions


def request_fingerprint(*, method: str, path: str, body: bytes) -> str:
    """What makes two requests "the same" for an Idempotency-Key: SHA-256 over the
    method, the path and the body, each length-prefixed."""
    digest = hashlib.sha256()
    for part in (method.upper().encode("ascii"), path.encode("utf-8"), body):
        digest.update(len(part).to_bytes(8, "big"))
        digest.update(part)
    return digest.hexdigest()
