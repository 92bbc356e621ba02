"""The HTML page in a real browser: headless Chromium (Debian's `chromium`, which .ci/run
installs) loads it, the tables are laid out with their rows, the crosstable is shaded,
and its screenshot is not blank. Without Chromium the test is skipped, except under CI
(the environment variable CI set), where that is a failure."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.cli_support import run_main
from tests.tournaments.output.png import pixels
from tests.tournaments.fakes import TEST_SECRET
from tests.tournaments.output.stored import HOSTILE_LINE, fake_db

WIDTH, HEIGHT = 1000, 1000
# Added by the test to its own copy of the page (the page itself has no script): what
# the browser laid out, written into the document for --dump-dom to show.
MEASURE = """<script>
const tables = [...document.querySelectorAll("table")].map(table => {
  const box = table.getBoundingClientRect();
  return {id: table.id, rows: table.tBodies[0].rows.length, width: box.width,
          height: box.height, scripts: document.scripts.length};
});
const shaded = [...document.querySelectorAll("#head_to_head td[style]")]
  .map(cell => getComputedStyle(cell).backgroundColor);
const lines = [...document.querySelectorAll("#faults td.line")].map(cell => cell.textContent);
const out = document.createElement("pre");
out.id = "measured";
out.textContent = JSON.stringify({tables, shaded, lines});
document.body.append(out);
</script>"""


def chromium() -> str:
    found = shutil.which("chromium")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is missing under CI: .ci/run installs Debian's chromium")
        pytest.skip("chromium is not installed (apt-get install chromium)")
    return found


def browse(page: Path, profile: Path, *action: str) -> subprocess.CompletedProcess[str]:
    """Chromium, headless, without network services or a profile of its own."""
    return subprocess.run(
        [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
         "--no-first-run", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", f"--user-data-dir={profile}", f"--window-size={WIDTH},{HEIGHT}",
         "--hide-scrollbars", *action, page.as_uri()],
        capture_output=True, text=True, timeout=120, check=False)


class Measured(HTMLParser):
    """The text of the <pre id="measured"> the script wrote."""

    def __init__(self, dom: str) -> None:
        super().__init__()
        self.text, self._inside = "", False
        self.feed(dom)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._inside = ("id", "measured") in attrs

    def handle_data(self, data: str) -> None:
        if self._inside:
            self.text += data


@pytest.fixture(name="page")
def results_page(tmp_path: Path) -> Path:
    db = tmp_path / "r.sqlite"
    fake_db(db, n_bots=4, deals=2, secret=TEST_SECRET)  # the same page every run: with
    # the db's own random secret, the made-up scores left every green cell too pale once
    code, out, err = run_main(["results", str(db), "--format", "html"])
    assert code == 0, err
    page = tmp_path / "page.html"
    page.write_text(out, encoding="utf-8")
    return page


def test_the_page_lays_out_its_tables_with_their_rows(page: Path, tmp_path: Path) -> None:
    measured = tmp_path / "measured.html"
    measured.write_text(page.read_text().replace("</body>", MEASURE + "\n</body>"))
    run = browse(measured, tmp_path / "profile", "--dump-dom")
    assert run.returncode == 0, run.stderr[-2000:]
    layout = json.loads(Measured(run.stdout).text)
    tables = {table["id"]: table for table in layout["tables"]}
    assert list(tables) == ["settings", "standings", "head_to_head", "pairs", "fault_summary",
                           "bots", "faults"]
    assert tables["standings"]["rows"] == tables["head_to_head"]["rows"] == 4
    assert tables["faults"]["rows"] >= 1
    assert all(table["width"] > 100 and table["height"] > 20 * table["rows"]
               for table in tables.values()), tables
    assert all(table["scripts"] == 1 for table in tables.values())  # only the test's own
    assert len(layout["shaded"]) == 12 and len(set(layout["shaded"])) > 1
    assert "rgba(0, 0, 0, 0)" not in layout["shaded"]  # transparent: the shade was lost
    assert any(HOSTILE_LINE[:20] in line for line in layout["lines"])  # text, not markup


def test_the_screenshot_shows_the_page(page: Path, tmp_path: Path) -> None:
    shot = tmp_path / "page.png"
    run = browse(page, tmp_path / "profile", f"--screenshot={shot}")
    assert run.returncode == 0 and shot.is_file(), run.stderr[-2000:]
    colours = pixels(shot.read_bytes())
    assert len(colours) == WIDTH * HEIGHT
    inked = sum(1 for colour in colours if colour != (255, 255, 255))
    assert inked > 0.05 * len(colours)  # tables, borders and text, not a blank page
    # The crosstable's shading: a cell is some 50 by 24 pixels, light where near even.
    greens = sum(1 for red, green, blue in colours if green > red + 15 and green > blue + 15)
    reds = sum(1 for red, green, blue in colours if red > green + 15 and red > blue + 15)
    assert greens > 500 and reds > 500, (greens, reds)
