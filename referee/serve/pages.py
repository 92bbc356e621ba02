"""What the server sends: the results page (tournaments/output's HTML page, with the
games in progress and a script that follows the server's events), a game's viewer page
(referee/viewer/'s, fed by its steps as they come), and the updates between two pages of
the same game."""

from __future__ import annotations

import io
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from referee.viewer.page import Page, build, html
from referee.viewer.page_faults import add_stderr
from tournaments.output.formats import OutputFormat
from tournaments.output.results import results_tables

GOES_ON = "the game goes on: its next steps come as they are played"
_HERE = Path(__file__).parent


def results_html(db_path: Path, public: bool = False) -> str:
    """`referee results DB --format html`'s page, as it is now; `public`: without the
    bots' stderr (a bot can write its cards there). ConfigError (or StoreFailure) if
    the db cannot be read."""
    return results_tables(db_path, OutputFormat.HTML, stream=io.StringIO(), public=public)


def body_of(page: str) -> str:
    """What a page holds between <body> and </body>."""
    return page[page.index("<body>") + len("<body>"):page.rindex("</body>")]


def results_page(tables: str) -> str:
    """The live results page: the games in progress, then the tables' page (`tables`,
    results_html's) with its body in a box the events refresh, and the script that
    follows the events."""
    head = tables[:tables.index("<body>")]
    return (head.replace("</style>", (_HERE / "results.css").read_text() + "</style>")
            + '<body>\n<p class="live-note" id="live-note">Live: this page follows the '
            'tournament as it is played.</p>\n'
            '<section id="in-progress"><h2>Games in progress</h2>'
            '<ul id="games"><li>none</li></ul></section>\n'
            f'<div id="results">{body_of(tables)}</div>\n'
            f"<script>\n{(_HERE / 'results.js').read_text()}</script>\n</body></html>\n")


def game_page(records: Sequence[dict[str, Any]], on: bool, events: str | None,
              seat: int | None, stderr: Mapping[int, Sequence[str]] | None = None) -> str:
    """The viewer's page of a game, as `seat` sees it (None: the organiser, SPECTATOR:
    anyone at the rail); `events`: where a game still on gets its next steps; `stderr`
    as live_page's."""
    page = live_page(records, on, seat, stderr)
    if events is not None:
        page.data["live"] = events
    return html(page)


def live_page(records: Sequence[dict[str, Any]], on: bool, seat: int | None,
              stderr: Mapping[int, Sequence[str]] | None = None) -> Page:
    """The viewer's page of the game so far; ConfigError if its moves do not replay.
    `stderr`: per faulted seat, its stderr lines from the results db, added to its
    fault as `seat` may see them (add_stderr)."""
    page = build(records, seat)
    if stderr:
        add_stderr(page, stderr, seat)
    if on:
        page.data["steps"][-1]["e"] = GOES_ON
    return page


def update(old: dict[str, Any], new: dict[str, Any], on: bool) -> dict[str, Any] | None:
    """What turns the page data `old` into `new`: the steps and board states from the
    first that differs (the last step is the game's end so far, and a fault can join
    the step before it); None if nothing changed."""
    steps = _common(old["steps"], new["steps"])
    states = _common(old["states"], new["states"])
    if steps == len(old["steps"]) == len(new["steps"]) and \
            states == len(old["states"]) == len(new["states"]) and on:
        return None
    change = {"from": steps, "steps": new["steps"][steps:], "sfrom": states,
              "states": new["states"][states:], "on": on}
    if "result" in new:
        change["result"] = new["result"]
    return change


def _common(old: list[Any], new: list[Any]) -> int:
    """How many items the two lists start with alike."""
    count = 0
    for a, b in zip(old, new):
        if a != b:
            break
        count += 1
    return count


def event(name: str, data: Any) -> bytes:
    """One server-sent event: its data one line of JSON."""
    return f"event: {name}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()
