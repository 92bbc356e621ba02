"""`referee reproduce`: one seat of a logged game played again by a bot, to find where
it does what the log says it did, and where not.

The game is played again from the log's header (game, seed, settings): the seat under
test is a real bot, started as every bot is (Lineup: its sandbox, limits and times, the
log's own), and every other seat answers as the log says it did, and faults where the
log says it faulted. So until the bot under test answers otherwise, it is sent exactly
the lines the log says its seat was sent (checked at each request). It stops at:

- the bot's fault: the same kind at the same step as the log's is the fault reproduced,
  else a new one (exit 1 either way: the bot still faults);
- its first reply that differs from the log's before the log's fault of that seat (a
  changed bot, or one that plays by chance: exit 1);
- after the step where the log has the seat's fault, which the bot now passes, the first
  move that differs from the one the fallback made then: from there on the game would
  differ, and the others' logged moves no longer apply (exit 0: it passed);
- the game's end (exit 0).

Steps are numbered as in `referee view LOG` (its `#step=N`, viewer.steps).
"""

from __future__ import annotations

import io
import shlex
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, NoReturn

from protocols.faults import FaultKind
from referee.errors import BotFault, ConfigError, Fault
from referee.logs.derive import Lookup, load_log
from referee.logs.stream import LoggedGame, Underivable
from referee.logs.writer import DecidedBy, GameLog
from referee.players.lineup import BotSpec, LaunchSettings, Lineup
from referee.players.player import Player
from referee.printable import printable
from referee.viewer.steps import Step, decisions

PASSED, FAULTED = 0, 1  # exit codes: referee/cli/exit_codes.py


def command_hint(seat: int, db_path: Path | None = None, game_id: str | None = None,
                 log_path: Path | None = None) -> str:
    """What a fault message prints: the command that plays the faulted seat again, of a
    stored game (DB GAME_ID) or of a game log."""
    source = f"--log {shlex.quote(str(log_path))}" if log_path is not None else \
        f"{shlex.quote(str(db_path))} {shlex.quote(str(game_id))}"
    return f"reproduce: referee reproduce {source} --seat {seat}"


@dataclass
class Verdict:
    """What the bot did against the log: an exit code and the lines that say it."""

    code: int
    lines: list[str]


class _Stop(BaseException):
    """The verdict is in: the game played again stops here. A BaseException, so that no
    game's handler of a bot's errors takes it."""

    def __init__(self, verdict: Verdict) -> None:
        super().__init__(verdict.lines[0] if verdict.lines else "")
        self.verdict = verdict


class _Unfit(BaseException):
    """The game played again does not come to what the log holds (another referee, an
    altered log): not the bot's doing."""


def reproduce(log_path: Path, seat: int, bot: BotSpec, launch: LaunchSettings,
              lookup: Lookup, log_label: str | None = None) -> Verdict:
    """Seat `seat` of the game logged at `log_path` played again by `bot`, the others as
    logged. ConfigError: a log that cannot be read or played again, a seat it lacks."""
    records = load_log(log_path, lookup)
    header = records[0]
    seats = len(header.get("players", []))
    if not 0 <= seat < seats:
        raise ConfigError(f"--seat {seat}: the game has seats 0 to {seats - 1}")
    if any(r.get("type") == "interrupted" for r in records):
        raise ConfigError(f"{log_path} is of a game that was interrupted: reproduce needs "
                          "a whole game")
    try:
        logged = LoggedGame.of(header, lookup)
    except (Underivable, KeyError, TypeError, ValueError) as error:
        raise ConfigError(f"cannot play {log_path} again: {error}") from None
    steps, moves, _ = decisions(records)
    judge = _Judge(seat, steps, moves, log_label or str(log_path))
    players: list[Player] = [_Scripted(s, steps, judge.beyond_log) for s in range(seats)]
    with Lineup(replace(launch, times=logged.times)) as lineup:
        players[seat] = _Watched(lineup.launch(bot), judge)
        try:
            logged.run(players, _Watch(judge))
        except _Stop as stop:
            return stop.verdict
        except _Unfit as unfit:
            raise ConfigError(f"{log_path} cannot be played again here: {unfit} (written "
                              f"by referee {header.get('referee')})") from None
    return judge.ended()


