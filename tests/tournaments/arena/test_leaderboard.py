"""The arena's leaderboard (issue 31, tournaments/arena/leaderboard.py) on records built
by hand: a fault-ridden version sinks, since its faulted seats place last (docs/rules.md,
R9), and its faults show in its row; retired versions keep their games and rating."""

from __future__ import annotations

from dataclasses import replace

from protocols.faults import FaultKind
from referee.errors import Fault
from tournaments.arena.leaderboard import standings, tally
from tournaments.arena.standings_tables import why_not_seated
from tournaments.arena.store import ACTIVE, CHANGED, REFUSED, RETIRED, Version
from tournaments.store.records import GameRecord


def version(name: str, number: int = 1, status: str = ACTIVE) -> Version:
    return Version(name, number, "python bot.py", None, "0" * 64, status, "", "now")


def game(number: int, bots: tuple[str, ...], places: tuple[int, ...],
         faulted: int | None = None) -> GameRecord:
    faults = () if faulted is None else (
        Fault(faulted, bots[faulted], FaultKind.CRASH, "exit code 1"),)
    return GameRecord(f"rage/d1/t{number:03d}/r0", "rage", 1, bots,
                      tuple(-p for p in places), places, faults)


def test_a_version_that_faults_sinks_and_its_faults_are_in_its_row() -> None:
    bots = ("good@v1", "crashy@v1", "fair@v1")
    # crashy would win on the cards, but crashes every other game and so places last
    games = [(1, game(n, bots, (2, 3, 1) if n % 2 else (2, 1, 3), 1 if n % 2 else None))
             for n in range(40)]
    board = standings([version("good"), version("crashy"), version("fair")], tally(games))
    ranked = {s.version.name: s for s in board}
    assert ranked["crashy"].rank == 3
    assert ranked["crashy"].faulted_games == 20
    assert dict(ranked["crashy"].fault_kinds) == {"crash": 20}
    assert ranked["good"].faulted_games == 0 and ranked["good"].games == 40


def test_a_retired_version_keeps_its_games_and_rating_but_no_rank() -> None:
    games = [(1, game(n, ("a@v1", "b@v1", "c@v1"), (1, 2, 3))) for n in range(10)]
    games += [(2, game(n, ("a@v2", "b@v1", "c@v1"), (3, 1, 2))) for n in range(10)]
    board = standings([version("a", 1, RETIRED), version("a", 2), version("b"),
                       version("c")], tally(games))
    old = next(s for s in board if s.version.label == "a@v1")
    assert old.rank is None and old.games == 10 and old.tables == 10
    assert old.rating[0] > 25  # it won its games
    assert [s.version.label for s in board if s.rank is not None] == ["b@v1", "c@v1", "a@v2"]


def test_a_public_history_names_the_failed_check_without_its_evidence() -> None:
    """The evidence quotes the commands the check ran (paths of the organiser's machine),
    and may quote the bot's stderr or its cards (a hunt: the arena's public front page)."""
    report = ("PASS  HELLO in time               0.1 s  ok\n"
              "FAIL  no crash in a game          0.4 s  exited with code 1 (referee play rage "
              "--seed 1 'stdio:python /home/organiser/arena/dave/bot.py') stderr: r5 y3\n")
    refused = Version("dave", 1, "python bot.py", "dave", "0" * 64, REFUSED, report,
                      "2026-11-29")
    organisers = why_not_seated(refused)
    assert "/home/organiser" in organisers  # the check can fail
    assert why_not_seated(refused, public=True) == "failed its check: no crash in a game"
    changed = replace(refused, status=CHANGED, report="bot.py: sha256 0a1b... now 9f8e...")
    assert why_not_seated(changed, public=True) == "its files changed since it was submitted"
