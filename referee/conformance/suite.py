"""The whole run of `referee check`: the sessions in order, each check's verdict as soon as
it is known (to `progress`), and the report."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from referee.conformance.bye import BYE_CHECK, LEFTOVER_CHECK, ROW_CHECK, bye_session
from referee.conformance.judging import REPLY_TIMES, reply_verdict, rule_verdicts, rules_of
from referee.conformance.sessions import Bench, GameRun, Pool, Started, play_setup
from referee.conformance.setups import Setup, full_setups, quick_setups
from referee.conformance.verdict import Status, Verdict, fault_verdict, skipped
from referee.players.lineup import Lineup

HELLO_CHECK = "HELLO in time, protocol version"
ROW_GAMES = 3  # games one process plays in a row in the full suite

Progress = Callable[[Verdict], None]


@dataclass(frozen=True)
class Report:
    game: str
    bot: str
    quick: bool
    verdicts: tuple[Verdict, ...]
    seconds: float

    @property
    def passed(self) -> bool:
        return all(v.status.ok for v in self.verdicts)

    def count(self, status: Status) -> int:
        return sum(v.status is status for v in self.verdicts)


def run_suite(bench: Bench, quick: bool, progress: Progress,
              setups: Sequence[Setup] | None = None) -> Report:
    """Every check of the suite (`quick`: HELLO, one game, BYE), in order; `setups`, where
    given, are the games played instead of the suite's own (an arena checks its game)."""
    begin = time.monotonic()
    verdicts: list[Verdict] = []

    def judged(verdict: Verdict) -> None:
        verdicts.append(verdict)
        progress(verdict)

    if setups is None:
        setups = quick_setups(bench.game) if quick else full_setups(bench.game)
    with Lineup(bench.launch) as lineup:
        pool = Pool(bench, lineup)
        first = play_setup(bench, pool, setups[0], setups[0].name)
        assert pool.first is not None  # the first game started the bot
        judged(hello_verdict(pool.first, bench.launch.times.startup))
        if pool.first.fault is not None:
            for name in later_checks(bench, setups, quick):
                judged(skipped(name, "not run: the bot did not start"))
        else:
            judged(game_verdict(bench, setups[0], first))
            for setup in setups[1:]:
                judged(game_verdict(bench, setup, play_setup(bench, pool, setup, setup.name)))
    if pool.first.fault is None:
        _bye_and_totals(bench, setups, quick, judged)
    return Report(bench.game.name, bench.bot.label, quick, tuple(verdicts),
                  time.monotonic() - begin)


def _bye_and_totals(bench: Bench, setups: Sequence[Setup], quick: bool,
                    judged: Progress) -> None:
    """The BYE session (its own process), then the checks over every game."""
    for verdict in bye_session(bench, setups[0], 1 if quick else ROW_GAMES):
        judged(verdict)
    games = len(setups) + (1 if quick else ROW_GAMES)
    for verdict in rule_verdicts(bench.game, bench.faults, games):
        judged(verdict)
    judged(reply_verdict(bench.replies, bench.launch.times))


def later_checks(bench: Bench, setups: Sequence[Setup], quick: bool) -> list[str]:
    """The names of the checks after HELLO, for skipping them."""
    row = [] if quick else [ROW_CHECK]
    rules = [r.name for r in rules_of(bench.game)]
    return [*(s.name for s in setups), *row, BYE_CHECK, LEFTOVER_CHECK, *rules, REPLY_TIMES]


def hello_verdict(started: Started, limit: float) -> Verdict:
    fault = started.fault
    if fault is not None:
        return fault_verdict(HELLO_CHECK, f"{fault.kind.value}: {fault.detail}",
                             started.seconds, fault, started.player.stderr_tail())
    hello = getattr(started.player, "hello", None)
    said = f" ({hello.name} {hello.version}, protocol {hello.protocol})" if hello else ""
    return Verdict(HELLO_CHECK, Status.PASS, f"HELLO after {started.seconds:.3f} s (limit "
                                             f"{limit:g} s){said}",
                   started.seconds, figures={"seconds": round(started.seconds, 4)})


def game_verdict(bench: Bench, setup: Setup, run: GameRun) -> Verdict:
    others = [spec.command.text for spec in bench.others(setup.players - 1)]
    remote = bench.launch.remote
    listen = () if remote is None else \
        ("--listen", remote.listen.endpoint, "--key", str(remote.key_file))
    where = setup.replay_hint(bench.game, [*others[:setup.seat], bench.bot.command.text,
                                           *others[setup.seat:]], listen)
    if not run.faults:
        return Verdict(setup.name, Status.PASS, f"{where}: {run.requests} requests answered, "
                                                "no fault", run.seconds)
    fault = run.faults[0]
    return fault_verdict(setup.name, f"{where}: {fault.summary()}", run.seconds, fault)
