"""Result tables from game records; tournaments/output/ renders them."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction

from referee.errors import Fault
from protocols.faults import FaultKind
from referee.matches.game import Contest
from referee.registry.games import AnyGame
from tournaments.store.records import GameRecord
from tournaments.stats.estimates import (
    competition_ranks, head_to_head, mean_ci, plackett_luce_ratings, wilson_interval,
)
from tournaments.stats.pairs import elo_difference, pair_comparisons

EXCELLENT_BELOW = 10  # The Game: fewer than 10 cards left is "excellent"


@dataclass(frozen=True)
class FaultCounts:
    """A bot's faults counted per kind: "timeout 1, crash 2" to people, an object of
    every kind's count to machines."""

    counts: tuple[int, ...]  # one per FaultKind, in FaultKind order

    @classmethod
    def of(cls, faults: Iterable[Fault]) -> FaultCounts:
        counted = Counter(fault.kind for fault in faults)
        return cls(tuple(counted[kind] for kind in FaultKind))

    def by_kind(self) -> dict[str, int]:
        """Every kind's count, zeros too, so that machines find every key."""
        return {kind.value: count for kind, count in zip(FaultKind, self.counts)}

    def __str__(self) -> str:
        parts = [f"{kind} {count}" for kind, count in self.by_kind().items() if count]
        return ", ".join(parts) or "none"


@dataclass(frozen=True)
class Interval:
    """A confidence interval's bounds, shown as "low-high"."""

    low: float
    high: float


@dataclass(frozen=True)
class Lines:
    """A bot's own lines (the last of its stderr), escaped already: people see the last
    one in a cell (a traceback ends with its exception), machines and the HTML page all."""

    lines: tuple[str, ...]

    def __str__(self) -> str:
        return self.lines[-1] if self.lines else "none"


@dataclass(frozen=True)
class NoScore:
    """A faulted seat's score: not the bot's (the fallback played on, or the game
    stopped), so none is shown: "— (crash)" to people, null to machines."""

    kind: str

    def __str__(self) -> str:
        return f"\u2014 ({self.kind})"


Cell = str | int | float | None | FaultCounts | Interval | Lines | NoScore


@dataclass(frozen=True)
class Column:
    """A column's header for people (`name`), its snake_case `key` for machines (JSON
    and CSV), and for float cells how many decimals people are shown."""

    name: str
    key: str
    decimals: int = 2


@dataclass(frozen=True)
class ResultTable:
    """A titled table; a None cell means "not available" (shown as n/a). `name` is its
    stable snake_case name, by which `--table` selects it and JSON keys it."""

    name: str
    title: str
    columns: tuple[Column, ...]
    rows: tuple[tuple[Cell, ...], ...]

    @property
    def headers(self) -> tuple[str, ...]:
        """The column names."""
        return tuple(column.name for column in self.columns)

    @property
    def keys(self) -> tuple[str, ...]:
        """The column keys."""
        return tuple(column.key for column in self.columns)

    def without(self, keys: Collection[str]) -> ResultTable:
        """The table without the columns of these keys."""
        kept = [index for index, key in enumerate(self.keys) if key not in keys]
        return replace(self, columns=tuple(self.columns[i] for i in kept),
                       rows=tuple(tuple(row[i] for i in kept) for row in self.rows))


def build_tables(game: AnyGame, records: Sequence[GameRecord],
                 bots: Sequence[str] = (), references: Sequence[str] = ()) -> list[ResultTable]:
    """The report of one tournament, by the game's kind of contest; `bots` lists bots to
    show even without games. In a gauntlet the ranking tables rank the candidates alone,
    and the `references` follow in a table apart."""
    names = _bot_order(bots, records)
    if game.contest is Contest.COMPETITIVE:
        standings = _naming_disqualified(competitive_standings(game.title, records, names),
                                         records)
        ranked = [str(row[1]) for row in standings.rows]
        if references:  # candidates never meet one another: their rows, references' columns
            candidates = [bot for bot in ranked if bot not in references]
            crosstable = head_to_head_table(records, candidates,
                                            [bot for bot in ranked if bot in references])
        else:
            crosstable = head_to_head_table(records, ranked)
        ranking, *apart = _apart(standings, references)
        return [_with_rating_note(ranking), *apart, crosstable, pairs_table(records, ranked)]
    solo, *rest = cooperative_tables(game.title, records, names)
    return [*_apart(_naming_disqualified(solo, records), references), *rest]


