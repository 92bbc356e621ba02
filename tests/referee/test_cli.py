"""The `referee` command line: games from the shell, and one clear line for bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from referee.processes.sandbox import sandbox_problem
from referee.registry.game_logs import read_log
from tests.cli_support import assert_bad_input, run_main
from tests.referee.fault_bots.support import expected_limits_holder

ROOT = Path(__file__).resolve().parents[2]
RANDOM = "python bots/rage_random.py"
HEURISTIC = "python bots/rage_heuristic.py"
SHELL = "stdio:bots/rage_first.sh"
DEMO_BOTS = [RANDOM, HEURISTIC, RANDOM, SHELL]


@pytest.mark.parametrize("count", [2, 9])
def test_rage_needs_three_to_eight_bots(count: int) -> None:
    assert_bad_input(["play", "rage", *[RANDOM] * count], "3 to 8", str(count))


def test_bot_that_cannot_be_started() -> None:
    assert_bad_input(["play", "rage", RANDOM, RANDOM, "./no/such/bot --fast"],
                     "no/such/bot")


def test_unknown_variant() -> None:
    assert_bad_input(["play", "rage", "--variant", "double-trump", RANDOM, RANDOM, RANDOM],
                     "double-trump")


def test_r10_impossible_variant_combination() -> None:
    args = ["play", "rage", "--variant", "plus-minus-one", "--variant", "hidden-bid",
            RANDOM, RANDOM, RANDOM]
    assert_bad_input(args, "plus-minus-one", "hidden", "R10")


@pytest.mark.parametrize("option, value", [
    ("--move-time", "0"), ("--move-time", "abc"), ("--move-time", "nan"),
    ("--startup-time", "-1"), ("--time-bank", "-0.5"), ("--move-time", "inf"),
    ("--busy-wait-us", "-1"), ("--busy-wait-us", "0.5"), ("--busy-wait-us", "1000000"),
])
def test_unusable_time_values(option: str, value: str) -> None:
    assert_bad_input(["play", "rage", option, value, RANDOM, RANDOM, RANDOM], option)


@pytest.mark.parametrize("count", [0, 6])
def test_thegame_needs_one_to_five_bots(count: int) -> None:
    assert_bad_input(["play", "thegame", *["python bots/thegame_random.py"] * count])


@pytest.mark.parametrize("args", [
    ["play", "thegame", "--variant", "durchmarsch", RANDOM],
    ["play", "rage", "--no-commands", RANDOM, RANDOM, RANDOM],
])
def test_options_of_the_other_game_are_refused(args: list[str]) -> None:
    assert_bad_input(args, "--")


def test_bad_command_mapping_file(tmp_path: Path) -> None:
    mapping = tmp_path / "commands.toml"
    mapping.write_text('[commands]\nstop = [2, 3, 4]\n')
    assert_bad_input(["play", "thegame", "--commands", str(mapping), RANDOM],
                     "commands.toml")


@pytest.mark.parametrize("command", [["play", "thegame"], ["tournament", "thegame"]])
def test_a_deeply_nested_command_mapping_is_one_error_line(
        command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    mapping = tmp_path / "commands.toml"
    mapping.write_text("[commands]\nstop = " + "[" * 5000 + "]" * 5000 + "\n")
    assert_bad_input([*command, "--commands", str(mapping), RANDOM],
                     "commands.toml", "nested too deeply")


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "referee", *args], cwd=ROOT, text=True,
                          capture_output=True, timeout=120, check=False)


def test_demo_game_is_byte_identical_for_the_same_seed(tmp_path: Path) -> None:
    """Issue: same seed, same deterministic bots -> byte-identical output and log; and
    whether the referee polls before it sleeps (busy_wait.py) changes nothing."""
    runs = [run_cli("play", "rage", "--seed", "7", "--no-log-times", "--busy-wait-us", poll,
                    "--log", str(tmp_path / f"{i}.jsonl"), *DEMO_BOTS)
            for i, poll in ((1, "0"), (2, "1000"))]
    assert [r.returncode for r in runs] == [0, 0], runs[0].stderr
    assert runs[0].stdout == runs[1].stdout
    assert (tmp_path / "1.jsonl").read_bytes() == (tmp_path / "2.jsonl").read_bytes()
    out = runs[0].stdout
    assert out.startswith("Rage, 4 players, seed 7, variants: none\n"), "a given seed is shown"
    assert out.count("\nround ") == 10, "a compact line per round"
    for column in ("bid", "tricks", "action pts", "bid bonus", "round total", "place"):
        assert column in out


@pytest.mark.parametrize("sandbox", ["auto", "off"])
def test_the_log_header_says_which_sandbox_and_limits_held_each_bot(tmp_path: Path,
                                                                    sandbox: str) -> None:
    log = tmp_path / "game.jsonl"
    done = run_cli("play", "rage", "--seed", "7", "--sandbox", sandbox, "--no-log-times",
                   "--log", str(log), RANDOM, RANDOM, SHELL)
    assert done.returncode == 0, done.stderr
    header = json.loads(log.read_text().splitlines()[0])
    sandboxed = sandbox == "auto" and sandbox_problem() is None
    assert [(p["sandbox"], p["limits"]) for p in header["players"]] == [
        (sandboxed, expected_limits_holder())] * 3


def test_replay_verifies_a_log_and_catches_tampering(tmp_path: Path) -> None:
    log = tmp_path / "game.jsonl"
    assert run_cli("play", "rage", "--seed", "7", "--log", str(log), *DEMO_BOTS).returncode == 0
    code, out, err = run_main(["replay", str(log)])  # replay starts no bot: in-process
    assert code == 0 and "reproduced" in out, err
    lines = log.read_text().splitlines()
    result = json.loads(lines[-1])
    result["totals"][0] += 1
    log.write_text("\n".join([*lines[:-1], json.dumps(result)]) + "\n")
    code, _, err = run_main(["replay", str(log)])
    assert code == 1 and "does not reproduce" in err


def test_without_seed_the_seed_is_secret_from_stdout_and_bots_but_in_the_log(
        tmp_path: Path) -> None:
    """Issue: a bot that knows the seed computes every hand. A spy seat records all a bot
    gets (its environment, every line from the handshake on); the log's seed is the deal."""
    log = tmp_path / "game.jsonl"
    # The spy tells its environment and all it hears on its stderr, which reaches ours (a
    # sandboxed bot can write nowhere else).
    spy = ("stdio:sh -c 'env | sed \"s/^/env: /\" >&2; while IFS= read -r l; do "
           "echo \"heard: $l\" >&2; echo \"$l\"; done | sh bots/rage_first.sh'")
    run = run_cli("play", "rage", "--log", str(log), RANDOM, HEURISTIC, spy)
    assert run.returncode == 0, run.stderr
    records = read_log(log)
    seed = str(records[0]["seed"])
    assert records[0]["type"] == "game" and 0 <= int(seed) < 2**63
    assert run.stdout.startswith("Rage, 3 players, secret seed (in the log), variants: none")
    assert seed not in run.stdout and seed not in run.stderr
    to_bots = [r["line"] for r in records if r["type"] == "line" and r["dir"] == "out"]
    assert sum(line.startswith("GAME rage ") for line in to_bots) == 3
    assert not [line for line in to_bots if seed in line]
    assert "heard: GAME rage " in run.stderr and "env: REFEREE_ENDPOINT=" in run.stderr
    code, out, err = run_main(["replay", str(log)])  # the logged seed is the real deal's
    assert code == 0 and "result reproduced" in out, err


