"""The API token format, and how its secret is kept.

A token is `spl_` + 43 url-safe characters (32 random bytes). Only its SHA-256
lives in the database: the secret has 256 bits of entropy, so a slow password
hash would add cost to every request and no safety.
"""

from __future__ import annotations

import hashlib
import secrets

TOKEN_PREFIX = "spl_"
# Shown in token lists so a person can tell tokens apart: "spl_" + 8 random
# characters (with only 8 in all, four of them would be the constant "spl_").
PUBLIC_PREFIX_LENGTH = 12


def token_generate() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def token_hash(plaintext: str) -> str:
    return hashlib.sha256(plaintext.encode("utf-8")).hexdigest()


def token_public_prefix(plaintext: str) -> str:
    return plaintext[:PUBLIC_PREFIX_LENGTH]
