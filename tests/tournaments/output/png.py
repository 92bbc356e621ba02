"""Pixels of a PNG screenshot, decoded with the standard library alone (8-bit RGB or
RGBA, not interlaced: what headless Chromium writes), to tell a rendered page from a
blank one."""

from __future__ import annotations

import struct
import zlib

SIGNATURE = b"\x89PNG\r\n\x1a\n"
CHANNELS = {2: 3, 6: 4}  # PNG colour type: RGB, RGBA


def pixels(data: bytes) -> list[tuple[int, int, int]]:
    """Every pixel's (red, green, blue), row by row."""
    if data[:8] != SIGNATURE:
        raise ValueError("not a PNG file")
    header, compressed = _chunks(data)
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", header)
    if depth != 8 or colour not in CHANNELS or interlace:
        raise ValueError(f"an unexpected PNG: depth {depth}, colour type {colour}")
    size = CHANNELS[colour]
    rows = _unfiltered(zlib.decompress(compressed), width * size, height, size)
    return [(row[i], row[i + 1], row[i + 2]) for row in rows
            for i in range(0, len(row), size)]


def _chunks(data: bytes) -> tuple[bytes, bytes]:
    header, compressed, position = b"", b"", 8
    while position < len(data):
        length, kind = struct.unpack(">I4s", data[position:position + 8])
        body = data[position + 8:position + 8 + length]
        position += 12 + length  # length, type, body, CRC
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            compressed += body
    return header, compressed


def _unfiltered(raw: bytes, stride: int, height: int, size: int) -> list[bytearray]:
    rows, above = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, row = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            left = row[i - size] if i >= size else 0
            corner = above[i - size] if i >= size else 0
            row[i] = (row[i] + _predict(kind, left, above[i], corner)) & 0xFF
        rows.append(row)
        above = row
    return rows


def _predict(kind: int, left: int, up: int, corner: int) -> int:
    if kind == 0:
        return 0
    if kind == 1:
        return left
    if kind == 2:
        return up
    if kind == 3:
        return (left + up) // 2
    estimate = left + up - corner  # 4: Paeth
    near_left, near_up = abs(estimate - left), abs(estimate - up)
    near_corner = abs(estimate - corner)
    if near_left <= near_up and near_left <= near_corner:
        return left
    return up if near_up <= near_corner else corner