def test_without_seed_or_log_the_game_says_its_seed_is_not_kept() -> None:
    run = run_cli("play", "thegame", "python bots/thegame_heuristic.py")
    assert run.returncode == 0, run.stderr
    first = run.stdout.splitlines()[0]
    assert first == "The Game Extreme, 1 player(s), secret seed (not kept)"


def test_two_games_without_seed_get_different_deals(tmp_path: Path) -> None:
    logs = [tmp_path / f"{i}.jsonl" for i in (1, 2)]
    for log in logs:
        assert run_cli("play", "thegame", "--log", str(log),
                       "python bots/thegame_heuristic.py").returncode == 0
    seeds = [json.loads(log.read_text().splitlines()[0])["seed"] for log in logs]
    assert seeds[0] != seeds[1]


def test_thegame_game_is_reproducible_and_shows_hands_only_as_counts(tmp_path: Path) -> None:
    bots = ["python bots/thegame_heuristic.py", "python bots/thegame_random.py",
            "stdio:python bots/thegame_heuristic.py"]
    runs = [run_cli("play", "thegame", "--seed", "3", "--no-log-times",
                    "--log", str(tmp_path / f"{i}.jsonl"), *bots) for i in (1, 2)]
    assert [r.returncode for r in runs] == [0, 0], runs[0].stderr
    assert runs[0].stdout == runs[1].stdout
    assert (tmp_path / "1.jsonl").read_bytes() == (tmp_path / "2.jsonl").read_bytes()
    turns = [line for line in runs[0].stdout.splitlines() if line.startswith("turn ")]
    assert turns
    for line in turns:  # counts per seat, nothing else: e.g. "| hands 6 6 5"
        counts = line.split("| hands ")[1].split()
        assert len(counts) == 3 and all(int(c) <= 6 for c in counts)
    assert "result: " in runs[0].stdout and "cards played" in runs[0].stdout


