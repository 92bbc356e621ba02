"""Pure scheduling: which bots meet, in which seats, on which deals.

Fixture order is deal by deal; fixture ids are zero-padded so that sorting them gives the
same order (a gauntlet's ids name their candidates, docs/gauntlet.md: within a deal they
sort by name, not in the order the candidates were given). The runner plays them in another order (tournaments/schedule/play_order.py), which
leaves the ids as they are. Deal seeds are keyed
with the tournament's secret (tournaments/schedule/secret.py): the public seed alone gives no deal.
"""

from __future__ import annotations

import enum
import hashlib
import hmac
import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import combinations, combinations_with_replacement

from referee.matches.game import Contest
from tournaments.spec.definition import TournamentSpec


class FixtureKind(enum.StrEnum):
    """A table of a competitive game, or a deal of a cooperative game played by one bot
    alone or by a team."""

    TABLE = "table"
    SOLO = "solo"
    TEAM = "team"


@dataclass(frozen=True)
class Fixture:
    """One game to play: bot index per seat, the deal and its seed; and, set when it is
    submitted, the bots seated as disqualified (tournaments/run/disqualify.py)."""

    fixture_id: str
    game: str  # the game's name
    seats: tuple[int, ...]
    deal: int  # from 1
    rotation: int  # Rage: seat s holds table[(s + rotation) % size]; 0 otherwise
    seed: int
    kind: FixtureKind
    disqualified: frozenset[int] = field(default=frozenset())


