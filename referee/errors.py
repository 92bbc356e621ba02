"""The exception hierarchy: bot faults (results, never tracebacks) and user errors."""

from __future__ import annotations

from dataclasses import dataclass

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


class ProtocolError(BotFault):
    kind = FaultKind.PROTOCOL


class IllegalMove(BotFault):
    kind = FaultKind.ILLEGAL


class OutputFlood(BotFault):
    kind = FaultKind.FLOOD


class BotDisqualified(BotFault):
    kind = FaultKind.DISQUALIFIED


@dataclass(frozen=True)
class Fault:
    """A recorded fault: which seat and bot, what kind, why, and the offending line."""

    seat: int
    bot: str
    kind: FaultKind
    detail: str
    line: str | None = None

    @classmethod
    def from_error(cls, seat: int, bot: str, error: BotFault) -> Fault:
        return cls(seat, bot, error.kind, error.detail, error.line)

    def to_json(self) -> dict[str, object]:
        return {"seat": self.seat, "bot": self.bot, "kind": self.kind.value,
                "detail": self.detail, "line": self.line}


class RuleError(ValueError):
    """An engine was asked to do something the rules forbid (a bug or a bad move)."""


class ConfigError(ValueError):
    """A bad setting: impossible variant combination, bad command mapping, bad file."""


class BotStartError(Exception):
    """A bot command could not be started at all (not found, not executable)."""