def _naming_disqualified(table: ResultTable, records: Sequence[GameRecord]) -> ResultTable:
    """The ranking table, its title naming the bots --disqualify-after barred."""
    barred = sorted({fault.bot for record in records for fault in record.faults
                      if fault.kind is FaultKind.DISQUALIFIED})
    if not barred:
        return table
    return replace(table, title=f"{table.title}. DISQUALIFIED, each later game counted as "
                                f"faulted: {', '.join(barred)}")


def _apart(table: ResultTable, references: Sequence[str]) -> list[ResultTable]:
    """`table` without the reference bots' rows (ranks recounted among the candidates),
    then those rows in a table of their own; `table` itself without references."""
    if not references:
        return [table]
    candidates = [row for row in table.rows if row[1] not in references]
    ranked = [row for row in candidates if row[0] is not None]
    ranks = competition_ranks(ranked, lambda row: row[0])
    rows = tuple((rank,) + row[1:] for rank, row in zip(ranks, ranked))
    rows += tuple(row for row in candidates if row[0] is None)
    kept = tuple((None,) + row[1:] for row in table.rows if row[1] in references)
    return [ResultTable(table.name, f"{table.title}; candidates only, each played with the "
                  "references", table.columns, rows),
            ResultTable("references", "References (the bar every candidate played with; not "
                  "ranked)", table.columns, kept)]


# ---------------------------------------------------------------- competitive games

def competitive_standings(title: str, records: Sequence[GameRecord],
                          bots: Sequence[str]) -> ResultTable:
    """Rank by mean place, where a faulted game is a last place, then by mean score over
    the games without a fault: no fault can raise a bot (the fallback's points in a
    faulted seat are never credited). Equal keys share a rank; one row per bot."""
    scores: dict[str, list[int]] = {bot: [] for bot in bots}  # games without a fault
    deals: dict[str, list[int]] = {bot: [] for bot in bots}  # the deal of each score
    places: dict[str, list[int]] = {bot: [] for bot in bots}  # every game
    for record in records:
        faulted = {fault.seat for fault in record.faults}
        for seat, (bot, score, place) in enumerate(zip(record.bots, record.scores,
                                                       record.places)):
            places[bot].append(len(record.bots) if seat in faulted else place)
            if seat not in faulted:
                scores[bot].append(score)
                deals[bot].append(record.seed)
    ratings = plackett_luce_ratings(records)
    faults = _faults_by_bot(records)

    def key(bot: str) -> tuple[Fraction, Fraction]:
        mean_score = Fraction(sum(scores[bot]), len(scores[bot])) if scores[bot] else None
        worst = Fraction(-10**9)  # below any score: a bot that never played clean
        return (Fraction(sum(places[bot]), len(places[bot])),
                -(mean_score if mean_score is not None else worst))

    played = sorted((bot for bot in bots if places[bot]), key=lambda bot: (key(bot), bot))
    ranks = competition_ranks(played, key)
    rows = [_standing_row(rank, bot, scores[bot], deals[bot], places[bot], ratings.get(bot),
                          faults.get(bot, []))
            for rank, bot in zip(ranks, played)]
    rows += [_standing_row(None, bot, [], [], [], None, faults.get(bot, []))
             for bot in bots if not places[bot]]
    columns = (Column("rank", "rank"), Column("bot", "bot"), Column("games", "games"),
               Column("clean games", "clean_games"),
               Column("mean score", "mean_score"), Column("95% CI ±", "mean_score_ci95"),
               Column("mean place", "mean_place"), Column("first places", "first_places"),
               Column("faults", "faults"), Column("rating mu", "rating_mu"),
               Column("rating sigma", "rating_sigma"))
    return ResultTable("standings", f"{title} standings, ranked by mean place (a faulted game is a last "
                 "place), then mean score (over the clean games alone, those without a "
                 "fault; games = seats played; a "
                 "bot in two seats of one game counts twice; the CI treats each deal as one "
                 "draw, as its rotations share the cards)", columns, tuple(rows))


