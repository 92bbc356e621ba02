"""What a bot's name may be: a student's own name (Zoë, José, 王芳), up to 40 characters.

A name is shown in every table and format (each escapes what its format would act on),
written in game logs and results dbs, and joined by '+' into team names; a bot's stderr
file outside games is named after it. So a name is NFC-normalized (an é typed as e and a
combining accent is the same name as é) and holds no character that would break one of
those: no whitespace, no control or other unprintable character, no '+' (team names), no
'=' (NAME=COMMAND), no '/' or '\\' (file names), and is not '.' or '..'.
"""

from __future__ import annotations

import unicodedata

MAX_NAME = 40
RULE = (f"1 to {MAX_NAME} printable characters (any language), with no space and none of "
        "+ = / \\")
_BARRED = set("+=/\\")


def normal_name(text: str) -> str:
    """`text` as names are compared and stored: NFC."""
    return unicodedata.normalize("NFC", text)


def is_bot_name(text: str) -> bool:
    """Whether `text` (NFC already) may name a bot."""
    return (0 < len(text) <= MAX_NAME and text not in (".", "..")
            and all(c.isprintable() and not c.isspace() and c not in _BARRED for c in text))


def name_word(text: str) -> str:
    """`text` (NFC already) with each run of characters a name may not hold (a space, a
    '+', an unprintable one...) made one '_', and none at either end: a folder called
    "Zoë Ann" names the bot "Zoë_Ann". It may still be too long, empty, or '.'."""
    runs: list[str] = []
    for c in text:
        allowed = c.isprintable() and not c.isspace() and c not in _BARRED
        if allowed or not runs or runs[-1] != "_":
            runs.append(c if allowed else "_")
    return "".join(runs).strip("_")
