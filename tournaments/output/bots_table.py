"""The Bots table of a report: each bot's role, version and command, the name and version
its HELLO gave, and the files it runs with their sha256, as the results db recorded them
(people see role and version in a gauntlet alone); and for a gauntlet whose class
changed, the games the tables leave out."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from protocols.wire import quote
from tournaments.store.provenance import BotProvenance, short_hash
from tournaments.output.tables import Cell, Column, ResultTable
from tournaments.spec.definition import TournamentSpec
from tournaments.store.results_db import LeftOut

TITLE = "Bots"
_COLUMNS = (Column("bot", "bot"), Column("role", "role"), Column("version", "version"),
            Column("command", "command"), Column("hello", "hello"),
            Column("executable", "executable"),
            Column("sha256", "executable_sha256"), Column("script", "script"),
            Column("script sha256", "script_sha256"))


# Where a bot's files are on the organiser's machine (its command, executable and script
# paths): not for a public page (serve --public), whose readers get each bot's name, its
# HELLO and its files' sha256, enough to tell which code played.
_PRIVATE = ("command", "executable", "script")

# Role and version, which people see in a gauntlet alone: elsewhere every bot is a
# candidate whose files cannot change (a resume refuses), so both read the same on every
# row, and an arena round's "version 1" beside "alice@v2" misleads.
_GAUNTLET_ONLY = ("role", "version")


def bots_table(spec: TournamentSpec, recorded: Mapping[str, BotProvenance],
               only: str | None = None, people: bool = False) -> ResultTable:
    """A row per bot of `spec` (only the bot `only`, if given); n/a where the db recorded
    nothing (a db made before bots were recorded, or a bot yet to say HELLO). Tables for
    `people` leave out role and version but in a gauntlet."""
    rows = tuple(_row(entry.name, "reference" if entry.reference else "candidate",
                      entry.command, recorded.get(entry.name))
                 for entry in spec.bots if only in (None, entry.name))
    table = ResultTable("bots", TITLE if only is None else f"{TITLE}: {only}", _COLUMNS, rows)
    return table.without(_GAUNTLET_ONLY) if people and not spec.references else table


def _row(name: str, role: str, command: str,
         bot: BotProvenance | None) -> tuple[Cell, ...]:
    if bot is None:
        return (name, role, None, command, None, None, None, None, None)
    # HELLO's words are the bot's own text: quoted, like every line a bot sends.
    hello = None if bot.hello is None else quote(" ".join(bot.hello))
    script_hash = None if bot.script is None else short_hash(bot.hashes.script)
    return (name, role, bot.version, command, hello, bot.executable,
            short_hash(bot.hashes.executable), bot.script, script_hash)


def left_out_table(left_out: Sequence[LeftOut]) -> list[ResultTable]:
    """The games kept in a gauntlet's db that no table above counts: those of candidates
    removed from the class, and of versions since replaced (none: no table)."""
    if not left_out:
        return []
    rows = tuple((item.bot, item.version, item.games,
                  "removed from the class" if item.removed else
                  f"replaced by version {item.version + 1}") for item in left_out)
    columns = (Column("bot", "bot"), Column("version", "version"), Column("games", "games"),
               Column("why", "why"))
    return [ResultTable("left_out", "Not counted above: games kept in the results db of "
                        "candidates removed from the class or of versions since replaced",
                        columns, rows)]


def for_the_public(table: ResultTable) -> ResultTable:
    """`table` as a public page shows it: a Bots table without the paths (_PRIVATE),
    its "sha256" named for what it is a hash of, the executable no longer beside it."""
    if table.name != "bots":
        return table
    table = table.without(_PRIVATE)
    return replace(table, columns=tuple(
        replace(column, name="executable sha256") if column.key == "executable_sha256"
        else column for column in table.columns))
