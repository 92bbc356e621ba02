"""Tournament specs, fingerprints and tournament files (every error names key and line)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from referee.errors import ConfigError
from referee.settings import ResourceLimits, TimeLimits
from protocols.clock import Clock
from referee.registry.games import AnyGame
from referee.games.rage.definition import RAGE
from referee.games.thegame.definition import THEGAME
from tournaments.spec.toml_file import load_tournament_file
from tournaments.spec.definition import BotEntry, SpecError, TournamentSpec, spec_from_json
from tests.load_support import loading_error
from tests.tournaments.fakes import make_spec
from tournaments.schedule.fixtures import fixtures_for

EXAMPLES = Path(__file__).parents[2] / "tournaments" / "examples"

GOOD = """\
game = "rage"
deals = 4
seed = 1
table_size = 4
variants = ["durchmarsch"]

[limits]
startup = 10.0
move = 1.0
bank = 0.0

[[bots]]
name = "random"
command = "python bots/rage_random.py"

[[bots]]
name = "heuristic"
command = "python bots/rage_heuristic.py"
"""


def write(tmp_path: Path, text: str) -> Path:
    """`text` as a tournament file in `tmp_path`, its bots' paths made relative to it
    (a file's paths are), so that they read as `bots/...` from the project's root."""
    path = tmp_path / "t.toml"
    up = os.path.relpath(Path(__file__).resolve().parents[2], tmp_path)
    path.write_text(text.replace('"python bots/', f'"python {up}/bots/'))
    return path


def load_error(tmp_path: Path, text: str) -> str:
    """The error of loading `text` as a tournament file: one sentence naming the file."""
    message = loading_error(load_tournament_file, write(tmp_path, text))
    assert "\n" not in message and message.endswith(".")
    return message


def test_good_file_loads_every_field(tmp_path: Path) -> None:
    spec = load_tournament_file(write(tmp_path, GOOD + "\n[resources]\nmemory_mb = 512\n"
                                                         'cpu_seconds = "unlimited"\n'))
    assert spec.game is RAGE and spec.deals == 4 and spec.seed == 1
    assert spec.size == 4 and spec.options["variants"] == ("durchmarsch",)
    assert spec.time_limits == TimeLimits(startup=10.0, move=1.0, bank=0.0)
    assert spec.resource_limits == ResourceLimits(memory_mb=512, cpu_seconds=None)
    assert spec.bots == (BotEntry("random", "python bots/rage_random.py"),
                         BotEntry("heuristic", "python bots/rage_heuristic.py"))


def test_example_files_load() -> None:
    classroom = load_tournament_file(EXAMPLES / "classroom.toml")
    assert classroom.game is RAGE
    assert [bot.command for bot in classroom.bots] == [
        "python bots/rage_random.py", "python bots/rage_heuristic.py",
        "stdio:bots/rage_first.sh"]
    teams = load_tournament_file(EXAMPLES / "thegame_teams.toml")
    assert teams.game is THEGAME and teams.size == 3


def test_default_sizes() -> None:
    assert make_spec(RAGE, n_bots=6).size == 4
    assert make_spec(RAGE, n_bots=3).size == 3
    assert make_spec(RAGE, n_bots=2).size == 3
    assert make_spec(THEGAME, n_bots=3).size == 2
    assert make_spec(THEGAME, n_bots=1).size == 1


def test_fingerprint_covers_what_defines_results_only() -> None:
    base = make_spec(deals=2, seed=1)
    assert base.fingerprint() == make_spec(deals=2, seed=1).fingerprint()
    assert base.fingerprint() == make_spec(deals=2, seed=1, fresh_bots=True).fingerprint()
    different = [make_spec(deals=3, seed=1), make_spec(deals=2, seed=2),
                 make_spec(deals=2, seed=1, size=3),
                 make_spec(deals=2, seed=1, options={"variants": ("durchmarsch",)}),
                 make_spec(deals=2, seed=1, time_limits=TimeLimits(move=2.0)),
                 make_spec(deals=2, seed=1, time_limits=TimeLimits(clock=Clock.CPU)),
                 make_spec(deals=2, seed=1, resource_limits=ResourceLimits(memory_mb=512)),
                 make_spec(n_bots=4, deals=2, seed=1)]
    prints = {spec.fingerprint() for spec in different}
    assert base.fingerprint() not in prints and len(prints) == len(different)
    renamed = TournamentSpec.create(RAGE, (BotEntry("a", "x"), BotEntry("b", "y")))
    recommanded = TournamentSpec.create(RAGE, (BotEntry("a", "x"), BotEntry("b", "z")))
    assert renamed.fingerprint() != recommanded.fingerprint()
    assert re.fullmatch(r"[0-9a-f]{64}", base.fingerprint())


def test_the_wall_clock_keeps_the_fingerprints_made_before_there_was_a_clock() -> None:
    """Measured on the commit before --clock: a db made then still resumes."""
    assert make_spec(deals=2, seed=1).fingerprint() == (
        "6dedd47f356966648601c6908e5ca841810336c23f066417e6d8bd808dc89d80")


def test_the_clock_is_a_key_of_limits_and_survives_the_store(tmp_path: Path) -> None:
    spec = load_tournament_file(write(tmp_path, GOOD.replace("bank = 0.0",
                                                             'bank = 0.0\nclock = "cpu"')))
    assert spec.time_limits == TimeLimits(startup=10.0, move=1.0, bank=0.0, clock=Clock.CPU)
    assert spec_from_json(spec.to_json()) == spec
    wall = load_tournament_file(write(tmp_path, GOOD.replace("bank = 0.0",
                                                             'bank = 0.0\nclock = "wall"')))
    assert wall.time_limits.clock is Clock.WALL and wall == load_tournament_file(
        write(tmp_path, GOOD))


@pytest.mark.parametrize("value", ['"sun"', '"CPU"', "1", "true", '["cpu"]'])
def test_a_bad_clock_names_key_line_and_choices(tmp_path: Path, value: str) -> None:
    message = load_error(tmp_path, GOOD.replace("bank = 0.0", f"bank = 0.0\nclock = {value}"))
    assert "'clock'" in message and 'must be "wall" or "cpu"' in message
    assert "line 11:" in message


def test_a_clock_that_is_no_clock_is_refused_in_the_spec_too() -> None:
    with pytest.raises(SpecError, match="clock") as caught:
        make_spec(time_limits=TimeLimits(clock="cpu"))  # type: ignore[arg-type]
    assert caught.value.key == "clock"


def test_variant_order_does_not_change_the_fingerprint() -> None:
    one = make_spec(options={"variants": ("durchmarsch", "hidden-bid")})
    other = make_spec(options={"variants": ("hidden-bid", "durchmarsch")})
    assert one.fingerprint() == other.fingerprint()


def test_command_mapping_fingerprint_follows_content_not_path(tmp_path: Path) -> None:
    first, second, third = tmp_path / "a.toml", tmp_path / "b.toml", tmp_path / "c.toml"
    first.write_text("[commands]\n")
    second.write_text("[commands]\n")
    third.write_text("[commands]\n# changed\n")
    prints = [make_spec(THEGAME, options={"commands": path}).fingerprint()
              for path in (first, second, third)]
    assert prints[0] == prints[1] != prints[2]
    assert make_spec(THEGAME, options={"no_commands": True}).fingerprint() != prints[0]


def test_spec_errors_name_the_key() -> None:
    with pytest.raises(SpecError) as caught:
        make_spec(deals=0)
    assert caught.value.key == "deals"
    with pytest.raises(SpecError, match="at least 2 bots"):
        make_spec(n_bots=1)


@pytest.mark.parametrize("other", ["hidden-bid", "secret-bid"])
def test_r10_plus_minus_one_with_hidden_or_secret_bid_is_refused(other: str) -> None:
    """Ruling R10: plus/minus one cannot be combined with hidden or secret bids."""
    with pytest.raises(SpecError, match="R10") as caught:
        make_spec(options={"variants": ("plus-minus-one", other)})
    assert caught.value.key == "variants"


def test_hidden_bid_with_secret_bid_is_refused() -> None:
    with pytest.raises(SpecError, match="hidden-bid and secret-bid"):
        make_spec(options={"variants": ("hidden-bid", "secret-bid")})


def test_syntax_error_gives_line_and_column(tmp_path: Path) -> None:
    message = load_error(tmp_path, 'game = "rage"\ndeals = 4\nseed = = 1\n')
    assert "line 3, column" in message and "seed = = 1" in message


def test_missing_top_level_key_names_table_and_line(tmp_path: Path) -> None:
    message = load_error(tmp_path, GOOD.replace('game = "rage"\n', ""))
    assert "'game'" in message and "top-level table" in message and "line 1" in message


def test_missing_bot_key_names_the_bots_table_and_its_line(tmp_path: Path) -> None:
    message = load_error(tmp_path, GOOD.replace('command = "python bots/rage_heuristic.py"\n',
                                                ""))
    assert "'command'" in message and "[[bots]] number 2" in message
    assert "starting on line 16" in message


def test_missing_bots_entirely(tmp_path: Path) -> None:
    message = load_error(tmp_path, 'game = "rage"\n')
    assert "'bots'" in message and "line 1" in message


def test_unknown_top_level_key(tmp_path: Path) -> None:
    message = load_error(tmp_path, GOOD.replace("seed = 1", "sede = 1"))
    assert "'sede'" in message and "line 3:" in message and "known keys" in message


def test_unknown_key_in_limits_and_in_bots(tmp_path: Path) -> None:
    message = load_error(tmp_path, GOOD.replace("move = 1.0", "moev = 1.0"))
    assert "'moev'" in message and "line 9:" in message and "[limits]" in message
    message = load_error(tmp_path, GOOD.replace('name = "heuristic"', 'nmae = "heuristic"'))
    assert "'nmae'" in message and "line 17:" in message


def test_key_of_the_other_game_is_unknown(tmp_path: Path) -> None:
    message = load_error(tmp_path, GOOD.replace("table_size = 4", "team_size = 2"))
    assert "'team_size'" in message and "line 4:" in message and "thegame" in message


@pytest.mark.parametrize("old,new,key,line", [
    ("deals = 4", 'deals = "four"', "'deals'", 2),
    ("seed = 1", "seed = 1.5", "'seed'", 3),
    ("table_size = 4", "table_size = true", "'table_size'", 4),
    ('variants = ["durchmarsch"]', 'variants = "durchmarsch"', "'variants'", 5),
    ("move = 1.0", 'move = "fast"', "'move'", 9),
    ('name = "random"', "name = 7", "'name'", 13),
    ('game = "rage"', "game = 1", "'game'", 1),
])
def test_wrong_type_names_key_and_line(tmp_path: Path, old: str, new: str, key: str,
                                       line: int) -> None:
    message = load_error(tmp_path, GOOD.replace(old, new))
    assert key in message and f"line {line}:" in message


@pytest.mark.parametrize("old,new,key,line", [
    ("deals = 4", "deals = 0", "'deals'", 2),
    ("table_size = 4", "table_size = 9", "'table_size'", 4),
    ('variants = ["durchmarsch"]', 'variants = ["plus-minus-one", "hidden-bid"]',
     "R10", 5),  # ruling R10
    ('variants = ["durchmarsch"]', 'variants = ["durchmarch"]', "'durchmarch'", 5),
    ("bank = 0.0", "bank = -1.0", "'bank'", 10),
    ('game = "rage"', 'game = "chess"', "'game'", 1),
])
def test_bad_value_names_key_and_line(tmp_path: Path, old: str, new: str, key: str,
                                      line: int) -> None:
    message = load_error(tmp_path, GOOD.replace(old, new))
    assert key in message and f"line {line}:" in message


@pytest.mark.parametrize("old,new,key,line", [
    ('name = "heuristic"', 'name = "my bot"', "'name'", 17),
    ('name = "heuristic"', 'name = "a+b"', "'name'", 17),
    ('command = "python bots/rage_heuristic.py"', 'command = "  "', "'command'", 18),
])
def test_bad_bot_entry_names_key_and_line(tmp_path: Path, old: str, new: str, key: str,
                                          line: int) -> None:
    message = load_error(tmp_path, GOOD.replace(old, new))
    assert "bot" in message and f"line {line}:" in message
    assert key.strip("'") in message or "empty command" in message


def test_bots_not_an_array_of_tables(tmp_path: Path) -> None:
    message = load_error(tmp_path, 'game = "rage"\nbots = "random"\n')
    assert "'bots'" in message and "line 2:" in message


def test_duplicate_bot_names_point_at_the_second(tmp_path: Path) -> None:
    message = load_error(tmp_path, GOOD.replace('name = "heuristic"', 'name = "random"'))
    assert "'random'" in message and "twice" in message and "line 17:" in message


def test_inline_bot_tables_still_get_a_line(tmp_path: Path) -> None:
    text = ('game = "rage"\nbots = [\n  {name = "a", command = "x"},\n'
            '  {name = "a", command = "y"},\n]\n')
    message = load_error(tmp_path, text)
    assert "twice" in message and "line 4:" in message


def test_resources_and_commands_checks(tmp_path: Path) -> None:
    message = load_error(tmp_path, GOOD + "\n[resources]\nmemory_mb = \"lots\"\n")
    assert "'memory_mb'" in message and "line 21:" in message
    thegame = GOOD.replace('game = "rage"', 'game = "thegame"').replace(
        "table_size = 4\nvariants = [\"durchmarsch\"]\n", 'commands = "nope.toml"\n')
    message = load_error(tmp_path, thegame)
    assert "nope.toml" in message and "does not exist" in message and "line 4:" in message
    (tmp_path / "map.toml").write_text("[commands]\n")
    both = thegame.replace("nope.toml", "map.toml").replace("seed = 1", "no_commands = true")
    message = load_error(tmp_path, both)
    assert "'commands'" in message and "line 4:" in message


def test_commands_path_is_relative_to_the_file(tmp_path: Path) -> None:
    (tmp_path / "map.toml").write_text("[commands]\n")
    text = GOOD.replace('game = "rage"', 'game = "thegame"').replace(
        "table_size = 4\nvariants = [\"durchmarsch\"]\n", 'commands = "map.toml"\n')
    assert load_tournament_file(write(tmp_path, text)).options["commands"] == tmp_path / "map.toml"


def test_unreadable_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read"):
        load_tournament_file(tmp_path / "missing.toml")


def test_syntax_error_at_end_of_document_names_the_last_line(tmp_path: Path) -> None:
    message = load_error(tmp_path, 'game = "rage"\ndeals = [\n')
    assert "line 2:" in message and "syntax" in message


# ---------------------------------------------------------------- numbers and sizes

@pytest.mark.parametrize("old,new,key", [
    ("move = 1.0", "move = nan", "'move'"),
    ("move = 1.0", "move = inf", "'move'"),
    ("move = 1.0", "move = 1e300", "'move'"),
    ("bank = 0.0", "bank = -inf", "'bank'"),
    ("bank = 0.0", "bank = 0.0\ntolerance = nan", "'tolerance'"),
    ("bank = 0.0", "bank = 0.0\ntolerance = 1e9", "'tolerance'"),
    ("deals = 4", "deals = 9223372036854775807", "'deals'"),
    ("seed = 1", "seed = -1", "'seed'"),
])
def test_numbers_must_be_finite_and_in_range(tmp_path: Path, old: str, new: str,
                                             key: str) -> None:
    message = load_error(tmp_path, GOOD.replace(old, new))
    assert key in message and "line " in message


@pytest.mark.parametrize("value", ["1", "15", "1048577", "9223372036854775807"])
def test_memory_must_be_runnable_and_bounded(tmp_path: Path, value: str) -> None:
    message = load_error(tmp_path, GOOD + f"\n[resources]\nmemory_mb = {value}\n")
    assert "'memory_mb'" in message and "16" in message and "line 21:" in message


def test_tolerance_nan_is_refused_in_the_spec_too() -> None:
    with pytest.raises(SpecError, match="tolerance"):
        make_spec(time_limits=TimeLimits(tolerance=float("nan")))


@pytest.mark.parametrize("game, n_bots, size", [
    (RAGE, n, size) for n in range(2, 10) for size in range(3, 9)] + [
    (THEGAME, n, size) for n in range(1, 8) for size in range(1, 6)])
def test_the_game_count_is_the_schedule_length_without_building_it(
        game: AnyGame, n_bots: int, size: int) -> None:
    spec = make_spec(game, n_bots=n_bots, deals=3, size=size)
    assert spec.games == len(fixtures_for(spec, b"s" * 32))


def test_a_tournament_of_too_many_games_is_refused_before_it_is_built() -> None:
    # 60 bots at tables of 8: 20 billion games per deal; building them would never end.
    bots = tuple(BotEntry(f"bot{index}", "python bot.py") for index in range(60))
    with pytest.raises(SpecError, match="games") as caught:
        TournamentSpec.create(RAGE, bots, size=8, deals=1)
    assert caught.value.key == "deals" and "1,000,000" in str(caught.value)
    assert make_spec(n_bots=9, size=4, deals=1984).games == 126 * 4 * 1984  # 999,936


def test_deeply_nested_toml_is_one_error_not_a_recursion_error(tmp_path: Path) -> None:
    message = load_error(tmp_path, GOOD + "x = " + "[" * 5000 + "]" * 5000 + "\n")
    assert "nested too deeply" in message
    message = load_error(tmp_path, GOOD + "y = " + "{a = " * 5000 + "1" + "}" * 5000 + "\n")
    assert "nested too deeply" in message


def test_an_integer_of_thousands_of_digits_is_one_error(tmp_path: Path) -> None:
    message = load_error(tmp_path, GOOD.replace("deals = 4", "deals = " + "9" * 5000))
    assert "unreadable TOML value" in message
