"""`referee arena init`'s settings (issue 31): the variants, time limits and resource
limits of `referee tournament`, under the same option names and bounds, written into
arena.toml and played under by every version's check and every round; a bad value is one
error line and makes no arena."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

from hypothesis import HealthCheck, given, settings, strategies as st

from protocols.clock import Clock
from referee.settings import ResourceLimits, TimeLimits
from tournaments.arena.rounds import round_spec
from tournaments.arena.store import (
    SETTINGS, ArenaDb, Round, Settings, Version, init, load, settings_toml,
)
from tournaments.spec.definition import BotEntry, TournamentSpec

ROOT = Path(__file__).resolve().parents[3]
HEURISTIC = "python bots/rage_heuristic.py"
# Asks for 300 MiB before its HELLO: a memory limit below that kills it.
GREEDY_BOT = f"""
import sys
sys.path.insert(0, {str(ROOT)!r})
hoard = bytearray(300 * 1024 * 1024)
from bots.rage_random import RandomBot
from bots.sdk import run_bot
run_bot("greedy", "1.0", RandomBot())
"""


def referee(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "referee", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)


def test_init_writes_its_settings_and_the_rounds_play_under_them(tmp_path: Path) -> None:
    arena = tmp_path / "a"
    made = referee("arena", "init", str(arena), "--game", "rage", "--table-size", "3",
                   "--placement", "0", "--variant", "plus-minus-one", "--variant",
                   "durchmarsch", "--startup-time", "5", "--move-time", "0.5",
                   "--time-bank", "2", "--max-memory", "1024", "--max-cpu", "600",
                   "--max-procs", "unlimited")
    assert made.returncode == 0, made.stderr
    toml = tomllib.loads((arena / SETTINGS).read_text())
    assert toml["limits"] == {"startup": 5.0, "move": 0.5, "bank": 2.0, "tolerance": 0.05,
                              "clock": "wall"}
    assert toml["resources"] == {"memory_mb": 1024, "cpu_seconds": 600,
                                 "processes": "unlimited"}
    assert toml["options"] == {"variants": ["durchmarsch", "plus-minus-one"]}
    for name, rate in {"x": 0.0, "y": 0.5, "z": 1.0}.items():
        done = referee("arena", "submit", str(arena), name, f"{HEURISTIC} --mistakes {rate}")
        assert done.returncode == 0, done.stdout + done.stderr
        assert "game 3 seats --variant durchmarsch --variant plus-minus-one" in done.stdout
        assert "limit 0.5 s" in done.stdout  # its check's reply times, at the arena's limit
    assert referee("arena", "run", str(arena), "--games", "1", "--jobs", "1").returncode == 0
    shown = referee("results", str(arena / "rounds" / "round-000001.sqlite"), "--format",
                    "json")
    round_settings = json.loads(shown.stdout)["metadata"]
    assert round_settings["limits"] == {"startup": 5.0, "move": 0.5, "bank": 2.0,
                                        "tolerance": 0.05, "clock": "wall"}
    assert round_settings["resources"] == {"memory_mb": 1024, "cpu_seconds": 600,
                                           "processes": None, "open_files": 256,
                                           "file_mb": 64}
    assert round_settings["options"] == {"variants": ["durchmarsch", "plus-minus-one"]}


def test_a_versions_check_runs_under_the_arenas_memory_limit(tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    (source / "greedy.py").write_text(GREEDY_BOT)
    command = ("--dir", str(source), "--cmd", f"{sys.executable} greedy.py")
    outcomes = {}
    for memory in ("2048", "200"):
        arena = tmp_path / memory
        assert referee("arena", "init", str(arena), "--game", "rage", "--max-memory",
                       memory).returncode == 0
        outcomes[memory] = referee("arena", "submit", str(arena), "greedy", *command)
    assert outcomes["2048"].returncode == 0, outcomes["2048"].stdout
    refused = outcomes["200"]
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "died before its HELLO" in refused.stdout and "memory limit" in refused.stdout


def test_init_refuses_a_bad_setting_in_one_line_and_makes_no_arena(tmp_path: Path) -> None:
    for args, why in [(("--move-time", "0"), "Invalid value for '--move-time': must be"),
                      (("--time-bank", "-1"), "Invalid value for '--time-bank': must be"),
                      (("--max-memory", "8"), "Invalid value for '--max-memory': must be"),
                      (("--max-procs", "many"), "Invalid value for '--max-procs': must be"),
                      (("--clock", "sundial"), "Invalid value for '--clock'"),
                      (("--variant", "nope"), "Invalid value for '--variant'"),
                      (("--variant", "plus-minus-one", "--variant", "hidden-bid"),
                       "plus-minus-one cannot be combined with hidden-bid"),
                      # bounded at the option, as a tournament's --table-size is
                      (("--table-size", "99"), "Invalid value for '--table-size': must be"),
                      (("--table-size", "x"), "Invalid value for '--table-size': must be"),
                      (("--placement", "-1"), "Invalid value for '--placement': must be"),
                      (("--table-size", "9"), "Rage needs 3 to 8 bots, got 9")]:
        done = referee("arena", "init", str(tmp_path / "a"), "--game", "rage", *args)
        assert done.returncode == 2, (args, done.stderr)
        assert done.stderr.startswith("referee: error: ") and why in done.stderr, done.stderr
        assert len(done.stderr.splitlines()) == 1
        assert not (tmp_path / "a").exists()


SECONDS = st.floats(min_value=0.001, max_value=86400, allow_nan=False)
LIMITS = st.builds(TimeLimits, startup=SECONDS, move=SECONDS,
                   bank=st.floats(min_value=0, max_value=86400),
                   clock=st.sampled_from(list(Clock)))
RESOURCES = st.builds(ResourceLimits,
                      memory_mb=st.none() | st.integers(16, 1024 * 1024),
                      cpu_seconds=st.none() | st.integers(1, 30 * 86400),
                      processes=st.none() | st.integers(1, 100_000))
VARIANTS = st.lists(st.sampled_from(["plus-minus-one", "hidden-bid", "durchmarsch"]),
                    unique=True).map(lambda words: tuple(sorted(words))).filter(
    lambda words: not {"plus-minus-one", "hidden-bid"} <= set(words))  # ruling R10


@settings(max_examples=100, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(limits=LIMITS, resources=RESOURCES, variants=VARIANTS,
       size=st.integers(3, 8), placement=st.integers(0, 10))
def test_arena_toml_reads_back_as_the_settings_init_wrote(
        tmp_path: Path, limits: TimeLimits, resources: ResourceLimits,
        variants: tuple[str, ...], size: int, placement: int) -> None:
    written = Settings("rage", size, placement, limits,
                       (("variants", variants),) if variants else (), resources)
    (tmp_path / SETTINGS).write_text(settings_toml(written))
    assert load(tmp_path) == written


def test_an_arena_made_before_these_settings_resumes_its_planned_round(
        tmp_path: Path) -> None:
    """arena.toml as init wrote it before (no clock, no [resources]) reads as the
    defaults, and a round planned then is the same tournament now: its fingerprint, by
    which its results db resumes, is the one the old round spec had."""
    arena = tmp_path / "old"
    init(arena, Settings("rage", 3))
    (arena / SETTINGS).write_text('game = "rage"\ntable_size = 3\nplacement = 3\n\n'
                                  "[limits]\nstartup = 10.0\nmove = 1.0\nbank = 0.0\n")
    labels = ("a@v1", "b@v1", "c@v1")
    versions = {label: Version(label[0], 1, f"python /bots/{label[0]}.py", None, "0" * 64,
                               "active", "", "") for label in labels}
    with ArenaDb(arena) as db:
        assert db.settings == Settings("rage", 3)
        now = round_spec(db, Round(1, (labels,), "planned"), versions)
    before = TournamentSpec.create(  # as rounds.round_spec made it before
        "rage", tuple(BotEntry(label, versions[label].command) for label in labels),
        deals=1, seed=1, size=3, time_limits=TimeLimits(), options={}, fresh_bots=True,
        title="old round 1", tables=((0, 1, 2),))
    assert now.fingerprint() == before.fingerprint()
    assert now.title == "old, arena round 1"
