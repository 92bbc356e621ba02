"""What a fault quotes of a bot's stderr: its last lines, bounded, escaped, no token.

A student reads why their bot failed where the fault is shown (a KeyError's traceback, a
SyntaxError), not in a file beside the results. The lines come from the bot's stderr
sink (StderrSink.recent: what it wrote in this game) and are made safe for every output:
tokens redacted (token_redaction), characters a terminal would act on escaped (printable).
A ZeroMQ bot's stdout goes there too: a stdio bot run without `stdio:` writes its HELLO
on it, which is told as a hint and never quoted (its token is a credential).
"""

from __future__ import annotations

from referee.errors import BotFault
from referee.players.token_redaction import redacted
from referee.printable import printable

MAX_LINES = 20
MAX_CHARS = 2048  # of the quoted lines together
MAX_LINE = 300  # one line's characters, the rest cut with "..."
STDIO_HINT = ("it wrote HELLO on its standard output: a stdio bot? run it as "
              "stdio:COMMAND")


def tail_lines(data: bytes, token: str = "", cut: bool = False) -> tuple[str, ...]:
    """The last lines of `data` (a bot's stderr), at most MAX_LINES and MAX_CHARS, each
    escaped and with tokens redacted; HELLO lines left out. `cut`: `data` starts
    mid-stream, so its first line is partial and dropped."""
    lines = data.decode("utf-8", "replace").splitlines()
    if cut and lines:
        lines = lines[1:]
    kept: list[str] = []
    total = 0
    for raw in reversed(lines):
        if not raw.strip() or said_hello(raw):
            continue
        line = printable(redacted(raw.rstrip(), token))
        if len(line) > MAX_LINE:
            line = line[:MAX_LINE] + "..."
        if len(kept) == MAX_LINES or total + len(line) > MAX_CHARS:
            break
        kept.append(line)
        total += len(line)
    return tuple(reversed(kept))


def said_hello(line: str) -> bool:
    return line.startswith("HELLO ")


def with_stdio_hint(error: BotFault, data: bytes) -> BotFault:
    """`error` (a ZeroMQ bot's start-up fault) with STDIO_HINT added to its detail if the
    bot wrote a HELLO line on its stdout (in `data`), in place."""
    text = data.decode("utf-8", "replace")
    if any(said_hello(line) for line in text.splitlines()):
        error.detail = f"{error.detail}; {STDIO_HINT}"
        error.args = (error.detail, *error.args[1:])
    return error
