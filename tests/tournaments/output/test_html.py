"""The HTML page: complete and standalone, the settings in a caption, the crosstable
shaded, every fault listed bot by bot, and nothing a bot sends can become markup."""

from __future__ import annotations

from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path

from referee.games.thegame.definition import THEGAME
from referee.settings import ResourceLimits
from tests.cli_support import run_main
from tests.tournaments.fakes import make_spec
from tests.tournaments.output.stored import HOSTILE_LINE, fake_db
from tournaments.output.html_page import html_page, shade
from tournaments.output.tables import Column, ResultTable
from tournaments.output.results import metadata

RANDOM = "python bots/rage_random.py"
HEURISTIC = "python bots/rage_heuristic.py"


class Elements(HTMLParser):
    """Every start tag, with its attributes, and the text of each table cell."""

    def __init__(self, page: str) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.cells: list[str] = []
        self._in_cell = False
        self.feed(page)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag == "td":
            self._in_cell = True
            self.cells.append("")

    def handle_endtag(self, tag: str) -> None:
        self._in_cell = self._in_cell and tag != "td"

    def handle_data(self, data: str) -> None:
        if self._in_cell:
            self.cells[-1] += data

    def names(self) -> list[str]:
        return [tag for tag, _ in self.tags]


def page_of(db: Path) -> str:
    code, out, err = run_main(["results", str(db), "--format", "html"])
    assert code == 0, err
    return out


def test_a_complete_standalone_page(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    scheduled = fake_db(db, n_bots=4)
    page = page_of(db)
    assert page.startswith("<!DOCTYPE html>\n") and page.rstrip().endswith("</html>")
    elements = Elements(page)
    assert ("meta", {"charset": "utf-8"}) in elements.tags
    assert "<title>Rage tournament results</title>" in page
    assert "script" not in elements.names() and "link" not in elements.names()
    assert not any({"src", "href"} & set(attrs) for _, attrs in elements.tags)  # no outside file
    tables = [attrs.get("id") for tag, attrs in elements.tags if tag == "table"]
    assert tables == ["settings", "standings", "head_to_head", "pairs", "fault_summary",
                      "bots", "faults"]
    assert elements.names().count("caption") == 7
    assert "<caption>Settings</caption>" in page
    assert f'<th scope="row">games played</th><td>{scheduled} of {scheduled}</td>' in page
    shaded = [attrs["style"] for tag, attrs in elements.tags
              if tag == "td" and attrs.get("style")]
    assert len(shaded) == 4 * 3  # every pair of different bots; n/a cells unshaded


def test_the_shade_grows_with_the_distance_from_even() -> None:
    assert shade(50.0).endswith(", 0.00)")
    assert shade(100.0) == "rgba(46, 160, 67, 0.60)" and shade(0.0).startswith("rgba(215")
    assert float(shade(75.0).split(", ")[-1][:-1]) == 0.3


def test_the_fault_list_goes_bot_by_bot(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    fake_db(db, n_bots=4, deals=3)
    section = page_of(db).split('<table id="faults">')[1]
    rows = [Elements(row).cells for row in section.split("<tr>")[2:]]
    assert rows and [row[0] for row in rows] == sorted(row[0] for row in rows)
    assert any(row[3] == "protocol" for row in rows)


def test_bot_text_cannot_inject_markup() -> None:
    """Names are checked in a tournament, but the page escapes whatever it is given."""
    hostile = "<script>alert('x')</script>\"><b onmouseover=\"alert(1)"
    table = ResultTable("faults", f"title {hostile}", (Column(hostile, "bot"), Column("line", "line")),
                  ((hostile, hostile), (None, "&amp;")))
    page = html_page([table], metadata(make_spec(n_bots=3), 0))
    assert "<script" not in page.lower() and "<b " not in page
    elements = Elements(page)
    assert "script" not in elements.names() and "b" not in elements.names()
    assert elements.cells[-4:-2] == [hostile, hostile]  # shown as it was, as text
    assert elements.cells[-1] == "&amp;"  # not decoded to "&": escaped once more


def test_a_real_bot_s_hostile_line_is_shown_escaped(tmp_path: Path) -> None:
    for path in (tmp_path.parent, tmp_path):  # a sandboxed bot runs as another user
        path.chmod(0o755)
    bot = tmp_path / "evil.py"
    bot.write_text("import os, sys\n"
                   "print('HELLO 2', os.environ['REFEREE_TOKEN'], 'evil 1', flush=True)\n"
                   "for line in sys.stdin:\n"
                   f"    print({HOSTILE_LINE!r}, flush=True)\n")
    db = tmp_path / "results" / "e.sqlite"  # not in the bot's folder
    code, _, err = run_main(["tournament", "rage", "--db", str(db), "--table-size", "3",
                             f"alice={RANDOM}", f"carol={HEURISTIC}",
                             f"evil=stdio:python {bot}"])
    assert code == 0, err
    page = page_of(db)
    elements = Elements(page)
    assert "script" not in elements.names() and "img" not in elements.names()
    lines = [cell for cell in elements.cells if "alert" in cell]
    assert lines and all("<script>" in cell for cell in lines)  # as text, quoted
    standings = page.split('<table id="standings">')[1].split("</table>")[0]
    assert standings.rindex("evil") > max(standings.index("alice"), standings.index("carol"))


def test_the_settings_in_words() -> None:
    """None is an unlimited resource but a game option at its default."""
    spec = replace(make_spec(THEGAME, n_bots=2),
                   resource_limits=ResourceLimits(memory_mb=None))
    settings = dict(metadata(spec, 0).settings())
    assert settings["options"] == "commands default, no_commands no"
    assert settings["resources"].startswith("memory_mb unlimited, cpu_seconds 3600")
    assert settings["games played"].endswith("(incomplete)")
