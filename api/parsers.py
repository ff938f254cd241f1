"""The API's JSON parser: DRF's, with every body it cannot take refused as a 400.

Python's JSON decoder recurses once per nesting level, so a body of a thousand
``[`` raised RecursionError (a 500 and a traceback per request). No request of
this API nests more than a few levels; bodies deeper than ``MAX_JSON_DEPTH``
are refused before they are decoded, by a scan that costs one pass over bytes
already in memory (bodies are at most DATA_UPLOAD_MAX_MEMORY_SIZE).
"""

from __future__ import annotations

import io
from typing import Any

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

MAX_JSON_DEPTH = 16


def json_depth_exceeds(body: bytes, limit: int) -> bool:
    """True when arrays and objects in ``body`` nest deeper than ``limit``
    (brackets inside strings do not count)."""
    if body.count(b"[") + body.count(b"{") <= limit:
        return False  # the common case, without a scan
    depth = 0
    in_string = escaped = False
    for byte in body:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):  # [ {
            depth += 1
            if depth > limit:
                return True
        elif byte in (0x5D, 0x7D):  # ] }
            depth -= 1
    return False


class StrictJSONParser(JSONParser):
    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        body = stream.read() if stream is not None else b""
        if json_depth_exceeds(body, MAX_JSON_DEPTH):
            raise ParseError(f"JSON parse error - the body nests deeper than {MAX_JSON_DEPTH} levels.")
        try:
            return super().parse(io.BytesIO(body), media_type, parser_context)
        except RecursionError:  # a guard in case the scan above is ever bypassed
            raise ParseError("JSON parse error - the body nests too deeply.") from None