def deal_seed(secret: bytes, seed: int, deal: int) -> int:
    """The seed of deal `deal`: the same at every table and rotation (duplicate deals)."""
    # An HMAC keyed with the secret: without it, neither the public seed nor the seeds of
    # other deals (a game log's header) tell anything about a deal.
    message = f"referee deal {seed} {deal}".encode()
    digest = hmac.new(secret, message, hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") >> 1  # fits SQLite's signed 64-bit INTEGER


def groups(n_bots: int, size: int) -> list[tuple[int, ...]]:
    """Every combination of `size` bots; with fewer bots than places, every multiset in
    which each bot appears at least once (3 bots at 4 seats: AABC, ABBC, ABCC)."""
    if n_bots >= size:
        return list(combinations(range(n_bots), size))
    return [group for group in combinations_with_replacement(range(n_bots), size)
            if len(set(group)) == n_bots]


def competitive_fixtures(game: str, n_bots: int, table_size: int, deals: int, seed: int,
                         secret: bytes,
                         chosen: Sequence[tuple[int, ...]] | None = None) -> list[Fixture]:
    """Every table (every group of bots, or the `chosen` ones) plays every deal once in
    each seat rotation."""
    tables = groups(n_bots, table_size) if chosen is None else list(chosen)
    deal_width, table_width = _width(deals), _width(len(tables))
    fixtures = []
    for deal in range(1, deals + 1):
        seed_of_deal = deal_seed(secret, seed, deal)
        for number, table in enumerate(tables, start=1):
            for rotation in range(table_size):
                seats = tuple(table[(seat + rotation) % table_size]
                              for seat in range(table_size))
                fixture_id = (f"{game}/d{deal:0{deal_width}d}/t{number:0{table_width}d}"
                              f"/r{rotation}")
                fixtures.append(Fixture(fixture_id, game, seats, deal, rotation,
                                        seed_of_deal, FixtureKind.TABLE))
    return fixtures


def cooperative_fixtures(game: str, n_bots: int, team_size: int, deals: int, seed: int,
                         secret: bytes) -> list[Fixture]:
    """Every bot plays every deal solo; every team of `team_size` (if 2 or more) too.

    Teams keep one seat order (the group's), since the whole team shares one result.
    """
    teams = groups(n_bots, team_size) if team_size >= 2 else []
    deal_width, bot_width, team_width = _width(deals), _width(n_bots), _width(len(teams))
    fixtures = []
    for deal in range(1, deals + 1):
        prefix, deal_seed_ = f"{game}/d{deal:0{deal_width}d}", deal_seed(secret, seed, deal)
        for bot in range(n_bots):
            fixtures.append(Fixture(f"{prefix}/solo/b{bot + 1:0{bot_width}d}", game,
                                    (bot,), deal, 0, deal_seed_, FixtureKind.SOLO))
        for number, team in enumerate(teams, start=1):
            fixtures.append(Fixture(f"{prefix}/team/t{number:0{team_width}d}", game,
                                    team, deal, 0, deal_seed_, FixtureKind.TEAM))
    return fixtures


def gauntlet_fixtures(game: str, contest: Contest, candidates: tuple[int, ...],
                      references: tuple[int, ...], size: int, deals: int, seed: int,
                      secret: bytes, names: Sequence[str] | None = None) -> list[Fixture]:
    """Each candidate with the references only: in a competitive game at every table of
    one candidate and size - 1 references, in every seat rotation; in a cooperative one
    solo and in every team of one candidate and size - 1 references (the references also
    solo, as a baseline). Every candidate meets the same deals, opponents and seats.

    With the bots' `names`, fixture ids name the candidate (`c-alice`) and a solo
    reference (`r-ref`), so that a candidate's games keep their ids as others join or
    leave the class (docs/gauntlet.md); without, they number the bots as results dbs
    before schema 3 did (`c01`, `b03`)."""
    others = [tuple(references[i] for i in group) for group in
              (groups(len(references), size - 1) if size >= 2 else [])]
    label = _index_label(len(candidates) + len(references)) if names is None else \
        _name_label(names, references)
    deal_width, group_width = _width(deals), _width(len(others))
    fixtures = []
    for deal in range(1, deals + 1):
        prefix, seed_of_deal = f"{game}/d{deal:0{deal_width}d}", deal_seed(secret, seed, deal)
        if contest is Contest.COOPERATIVE:
            fixtures += [Fixture(f"{prefix}/solo/{label(bot, True)}", game, (bot,), deal,
                                 0, seed_of_deal, FixtureKind.SOLO)
                         for bot in (*candidates, *references)]
        for bot in candidates:
            for number, group in enumerate(others, start=1):
                where = f"{prefix}/{label(bot, False)}/t{number:0{group_width}d}"
                fixtures += _gauntlet_tables(game, contest, where, (bot, *group), deal,
                                             seed_of_deal)
    return fixtures


def id_word(name: str) -> str:
    """A bot's name as a word of a fixture id (and so of a log's file name): the name
    itself where it is all of A-Z a-z 0-9 . _ -, any other character as %XX of its UTF-8
    bytes, so that two names never give one word."""
    return "".join(char if _PLAIN.fullmatch(char) else
                   "".join(f"%{byte:02X}" for byte in char.encode()) for char in name)


_PLAIN = re.compile(r"[A-Za-z0-9._-]")


def id_spellings(text: str) -> tuple[str, str]:
    """A game id as typed, and as stored: a person types `c-José` where the id holds
    `c-Jos%C3%A9` (id_word), however their keyboard composed the é."""
    stored = "/".join(id_word(unicodedata.normalize("NFC", part))
                      for part in text.split("/"))
    return text, stored


def _index_label(n_bots: int) -> Callable[[int, bool], str]:
    width = _width(n_bots)
    return lambda bot, solo: f"{'b' if solo else 'c'}{bot + 1:0{width}d}"


def _name_label(names: Sequence[str], references: tuple[int, ...]) -> Callable[[int, bool], str]:
    return lambda bot, solo: f"{'r' if bot in references else 'c'}-{id_word(names[bot])}"


def _gauntlet_tables(game: str, contest: Contest, where: str, table: tuple[int, ...],
                     deal: int, seed: int) -> list[Fixture]:
    if contest is Contest.COOPERATIVE:
        return [Fixture(where, game, table, deal, 0, seed, FixtureKind.TEAM)]
    size = len(table)
    return [Fixture(f"{where}/r{rotation}", game,
                    tuple(table[(seat + rotation) % size] for seat in range(size)), deal,
                    rotation, seed, FixtureKind.TABLE) for rotation in range(size)]


def fixtures_for(spec: TournamentSpec, secret: bytes,
                 legacy_ids: bool = False) -> list[Fixture]:
    """The whole schedule of a tournament with its deal secret, in fixture order;
    `legacy_ids`: a gauntlet's ids as results dbs before schema 3 gave them."""
    if spec.references:
        return gauntlet_fixtures(spec.game.name, spec.game.contest, spec.candidates,
                                 spec.references, spec.size, spec.deals, spec.seed, secret,
                                 None if legacy_ids else spec.bot_names)
    if spec.tables is not None:
        return competitive_fixtures(spec.game.name, len(spec.bots), spec.size, spec.deals,
                                    spec.seed, secret, spec.tables)
    make = (competitive_fixtures if spec.game.contest is Contest.COMPETITIVE
            else cooperative_fixtures)
    return make(spec.game.name, len(spec.bots), spec.size, spec.deals, spec.seed, secret)


def fixture_ids(spec: TournamentSpec, legacy_ids: bool = False) -> list[str]:
    """The fixture ids of a tournament, in fixture order (they do not depend on the secret)."""
    return [fixture.fixture_id for fixture in fixtures_for(spec, _NO_SECRET, legacy_ids)]


_NO_SECRET = bytes(32)  # for fixture_ids alone: its seeds are thrown away


def _width(count: int) -> int:
    return max(2, len(str(count)))


def fixture_deals(spec: TournamentSpec) -> dict[str, int]:
    """Each fixture's deal, by fixture id (neither depends on the secret)."""
    return {fixture.fixture_id: fixture.deal for fixture in fixtures_for(spec, _NO_SECRET)}
