"""What one seat may see of a game of The Game: the single place that decides visibility.

Engine events go to the seats `private_to` allows; a seat's hints go to the seats
`hint_audience` names; the command mapping is printed on the cards, so its line goes to
every seat (`commands_audience`). Nothing else reaches a bot.
"""

from __future__ import annotations

from referee.games.thegame.rules import PRIVATE_EVENTS, Event


def private_to(event: Event) -> int | None:
    """The one seat that may see `event` (its own cards), or None if every seat may."""
    return event.seat if isinstance(event, PRIVATE_EVENTS) else None


def hint_audience(players: int, speaker: int) -> list[int]:
    """The seats that hear `speaker`'s hints: every other one."""
    return [seat for seat in range(players) if seat != speaker]


def commands_audience(players: int) -> list[int]:
    """The seats told the command mapping: all, as it is printed on the cards."""
    return list(range(players))
