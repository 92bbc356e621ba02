"""Which games a public page shows (tournaments/output/public.py, games_shown): those of
the deals played in full, as every game of a deal is dealt its cards; none of a
gauntlet's, which deals its deals again to every candidate or version that joins later
(a hunt: a late classmate's hand, read in an earlier replay); and none that the schedule
does not hold (a gauntlet db of older fixture ids showed every replay)."""

from __future__ import annotations

from dataclasses import replace

from referee.games.rage.definition import RAGE
from tests.tournaments.fakes import make_spec
from tournaments.output.public import games_shown
from tournaments.schedule.fixtures import fixture_deals
from tournaments.spec.definition import TournamentSpec


def _spec(references: int = 0) -> TournamentSpec:
    bots = make_spec(RAGE, 4).bots
    return TournamentSpec.create(RAGE, tuple(
        replace(bot, reference=index >= len(bots) - references)
        for index, bot in enumerate(bots)), deals=2, size=3)


def test_a_deal_shows_once_every_game_of_it_is_played() -> None:
    spec = _spec()
    deals = fixture_deals(spec)
    first = [game for game, deal in deals.items() if deal == 1]
    shown = games_shown(spec, first[:-1])
    assert all("withheld until every game of deal 1 is played" in str(shown.why_not(game))
               for game in first)
    shown = games_shown(spec, first)
    assert all(shown.why_not(game) is None for game in first)
    assert all(shown.why_not(game) is not None for game in deals if deals[game] == 2)
    assert shown.why_not("rage/d01/c01/t01/r0") == "no such game in this tournament"


def test_a_gauntlet_shows_none() -> None:
    spec = _spec(references=2)
    every = list(fixture_deals(spec))
    shown = games_shown(spec, every)
    assert every and all("a gauntlet deals its deals again" in str(shown.why_not(game))
                         for game in every)
