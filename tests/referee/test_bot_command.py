"""Parsing BOT arguments: transport prefix, quoting, executable checks, labels."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from referee.processes.bot_command import BotCommand, default_label, parse_bot_command
from referee.errors import BotStartError


def test_plain_command_is_zeromq_and_split_like_a_shell() -> None:
    cmd = parse_bot_command("sh -c 'echo \"a b\"'")
    assert cmd == BotCommand("sh -c 'echo \"a b\"'", ("sh", "-c", 'echo "a b"'), stdio=False)


def test_stdio_prefix_selects_stdio_and_is_not_part_of_argv() -> None:
    cmd = parse_bot_command("stdio:sh -c true")
    assert cmd.stdio
    assert cmd.argv == ("sh", "-c", "true")
    assert cmd.text == "stdio:sh -c true"


@pytest.mark.parametrize("python", ["python", "python3"])
def test_python_runs_as_the_referees_interpreter(python: str, tmp_path: Path) -> None:
    script = tmp_path / "bot.py"
    script.write_text("")
    cmd = parse_bot_command(f"{python} {script} --fast")
    assert cmd.argv == (sys.executable, str(script), "--fast")


@pytest.mark.parametrize("text", ["", "   ", "stdio:", "stdio:  "])
def test_empty_command_is_rejected(text: str) -> None:
    with pytest.raises(BotStartError, match="is empty"):
        parse_bot_command(text)


def test_bad_quoting_is_rejected() -> None:
    with pytest.raises(BotStartError, match="bad quoting"):
        parse_bot_command("sh -c 'unclosed")


def test_program_not_on_path_is_rejected() -> None:
    with pytest.raises(BotStartError, match="not found on PATH"):
        parse_bot_command("no-such-bot-program-x7 --flag")


def test_missing_path_is_rejected(tmp_path: Path) -> None:
    with pytest.raises(BotStartError, match="does not exist"):
        parse_bot_command(f"stdio:{tmp_path}/nothing-here")


def test_directory_is_rejected(tmp_path: Path) -> None:
    with pytest.raises(BotStartError, match="is a directory"):
        parse_bot_command(str(tmp_path))


def test_file_without_execute_permission_is_rejected(tmp_path: Path) -> None:
    script = tmp_path / "bot.py"
    script.write_text("print('hi')\n")
    script.chmod(0o644)
    with pytest.raises(BotStartError, match="not executable"):
        parse_bot_command(str(script))


def test_executable_file_is_accepted(tmp_path: Path) -> None:
    script = tmp_path / "bot"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    assert parse_bot_command(str(script)).argv == (str(script),)


def test_missing_python_script_is_rejected_before_any_game(tmp_path: Path) -> None:
    with pytest.raises(BotStartError, match="script .* does not exist"):
        parse_bot_command(f"python {tmp_path}/missing.py")


def test_python_module_invocation_is_not_checked_as_a_script() -> None:
    assert parse_bot_command("python -m some.module").argv[1:] == ("-m", "some.module")


@pytest.mark.parametrize(("argv", "label"), [
    (("/usr/bin/python3", "bots/rage_random.py"), "rage_random"),
    (("python", "-u", "x/thegame_greedy.py", "--seed", "3"), "thegame_greedy"),
    (("python3.11", "-m", "bots.rage_random"), "rage_random"),
    (("./mybot", "--fast"), "mybot"),
    (("/opt/bots/alpha.sh",), "alpha"),
    (("java", "-jar", "alice/build/bot.jar"), "alice"),  # a generic name: its folder's
    (("node", "carol/bot.js"), "carol"),
    (("students/dave/target/release/main",), "dave"),
    (("python", "-c", "print(1)"), "python"),
    (("python",), "python"),
])
def test_default_label_is_the_script_or_program_stem(argv: tuple[str, ...], label: str) -> None:
    assert default_label(BotCommand(" ".join(argv), argv, stdio=False)) == label
