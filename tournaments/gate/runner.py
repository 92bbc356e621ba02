"""`referee gate`'s runner: deal after deal, NEW and BASELINE play the same games, and a
sequential test on the paired differences decides whether NEW is weaker.

Bots are played as a tournament worker plays them (tournaments/run/fixture_play.py: a BotPool, a log
per game, the same reuse policy). Faults end the gate at once: one by NEW fails it (NEW
did something it must not), one by BASELINE or an opponent leaves it undecided, since
the deal no longer compares like with like, and dropping such deals silently would let a
NEW that provokes an opponent's fault choose its own sample.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from referee.errors import BotStartError, ConfigError, Fault
from referee.matches.game import Contest, Options
from referee.players.lineup import LaunchSettings, bot_labels, named
from referee.registry.games import AnyGame
from tournaments.gate.schedule import (
    BASELINE, NEW, ROLES, GateTable, candidate_score, deal_fixtures, paired_difference,
)
from tournaments.run.fixture_play import (
    PlayContext, checked_context, close_worker_pool, play_fixture,
)
from tournaments.store.records import GameRecord
from tournaments.schedule.fixtures import Fixture, deal_seed
from tournaments.spec.definition import BotEntry, SpecError, TournamentSpec
from tournaments.stats.sprt import Decision, PairedSprt, SprtSettings


class GateVerdict(enum.StrEnum):
    """What `referee gate` says of NEW against the baseline (its exit code: EXIT_CODES)."""

    NOT_WEAKER = "not weaker"
    WEAKER = "weaker"
    UNDECIDED = "undecided"


EXIT_CODES = {GateVerdict.NOT_WEAKER: 0, GateVerdict.WEAKER: 1, GateVerdict.UNDECIDED: 3}


@dataclass(frozen=True)
class GatePlan:
    """What to play: the deals' shape, where their seeds come from, the test, the cap."""

    table: GateTable
    secret: bytes  # keys the deal seeds (fixtures.deal_seed)
    seed: int
    sprt: SprtSettings
    max_games: int


@dataclass(frozen=True)
class GateFault:
    """A fault that ended the gate, with the game it happened in and that game's log."""

    fault: Fault
    game_id: str
    log: Path


@dataclass
class GateState:
    """The test so far: the differences, the running test, the games played."""

    test: PairedSprt
    differences: list[float] = field(default_factory=list)
    games: int = 0


@dataclass(frozen=True)
class GateResult:
    verdict: GateVerdict
    reason: str
    state: GateState
    fault: GateFault | None = None

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.verdict]


Progress = Callable[[GateState], None]
PlayOne = Callable[[Fixture, PlayContext], GameRecord]


def gate_table(game: AnyGame, opponents: int, size: int | None) -> GateTable:
    """The deals' shape: `size` seats (default: one per bot, at least the game's least),
    filled by the opponents cycling; ConfigError where they cannot be."""
    least, most = game.seats.start, game.seats.stop - 1
    competitive = game.contest is Contest.COMPETITIVE
    if size is None:
        size = max(least, opponents + 1)
    what = "table" if competitive else "team"
    if not least <= size <= most:
        raise ConfigError(f"a {game.title} {what} has {least} to {most} seats, not {size}")
    if opponents + 1 > size:
        raise ConfigError(f"{opponents} opponents need a {what} of at least "
                          f"{opponents + 1}, not {size}")
    if opponents == 0 and (competitive or size >= 2):
        raise ConfigError(f"a {game.title} {what} of {size} needs at least one "
                          "--opponent")
    return GateTable(game.name, game.contest, size, opponents)


@dataclass(frozen=True)
class GateBots:
    """The command lines: NEW, BASELINE and the opponents (teammates), in seat order."""

    new: str
    baseline: str
    opponents: tuple[str, ...]
    dirs: Mapping[str, Path] = field(default_factory=dict)  # --bot-dir, by name

    def entries(self) -> tuple[BotEntry, ...]:
        """Bot entries by gate index, named new, baseline and after the opponents, each
        with its declared folder (BotStartError for a name no bot has)."""
        labels = bot_labels(self.opponents)
        taken = [label for label in labels if label in ROLES.values()]
        if taken:
            raise ConfigError(f"an opponent may not be called {taken[0]!r}: NEW and "
                              "BASELINE are")
        commands = [named(text)[1] for text in (self.new, self.baseline, *self.opponents)]
        names = (ROLES[NEW], ROLES[BASELINE], *labels)
        for name in self.dirs:
            if name not in names:
                raise BotStartError(f"--bot-dir {name}=...: no bot is named {name!r} (the "
                                    f"bots: {', '.join(names)})")
        return tuple(BotEntry(name, command, dir=_dir(self.dirs.get(name)))
                     for name, command in zip(names, commands))


