"""A push "browser" and a push service for the tests, made with `cryptography`
alone, so that what the server sends is read the way RFC 8291 says a browser
reads it, by code that shares nothing with pywebpush.

- ``Browser``: its own P-256 key pair and 16-byte auth secret; ``subscription()``
  is the PushSubscription JSON a page posts; ``decrypt(body)`` undoes aes128gcm
  (RFC 8188) with the keys derived per RFC 8291 §3.3-3.4.
- ``PushService``: an HTTP server on 127.0.0.1 in a thread, standing in for the
  browser maker's push service: it records each request and answers with the
  next of ``answers`` (201 once they run out).
- ``vapid_claims(headers, public_key)``: the VAPID JWT checked against the
  server's public key (RFC 8292), and its claims.
"""

from __future__ import annotations

import base64
import os
import json
import struct
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _hkdf(*, salt: bytes, ikm: bytes, info: bytes, length: int) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=length, salt=salt, info=info).derive(ikm)


class Browser:
    def __init__(self) -> None:
        self.private_key = ec.generate_private_key(ec.SECP256R1())
        self.public_raw = self.private_key.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
        self.auth_secret = os.urandom(16)

    def subscription(self, endpoint: str) -> dict[str, Any]:
        return {
            "endpoint": endpoint,
            "expirationTime": None,
            "keys": {"p256dh": b64url(self.public_raw), "auth": b64url(self.auth_secret)},
        }

    def decrypt(self, body: bytes) -> bytes:
        """RFC 8188's aes128gcm header, then RFC 8291's keys: the server's ephemeral
        key is the header's keyid."""
        salt, record_size, id_length = body[:16], struct.unpack("!I", body[16:20])[0], body[20]
        server_public = body[21 : 21 + id_length]
        ciphertext = body[21 + id_length :]
        assert id_length == 65 and server_public[0] == 4, "the keyid is the server's uncompressed P-256 key"
        assert len(ciphertext) <= record_size, "one record"
        server_key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), server_public)
        ecdh_secret = self.private_key.exchange(ec.ECDH(), server_key)
        # RFC 8291 §3.4: IKM from the ECDH secret, salted with the auth secret.
        key_info = b"WebPush: info\x00" + self.public_raw + server_public
        ikm = _hkdf(salt=self.auth_secret, ikm=ecdh_secret, info=key_info, length=32)
        # RFC 8188 §2.2-2.3: the content-encryption key and the nonce (first record: no XOR).
        cek = _hkdf(salt=salt, ikm=ikm, info=b"Content-Encoding: aes128gcm\x00", length=16)
        nonce = _hkdf(salt=salt, ikm=ikm, info=b"Content-Encoding: nonce\x00", length=12)
        padded = AESGCM(cek).decrypt(nonce, ciphertext, None)
        end = padded.rstrip(b"\x00")
        assert end.endswith(b"\x02"), "the last record's delimiter is 2"
        return end[:-1]


def vapid_claims(headers: dict[str, str], server_public_key: str) -> dict[str, Any]:
    """The VAPID JWT's claims, once its ES256 signature checks out against the
    server's public key (RFC 8292: ``Authorization: vapid t=<jwt>, k=<key>``)."""
    authorization = headers.get("authorization", "")
    scheme, _, rest = authorization.partition(" ")
    assert scheme.lower() == "vapid", authorization[:20]
    params = dict(part.strip().split("=", 1) for part in rest.split(","))
    assert params["k"].rstrip("=") == server_public_key.rstrip("=")
    header_b64, payload_b64, signature_b64 = params["t"].split(".")
    signature = unb64url(signature_b64)
    der = encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
    key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64url(server_public_key))
    key.verify(der, f"{header_b64}.{payload_b64}".encode(), ec.ECDSA(hashes.SHA256()))
    assert json.loads(unb64url(header_b64))["alg"] == "ES256"
    claims: dict[str, Any] = json.loads(unb64url(payload_b64))
    return claims


@dataclass
class Received:
    path: str
    headers: dict[str, str]  # names lower-cased
    body: bytes
    at: float


@dataclass
class PushService:
    answers: list[int] = field(default_factory=list)
    received: list[Received] = field(default_factory=list)
    server: ThreadingHTTPServer | None = None

    @property
    def origin(self) -> str:
        assert self.server is not None
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def endpoint(self, name: str = "browser-1") -> str:
        return f"{self.origin}/push/v1/{name}"

    def start(self) -> PushService:
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                service.received.append(
                    Received(self.path, {k.lower(): v for k, v in self.headers.items()}, body, time.monotonic())
                )
                status = service.answers.pop(0) if service.answers else 201
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
