"""The Bots table of a report: each bot's role and command, the name and version its
HELLO gave, and the files it runs with their sha256, as the results db recorded them."""

from __future__ import annotations

from collections.abc import Mapping

from protocols.wire import quote
from tournaments.store.provenance import BotProvenance, short_hash
from tournaments.output.tables import Cell, Column, ResultTable
from tournaments.spec.definition import TournamentSpec

TITLE = "Bots"
_COLUMNS = (Column("bot", "bot"), Column("role", "role"), Column("command", "command"),
            Column("hello", "hello"), Column("executable", "executable"),
            Column("sha256", "executable_sha256"), Column("script", "script"),
            Column("script sha256", "script_sha256"))


def bots_table(spec: TournamentSpec, recorded: Mapping[str, BotProvenance],
               only: str | None = None) -> ResultTable:
    """A row per bot of `spec` (only the bot `only`, if given); n/a where the db recorded
    nothing (a db made before bots were recorded, or a bot yet to say HELLO)."""
    rows = tuple(_row(entry.name, "reference" if entry.reference else "candidate",
                      entry.command, recorded.get(entry.name))
                 for entry in spec.bots if only in (None, entry.name))
    return ResultTable("bots", TITLE if only is None else f"{TITLE}: {only}", _COLUMNS, rows)


def _row(name: str, role: str, command: str,
         bot: BotProvenance | None) -> tuple[Cell, ...]:
    if bot is None:
        return (name, role, command, None, None, None, None, None)
    # HELLO's words are the bot's own text: quoted, like every line a bot sends.
    hello = None if bot.hello is None else quote(" ".join(bot.hello))
    script_hash = None if bot.script is None else short_hash(bot.hashes.script)
    return (name, role, command, hello, bot.executable, short_hash(bot.hashes.executable),
            bot.script, script_hash)
