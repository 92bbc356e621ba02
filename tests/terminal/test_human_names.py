"""`human=NAME` names the person by the rule every bot name follows (referee.bot_names):
any language kept as typed, a name that breaks the rule refused with one error line
before any game, never silently rewritten (docs/human.md)."""

from __future__ import annotations

import pytest

from referee.errors import BotStartError
from referee.players.lineup import seat_specs
from tests.cli_support import run_main

RANDOM = "python bots/rage_random.py"


@pytest.mark.parametrize("name", ["Zoë", "ann", "<b>x&amp;", "李雷", "x" * 40])
def test_a_person_keeps_the_name_they_gave(name: str) -> None:
    [spec] = seat_specs([f"human={name}"])
    assert spec.human and spec.label == name


def test_a_bare_human_seat_is_named_human() -> None:
    for text in ("human", "human=", "human= "):
        assert [spec.label for spec in seat_specs([text])] == ["human"]


@pytest.mark.parametrize("name", ["x" * 41, "é" * 300, "a+b", "ann\x1b[31m"])
def test_a_name_against_the_rule_is_refused(name: str) -> None:
    with pytest.raises(BotStartError, match="must be 1 to 40 printable characters"):
        seat_specs([f"human={name}"])


def test_play_refuses_it_in_one_line_before_any_game() -> None:
    code, out, err = run_main(["play", "rage", "human=" + "é" * 300, RANDOM, RANDOM])
    assert code == 2 and out == ""
    assert err.startswith("referee: error: person's name ") and err.count("\n") == 1, err