_MU = 9  # the index of the rating mu in a standings row


def _with_rating_note(table: ResultTable) -> ResultTable:
    """The ranking table, its title saying where the rating orders its bots otherwise
    than the rank: of its own rows, so a gauntlet's candidates are not compared with the
    references their table leaves out."""
    return replace(table, title=table.title + _rating_note(table.rows))


def _rating_note(rows: Sequence[tuple[Cell, ...]]) -> str:
    """Why the rating may order bots otherwise than the rank, naming where it does: the
    rank counts mean places, the rating (Plackett-Luce) weighs whom each bot beat."""
    ranked = [(rank, str(bot), mu) for rank, bot, mu in ((row[0], row[1], row[_MU])
                                                         for row in rows)
              if isinstance(rank, int) and isinstance(mu, float)]
    swapped = [(bot_a, bot_b) for i, (rank_a, bot_a, mu_a) in enumerate(ranked)
               for rank_b, bot_b, mu_b in ranked[i + 1:] if rank_a < rank_b and mu_b > mu_a]
    if not swapped:
        return ""
    named = ", ".join(f"{rated} rated above {ranked}" for ranked, rated in swapped[:3])
    more = f" and {len(swapped) - 3} more" if len(swapped) > 3 else ""
    return (f". The rating mu orders some bots otherwise than the rank ({named}{more}): "
            "the rank is by mean place; the rating (Plackett-Luce) weighs whom each bot "
            "beat and how sure it is (sigma)")


def _standing_row(rank: int | None, bot: str, scores: list[int], deals: list[int],
                  places: list[int], rating: tuple[float, float] | None,
                  faults: list[Fault]) -> tuple[Cell, ...]:
    mean, half = mean_ci(scores, deals) if scores else (None, None)
    mean_place = sum(places) / len(places) if places else None
    mu, sigma = rating if rating is not None else (None, None)
    return (rank, bot, len(places), len(scores), mean, half, mean_place,
            sum(1 for place in places if place == 1), FaultCounts.of(faults), mu, sigma)


def pairs_table(records: Sequence[GameRecord], bots: Sequence[str]) -> ResultTable:
    """Each pair of bots that met, the one ahead more often first: the share of their
    seat pairs it placed ahead in, with its 95% interval on the duplicate deals, as an Elo
    difference, and its likelihood of superiority (tournaments/stats/pairs.py)."""
    order = {bot: index for index, bot in enumerate(bots)}
    compared = sorted(pair_comparisons(records),
                      key=lambda c: (order.get(c.bot, len(order)), order.get(c.other, 0)))
    rows = tuple((c.bot, c.other, c.deals, c.pairs, _percent(c.share),
                  None if c.low is None or c.high is None
                  else Interval(_percent(c.low), _percent(c.high)),
                  c.elo, _elo_interval(c.low, c.high),
                  None if c.los is None else _percent(c.los))
                 for c in compared)
    columns = (Column("bot", "bot"), Column("vs", "opponent"), Column("deals", "deals"),
               Column("seat pairs", "seat_pairs"), Column("ahead %", "ahead_pct", 1),
               Column("ahead % 95% CI", "ahead_pct_ci95", 1),
               Column("Elo diff", "elo_diff", 0), Column("Elo 95% CI", "elo_diff_ci95", 0),
               Column("LOS %", "los_pct", 1))
    return ResultTable("pairs", "Pairs that met: how often the first placed ahead of the "
                       "second at one table (ties half), its 95% CI with each duplicate "
                       "deal one draw, the Elo difference it stands for, and the likelihood "
                       "of superiority (LOS: the chance the first is truly ahead more often)",
                       columns, rows)


