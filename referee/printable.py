"""Text from a bot, made safe to print on a terminal."""

from __future__ import annotations


def printable(text: str) -> str:
    """`text` with every character a terminal would act on (escape sequences, carriage
    returns, C1 codes, undecodable bytes kept as surrogates) shown as its Python escape."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