def test_sample_bots_run_directly_as_executables() -> None:
    """`./bots/x.py` finds the referee's interpreter (pyzmq, SDK) whatever PATH says."""
    bare_path = {"PATH": "/usr/bin:/bin", "HOME": str(Path.home())}
    run = subprocess.run(
        [sys.executable, "-m", "referee", "play", "rage", "--seed", "2", "./bots/rage_random.py",
         "./bots/rage_heuristic.py", "stdio:./bots/rage_random.py"],
        cwd=ROOT, env=bare_path, text=True, capture_output=True, timeout=120, check=False)
    assert run.returncode == 0, run.stderr
    assert "fault" not in run.stderr
    assert "rage_heuristic" in run.stdout


def test_play_prefixes_each_bots_stderr_with_its_name(tmp_path: Path) -> None:
    """Issue 12: in `play`, bots' stderr shares the referee's; each line says whose it is."""
    bot = tmp_path / "talker.py"
    bot.write_text("import os, sys\n"
                   "print('HELLO 2', os.environ['REFEREE_TOKEN'], 'talker 1', flush=True)\n"
                   "print('thinking', 'hard', file=sys.stderr, flush=True)\n"
                   "for line in sys.stdin:\n"
                   "    words = line.split()\n"
                   "    if words and words[0].endswith('?'):\n"
                   "        print(words[1], flush=True)\n")
    for path in (tmp_path.parent, tmp_path):  # a sandboxed bot runs as another user
        path.chmod(0o755)
    talker = f"stdio:python {bot}"
    done = run_cli("play", "rage", "--seed", "3", f"eve={talker}", talker, talker)
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    for name in ("eve", "talker-1", "talker-2"):
        assert f"[{name}] thinking hard" in lines, done.stderr


FAULT_BOT = ROOT / "tests" / "referee" / "fault_bots" / "misbehave.py"


@pytest.mark.parametrize("flag, code", [([], 0), (["--fail-on-fault"], 1)])
def test_fail_on_fault_turns_a_faulted_game_into_exit_1(flag: list[str], code: int) -> None:
    """Issue 13: CI can gate `play` on faults; without the flag a faulted game is still a
    game that was refereed to its end (exit 0)."""
    crasher = f"{sys.executable} {FAULT_BOT} exit"
    done = run_cli("play", "rage", "--seed", "4", *flag, crasher,
                   "./bots/rage_random.py", "./bots/rage_random.py")
    assert done.returncode == code, done.stderr
    assert "fault: seat 0" in done.stderr and "crash" in done.stderr


def test_fail_on_fault_passes_a_clean_game() -> None:
    done = run_cli("play", "thegame", "--seed", "4", "--fail-on-fault",
                   "./bots/thegame_heuristic.py")
    assert done.returncode == 0, done.stderr
    assert "fault" not in done.stderr


def test_play_help_says_a_bot_may_be_named() -> None:
    """Issue 29 (Names): `play --help` shows NAME=COMMAND, for the group and each game."""
    for args in (["play", "--help"], ["play", "rage", "--help"], ["play", "thegame", "--help"]):
        code, out, _ = run_main(args)
        assert code == 0 and "NAME=COMMAND" in out, args
