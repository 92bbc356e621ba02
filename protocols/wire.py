"""Framing rules shared by every game's protocol (see protocols/README.md).

Pure functions only: the referee, the transports and the Python bot SDK all use them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

PROTOCOL_VERSION = 2
MAX_LINE_BYTES = 4096  # a longer line is a protocol error
MAX_LOG_LINES_PER_REQUEST = 16  # more LOG lines before one reply is an output flood
ENV_ENDPOINT = "REFEREE_ENDPOINT"
ENV_TOKEN = "REFEREE_TOKEN"
STDIO_ENDPOINT = "stdio"

MAX_QUOTE_CHARS = 200  # bot text quoted in an error detail is cut short at this length
MAX_PROTOCOL_DIGITS = 9
# The detail of a line that is not UTF-8. Its recorded line is an excerpt that already
# shows each undecodable byte escaped, as \xNN (referee/transport/channel.excerpt).
NOT_UTF8 = "line is not UTF-8"

_NAME = re.compile(r"[A-Za-z0-9._+-]{1,40}")
# Not str.isdigit() nor regex \d: those accept '²' or '٣', which int() rejects or reads.
_ASCII_DIGITS = re.compile(r"[0-9]+")
_ELLIPSIS = "..."


class WireError(ValueError):
    """A line that breaks the framing or the handshake grammar."""


@dataclass(frozen=True)
class Hello:
    """The bot's first line: `HELLO <protocol> <token> <name> <version>`."""

    protocol: int
    token: str
    name: str
    version: str


def parse_hello(line: str) -> Hello:
    """Parse the handshake line, or raise WireError saying what is wrong."""
    parts = line.split()
    if len(parts) != 5 or parts[0] != "HELLO":
        raise WireError("expected 'HELLO <protocol> <token> <name> <version>'")
    _, protocol, token, name, version = parts
    number = ascii_number(protocol, MAX_PROTOCOL_DIGITS)
    if number is None:
        raise WireError(f"protocol version must be a number, got {quote(protocol)}")
    if not (_NAME.fullmatch(name) and _NAME.fullmatch(version)):
        raise WireError("name and version must be 1-40 characters of A-Z a-z 0-9 . _ + -")
    return Hello(number, token, name, version)


def format_hello(token: str, name: str, version: str) -> str:
    return f"HELLO {PROTOCOL_VERSION} {token} {name} {version}"


def is_log(line: str) -> bool:
    """A debug line a bot may send at any time; recorded, otherwise ignored."""
    return line == "LOG" or line.startswith("LOG ")


def is_request(line: str) -> bool:
    """Referee lines whose first word ends in '?' want exactly one reply."""
    space = line.find(" ")
    return line.endswith("?") if space < 0 else space > 0 and line[space - 1] == "?"


def find_request(lines: Sequence[str]) -> str | None:
    """The first request among `lines`, or None. A request holds a '?' and most batches
    have none: one search for that character over the joined batch settles those."""
    if "?" not in "".join(lines):
        return None
    return next((line for line in lines if is_request(line)), None)


def decode_line(raw: bytes) -> str:
    """Bytes of one frame or one newline-terminated line to text, checking the framing."""
    if len(raw) > MAX_LINE_BYTES:
        raise WireError(f"line longer than {MAX_LINE_BYTES} bytes")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise WireError(f"{NOT_UTF8} ({exc.reason})") from None
    text = text.removesuffix("\n").removesuffix("\r")
    if "\n" in text or "\r" in text:
        raise WireError("a frame must hold exactly one line")
    return text


def error_line(kind: str, detail: str) -> str:
    """`ERROR <kind> <detail>`: sent (best effort) to a bot that faulted; at most
    MAX_LINE_BYTES of UTF-8 however long the detail, the detail cut short if need be."""
    line = f"ERROR {kind} {' '.join(detail.split())}"
    data = line.encode("utf-8", "replace")
    if len(data) <= MAX_LINE_BYTES:
        return data.decode("utf-8")
    cut = data[:MAX_LINE_BYTES - len(_ELLIPSIS)]
    return cut.decode("utf-8", "ignore") + _ELLIPSIS  # "ignore": drop a split last character


def ascii_number(text: str, max_digits: int) -> int | None:
    """`text` as a whole number if it is 1 to `max_digits` ASCII digits (0-9), else None."""
    if len(text) > max_digits or _ASCII_DIGITS.fullmatch(text) is None:
        return None
    return int(text)


def quote(text: str, limit: int = MAX_QUOTE_CHARS, escaped: bool = False) -> str:
    """`text` quoted (repr) for an error detail: at most `limit` characters, then "...".
    `escaped`: the text already shows undecodable bytes as \\xNN (the line of a NOT_UTF8
    fault), so its backslashes are not escaped a second time; all else is as repr."""
    cut = text[:limit]
    shown = "'" + "".join(map(_escaped_char, cut)) + "'" if escaped else repr(cut)
    # escapes can make the quoted text longer than the text
    return shown if len(shown) <= limit else shown[:limit] + _ELLIPSIS


def line_escaped(detail: str) -> bool:
    """Does a fault of this detail record its line with the undecodable bytes escaped
    already? Such a line is quoted with escaped=True, lest it be escaped twice."""
    return detail.startswith(NOT_UTF8)


def _escaped_char(char: str) -> str:
    if char == "'":
        return "\\'"
    return char if char.isprintable() else repr(char)[1:-1]


def key_values(pairs: dict[str, object]) -> str:
    """`k=v` words; values must not contain spaces."""
    return " ".join(f"{k}={v}" for k, v in pairs.items())


def parse_key_values(words: list[str]) -> dict[str, str]:
    """Inverse of key_values, for `k=v` words."""
    out: dict[str, str] = {}
    for word in words:
        key, sep, value = word.partition("=")
        if not sep:
            raise WireError(f"expected key=value, got {quote(word)}")
        out[key] = value
    return out
