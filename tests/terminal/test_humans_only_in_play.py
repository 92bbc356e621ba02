"""People play in `referee play` only: tournament (its command line and its files), check
and gate refuse `human` with one error line, before any game (docs/human.md)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli_support import run_main

ROOT = Path(__file__).resolve().parents[2]
RANDOM = "python bots/rage_random.py"
REFUSED = "referee: error: 'human' is a person's seat, and people play only in `referee play`"


@pytest.fixture(autouse=True)
def at_root() -> Iterator[None]:
    here = Path.cwd()
    os.chdir(ROOT)
    yield
    os.chdir(here)


@pytest.mark.parametrize("args", [
    ["check", "--game", "rage", "human"],
    ["check", "--game", "rage", "human=ann"],
    ["tournament", "rage", "human", RANDOM, RANDOM],
    ["gate", "--game", "rage", "--delta", "0.1", "--new", "human", "--baseline", RANDOM,
     "--opponent", RANDOM],
    ["gate", "--game", "rage", "--delta", "0.1", "--new", RANDOM, "--baseline", RANDOM,
     "--opponent", "human=ann"],
])
def test_every_command_but_play_refuses_a_human(args: list[str]) -> None:
    code, out, err = run_main(args)
    assert code == 2
    assert err.startswith(REFUSED) and err.count("\n") == 1, err


def test_a_tournament_file_refuses_a_human(tmp_path: Path) -> None:
    spec = tmp_path / "t.toml"
    spec.write_text('game = "rage"\n' + "".join(
        f'[[bots]]\nname = "{name}"\ncommand = "{command}"\n'
        for name, command in (("me", "human"), ("r1", RANDOM), ("r2", RANDOM))))
    code, _, err = run_main(["tournament", str(spec)])
    assert code == 2 and err.startswith(REFUSED), err


def test_a_game_without_a_terminal_board_seats_no_human(high_card: None) -> None:
    code, _, err = run_main(["play", "high-card", "human", RANDOM, "--sandbox", "off"])
    assert code == 2 and "has no terminal board: no human can play it" in err, err


def test_names_must_differ_with_people_too() -> None:
    code, _, err = run_main(["play", "rage", "human=ann", "ann=" + RANDOM, RANDOM,
                             "--sandbox", "off"])
    assert code == 2 and "bot names must differ" in err, err