@dataclass
class _Judge:
    """The seat's logged steps, taken one by one as the bot is asked, and the verdict."""

    seat: int
    steps: list[Step]
    moves: Sequence[Mapping[str, Any]]
    log_label: str
    ahead: deque[int] = field(default_factory=deque)  # the seat's steps not yet come to
    at: int | None = None  # the step the bot is at (its last request)
    sent: list[str] = field(default_factory=list)  # lines sent since its last request
    passed: list[str] = field(default_factory=list)  # the log's faults it did not make
    asks: int = 0

    def __post_init__(self) -> None:
        self.ahead.extend(i for i, step in enumerate(self.steps) if step.seat == self.seat)

    @property
    def past_fault(self) -> bool:
        return bool(self.passed)

    def asked(self, batch: Sequence[str]) -> Step:
        """The bot is sent a request: the step it is at, whose lines must be the log's
        (until the seat's logged fault, after which the log holds none)."""
        self.sent += batch
        while self.ahead:
            index = self.ahead.popleft()
            step = self.steps[index]
            if step.kind is not None:
                break
            self._pass(index, step)  # a fault the log found between its requests
        else:
            self.beyond_log(f"seat {self.seat}")
        self.at, self.asks = index, self.asks + 1
        if not self.past_fault and self.sent != step.asked:
            raise _Unfit(f"at step {index} seat {self.seat} is sent other lines than the "
                         f"log holds ({_first_difference(step.asked, self.sent)})")
        self.sent = []
        return step

    def replied(self, step: Step, reply: str) -> None:
        """Its reply: before the seat's logged fault, it must be the log's."""
        if self.past_fault or reply == step.answer:
            return
        index = self.at
        assert index is not None
        if step.faults:
            self._pass(index, step, reply)
            return
        raise _Stop(Verdict(FAULTED, [
            f"step {index}: the reply differs from the log's{self._where(index)}",
            *self._exchange(step, repr(step.answer), repr(reply)),
            "a changed bot, or one that plays by chance: from here on the game would "
            "differ"]))

    def beyond_log(self, who: str) -> NoReturn:
        """A seat is asked more often than the log has it asked: past the bot's passed
        fault, the game went on where the log's ended (The Game ends at a fault);
        before it, the log is not of this game."""
        if self.past_fault:
            raise _Stop(Verdict(PASSED, [*self.passed, (
                f"diverges after step {self.at}: the log's game ended at the fault, this "
                "one goes on; from here on the game would differ; stopped")]))
        raise _Unfit(f"{who} is asked more often than the log has it asked")

    def moved(self, kind: str, move: str) -> None:
        """A move of the seat, once past the logged fault: the log's fallback made one
        here; another move takes the game elsewhere."""
        if not self.past_fault or self.at is None:
            return
        step = self.steps[self.at]
        logged = self.moves[step.moves - 1] if 0 < step.moves <= len(self.moves) else {}
        if step.by != "fallback" or logged.get("seat") != self.seat:
            before = "the log has no move of this seat here (its game ended at the fault)"
        elif (logged.get("kind"), logged.get("move")) != (kind, move):
            before = f"the log's fallback's {logged.get('kind')} was {logged.get('move')}"
        else:
            return
        raise _Stop(Verdict(PASSED, [
            *self.passed,
            f"diverges at step {self.at}: {before}, the bot's {kind} is {move}: from here on "
            "the game would differ, and the others' logged moves no longer apply; "
            "stopped"]))

    def faulted(self, fault: Fault) -> None:
        """The bot's fault: the log's at this step, or a new one. Nothing sent since its
        last request: a fault in the wait, or its reply refused; else it was found as
        lines went out, before its next step."""
        current = self.at is not None and not self.sent
        index = self.at if current or not self.ahead else self.ahead[0]
        step = self.steps[index] if index is not None else None
        logged = [f for f in (step.faults if step else []) if f.get("kind") == fault.kind.value]
        now = f"{fault.kind.value}: {printable(fault.detail)}{_line(fault.line)}"
        if logged and not self.past_fault:
            old = f"{logged[0]['kind']}: {printable(str(logged[0].get('detail')))}"
            head = f"{_step(index)}: the fault is reproduced{self._where(index)}"
        else:
            old = _logged_words(step) if step else "nothing (the log ends)"
            head = f"{_step(index)}: a new fault{self._where(index)}"
        lines = [*self.passed, head]
        if step is not None:
            lines += self._exchange(step, old, now)
        raise _Stop(Verdict(FAULTED, lines))

    def ended(self) -> Verdict:
        what = "passes every step" if not self.passed else "plays on to the game's end " \
            "with the moves the fallback made"
        return Verdict(PASSED, [*self.passed, f"the game is over: the bot {what} "
                                              f"({self.asks} requests, as logged)"])

    def _pass(self, index: int, step: Step, reply: str | None = None) -> None:
        fault = step.faults[0] if step.faults else None
        if fault is None:
            return
        now = f"replies {reply!r}" if reply is not None else "no fault"
        self.passed += [f"step {index}: passes the step the log has its fault at"
                        f"{self._where(index)}",
                        *self._exchange(step, _logged_words(step), now)]

    def _where(self, index: int | None) -> str:
        if index is None:
            return " (before its first request)"
        return f" (`referee view {self.log_label}`, #step={index})"

    @staticmethod
    def _exchange(step: Step, old: str, new: str) -> list[str]:
        sent = step.asked[-1] if step.asked else "(no request)"
        return [f"  sent:   {printable(sent)}", f"  logged: {printable(old)}",
                f"  now:    {printable(new)}"]


