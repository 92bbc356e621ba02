"""Results dbs of fake games (no bot runs), whole or with only part of their schedule
stored, for the output tests to read back through `referee results`."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from referee.errors import Fault
from protocols.faults import FaultKind
from referee.registry.games import AnyGame
from referee.games.rage.definition import RAGE
from tests.tournaments.fakes import FakeContext, fake_play, make_spec
from tournaments.spec.definition import TournamentSpec
from tournaments.store.records import GameRecord
from tournaments.schedule.fixtures import fixtures_for
from tournaments.store.results_db import ResultStore

# What a hostile bot may send as its offending line: markup, quotes, an ampersand.
HOSTILE_LINE = "<script>alert(\"x\")</script><img src=x onerror='alert(1)'> & ok"


def fake_db(db: Path, game: AnyGame = RAGE, n_bots: int = 4, stored: int | None = None,
            references: int = 0, secret: bytes | None = None, **options: Any) -> int:
    """A results db of `n_bots` fake bots a, b, c, ..., the last `references` of them
    references, the first `stored` games of its schedule stored (all for None), with a
    fault of HOSTILE_LINE in the first game; their deals from `secret` if given (the same
    results every time), else from the db's own. Returns the number of games scheduled."""
    bots = make_spec(game, n_bots).bots
    spec = TournamentSpec.create(game, tuple(
        replace(bot, reference=index >= n_bots - references)
        for index, bot in enumerate(bots)), **options)
    with ResultStore(db, spec) as store:
        fixtures = fixtures_for(spec, store.deal_secret if secret is None else secret)
        context = FakeContext(spec.bot_names)
        for number, fixture in enumerate(fixtures[:stored]):
            record = fake_play(fixture, context)
            store.add(_with_hostile_fault(record) if number == 0 else record)
    return len(fixtures)


def _with_hostile_fault(record: GameRecord) -> GameRecord:
    seat = record.bots.index("a") if "a" in record.bots else 0
    fault = Fault(seat, record.bots[seat], FaultKind.PROTOCOL, "malformed line",
                  HOSTILE_LINE)
    places = tuple(len(record.bots) if s == seat else p for s, p in enumerate(record.places))
    return replace(record, places=places, faults=(*record.faults, fault))
