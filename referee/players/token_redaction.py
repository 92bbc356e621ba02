"""No bot's one-time token in any output: a fault found in the handshake (a bad HELLO
line, or bytes that were no line, quoted) is recorded with its tokens as `<token>`.

The token is the bot's credential while the run lasts (a ZeroMQ endpoint is bound by
it), and a fault's line goes to standard error, the game log, the results db, its
tables and their HTML. A bot's own token is redacted wherever it is in the line and the
detail, and so is any word that looks like one (32 hex digits: another bot's, had it
learnt one), since HELLO puts nothing else there.
"""

from __future__ import annotations

import re

from referee.errors import BotFault

REDACTED = "<token>"
_TOKEN_LIKE = re.compile(r"[0-9a-fA-F]{32}")  # secrets.token_hex(16), as tokens are made


def redacted(text: str, token: str) -> str:
    """`text` with `token` and anything shaped like a token as REDACTED."""
    if token:
        text = text.replace(token, REDACTED)
    return _TOKEN_LIKE.sub(REDACTED, text)


def redact_fault(fault: BotFault, token: str) -> BotFault:
    """`fault` (a handshake's) with its detail and line redacted, in place."""
    fault.detail = redacted(fault.detail, token)
    fault.args = (fault.detail, *fault.args[1:])
    if fault.line is not None:
        fault.line = redacted(fault.line, token)
    return fault