def _step(index: int | None) -> str:
    return "at the start" if index is None else f"step {index}"


def _logged_words(step: Step) -> str:
    """What the log has the seat do at `step`: its fault (and reply), or its reply."""
    if step.faults:
        fault = step.faults[0]
        reply = f"replied {step.answer!r}, " if step.answer is not None else ""
        return f"{reply}{fault.get('kind')}: {fault.get('detail')}"
    return repr(step.answer)


def _line(line: str | None) -> str:
    return f" (line: {line[:120]!r})" if line is not None else ""


def _first_difference(logged: Sequence[str], sent: Sequence[str]) -> str:
    for at, (a, b) in enumerate(zip(logged, sent)):
        if a != b:
            return f"line {at}: logged {a[:60]!r}, now {b[:60]!r}"
    return f"logged {len(logged)} lines, now {len(sent)}"


class _Watched(Player):
    """The bot under test: every line it is sent goes to the judge, and each reply."""

    def __init__(self, player: Player, judge: _Judge) -> None:
        self.name = player.name
        self._player = player
        self._judge = judge

    def new_game(self, line: str) -> None:
        self._judge.sent.append(line)
        self._player.new_game(line)

    def tell(self, line: str) -> None:
        self._judge.sent.append(line)
        self._player.tell(line)

    def tell_many(self, lines: Sequence[str]) -> None:
        self._judge.sent += lines
        self._player.tell_many(lines)

    def ask(self, line: str, preamble: Sequence[str] = ()) -> str:
        step = self._judge.asked((*preamble, line))
        reply = self._player.ask(line, preamble)
        self._judge.replied(step, reply)
        return reply

    def say_bye(self) -> None:
        self._player.say_bye()

    def close(self, grace: float | None = None) -> None:
        self._player.close(grace)


class _Watch(GameLog):
    """The log the game played again writes to (nowhere): the seat's moves and faults go
    to the judge."""

    def __init__(self, judge: _Judge) -> None:
        super().__init__(io.BytesIO(), timestamps=False)
        self.bot_moves = True
        self._judge = judge

    def move(self, seat: int, kind: str, move: str, by: DecidedBy) -> None:
        if seat == self._judge.seat:
            self._judge.moved(kind, move)

    def fault(self, fault: Fault) -> None:
        if fault.seat == self._judge.seat:
            self._judge.faulted(fault)

    def result(self, result: dict[str, Any]) -> None:
        pass


class _Scripted(Player):
    """Another seat: it answers what the log says it answered and faults where the log
    says it faulted; once faulted, it is sent nothing that matters."""

    def __init__(self, seat: int, steps: Sequence[Step],
                 beyond_log: Callable[[str], NoReturn]) -> None:
        self.name = f"seat {seat}"
        self._seat = seat
        self._beyond_log = beyond_log
        self._script: deque[Step] = deque(
            step for step in steps if step.seat == seat and (
                step.faults or (step.by != "fallback" and step.answer is not None)))
        self._faulted = False

    def new_game(self, line: str) -> None:
        self._between()

    def tell(self, line: str) -> None:
        self._between()

    def tell_many(self, lines: Sequence[str]) -> None:
        self._between()

    def ask(self, line: str, preamble: Sequence[str] = ()) -> str:
        if self._faulted:
            return ""
        self._between()
        if not self._script:
            self._beyond_log(self.name)
        step = self._script.popleft()
        if step.answer is not None:  # refused, if the log has a fault after it
            self._faulted = bool(step.faults)
            return step.answer
        self._raise(step)
        return ""  # unreachable: _raise raises

    def _between(self) -> None:
        """A fault the log found before the seat's next request (kind None)."""
        if not self._faulted and self._script and self._script[0].kind is None:
            self._raise(self._script.popleft())

    def _raise(self, step: Step) -> None:
        self._faulted = True
        fault = step.faults[0]
        error = BotFault(str(fault.get("detail")), fault.get("line"))
        error.kind = FaultKind(str(fault.get("kind")))
        raise error
