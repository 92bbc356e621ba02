"""Gauntlets (issue 12, part 2): once a bot is a reference, every other bot (a candidate)
plays only with references, and every candidate meets the same deals, opponents and seats,
so candidates are comparable. Checked as properties of the schedule, and end to end."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from referee.registry.games import AnyGame
from referee.games.rage.definition import RAGE
from referee.games.thegame.definition import THEGAME
from tests.cli_support import assert_bad_input, run_main
from tests.tournaments.fakes import TEST_SECRET
from tournaments.schedule.fixtures import FixtureKind, fixtures_for
from tournaments.spec.definition import BotEntry, TournamentSpec
from tournaments.spec.toml_file import load_tournament_file

RANDOM = "python bots/rage_random.py"
HEURISTIC = "python bots/rage_heuristic.py"


def gauntlet(game: AnyGame, candidates: int, references: int, size: int,
             deals: int) -> TournamentSpec:
    bots = tuple(BotEntry(f"c{i}", "python c.py") for i in range(candidates)) + \
        tuple(BotEntry(f"r{i}", "python r.py", reference=True) for i in range(references))
    return TournamentSpec.create(game, bots, size=size, deals=deals)


def what_a_candidate_meets(spec: TournamentSpec, candidate: int) -> Counter[tuple[object, ...]]:
    """Each game of `candidate`: its deal, rotation, kind and the seats, itself as 'C'."""
    return Counter((f.deal, f.rotation, f.kind, tuple("C" if bot == candidate else bot
                                                      for bot in f.seats))
                   for f in fixtures_for(spec, TEST_SECRET) if candidate in f.seats)


@settings(max_examples=40, deadline=None)
@given(candidates=st.integers(1, 6), references=st.integers(1, 4), size=st.integers(3, 6),
       deals=st.integers(1, 3))
def test_rage_candidates_meet_the_same_deals_opponents_and_seats(
        candidates: int, references: int, size: int, deals: int) -> None:
    spec = gauntlet(RAGE, candidates, references, size, deals)
    fixtures = fixtures_for(spec, TEST_SECRET)
    assert len(fixtures) == spec.games
    assert all(sum(bot in spec.candidates for bot in f.seats) == 1 for f in fixtures)
    first = what_a_candidate_meets(spec, 0)
    assert all(what_a_candidate_meets(spec, c) == first for c in spec.candidates)
    # every seat, at every table: the candidate holds each hand of each deal
    assert {(key[0], key[3].index("C")) for key in first} == {
        (deal, seat) for deal in range(1, deals + 1) for seat in range(size)}


@settings(max_examples=40, deadline=None)
@given(candidates=st.integers(1, 6), references=st.integers(1, 4), size=st.integers(1, 5),
       deals=st.integers(1, 3))
def test_thegame_candidates_play_solo_and_in_teams_of_references(
        candidates: int, references: int, size: int, deals: int) -> None:
    spec = gauntlet(THEGAME, candidates, references, size, deals)
    fixtures = fixtures_for(spec, TEST_SECRET)
    assert len(fixtures) == spec.games
    teams = [f for f in fixtures if f.kind is FixtureKind.TEAM]
    assert all(sum(bot in spec.candidates for bot in f.seats) == 1 for f in teams)
    assert all(len(f.seats) == size for f in teams) and (size >= 2 or not teams)
    first = what_a_candidate_meets(spec, 0)
    assert all(what_a_candidate_meets(spec, c) == first for c in spec.candidates)
    solo = Counter(f.seats[0] for f in fixtures if f.kind is FixtureKind.SOLO)
    assert solo == Counter({bot: deals for bot in range(candidates + references)})


def test_a_class_is_graded_against_the_references(tmp_path: Path) -> None:
    """The teacher's run: two references, two students, one of whom crashes at once."""
    code, out, err = run_main([
        "tournament", "rage", "--db", str(tmp_path / "class.sqlite"), "--table-size", "3",
        "--reference", f"ref={HEURISTIC}", "--reference", f"rnd={RANDOM}",
        f"alice={RANDOM}", "bob=stdio:sh -c 'exit 3'"])
    assert code == 0, err
    assert "rage: 6 games scheduled" in err  # 2 students x 1 pair of references x 3 seats
    standings, rest = out.split("References (")
    references = rest.split("Head-to-head")[0]
    rows = {line.split()[1]: line.split()[0] for line in standings.splitlines()
            if line.split()[:1] in (["1"], ["2"])}
    assert rows == {"alice": "1", "bob": "2"}, out
    kept = {line.split()[1] for line in references.splitlines()[3:] if line.split()}
    assert kept == {"ref", "rnd"}, references


def test_a_tournament_file_marks_references_by_role(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    path.write_text('game = "rage"\n[[bots]]\nname = "a"\ncommand = "x"\n'
                    '[[bots]]\nname = "ref"\ncommand = "y"\nrole = "reference"\n')
    spec = load_tournament_file(path)
    assert spec.references == (1,) and spec.candidates == (0,)
    path.write_text(path.read_text().replace('"reference"', '"teacher"'))
    with pytest.raises(Exception, match="'role'"):
        load_tournament_file(path)


def test_only_references_is_refused() -> None:
    assert_bad_input(["tournament", "rage", "--reference", RANDOM, "--reference",
                      HEURISTIC], "candidate")
