"""Every exit code of every `referee` command, in one table: `referee --help` shows it and
README.md copies it (tests/referee/test_exit_codes.py keeps the two the same), so a CI job
can rely on what a code means."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

# The codes main() itself ends with; a command may return its own 0, 1 or 3.
FAILED = 1  # a failure while running, or a verdict against the bot (below)
BAD_USAGE = 2
UNDECIDED = 3  # referee gate: the cap came before a decision
CUT_SHORT = 4  # referee replay: the log is of a game that was interrupted
INTERRUPTED = 130  # 128 + SIGINT
# 128 + SIGPIPE: what a shell reads from a program its closed pipe killed (`yes | head`
# gives 141), so a pipeline's status says the same whoever wrote the program
STDOUT_CLOSED = 141
TERMINATED = 143  # 128 + SIGTERM
EVERY_COMMAND = "every command"


@dataclass(frozen=True)
class ExitCode:
    """One code: the commands that end with it and what it means there."""

    code: int
    commands: str
    meaning: str


EXIT_CODES = (
    ExitCode(0, EVERY_COMMAND,
             "success: play and tournament refereed every game (a bot's fault is a result, "
             "not an error, unless --fail-on-fault); results printed the tables; replay "
             "verified the log; show printed it; rerun reproduced the game; reproduce: the "
             "bot passes (no fault, every reply as logged up to the log's fault); check: the "
             "bot conforms; gate: NEW is not weaker; view and publish wrote their pages; "
             "connect: the referee is done with the bot; arena: the version was added (it "
             "passed its check), the run stopped as asked, the standings or site written"),
    ExitCode(FAILED, EVERY_COMMAND,
             "play and tournament with --fail-on-fault: a bot faulted; check: a check "
             "failed; gate: NEW is weaker, or faulted; rerun: the game came out "
             "differently; reproduce: the bot faults, or a reply differs from the log's "
             "before its fault; replay: the log does not verify; connect: the referee "
             "refused the key or the connection, or the bot could not start; arena submit: "
             "the version failed its check (recorded as refused, its report printed). Any "
             "command: a "
             "failure while "
             "running: a damaged results db (broken rows, missing tables or columns, a "
             "malformed SQLite file), a results db that cannot be written or read mid-run "
             "(a full disk, a folder no longer writable, locked by another run for over a "
             "minute), pool workers that keep dying, a referee bug. What was stored stays: "
             "the same command again resumes"),
    ExitCode(BAD_USAGE, EVERY_COMMAND,
             "bad usage or input, found before any game: no command (one usage line), the "
             "wrong number of bots, a bot command that cannot be started or a bot file "
             "that cannot be read, an unknown or impossible variant, a number out of range, "
             "a bad command mapping, options of another game, a bad tournament file, a "
             "--log, --db, --junit or --json that cannot be written, a file that is no "
             "results db or no game log, a results db in use by another run (\"in use by "
             "pid N\"), a resumed bot whose files changed, a --cluster address where no Dask "
             "scheduler answers, a publish DIR that is a file or cannot be written, a folder "
             "that is no arena or an arena.db whose rows are damaged, an arena with fewer "
             "active versions than a table's seats"),
    ExitCode(UNDECIDED, "gate", "undecided: --max-games came before the test decided, or "
                                "BASELINE or an opponent faulted"),
    ExitCode(CUT_SHORT, "replay", "the log is of a game that was interrupted (Ctrl-C, "
                                  "SIGTERM, its output closed): it reads up to there, and "
                                  "there is no result to reproduce"),
    ExitCode(INTERRUPTED, "play, tournament, check, gate, rerun, connect, serve, arena run",
             "interrupted by Ctrl-C (SIGINT), every bot stopped; a tournament ends its "
             "workers' games in flight at once (they are not kept, and leave no file; on a "
             "`--cluster` a game already running plays to its end on its worker, unkept) and "
             "says how many games it kept, and the same command again resumes (an arena run "
             "too); a gate prints its results "
             "so far; play's game log ends where the game stopped, marked interrupted; play "
             "also when a human seat's input ends (Ctrl-D); serve: the server stopped (how "
             "it always ends), the tournament it watched plays on. The first stop decides: "
             "while the referee stops, a second Ctrl-C or SIGTERM changes nothing and a "
             "third ends it at once, by the first one's code"),
    ExitCode(STDOUT_CLOSED, "play", "standard output closed (piped into head, say): the "
                                    "game stopped there, as for Ctrl-C (128 + SIGPIPE, as a "
                                    "shell reports a program a closed pipe ended)"),
    ExitCode(TERMINATED, "play, tournament, check, gate, rerun, connect, serve, arena run",
             "stopped by SIGTERM, as for Ctrl-C"),
)


def markdown_table() -> str:
    """The table as README.md has it."""
    lines = ["| code | commands | meaning |", "| --- | --- | --- |"]
    lines += [f"| {row.code} | {row.commands} | {row.meaning} |" for row in EXIT_CODES]
    return "\n".join(lines) + "\n"


def help_text(width: int = 78) -> str:
    """The table for `referee --help`, wrapped here: click keeps a paragraph that starts
    with \\b as written."""
    rows = []
    for row in EXIT_CODES:
        where = "" if row.commands == EVERY_COMMAND else f"{row.commands}: "
        rows += textwrap.wrap(f"{row.code:>3}  {where}{row.meaning}", width,
                              initial_indent="  ", subsequent_indent=" " * 7)
    return "\b\nExit codes:\n" + "\n".join(rows)