def _dir(folder: Path | None) -> str | None:
    return None if folder is None else str(folder)


def gate_context(game: AnyGame, bots: GateBots, size: int, options: Options,
                 launch: LaunchSettings, logs: Path,
                 persistent_bots: bool = False) -> PlayContext:
    """How every game of the gate is played, checked before any starts as a tournament's
    is: the commands (BotStartError), the game's config and the sandbox (ConfigError)."""
    try:
        spec = TournamentSpec.create(game, bots.entries(), size=size,
                                     time_limits=launch.times,
                                     resource_limits=launch.limits,
                                     options=dict(options.items))
    except SpecError as error:
        raise ConfigError(str(error)) from None
    logs = logs.resolve()
    return checked_context(PlayContext(
        spec, (), logs, launch.transport, busy_wait=launch.busy_wait, sandbox=launch.sandbox,
        persistent_bots=persistent_bots, secrets=(logs, *launch.secrets),
        remote=launch.remote))


def run_gate(plan: GatePlan, context: PlayContext, progress: Progress,
             play: PlayOne = play_fixture) -> GateResult:
    """Play deals until the test decides, a fault ends the gate, or the next deal would
    pass `max_games`; `progress` hears of every deal. The bots are closed at the end."""
    state = GateState(PairedSprt(plan.sprt, plan.table.step()))
    try:
        return _run(plan, context, progress, play, state)
    finally:
        close_worker_pool()


def _run(plan: GatePlan, context: PlayContext, progress: Progress, play: PlayOne,
         state: GateState) -> GateResult:
    per_deal = plan.table.games_per_deal()
    deal = 0
    while state.games + per_deal <= plan.max_games:
        deal += 1
        seed = deal_seed(plan.secret, plan.seed, deal)
        scores: dict[int, list[int]] = {}
        for candidate in (NEW, BASELINE):
            played = _play_candidate(plan.table, deal, seed, candidate, context, play, state)
            if isinstance(played, GateResult):
                return played
            scores[candidate] = played
        difference = paired_difference(plan.table.contest, scores[NEW], scores[BASELINE])
        state.differences.append(difference)
        decision = state.test.add(difference)
        progress(state)
        if decision is not Decision.CONTINUE:
            return GateResult(GateVerdict(decision.value), _crossing(decision), state)
    return GateResult(GateVerdict.UNDECIDED, f"no decision within --max-games "
                                         f"{plan.max_games} ({per_deal} games a deal)", state)


def _play_candidate(table: GateTable, deal: int, seed: int, candidate: int,
                    context: PlayContext, play: PlayOne,
                    state: GateState) -> list[int] | GateResult:
    """The candidate's scores on the deal, or the result that a fault ended the gate with."""
    scores = []
    for fixture in deal_fixtures(table, deal, seed, candidate):
        record = play(fixture, context)
        state.games += 1
        if record.faults:
            return _fault_result(fixture, record, context, state)
        scores.append(candidate_score(fixture, record))
    return scores


def _fault_result(fixture: Fixture, record: GameRecord, context: PlayContext,
                  state: GateState) -> GateResult:
    by_new = [fault for fault in record.faults if fixture.seats[fault.seat] == NEW]
    fault = (by_new or list(record.faults))[0]
    where = GateFault(fault, fixture.fixture_id, context.logs.parent / record.log_path
                      if record.log_path else context.logs)
    if by_new:
        return GateResult(GateVerdict.WEAKER, "NEW faulted", state, where)
    who = "BASELINE" if fixture.seats[fault.seat] == BASELINE else f"opponent {fault.bot}"
    return GateResult(GateVerdict.UNDECIDED, f"{who} faulted: the deal compares nothing",
                      state, where)


def _crossing(decision: Decision) -> str:
    if decision is Decision.NOT_WEAKER:
        return "the log-likelihood ratio reached the upper bound"
    return "the log-likelihood ratio reached the lower bound"