def _elo_interval(low: float | None, high: float | None) -> Interval | None:
    """The Elo difference's interval: the share's bounds mapped (-inf at 0, +inf at 1)."""
    if low is None or high is None:
        return None
    return Interval(_elo_bound(low), _elo_bound(high))


def _elo_bound(share: float) -> float:
    elo = elo_difference(share)
    return elo if elo is not None else math.inf if share >= 1.0 else -math.inf


def head_to_head_table(records: Sequence[GameRecord], bots: Sequence[str],
                       opponents: Sequence[str] | None = None) -> ResultTable:
    """Crosstable: % of seat pairs in which the row bot placed ahead of the column bot;
    the columns are `opponents` if given (a gauntlet's references), else `bots`."""
    shares = head_to_head(records)
    columns_of = list(bots if opponents is None else opponents)
    rows = tuple((row,) + tuple(_percent(shares[row, column][0])
                                if (row, column) in shares else None
                                for column in columns_of)
                 for row in bots)
    counts = sorted({count for pair, (_, count) in shares.items()
                     if pair[0] in bots and pair[1] in columns_of})
    pairs = ("no seat pairs yet" if not counts else f"{counts[0]} seat pairs per cell"
             if len(counts) == 1 else f"{counts[0]}-{counts[-1]} seat pairs per cell")
    against = "" if opponents is None else "; candidates (rows) against the references"
    title = ("Head-to-head: % of seat pairs at the same table in which the row bot placed "
             f"ahead of the column bot (ties count half; {pairs}{against})")
    # An opponent's column is keyed by its name: bot names are the data here.
    columns = (Column("bot", "bot"),) + tuple(Column(bot, bot, decimals=1)
                                              for bot in columns_of)
    return ResultTable("head_to_head", title, columns, rows)


# ---------------------------------------------------------------- cooperative games

def cooperative_tables(title: str, records: Sequence[GameRecord],
                       bots: Sequence[str]) -> list[ResultTable]:
    """Solo results per bot, team results per team, and each bot solo against in teams."""
    solo = [record for record in records if len(record.bots) == 1]
    teams = [record for record in records if len(record.bots) > 1]
    by_bot = {bot: [r for r in solo if r.bots[0] == bot] for bot in bots}
    team_names = list(dict.fromkeys("+".join(record.bots) for record in teams))
    by_team = {team: [r for r in teams if "+".join(r.bots) == team] for team in team_names}
    return [_cooperative_table("solo", f"{title} solo", "bot", by_bot),
            _cooperative_table("teams", f"{title} teams", "team", by_team),
            _solo_vs_team(title, bots, by_bot, teams)]


def _cooperative_table(name: str, title: str, who: str,
                       games: dict[str, list[GameRecord]]) -> ResultTable:
    played = sorted((name for name in games if games[name]),
                    key=lambda name: (_mean_left(games[name]), name))
    ranks = competition_ranks(played, lambda name: _mean_left(games[name]))
    rows = [(rank,) + _cooperative_row(name, games[name]) for rank, name in zip(ranks, played)]
    rows += [(None,) + _cooperative_row(name, []) for name in games if not games[name]]
    columns = (Column("rank", "rank"), Column(who, who), Column("games", "games"),
               Column("clean games", "clean_games"),
               Column("win %", "win_pct", 1), Column("win % 95% CI", "win_pct_ci95", 1),
               Column("mean cards left (all games)", "mean_cards_left"),
               Column("95% CI ±", "mean_cards_left_ci95"),
               Column("mean left (clean games)", "mean_cards_left_clean"),
               Column("excellent %", "excellent_pct", 1), Column("faults", "faults"))
    return ResultTable(name, f"{title}, ranked by mean cards left over every game, lower "
                       "is better. A fault ends its game at once, lost (rulings X1, X9): "
                       "win % counts it lost and the mean counts the cards it left "
                       "unplayed, never fewer than playing on would leave, so no fault "
                       "raises a bot. Mean left (clean games) rests on the games without "
                       "a fault alone, each played to its end. Excellent = fewer than "
                       f"{EXCELLENT_BELOW} left in a clean game", columns, tuple(rows))


