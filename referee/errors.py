"""The exception hierarchy: bot faults (results, never tracebacks) and user errors."""

from __future__ import annotations

from dataclasses import dataclass, field

from protocols.faults import FaultKind


class BotFault(Exception):
    """A bot broke the protocol, the rules or a limit. Caught by the match and recorded."""

    kind: FaultKind = FaultKind.PROTOCOL

    def __init__(self, detail: str, line: str | None = None) -> None:
        super().__init__(detail)
        self.detail = detail
        self.line = line


class BotTimeout(BotFault):
    kind = FaultKind.TIMEOUT


class BotCrashed(BotFault):
    kind = FaultKind.CRASH

    def __init__(self, detail: str, exit_code: int | None, line: str | None = None) -> None:
        super().__init__(detail, line)
        self.exit_code = exit_code


class BotStartFailed(BotFault):
    """The bot never began to play: its start-up's own fault, told apart from a crash in
    the game (a student's syntax error is not a bug in round 3)."""

    kind = FaultKind.STARTUP


class ProtocolError(BotFault):
    kind = FaultKind.PROTOCOL


class IllegalMove(BotFault):
    kind = FaultKind.ILLEGAL


class OutputFlood(BotFault):
    kind = FaultKind.FLOOD


class BotDisqualified(BotFault):
    kind = FaultKind.DISQUALIFIED


@dataclass(frozen=True)
class Where:
    """Where a game stands, for a fault's record: in words for people ("round 3, trick
    2", "turn 14", "the end"), and the round as a number in a game played in rounds,
    where the game knows it (None at the end), so that no one reads it back from the
    words (Rage's score sheet names the fallback's rows from it)."""

    words: str
    round_no: int | None = None


@dataclass(frozen=True)
class Fault:
    """A recorded fault: which seat and bot, what kind, why, and the offending line;
    where in the game (e.g. "round 3, trick 2", "turn 14"), the step of the game log's
    decisions it belongs to (`referee view`'s #step=N), the last lines of the bot's
    stderr, escaped, and the round it came in, in a game of rounds (None and () where
    not known, as in records older than these)."""

    seat: int
    bot: str
    kind: FaultKind
    detail: str
    line: str | None = None
    where: str | None = None
    step: int | None = None
    stderr: tuple[str, ...] = field(default=())
    round_no: int | None = None

    @classmethod
    def from_error(cls, seat: int, bot: str, error: BotFault,
                   where: Where | None = None) -> Fault:
        if where is None:
            return cls(seat, bot, error.kind, error.detail, error.line)
        return cls(seat, bot, error.kind, error.detail, error.line, where.words,
                   round_no=where.round_no)

    @property
    def place(self) -> str:
        """Where it happened, for people: "round 3, trick 2, step 41" ("" if unknown)."""
        step = None if self.step is None else f"step {self.step}"
        return ", ".join(part for part in (self.where, step) if part)

    def summary(self) -> str:
        """One line for people: "crash (round 3, trick 2, step 41): bot exited with code 1"."""
        place = f" ({self.place})" if self.place else ""
        return f"{self.kind.value}{place}: {self.detail}"

    def to_json(self) -> dict[str, object]:
        """The fields a game log holds (a replay makes the same): what, not where."""
        return {"seat": self.seat, "bot": self.bot, "kind": self.kind.value,
                "detail": self.detail, "line": self.line}

    def record_json(self) -> dict[str, object]:
        """to_json, with where, step, stderr and round: as results keep it."""
        return {**self.to_json(), "where": self.where, "step": self.step,
                "stderr": list(self.stderr), "round": self.round_no}


class RuleError(ValueError):
    """An engine was asked to do something the rules forbid (a bug or a bad move)."""


class ConfigError(ValueError):
    """A bad setting: impossible variant combination, bad command mapping, bad file."""


class BotStartError(Exception):
    """A bot command could not be started at all (not found, not executable)."""
