"""Format 5 against what came before it (issue 14, part 1): the same game logged the new
way reads back as the format 4 log of it did, a remote player's appends to the stream
write what the listener's calls write, and format 4 logs still read and replay."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from referee.matches.logged_game import LogOptions, play_game
from referee.players.lineup import BotSpec, LaunchSettings
from referee.processes.bot_command import parse_bot_command
from referee.processes.cgroups import CgroupRoot
from referee.processes.sandbox import SandboxMode, SandboxSettings, sandbox_problem
from referee.settings import TimeLimits
from protocols.clock import Clock
from referee.logs.replay import replay
from referee.registry import games
from referee.registry.game_logs import read_log
from referee.games.rage.definition import RAGE
from referee.games.rage.rules import RageConfig
from tests.cli_support import run_main
from tests.referee.fault_bots.support import MISBEHAVE
from tests.referee.test_log_rederive import FAST

LOGS = Path(__file__).parent / "logs"
# The game of LOGS/rage-format4-untimed.jsonl.gz, as it was played (`referee play rage
# --seed 7 --no-log-times --sandbox off`, FAULT_LOGS=2): a seat that sends bytes that are
# not UTF-8 at its third request, one that sends LOG lines.
SEVEN = ["python bots/rage_random.py", f"python {MISBEHAVE} garbage 3",
         f"python {MISBEHAVE} logs 1", "python bots/rage_random.py"]


def without_seats(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The records but the header's format and seats (how each was held varies by
    machine: a sandbox, cgroup v1 or v2)."""
    header = {key: value for key, value in records[0].items()
              if key not in ("format", "players")}
    return [header, *records[1:]]


def test_a_game_logged_in_format_5_reads_back_as_its_format_4_log_did(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAULT_LOGS", "2")
    path = tmp_path / "game.jsonl.gz"
    code, _, err = run_main(["play", "rage", "--seed", "7", "--no-log-times", "--sandbox",
                             "off", "--log", str(path), *SEVEN])
    assert code == 0, err
    new, old = read_log(path), read_log(LOGS / "rage-format4-untimed.jsonl.gz")
    assert (new[0]["format"], old[0]["format"]) == (5, 4)
    # A fault's stderr lines came later than format 4 (docs/game-log.md): the rest is alike.
    assert any(record.pop("stderr", None) for record in new if record["type"] == "fault")
    assert without_seats(new) == without_seats(old)
    assert any(r["type"] == "fault" for r in new) and any(
        r["type"] == "line" and r["line"].startswith("LOG ") for r in new)
    assert path.stat().st_size < (LOGS / "rage-format4-untimed.jsonl.gz").stat().st_size


@pytest.mark.parametrize("name", ["rage", "thegame"])
def test_a_format_4_log_reads_as_it_did_and_replays(name: str) -> None:
    """Format 4 is read still (its lines out derived the format 4 way): as it read when
    it was written, and `referee replay` reproduces its result."""
    path = LOGS / f"{name}-format4.jsonl.gz"
    expected = json.loads(gzip.decompress((LOGS / f"{name}-format4.read.json.gz").read_bytes()))
    assert read_log(path) == expected
    code, out, err = run_main(["replay", str(path)])
    assert code == 0 and "result reproduced" in out, err


CPU_CLOCK = LaunchSettings(TimeLimits(startup=10.0, move=1.0, bank=0.0, clock=Clock.CPU),
                           sandbox=SandboxSettings(SandboxMode.ON))
NO_CPU_CLOCK = sandbox_problem() is not None or CgroupRoot.find() is None
CULPRITS = ["good", "logs 1", "twice 2", "spew 2", "sleep 3", "exit 2", "garbage 2", "flood 2"]


def case(culprit: str, stdio: bool, cpu: bool) -> Any:
    marks = [pytest.mark.skipif(NO_CPU_CLOCK, reason="--clock cpu needs a sandbox and a "
                                "cgroup per bot")] if cpu else []
    return pytest.param(culprit, stdio, CPU_CLOCK if cpu else FAST, marks=marks,
                        id=f"{culprit}-{'stdio' if stdio else 'zmq'}-{'cpu' if cpu else 'wall'}")


@pytest.mark.parametrize("culprit, stdio, launch", [
    *[case(culprit, stdio, False) for culprit in CULPRITS for stdio in (False, True)],
    *[case(culprit, stdio, True) for culprit in ("logs 1", "twice 2", "garbage 2")
      for stdio in (False, True)]])
def test_a_misbehaving_bots_game_logs_its_fault_and_replays(
        culprit: str, stdio: bool, launch: LaunchSettings, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """What a RemotePlayer tells its seat's listener on every ask makes a log that reads
    back and replays, with real misbehaving bots over ZeroMQ and stdio, by the wall clock
    and by the CPU clock (its own branch of ask)."""
    monkeypatch.setenv("FAULT_LOGS", "2")
    prefix = "stdio:" if stdio else ""
    commands = ["python bots/rage_random.py", f"{prefix}python {MISBEHAVE} {culprit}",
                "python bots/rage_random.py"]
    specs = [BotSpec(parse_bot_command(c), f"bot{seat}") for seat, c in enumerate(commands)]
    path = tmp_path / "game.jsonl"
    play_game(RAGE, specs, RageConfig(3, rounds=3), 5, launch, LogOptions(path),
              lambda _: None)
    records = read_log(path)
    assert sum(r["type"] == "fault" for r in records) == (
        0 if culprit.startswith(("good", "logs")) else 1)
    assert "result reproduced" in replay(path, games.lookup)
