"""The BYE session: one process plays games in a row (GAME after END), is told BYE, and
must exit with code 0 within the grace time, leaving no process of its own behind.

The bot runs under the exit probe (exit_probe.py), which reports how it ended and what it
left; the probe's line arrives on the bot's stderr, sent to a file of ours.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path

from protocols.wire import quote
from referee.conformance import exit_probe
from referee.conformance.recording import RecordingPlayer
from referee.conformance.sessions import Bench, bot_faults, start_bot
from referee.conformance.setups import Setup
from referee.conformance.verdict import Status, Verdict, fault_verdict, skipped
from referee.errors import BotFault, Fault
from referee.players.lineup import BotSpec, LaunchSettings, Lineup
from referee.players.remote_player import BYE_GRACE, RemotePlayer
from referee.processes.bot_command import bot_folder

ROW_CHECK = "games in a row"
BYE_CHECK = "BYE: exit code 0 in time"
LEFTOVER_CHECK = "nothing left running after BYE"
PROBE_MARGIN = 2.0  # seconds past the grace for the probe itself to report, on a loaded machine
# Seconds past the grace in which a clean exit warns rather than fails: on a loaded
# machine (a CI runner, an arena's server) a bot that exits at once can be seen 0.2-0.4 s
# after BYE, and `arena submit` refused such bots. A game kills a bot at the grace, at no
# cost to it; a bot that works after BYE on a quiet machine takes longer than this.
EXIT_SLACK = 0.3


@dataclass(frozen=True)
class ProbeReport:
    code: int  # the bot's exit code; negative N: killed by signal N
    ended: float  # time.monotonic() when it exited
    left: tuple[str, ...]  # 'PID COMMAND' of each process it left running


REMOTE_EXIT = ("a remote bot ends on its contestant's machine, out of the referee's "
               "sight: run `referee check` there")


def probed(spec: BotSpec) -> BotSpec:
    """The bot's command run under the exit probe (same transport, same name); a remote
    seat's as it is (nothing of it runs here)."""
    if spec.remote is not None:
        return spec
    argv = (sys.executable, "-m", exit_probe.__name__, *spec.command.argv)
    return replace(spec, command=replace(spec.command, argv=argv))


def probe_launch(bench: Bench) -> LaunchSettings:
    """The launch settings with the bot's own folder readable in its sandbox: the probe's
    command names the probe, not the bot, so the sandbox would not show the bot's folder."""
    if bench.bot.remote is not None:
        return bench.launch
    folder = bot_folder(bench.bot.command, Path.cwd())
    box = bench.launch.sandbox
    if folder is None or folder in box.extra_dirs:
        return bench.launch
    return replace(bench.launch, sandbox=replace(box, extra_dirs=(*box.extra_dirs, folder)))


@dataclass(frozen=True)
class SessionEnd:
    """How a probed session ended: the bot's first fault in its games (game number and
    fault), when BYE went (None: it was not sent), and the probe's report."""

    fault: tuple[int, Fault] | None
    sent: float | None
    report: ProbeReport | None
    start_fault: BotFault | None


def bye_session(bench: Bench, setup: Setup, games: int) -> list[Verdict]:
    """Play `games` games of `setup` with one process of the bot, then BYE: the verdicts
    of the row (when more than one game) and of the bot's exit. A bot that faulted in
    those games gets its BYE in a session of its own, without a game."""
    begin = time.monotonic()
    ending = probed_session(bench, setup, games)
    row = [_row_verdict(games, ending.fault, time.monotonic() - begin)] if games > 1 else []
    note = ""
    if ending.fault is not None:
        note = f" (a fresh process, told BYE after HELLO: the bot faulted in game " \
               f"{ending.fault[0]})"
        ending = probed_session(bench, setup, 0)
    if ending.sent is None:
        why = f"the bot did not start: {ending.start_fault}"
        return [*row, skipped(BYE_CHECK, why), skipped(LEFTOVER_CHECK, why)]
    if bench.bot.remote is not None:
        return [*row, skipped(BYE_CHECK, REMOTE_EXIT), skipped(LEFTOVER_CHECK, REMOTE_EXIT)]
    return [*row, _noted(exit_verdict(ending.report, ending.sent), note),
            _noted(leftover_verdict(ending.report), note)]


def probed_session(bench: Bench, setup: Setup, games: int) -> SessionEnd:
    """The bot under the exit probe: `games` games in a row (to its first fault), then BYE
    unless it faulted."""
    config = bench.game.configure(setup.players, setup.options)
    with tempfile.TemporaryDirectory(prefix="referee-check-") as folder:
        stderr = Path(folder) / "bot.stderr"
        with Lineup(probe_launch(bench)) as lineup:
            started = start_bot(lineup, probed(bench.bot), stderr)
            own = RecordingPlayer(started.player, bench.replies)
            others = lineup.launch_all(bench.others(setup.players - 1)) if games else []
            players = [*others[:setup.seat], own, *others[setup.seat:]]
            fault = None
            for number in range(1, games + 1):
                result = bench.game.run(players, config, setup.seed + number - 1,
                                        bench.launch.times, None)
                faults = [_without_report(f) for f in bot_faults(bench, result, setup.seat)]
                bench.faults.extend((ROW_CHECK, f) for f in faults)
                if faults:
                    fault = (number, faults[0])
                    break
            sent, status = _say_bye(started.player) if fault is None else (None, None)
        return SessionEnd(fault, sent, _probes(read_report(stderr), status), started.fault)


