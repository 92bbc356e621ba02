"""The operator's side of `referee`: no command, an unwritable --log, and the exit codes."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from referee.processes.cgroups import CgroupRoot
from referee.processes.sandbox import sandbox_problem
from tests.cli_support import assert_bad_input, run_main

RANDOM = "python bots/rage_random.py"


def one_error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("referee: error: "), err
    assert "Traceback" not in err
    return lines[0]


@pytest.mark.parametrize("args, usage, commands", [
    ([], "Usage: referee [OPTIONS] COMMAND", ["play", "replay", "results", "tournament"]),
    (["play"], "Usage: referee play [OPTIONS] COMMAND", ["rage", "thegame"]),
])
def test_no_command_prints_one_usage_line_and_exits_2(
        args: list[str], usage: str, commands: list[str]) -> None:
    code, out, err = run_main(args)
    assert code == 2 and out == ""
    line = one_error_line(err)
    assert usage in line and all(command in line for command in commands), line


@pytest.mark.parametrize("args, command", [([], "tournament"), (["play"], "thegame")])
def test_help_still_prints_the_whole_page(args: list[str], command: str) -> None:
    code, out, err = run_main([*args, "--help"])
    assert code == 0 and err == ""
    assert out.startswith("Usage: referee") and "Commands:" in out
    assert command in out


def test_an_unknown_command_is_still_named() -> None:
    assert_bad_input(["play", "chess"], "No such command", "chess")


def test_the_entry_point_without_arguments(monkeypatch: pytest.MonkeyPatch) -> None:
    """main() as the installed entry point calls it: its arguments from sys.argv. (Real
    `python -m referee` processes run in test_cli.py, where they play games.)"""
    monkeypatch.setattr(sys, "argv", ["referee"])
    code, out, err = run_main(None)
    assert code == 2 and out == ""
    assert "Usage: referee" in one_error_line(err)


def marker_bot(tmp_path: Path) -> tuple[str, Path]:
    """A bot command that leaves a file behind if it is ever started."""
    marker = tmp_path / "started"
    script = tmp_path / "marker_bot.py"
    script.write_text(f"open({str(marker)!r}, 'w').close()\n")
    return f"python {script}", marker


@pytest.mark.parametrize("where", ["proc", "folder", "under_proc", "under_a_file"])
def test_an_unwritable_log_is_refused_before_any_bot_starts(where: str, tmp_path: Path) -> None:
    (tmp_path / "plain").write_text("a file, not a folder")
    log = {"proc": Path("/proc/referee-test.jsonl"), "folder": tmp_path,
           "under_proc": Path("/proc/no-such-folder/game.jsonl"),
           "under_a_file": tmp_path / "plain" / "game.jsonl"}[where]
    bot, marker = marker_bot(tmp_path)
    assert_bad_input(["play", "rage", "--seed", "1", "--log", str(log), bot, bot, bot],
                     "--log", "cannot write")
    assert not marker.exists()


def test_a_writable_log_check_leaves_no_file_when_bots_cannot_start(tmp_path: Path) -> None:
    log = tmp_path / "logs" / "game.jsonl"
    assert_bad_input(["play", "rage", "--log", str(log), RANDOM, RANDOM, "./no/such/bot"],
                     "no/such/bot")
    assert not log.exists()


def test_an_os_error_while_playing_is_one_line_and_exit_1(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Machine trouble during a game (here the game log's disk fills up) is no traceback."""
    from referee.logs.writer import GameLog

    def full_disk(self: GameLog) -> None:
        raise OSError(28, "No space left on device", "game.jsonl")

    monkeypatch.setattr(GameLog, "_write", full_disk)
    code, out, err = run_main(["play", "rage", "--seed", "1", "--log",
                               str(tmp_path / "game.jsonl"), RANDOM, RANDOM, RANDOM])
    assert code == 1
    assert "No space left on device" in one_error_line(err)


def test_clock_cpu_refuses_unsandboxed_bots_before_any_starts(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bot, marker = marker_bot(tmp_path)
    assert_bad_input(["play", "rage", "--clock", "cpu", "--sandbox", "off", bot, bot, bot], "--clock cpu", "--sandbox off")
    assert not marker.exists()


def test_clock_cpu_where_bubblewrap_fails_is_one_error_without_the_warning(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    from referee.players import lineup
    from referee.processes import sandbox

    def broken() -> str:
        return "bubblewrap does not work here: (simulated)"

    monkeypatch.setattr(sandbox, "sandbox_problem", broken)
    monkeypatch.setattr(lineup, "sandbox_problem", broken)
    bot, marker = marker_bot(tmp_path)
    assert_bad_input(["play", "rage", "--clock", "cpu", bot, bot, bot],
                     "--clock cpu", "(simulated)")
    assert not marker.exists()


@pytest.mark.skipif(sandbox_problem() is not None, reason="no sandbox here")
def test_clock_cpu_where_no_cgroup_can_be_made_is_one_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(CgroupRoot, "find", classmethod(lambda cls: None))
    bot, marker = marker_bot(tmp_path)
    for command in (["play", "rage"], ["tournament", "rage", "--db",
                                       str(tmp_path / "r.sqlite")]):
        assert_bad_input([*command, "--clock", "cpu", bot, bot, bot],
                         "--clock cpu", "cgroup")
    assert not marker.exists() and not (tmp_path / "r.sqlite").exists()


def test_a_fault_line_on_the_terminal_escapes_what_a_terminal_acts_on(
        capsys: pytest.CaptureFixture[str]) -> None:
    """The detail of a fault may quote a bot; a C1 code or a bidirectional override
    would reach the organiser's terminal raw."""
    from referee.cli.play import report_faults
    from referee.errors import Fault
    from protocols.faults import FaultKind
    report_faults([Fault(1, "bot\u202e", FaultKind.PROTOCOL, "said \x9b2J\u202eevil", None)])
    err = capsys.readouterr().err
    assert "\x9b" not in err and "\u202e" not in err
    assert "said \\x9b2J\\u202eevil" in err and "bot\\u202e" in err
