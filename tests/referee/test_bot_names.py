"""Bot names (issue 29, part 4): a student's own name in any language, NFC, up to 40
characters, safe in every format; an unnamed bot with a generic script name is named
after its folder."""

from __future__ import annotations

import csv
import io
import json
import stat
import unicodedata
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import example, given, strategies as st
from wcwidth import wcswidth

from referee.bot_names import is_bot_name, normal_name
from referee.errors import BotStartError
from referee.players.human import human_name
from referee.players.lineup import HUMANS_ONLY_IN_PLAY, bot_labels, named, seat_specs
from tests.cli_support import assert_bad_input, run_main

FIRST = "stdio:bots/rage_first.sh"


@pytest.mark.parametrize("name", ["Zoë", "José", "王芳", "Ærøskøbing", "o'brien", "x" * 40,
                                  "<b>&amp;|`*"])
def test_any_printable_name_is_taken(name: str) -> None:
    assert named(f"{name}=python bot.py") == (name, "python bot.py")


def test_a_name_is_stored_nfc() -> None:
    decomposed = "Zoe\u0308"  # e and a combining diaeresis, as some keyboards type it
    assert named(f"{decomposed}=python bot.py")[0] == "Zoë" == normal_name(decomposed)


@pytest.mark.parametrize("text", ["python -Xdev=1 bot.py", "./bots/x=1", "=python bot.py",
                                  "python bot.py --a=b", "alice= python bot.py"])
def test_a_command_that_merely_holds_an_equals_sign_has_no_name(text: str) -> None:
    assert named(text) == (None, text)


@pytest.mark.parametrize("name", ["a+b", "x" * 41, "tab\x1b[31m", "a\\b", ".."])
def test_a_name_against_the_rules_is_one_error_line(name: str) -> None:
    with pytest.raises(BotStartError, match="must be 1 to 40 printable characters"):
        named(f"{name}=python bot.py")
    assert_bad_input(["play", "rage", "--sandbox", "off", f"{name}={FIRST}", FIRST, FIRST],
                     "bot name", "must be 1 to 40")


@given(st.text(max_size=45))
def test_every_name_taken_is_one_printable_word_xml_holds(text: str) -> None:
    name = normal_name(text)
    if not is_bot_name(name):
        return
    assert unicodedata.normalize("NFC", name) == name and 1 <= len(name) <= 40
    assert name.isprintable() and not any(c.isspace() for c in name)
    assert "+" not in name and "/" not in name
    element = ET.Element("testsuite", {"name": f"referee check rage {name}"})
    read = ET.fromstring(ET.tostring(element, encoding="unicode"))
    assert read.get("name") == f"referee check rage {name}"


def executable(path: Path, text: str = "#!/bin/sh\n") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def test_a_generic_script_is_named_after_its_folder(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for path in ("students/alice/bot.py", "students/bob/bot.sh", "students/carol/index.js",
                 "students/dave/target/release/main", "students/eve/a.out",
                 "students/Zoë/main.py", "students/frank/rage_smart.py"):
        executable(tmp_path / path)
    labels = bot_labels(["python students/alice/bot.py", "stdio:students/bob/bot.sh",
                         "node students/carol/index.js", "students/dave/target/release/main",
                         "./students/eve/a.out", "python3 students/Zoë/main.py",
                         "python students/frank/rage_smart.py"])
    assert labels == ["alice", "bob", "carol", "dave", "eve", "Zoë", "rage_smart"]


def test_a_folder_whose_name_has_a_space_keeps_its_letters(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Only what a name may not hold becomes '_': "Zoë Ann" was named "Zo_Ann", every
    character outside A-Z a-z 0-9 . _ - made '_' with the space."""
    monkeypatch.chdir(tmp_path)
    for path in ("s/Zoë Ann/bot.py", "s/王 芳/main.py", "s/a+b=c/bot.py", "s/ /bot.py"):
        executable(tmp_path / path)
    assert bot_labels(["python 's/Zoë Ann/bot.py'", "python 's/王 芳/main.py'",
                       "python 's/a+b=c/bot.py'", "python 's/ /bot.py'"]) == \
        ["Zoë_Ann", "王_芳", "a_b_c", "bot"]


def test_a_person_keeps_their_name_in_play(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """`human=Zoë` took the seat as "Zo_": the same A-Z-only cleaning as file names. (A
    name against the rule is refused: tests/terminal/test_human_names.py.)"""
    monkeypatch.chdir(tmp_path)
    executable(tmp_path / "r.sh")
    specs = seat_specs(["human=Zoë", "stdio:./r.sh"])
    assert [spec.label for spec in specs] == ["Zoë", "r"]


def test_two_folders_of_one_name_are_numbered(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    executable(tmp_path / "a/alice/bot.py")
    executable(tmp_path / "b/alice/bot.py")
    assert bot_labels(["python a/alice/bot.py", "python b/alice/bot.py"]) == \
        ["alice-1", "alice-2"]


def test_a_hostile_name_is_safe_in_every_format(tmp_path: Path) -> None:
    name = 'Zoë<b>|`&"x'
    db = tmp_path / "t.sqlite"
    code, _, err = run_main(["tournament", "rage", "--deals", "1", "--sandbox", "off",
                             "--db", str(db), f"{name}={FIRST}", f"王芳={FIRST}", FIRST, FIRST])
    assert code == 0, err

    def results(fmt: str) -> str:
        code, out, err = run_main(["results", str(db), "--format", fmt])
        assert code == 0, err
        return out

    text = results("text")
    assert name in text
    # a wide name takes two columns a character: the table is aligned as a terminal shows it
    standings = text.split("\n\n")[0].splitlines()[1:]
    assert len({wcswidth(line) for line in standings}) == 1, text
    assert "Zoë&lt;b&gt;\\|\\`&amp;\"x" in results("markdown")
    page = results("html")
    assert "<b>" not in page and "Zoë&lt;b&gt;|`&amp;&quot;x" in page
    assert name in {cell for row in csv.reader(io.StringIO(results("csv"))) for cell in row}
    assert name in strings(json.loads(results("json")))
    code, out, err = run_main(["results", str(db), "--bot", name, "--format", "markdown"])
    assert code == 0, err
    assert "### Games of Zoë&lt;b&gt;\\|\\`&amp;\"x" in out


def strings(value: object) -> set[str]:
    """Every string in a JSON value, keys too."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set(value) | {s for item in value.values() for s in strings(item)}
    if isinstance(value, list):
        return {s for item in value for s in strings(item)}
    return set()


@given(st.text(max_size=60))
@example("human")  # a person's seat (docs/human.md): only `referee play` seats people
@example("human=Ann")
def test_any_bot_argument_is_a_named_command_a_plain_one_or_one_error(text: str) -> None:
    try:
        name, command = named(text)
    except BotStartError as error:
        expected = (HUMANS_ONLY_IN_PLAY if human_name(text) is not None
                    else "must be 1 to 40 printable characters")
        assert expected in str(error)
        return
    if name is None:
        assert command == text
    else:
        assert is_bot_name(name) and name == normal_name(name)
        assert text.endswith("=" + command) and command[:1].strip()