def _without_report(fault: Fault) -> Fault:
    """`fault` with its stderr lines less the probe's report: the probe writes it on the
    bot's stderr as the bot exits, before the fault's lines are read, and it is the
    referee's, not the bot's words."""
    return replace(fault, stderr=tuple(line for line in fault.stderr
                                       if not line.startswith(exit_probe.REPORT)))


def _noted(verdict: Verdict, note: str) -> Verdict:
    return replace(verdict, evidence=verdict.evidence + note)


def _say_bye(player: object) -> tuple[float | None, int | None]:
    """Send BYE and wait for the probe to end: when BYE went (monotonic; None: not sent),
    and the probe's exit status if it ended in time (None: it did not)."""
    if not isinstance(player, RemotePlayer) or player.closed:
        return None, None
    sent = time.monotonic()
    try:
        player.say_bye()
    except (BotFault, OSError):  # a bot gone already: its probe says how it ended
        pass
    exited = player.process.wait(BYE_GRACE + PROBE_MARGIN)
    status = player.process.exit_code if exited else None
    player.close()  # kills whatever is left, and closes the stderr file
    return sent, status


def _probes(report: ProbeReport | None, status: int | None) -> ProbeReport | None:
    """`report` if the probe wrote it: it ended by itself (a probe we killed wrote none),
    with the status its report implies (one the bot killed did not either)."""
    if report is None or status is None or exit_probe.exit_status(report.code) != status:
        return None
    return report


def read_report(stderr: Path) -> ProbeReport | None:
    """The probe's report: the last line of the bot's stderr, or None (the probe did not
    write it). Only the last: what the bot wrote comes before it (exit_probe.py)."""
    try:
        lines = stderr.read_bytes().decode("utf-8", "replace").split("\n")
    except OSError:
        return None
    last = lines[-2] if len(lines) > 1 and not lines[-1] else lines[-1]
    if not last.startswith(exit_probe.REPORT):
        return None
    try:
        data = json.loads(last[len(exit_probe.REPORT):])
        return ProbeReport(int(data["code"]), float(data["ended"]),
                           tuple(str(p) for p in data["left"]))
    except (ValueError, KeyError, TypeError, OverflowError):  # e.g. a code of 1e999
        return None


def _row_verdict(games: int, fault: tuple[int, Fault] | None, seconds: float) -> Verdict:
    if fault is None:
        return Verdict(ROW_CHECK, Status.PASS,
                       f"{games} games by one process, each GAME after the last END", seconds)
    number, first = fault
    return fault_verdict(ROW_CHECK, f"game {number} of {games}: {first.summary()}", seconds,
                         first)


def exit_verdict(report: ProbeReport | None, sent: float) -> Verdict:
    wait = BYE_GRACE + PROBE_MARGIN
    if report is None:
        return Verdict(BYE_CHECK, Status.FAIL, f"still running {wait:g} s after BYE: killed",
                       wait)
    took = max(0.0, report.ended - sent)
    how = (f"exited with code {report.code}" if report.code >= 0 else
           f"killed by signal {-report.code}")
    figures = {"seconds": round(took, 4), "grace": BYE_GRACE}
    if report.code != 0:
        return Verdict(BYE_CHECK, Status.FAIL, f"{how} after BYE (expected code 0)", took,
                       figures=figures)
    if took > BYE_GRACE + EXIT_SLACK:
        return Verdict(BYE_CHECK, Status.FAIL, f"{how}, but {took:.3f} s after BYE (grace "
                                               f"{BYE_GRACE:g} s)", took, figures=figures)
    if took > BYE_GRACE:
        return Verdict(BYE_CHECK, Status.WARN,
                       f"{how}, but {took:.3f} s after BYE (grace {BYE_GRACE:g} s): a game "
                       f"kills the bot at the grace, at no cost to it; on a loaded machine "
                       f"the delay may be the machine's (it fails past "
                       f"{BYE_GRACE + EXIT_SLACK:g} s)", took, figures=figures)
    return Verdict(BYE_CHECK, Status.PASS, f"{how} {took:.3f} s after BYE (grace "
                                           f"{BYE_GRACE:g} s)", took, figures=figures)


def leftover_verdict(report: ProbeReport | None) -> Verdict:
    if report is None:
        return Verdict(LEFTOVER_CHECK, Status.FAIL, "the bot itself was still running "
                                                    f"{BYE_GRACE + PROBE_MARGIN:g} s after BYE")
    if report.left:
        shown = ", ".join(quote(p, 80) for p in report.left[:5])
        more = f" and {len(report.left) - 5} more" if len(report.left) > 5 else ""
        return Verdict(LEFTOVER_CHECK, Status.FAIL,
                       f"{len(report.left)} process(es) still running when the bot exited: "
                       f"{shown}{more}", figures={"left": len(report.left)})
    return Verdict(LEFTOVER_CHECK, Status.PASS, "no process of the bot's was running when it "
                                                "exited")
