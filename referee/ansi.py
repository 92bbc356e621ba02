"""ANSI colours for boards drawn on a terminal (`referee show --board`, a human seat).

Colours only where a person reads a terminal: never when the stream is no terminal (a
pipe, a file), nor when NO_COLOR is set (https://no-color.org). Colours are given as the
HTML boards' hex values, drawn as their nearest xterm 256-colour, which every terminal
and tmux show alike, or as an xterm index where the nearest one is too near another.
"""

from __future__ import annotations

import os
from typing import IO, Any

RESET = "\x1b[0m"
Colour = str | int  # `#rrggbb`, or an xterm 256-colour index chosen by eye
_CUBE = (0, 95, 135, 175, 215, 255)  # the xterm colour cube's levels


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
