"""The Game Extreme command mapping: the enum, the shipped default, loading and validation."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.errors import ConfigError
from referee.games.thegame.rules import TheGameConfig
from referee.games.thegame.commands import (
    DEFAULT_COMMANDS,
    Command,
    CommandMap,
    load_command_map,
)
from tests.load_support import loading_error

DEFAULT_NUMBERS = {
    "stop": [3, 39, 56, 92],
    "skull": [6, 42, 59, 95],
    "three": [9, 45, 62, 77],
    "notalk": [12, 27, 65, 80],
    "noreverse": [15, 30, 68, 83],
    "onepile": [18, 33, 71, 86],
    "drawone": [21, 36, 53, 89],
}


def _toml(numbers: dict[str, object]) -> str:
    lines = ["[commands]"] + [f"{key} = {value!r}" for key, value in numbers.items()]
    return "\n".join(lines).replace("'", '"') + "\n"


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "map.toml"
    path.write_text(text, encoding="utf-8")
    return path


def _load_error(tmp_path: Path, text: str) -> str:
    return loading_error(load_command_map, _write(tmp_path, text))


def test_wire_names_are_non_numeric() -> None:
    assert [c.value for c in Command] == list(DEFAULT_NUMBERS)
    assert not any(c.value.isdigit() for c in Command)


def test_lightning_and_infinity_partition_the_commands() -> None:
    lightning = {c for c in Command if c.is_lightning}
    infinity = {c for c in Command if c.is_infinity}
    assert lightning == {Command.STOP, Command.SKULL, Command.THREE}
    assert infinity == {Command.NO_TALKING, Command.NO_REVERSE, Command.ONE_PILE,
                        Command.DRAW_ONE}


def test_default_map_is_valid_and_pinned() -> None:
    """The shipped mapping: 28 numbers, 4 per command (docs/rules.md, Commands), as documented."""
    DEFAULT_COMMANDS.validate()
    assert DEFAULT_COMMANDS.to_json() == DEFAULT_NUMBERS
    assert len(DEFAULT_COMMANDS.by_number) == 28


def test_default_map_spreads_each_command_over_the_quarters() -> None:
    quarters = [(2, 25), (26, 50), (51, 75), (76, 99)]
    for command in Command:
        numbers = DEFAULT_COMMANDS.numbers_of(command)
        assert [sum(lo <= n <= hi for n in numbers) for lo, hi in quarters] == [1, 1, 1, 1]


def test_default_map_keeps_command_cards_apart_by_other_than_ten() -> None:
    numbers = set(DEFAULT_COMMANDS.by_number)
    assert not any(n + 10 in numbers for n in numbers)
    assert 2 not in numbers and 99 not in numbers


def test_command_of() -> None:
    assert DEFAULT_COMMANDS.command_of(39) is Command.STOP
    assert DEFAULT_COMMANDS.command_of(40) is None


def test_map_is_immutable() -> None:
    source = {3: Command.STOP}
    mapping = CommandMap(source)
    source[4] = Command.STOP
    assert 4 not in mapping.by_number
    with pytest.raises(TypeError):
        mapping.by_number[5] = Command.STOP  # type: ignore[index]


def test_maps_compare_and_hash_by_content() -> None:
    copy = CommandMap(dict(DEFAULT_COMMANDS.by_number))
    assert copy == DEFAULT_COMMANDS
    assert hash(copy) == hash(DEFAULT_COMMANDS)


def test_load_round_trips_the_default(tmp_path: Path) -> None:
    loaded = load_command_map(_write(tmp_path, _toml(dict(DEFAULT_NUMBERS))))
    assert loaded == DEFAULT_COMMANDS


def test_load_accepts_another_valid_mapping(tmp_path: Path) -> None:
    numbers = {key: [n + 1 for n in values] for key, values in DEFAULT_NUMBERS.items()}
    loaded = load_command_map(str(_write(tmp_path, _toml(dict(numbers)))))
    assert loaded.command_of(40) is Command.STOP
    assert loaded.command_of(39) is None


def test_validate_names_command_and_count() -> None:
    numbers = {Command(k): v for k, v in DEFAULT_NUMBERS.items()}
    numbers[Command.STOP] = [3, 39, 56]
    with pytest.raises(ConfigError, match=r"stop has 3 cards, needs exactly 4"):
        CommandMap.from_numbers(numbers).validate()


def test_validate_names_number_out_of_range() -> None:
    numbers = {Command(k): v for k, v in DEFAULT_NUMBERS.items()}
    numbers[Command.SKULL] = [1, 42, 59, 95]
    with pytest.raises(ConfigError, match=r"number 1 \(skull\) is out of range 2\.\.99"):
        CommandMap.from_numbers(numbers).validate()


def test_config_rejects_an_invalid_map() -> None:
    without_draw_one = CommandMap({n: c for n, c in DEFAULT_COMMANDS.by_number.items()
                                   if c is not Command.DRAW_ONE})
    with pytest.raises(ConfigError, match="drawone has 0 cards"):
        TheGameConfig(players=2, commands=without_draw_one)


def test_wrong_count(tmp_path: Path) -> None:
    numbers: dict[str, object] = dict(DEFAULT_NUMBERS)
    numbers["skull"] = [6, 42, 59]
    assert "key 'skull' has 3 numbers, needs exactly 4" in _load_error(tmp_path, _toml(numbers))


def test_duplicate_number_across_commands(tmp_path: Path) -> None:
    numbers: dict[str, object] = dict(DEFAULT_NUMBERS)
    numbers["skull"] = [3, 42, 59, 95]
    assert "number 3 is given twice (stop and skull)" in _load_error(tmp_path, _toml(numbers))


def test_duplicate_number_within_a_command(tmp_path: Path) -> None:
    numbers: dict[str, object] = dict(DEFAULT_NUMBERS)
    numbers["three"] = [9, 9, 62, 77]
    assert "number 9 is given twice (three and three)" in _load_error(tmp_path, _toml(numbers))


@pytest.mark.parametrize("bad", [1, 100, 0, -5])
def test_out_of_range(tmp_path: Path, bad: int) -> None:
    numbers: dict[str, object] = dict(DEFAULT_NUMBERS)
    numbers["drawone"] = [bad, 36, 53, 89]
    message = _load_error(tmp_path, _toml(numbers))
    assert f"number {bad} (drawone) is out of range 2..99" in message


def test_unknown_command(tmp_path: Path) -> None:
    numbers: dict[str, object] = dict(DEFAULT_NUMBERS)
    numbers["explode"] = [2, 4, 5, 7]
    message = _load_error(tmp_path, _toml(numbers))
    assert "unknown command 'explode'" in message and "stop, skull" in message


def test_missing_command(tmp_path: Path) -> None:
    numbers: dict[str, object] = dict(DEFAULT_NUMBERS)
    del numbers["onepile"]
    assert "command 'onepile' is missing" in _load_error(tmp_path, _toml(numbers))


def test_toml_syntax_error_names_the_line(tmp_path: Path) -> None:
    message = _load_error(tmp_path, "[commands]\nstop = [3, 39, 56, 92]\nskull = [6,, 42]\n")
    assert "TOML syntax error" in message and "line 3" in message


@pytest.mark.parametrize("value", ['"3, 39, 56, 92"', "[3, 39, 56.0, 92]", "[3, 39, true, 92]"])
def test_wrong_type(tmp_path: Path, value: str) -> None:
    text = _toml(dict(DEFAULT_NUMBERS)).replace("stop = [3, 39, 56, 92]", f"stop = {value}")
    assert "key 'stop' must be a list of 4 integers" in _load_error(tmp_path, text)


def test_missing_table(tmp_path: Path) -> None:
    assert "needs a [commands] table" in _load_error(tmp_path, "")


def test_unknown_top_level_key(tmp_path: Path) -> None:
    text = "name = 'mine'\n" + _toml(dict(DEFAULT_NUMBERS))
    assert "unknown top-level key 'name'" in _load_error(tmp_path, text)


def test_unreadable_file(tmp_path: Path) -> None:
    missing = tmp_path / "nope.toml"
    with pytest.raises(ConfigError, match=r"cannot read command map .*nope\.toml"):
        load_command_map(missing)


@pytest.mark.parametrize("value", ["[" * 5000 + "]" * 5000, "{a = " * 5000 + "1" + "}" * 5000])
def test_deeply_nested_toml_is_one_error_not_a_recursion_error(tmp_path: Path,
                                                                value: str) -> None:
    message = _load_error(tmp_path, f"[commands]\nstop = {value}\n")
    assert "nested too deeply" in message and "\n" not in message


def test_an_integer_of_thousands_of_digits_is_one_error(tmp_path: Path) -> None:
    message = _load_error(tmp_path, "[commands]\nstop = [" + "9" * 5000 + "]\n")
    assert "unreadable TOML value" in message and "\n" not in message