def _cooperative_row(name: str, games: list[GameRecord]) -> tuple[Cell, ...]:
    if not games:
        return (name, 0, 0, None, None, None, None, None, None, FaultCounts.of([]))
    wins = sum(1 for record in games if record.won)
    _, low, high = wilson_interval(wins, len(games))
    mean, half = mean_ci([_cards_left(record) for record in games])
    clean = [record for record in games if not record.faults]
    excellent = sum(1 for record in clean if _cards_left(record) < EXCELLENT_BELOW)
    faults = [fault for record in games for fault in record.faults]
    return (name, len(games), len(clean), _percent(wins / len(games)),
            Interval(_percent(low), _percent(high)), mean, half, _optional_mean(clean),
            _percent(excellent / len(games)), FaultCounts.of(faults))


def _solo_vs_team(title: str, bots: Sequence[str], by_bot: dict[str, list[GameRecord]],
                  teams: list[GameRecord]) -> ResultTable:
    rows = []
    for bot in bots:
        in_teams = [record for record in teams if bot in record.bots]
        solo_mean, team_mean = _optional_mean(by_bot[bot]), _optional_mean(in_teams)
        difference = (None if solo_mean is None or team_mean is None
                      else team_mean - solo_mean)
        rows.append((bot, len(by_bot[bot]), solo_mean, _win_percent(by_bot[bot]),
                     len(in_teams), team_mean, _win_percent(in_teams), difference))
    columns = (Column("bot", "bot"), Column("solo games", "solo_games"),
               Column("solo mean left", "solo_mean_left"),
               Column("solo win %", "solo_win_pct", 1), Column("team games", "team_games"),
               Column("team mean left", "team_mean_left"),
               Column("team win %", "team_win_pct", 1),
               Column("team - solo", "team_minus_solo"))
    return ResultTable("solo_vs_team", f"{title}: each bot solo vs in teams containing it (mean cards left "
                 "over every game, lower is better; a faulted game counts the cards it left "
                 "unplayed, whoever faulted)", columns, tuple(rows))


def _cards_left(record: GameRecord) -> int:
    return record.cards_left if record.cards_left is not None else record.scores[0]


def _mean_left(games: list[GameRecord]) -> Fraction:
    return Fraction(sum(_cards_left(record) for record in games), len(games))


def _optional_mean(games: list[GameRecord]) -> float | None:
    return float(_mean_left(games)) if games else None


def _win_percent(games: list[GameRecord]) -> float | None:
    return _percent(sum(1 for r in games if r.won) / len(games)) if games else None


# ---------------------------------------------------------------- shared helpers

def _bot_order(bots: Sequence[str], records: Iterable[GameRecord]) -> list[str]:
    seen = dict.fromkeys(bots)
    for record in records:
        seen.update(dict.fromkeys(record.bots))
    return list(seen)


def _faults_by_bot(records: Iterable[GameRecord]) -> dict[str, list[Fault]]:
    faults: dict[str, list[Fault]] = {}
    for record in records:
        for fault in record.faults:
            faults.setdefault(fault.bot, []).append(fault)
    return faults


def _percent(share: float) -> float:
    return 100.0 * share

