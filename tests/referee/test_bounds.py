"""Every number a user sets has one allowed range, the same on the command line and in
tournament files (referee/bounds.py)."""

from __future__ import annotations

import math
from pathlib import Path

import click
import pytest

from referee import bounds
from referee.bounds import Bound
from referee.cli.options import Bounded, bot_limit_options
from referee.cli.tournament import tournament_command
from referee.errors import ConfigError
from tests.cli_support import assert_bad_input
from tournaments.spec.toml_file import load_tournament_file

RANDOM = "python bots/rage_random.py"
TWO_BOTS = '[[bots]]\nname = "a"\ncommand = "x"\n[[bots]]\nname = "b"\ncommand = "y"\n'

# command-line option, where its value goes in a tournament file
OPTIONS = {
    "--startup-time": ("limits", "startup"), "--move-time": ("limits", "move"),
    "--time-bank": ("limits", "bank"), "--max-memory": ("resources", "memory_mb"),
    "--max-cpu": ("resources", "cpu_seconds"), "--max-procs": ("resources", "processes"),
    "--deals": (None, "deals"), "--seed": (None, "seed"),
}  # --table-size and --team-size are each game's seats: the spec checks them, for both
# TOML spellings of test values; the command line gets str(value)
VALUES = [-1, 0, 0.5, 1, 2, 3, 8, 9, 15, 16, 60, 86400, 86401, 100_000, 100_001, 1_048_576,
          1_048_577, 2_592_001, 2**63 - 1, 1e300, math.inf, -math.inf, math.nan, "unlimited"]


def toml_value(value: object) -> str:
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    return repr(value)


def accepted_in_file(tmp_path: Path, table: str | None, key: str, value: object) -> bool:
    line = f"{key} = {toml_value(value)}\n"
    top, tables = (line, "") if table is None else ("", f"[{table}]\n{line}")
    path = tmp_path / "t.toml"
    path.write_text(f'game = "rage"\n{top}{TWO_BOTS}{tables}')
    try:
        load_tournament_file(path)
    except ConfigError:
        return False
    return True


def option_type(option: str) -> click.ParamType:  # type: ignore[type-arg, unused-ignore]
    for param in tournament_command().params:
        if option in getattr(param, "opts", []):
            return param.type
    raise AssertionError(option)


def accepted_on_command_line(option: str, value: object) -> bool:
    text = "nan" if isinstance(value, float) and math.isnan(value) else str(value)
    try:
        option_type(option).convert(text, None, None)
    except click.BadParameter:
        return False
    return True


@pytest.mark.parametrize("option", sorted(OPTIONS))
def test_the_command_line_and_files_accept_exactly_the_same_values(
        option: str, tmp_path: Path) -> None:
    table, key = OPTIONS[option]
    verdicts = set()
    for value in VALUES:
        in_file = accepted_in_file(tmp_path, table, key, value)
        assert accepted_on_command_line(option, value) == in_file, (option, value)
        verdicts.add(in_file)
    assert verdicts == {True, False}  # the values test both sides of the range


@pytest.mark.parametrize("option, value", [
    ("--move-time", "nan"), ("--move-time", "inf"), ("--move-time", "1e300"),
    ("--startup-time", "86401"), ("--max-memory", "1"), ("--max-memory", "15"),
    ("--max-memory", "1048577"), ("--max-memory", "9223372036854775807"),
    ("--max-cpu", "0"), ("--max-cpu", "99999999999"), ("--max-procs", "0"),
    ("--max-procs", "1e3"), ("--deals", "9223372036854775807"), ("--deals", "100001"),
    ("--jobs", "100000"), ("--seed", "-1"), ("--seed", "9223372036854775808"),
])
def test_out_of_range_numbers_are_one_line_naming_the_option(option: str, value: str) -> None:
    assert_bad_input(["tournament", "rage", option, value, RANDOM, RANDOM], option)


@pytest.mark.parametrize("option, value", [
    ("--max-memory", "1"), ("--max-memory", "2000000"), ("--move-time", "nan"),
])
def test_play_refuses_the_same_numbers(option: str, value: str) -> None:
    assert_bad_input(["play", "rage", option, value, RANDOM, RANDOM, RANDOM], option)


def test_every_bot_limit_option_has_an_upper_bound() -> None:
    @bot_limit_options
    def command(**_: object) -> None:
        """A stand-in command carrying the shared options."""

    params = click.command()(command).params
    bounds = {param.name: param.type.bound for param in params
              if isinstance(param.type, Bounded)}
    assert set(bounds) >= {"max_memory", "max_cpu", "max_procs",
                           "startup_time", "move_time", "time_bank"}
    for name, bound in bounds.items():
        assert math.isfinite(bound.most), name


def test_memory_must_be_enough_to_run_a_bot_and_fit_setrlimit() -> None:
    assert bounds.MEMORY_MIB.least >= 16
    assert bounds.MEMORY_MIB.most * 2**20 < 2**63  # setrlimit takes signed 64-bit bytes
    with pytest.raises(ValueError, match="16"):
        bounds.MEMORY_MIB.check(1)


@pytest.mark.parametrize("value", [True, "5", None, math.nan, 5.5])
def test_a_whole_number_bound_takes_only_ints(value: object) -> None:
    with pytest.raises(ValueError):
        Bound(1, 10).check(value)


def test_words_say_what_is_allowed() -> None:
    assert bounds.MOVE_SECONDS.describe() == "a finite number of seconds > 0 and <= 86400"
    assert bounds.DEALS.describe() == "a whole number of deals from 1 to 100000"
    assert bounds.MEMORY_MIB.parse("unlimited") is None
    assert bounds.MEMORY_MIB.parse(" 512 ") == 512
    assert bounds.BANK_SECONDS.parse("0") == 0.0
