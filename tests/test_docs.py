"""The rules are the project's own (docs/rules.md): every ruling that code and tests cite is
defined there, the pages for bot authors point to it, and nothing the project ships sends
a reader to material outside the repository."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "docs" / "rules.md"
FOLDERS = ("referee", "protocols", "bots", "tournaments", "tests", "bench", "docs", "tools")
TOP_FILES = ("README.md", "setup.cfg", "pyproject.toml", ".ci/run")
SUFFIXES = {".py", ".md", ".toml", ".cfg", ".sh", ".txt",
            ".c", ".h", ".cpp", ".rs", ".java", ".js"}  # the starter kits' too

# `# ruling R5`, `rulings X5-X8`, `(R1, R2)`, and test names such as `test_r10_...`
CITED = re.compile(r"\b([RX][1-9][0-9]?)\b")
CITED_IN_TEST_NAME = re.compile(r"\btest_([rx][1-9][0-9]?)_")
# docs/rules.md marks the rule that carries a number in bold: `**R5:**` or `(**X1**)`
DEFINED = re.compile(r"\*\*([RX][1-9][0-9]?):?\*\*")
INDEX_ROW = re.compile(r"^\| ([RX][1-9][0-9]?) \|", re.MULTILINE)
# Material beside the repository (../shared): rulings, seed texts, design notes.
OUTSIDE = re.compile(r"\.\./shared|shared/|RULINGS|DESIGN\.md")
# The benchmarks compare with reference anchors that by design stay outside the project.
BENCH_ANCHORS = re.compile(r"(?:\.\./)?shared/anchors")
POINT_TO_RULES = ("README.md", "protocols/README.md", "protocols/rage.md",
                  "protocols/thegame.md", "referee/games/README.md",
                  "referee/games/rage/README.md", "referee/games/thegame/README.md")


def project_files() -> list[Path]:
    """The text files of the project: code, tests, docs and configuration."""
    files = [ROOT / name for name in TOP_FILES if (ROOT / name).is_file()]
    for folder in FOLDERS:
        files.extend(path for path in sorted((ROOT / folder).rglob("*"))
                     if path.suffix in SUFFIXES and path.is_file()
                     and "__pycache__" not in path.parts)
    return files


def citations(text: str) -> set[str]:
    return set(CITED.findall(text)) | {n.upper() for n in CITED_IN_TEST_NAME.findall(text)}


def rules_text() -> str:
    return RULES.read_text(encoding="utf-8")


def test_the_citation_finder_finds_each_form() -> None:
    text = "# ruling R5\nrulings X5-X8 (R1, R2)\ndef test_r10_thing(): ...\nXR2 R2D2 x1 0xR1"
    assert citations(text) == {"R5", "X5", "X8", "R1", "R2", "R10"}


def test_every_ruling_cited_in_code_and_tests_is_defined_in_the_rules() -> None:
    defined = set(DEFINED.findall(rules_text()))
    where: dict[str, list[str]] = {}
    for path in project_files():
        if path in (RULES, Path(__file__).resolve()):
            continue
        for number in citations(path.read_text(encoding="utf-8")):
            where.setdefault(number, []).append(str(path.relative_to(ROOT)))
    assert {"R10", "X1"} <= set(where), "the scan found the engines' own citations"
    missing = {number: files for number, files in where.items() if number not in defined}
    assert not missing, f"cited but not defined in docs/rules.md: {missing}"


def test_every_ruling_is_defined_once_per_rule_and_listed_in_the_index() -> None:
    text = rules_text()
    defined = set(DEFINED.findall(text))
    listed = INDEX_ROW.findall(text)
    assert len(listed) == len(set(listed)), "each ruling has one row in the index"
    assert set(listed) == defined
    assert {f"R{n}" for n in range(1, 12)} <= defined


@pytest.mark.parametrize("name", POINT_TO_RULES)
def test_the_pages_for_bot_authors_point_to_the_rules(name: str) -> None:
    assert "docs/rules.md" in (ROOT / name).read_text(encoding="utf-8")


def test_the_outside_finder_finds_each_form() -> None:
    for line in ("see ../shared/RULINGS.md", "in shared/seeds/", "RULINGS: Hints",
                 "(DESIGN.md, Trust)"):
        assert OUTSIDE.search(line), line
    assert not OUTSIDE.search("docs/rules.md, Talking; a shared hub")


def test_nothing_the_project_ships_points_outside_the_repository() -> None:
    found = []
    for path in project_files():
        if path == Path(__file__).resolve():
            continue
        name = str(path.relative_to(ROOT))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if name.startswith("bench/"):
                line = BENCH_ANCHORS.sub("", line)
            if OUTSIDE.search(line):
                found.append(f"{name}:{number}: {line.strip()}")
    assert not found, "use docs/rules.md instead:\n" + "\n".join(found)
