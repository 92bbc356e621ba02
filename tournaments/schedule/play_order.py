"""The order the runner plays a tournament's fixtures in: rotation-major within windows of
deals, so that a worker's reused bot processes meet many new deals before a repeat.

In the default sandboxed setting no bot process plays two fixtures of the same deal
(tournaments/run/fixture_play.py). Fixture order (fixtures.py) is deal by deal, so a
worker would meet the same deal again at once and start new bots for almost every game.
Play order splits the deals into windows of at least WINDOW_DEALS consecutive deals per
worker (all of them if fewer) and, in each, plays each place of a deal (table and
rotation, solo or team) on every deal of the window before the next place, rotation 0 of
every table first: a worker's next game is mostly the same table on a deal its bots have
not played.

Per worker, because workers take the next game as each comes free: of a place's run of
deals, each of J workers plays about 1/J, a random share, and at the next place its
processes soon meet one of those deals again and are replaced. So a worker's processes
last about window / J games of a place; a window of WINDOW_DEALS x J deals keeps that at
WINDOW_DEALS, and takes as long to play on J workers as WINDOW_DEALS deals on one. Places
stay the outer loop, not dealt out one per worker deal by deal: a worker that starts bots
falls behind, another then takes two games of one deal, and starts bots in its turn.
docs/play-order.md has the measurements behind both choices.

Fixture ids keep fixture order: stored results, game log names and resumed runs rely on
them, and `referee results` reads games in it. Only the runner plays in play order,
computed from the whole schedule, so a resumed run with as many workers plays its windows
as the first did (with another number its windows differ; still no process plays a deal
twice: the pool sees to that).
An interrupted tournament has played whole early windows (less the games in flight),
each a balanced block of deals, as it had played whole early deals before.
"""

from __future__ import annotations

from collections.abc import Sequence

from tournaments.schedule.fixtures import Fixture

# Per worker. A bot process plays at most one game per deal of a window, so the
# processes started fall about as workers / window; a larger window leaves an interrupted
# tournament's last window less complete. 16 trades the two (docs/play-order.md has
# the figures).
WINDOW_DEALS = 16


def window_deals(workers: int) -> int:
    """The least deals of a window when `workers` workers, each with its own bots, take
    the games: WINDOW_DEALS for each."""
    return WINDOW_DEALS * max(1, workers)


def deal_windows(deals: Sequence[int], least: int = WINDOW_DEALS) -> list[list[int]]:
    """`deals` (sorted) in consecutive windows of nearly equal size, at least `least` deals
    each unless there are fewer deals in all: 34 deals by 16 give two windows of 17."""
    count = max(1, len(deals) // least)
    size, longer = divmod(len(deals), count)
    windows, start = [], 0
    for window in range(count):
        end = start + size + (window < longer)
        windows.append(list(deals[start:end]))
        start = end
    return windows


def play_order(fixtures: Sequence[Fixture], least: int = WINDOW_DEALS) -> list[Fixture]:
    """`fixtures` (a schedule, in fixture order) in play order, in windows of at least
    `least` deals."""
    by_deal: dict[int, list[Fixture]] = {}
    for fixture in fixtures:
        by_deal.setdefault(fixture.deal, []).append(fixture)
    window_of = {deal: number for number, window in enumerate(deal_windows(sorted(by_deal),
                                                                           least))
                 for deal in window}
    keyed = []
    for deal, games in by_deal.items():
        # A deal's places, rotation-major: each rotation of every table before the next.
        for place, fixture in enumerate(sorted(games, key=lambda game: game.rotation)):
            keyed.append(((window_of[deal], place, deal), fixture))
    return [fixture for _, fixture in sorted(keyed, key=lambda item: item[0])]
