"""Draws the installable site's icons (front/static/front/icons/icon-<size>.png,
linked from the web app manifest, front.pwa): the favicon's cut gem (api.home)
on a light square, with the standard library only (zlib and struct), so that
anyone can draw them again. Run from the repository's root:

    python scripts/make_app_icons.py
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "front" / "static" / "front" / "icons"
SIZES = (192, 512)
SAMPLES = 4  # per side of a pixel: 16 samples smooth the edges
BACKGROUND = (0xFA, 0xFA, 0xFA)
OUTLINE = (0x11, 0x11, 0x11)
GEM = (0x2F, 0x6F, 0xD6)
FACET = (0xE2, 0x3B, 0x3B)
# The favicon's polygons on its 32-unit grid, grown to leave a margin (a phone may crop to a circle).
GEM_POINTS = [(16, 2), (29, 12), (16, 30), (3, 12)]
FACET_POINTS = [(16, 2), (22, 12), (16, 30), (10, 12)]
OUTLINE_WIDTH = 0.9  # in grid units


def _inside(x: float, y: float, points: list[tuple[float, float]]) -> bool:
    inside = False
    for (x1, y1), (x2, y2) in zip(points, points[1:] + points[:1]):
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            inside = not inside
    return inside


def _grown(points: list[tuple[float, float]], by: float) -> list[tuple[float, float]]:
    cx = sum(x for x, _ in points) / len(points)
    cy = sum(y for _, y in points) / len(points)
    return [(cx + (x - cx) * by, cy + (y - cy) * by) for x, y in points]


def _colour_at(x: float, y: float) -> tuple[float, float, float]:
    """The colour at grid point (x, y) of a 32-unit square."""
    gem, facet = _grown(GEM_POINTS, 0.8), _grown(FACET_POINTS, 0.8)
    if not _inside(x, y, _grown(GEM_POINTS, 0.8 + OUTLINE_WIDTH / 14)):
        return BACKGROUND
    if not _inside(x, y, gem):
        return OUTLINE
    if _inside(x, y, facet):  # the red facet over the blue at 55 %
        return tuple(0.55 * f + 0.45 * g for f, g in zip(FACET, GEM))  # type: ignore[return-value]
    return GEM


def _pixels(size: int) -> bytes:
    rows = bytearray()
    for py in range(size):
        rows.append(0)  # no filter
        for px in range(size):
            total = [0.0, 0.0, 0.0]
            for sy in range(SAMPLES):
                for sx in range(SAMPLES):
                    colour = _colour_at(
                        (px + (sx + 0.5) / SAMPLES) * 32 / size, (py + (sy + 0.5) / SAMPLES) * 32 / size
                    )
                    for i in range(3):
                        total[i] += colour[i]
            rows.extend(round(channel / SAMPLES**2) for channel in total)
    return bytes(rows)


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def png(size: int) -> bytes:
    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)  # 8-bit RGB
    return b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(_pixels(size), 9)) + _chunk(b"IEND", b"")


if __name__ == "__main__":
    OUT.mkdir(parents=True, exist_ok=True)
    for size in SIZES:
        (OUT / f"icon-{size}.png").write_bytes(png(size))
