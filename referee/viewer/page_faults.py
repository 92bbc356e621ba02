"""A page's faults: the step that first shows each, and the bot's stderr lines added to
them from elsewhere (the results db's fault records, which hold them for every game,
also for a log written before its fault records did)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from referee.viewer.page import Page


def fault_steps(page: Page) -> dict[int, int]:
    """Per faulted seat, the first step of the page that shows its fault (the log holds
    where the fault came; the db's record does not)."""
    found: dict[int, int] = {}
    steps: list[dict[str, Any]] = page.data["steps"]
    for index, step in enumerate(steps):
        for fault in step.get("f", []):
            found.setdefault(int(fault["seat"]), index)
    return found


def add_stderr(page: Page, stderr: Mapping[int, Sequence[str]], seat: int | None) -> None:
    """Each fault's stderr lines beside it, at the step that first shows it: on the
    organiser's page (seat None) every seat's, on a seat's page that seat's own alone
    (another's stderr is that bot's own output, which the seat was never shown), on the
    spectator's none (it shows no seat's fault)."""
    for faulted, index in fault_steps(page).items():
        lines = stderr.get(faulted)
        if not lines or seat not in (None, faulted):
            continue
        for fault in page.data["steps"][index]["f"]:
            if int(fault["seat"]) == faulted:
                fault["stderr"] = list(lines)
