"""ANSI colours for boards drawn on a terminal (`referee show --board`, a human seat).

Colours only where a person reads a terminal: never when the stream is no terminal (a
pipe, a file), nor when NO_COLOR is set (https://no-color.org). Colours are given as the
HTML boards' hex values, drawn as their nearest xterm 256-colour, which every terminal
and tmux show alike, or as an xterm index where the nearest one is too near another.
"""

from __future__ import annotations

import os
import re
import unicodedata
from typing import IO, Any

RESET = "\x1b[0m"
CLEAR_LINE = "\r\x1b[K"  # back to the line's start, and erase it (a progress line)
Colour = str | int  # `#rrggbb`, or an xterm 256-colour index chosen by eye
_CUBE = (0, 95, 135, 175, 215, 255)  # the xterm colour cube's levels
_CODES = re.compile(r"(\x1b\[[0-9;]*m)")
ELLIPSIS = "…"


def wants_colour(stream: IO[Any]) -> bool:
    """Whether to colour what goes to `stream`: a terminal, and NO_COLOR not set."""
    if os.environ.get("NO_COLOR"):
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # no isatty, or closed
        return False


def xterm256(hex_colour: str) -> int:
    """The xterm 256-colour index nearest `#rrggbb` (the colour cube or the grey ramp)."""
    rgb = [int(hex_colour.lstrip("#")[i:i + 2], 16) for i in (0, 2, 4)]
    levels = [min(range(6), key=lambda i: abs(_CUBE[i] - c)) for c in rgb]
    cube = 16 + 36 * levels[0] + 6 * levels[1] + levels[2]
    cube_error = sum((_CUBE[i] - c) ** 2 for i, c in zip(levels, rgb))
    grey = min(23, max(0, round((sum(rgb) / 3 - 8) / 10)))
    grey_error = sum((8 + 10 * grey - c) ** 2 for c in rgb)
    return 232 + grey if grey_error < cube_error else cube


def _index(colour: Colour) -> int:
    return colour if isinstance(colour, int) else xterm256(colour)


class Paint:
    """Styles text with ANSI codes, or leaves it plain (`on` False). Pad text before
    painting it: the codes have no width on screen but count in len()."""

    def __init__(self, on: bool) -> None:
        self.on = on

    def _code(self, codes: str, text: str) -> str:
        return f"\x1b[{codes}m{text}{RESET}" if self.on and text else text

    def chip(self, text: str, background: Colour, dark_text: bool = False) -> str:
        """`text` on a background colour (a card): white text, or black on light colours."""
        return self._code(f"1;{30 if dark_text else 97};48;5;{_index(background)}", text)

    def fg(self, text: str, colour: Colour) -> str:
        return self._code(f"38;5;{_index(colour)}", text)

    def bold(self, text: str) -> str:
        return self._code("1", text)

    def dim(self, text: str) -> str:
        return self._code("2", text)

    def reverse(self, text: str) -> str:
        return self._code("7", text)


def _columns_of(char: str) -> int:
    if unicodedata.combining(char):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def width(text: str) -> int:
    """The columns `text` takes on a terminal: its colour codes none, wide characters two."""
    return sum(_columns_of(char) for char in _CODES.sub("", text))


def clip(text: str, columns: int) -> str:
    """`text` cut to at most `columns` on screen, an ellipsis marking the cut. Colour codes
    are kept whole and closed, so a cut chip does not colour what follows it."""
    if width(text) <= columns:
        return text
    if columns <= 0:
        return ""
    kept: list[str] = []
    used, painted = 0, False
    for part in _CODES.split(text):
        if _CODES.fullmatch(part):
            kept.append(part)
            painted = True
            continue
        for char in part:
            if used + _columns_of(char) > columns - 1:
                break
            kept.append(char)
            used += _columns_of(char)
        else:
            continue
        break
    return "".join(kept) + (RESET if painted else "") + ELLIPSIS
