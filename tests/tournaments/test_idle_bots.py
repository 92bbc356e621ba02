"""The pool's reuse rules (tournaments/run/idle_bots.py) with strings for bots: which idle bot
may take a seat, which must be closed, and how many stay idle."""

from __future__ import annotations

from tournaments.run.idle_bots import IDLE_TABLES, IdleBots, SeatKey

A, B = (0, 0), (1, 0)


def played(idle: IdleBots[str], key: SeatKey, deal: int, bot: str) -> None:
    """`bot` (new) played a game of `deal` at `key` and is idle again."""
    idle.started(key, deal)
    idle.keep(key, bot)


def test_a_process_is_reused_for_a_deal_it_has_not_played() -> None:
    idle: IdleBots[str] = IdleBots(once_per_deal=True)
    played(idle, A, 1, "a1")
    assert idle.seat(A, 2) == ("a1", None)
    assert idle.deals(A) == {1, 2}


def test_a_process_that_played_the_deal_is_given_back_to_close() -> None:
    idle: IdleBots[str] = IdleBots(once_per_deal=True)
    played(idle, A, 1, "a1")
    assert idle.seat(A, 2) == ("a1", None)
    idle.keep(A, "a1")
    assert idle.seat(A, 1) == (None, "a1")  # played deal 1 already: close it
    assert len(idle) == 0 and idle.deals(A) == frozenset()
    idle.started(A, 1)  # its successor has played deal 1 only
    assert idle.deals(A) == {1}


def test_persistent_or_trusted_processes_play_any_deal_again() -> None:
    idle: IdleBots[str] = IdleBots(once_per_deal=False)
    played(idle, A, 1, "a1")
    assert idle.seat(A, 1) == ("a1", None)


def test_keys_are_kept_apart() -> None:
    idle: IdleBots[str] = IdleBots(once_per_deal=True)
    played(idle, A, 1, "a1")
    played(idle, B, 2, "b1")
    assert idle.seat(B, 1) == ("b1", None)  # B's process has not played deal 1
    assert idle.seat(A, 1) == (None, "a1")
    assert idle.seat(A, 2) == (None, None)  # nothing idle for A any more


def test_a_dropped_process_leaves_no_deals_behind() -> None:
    idle: IdleBots[str] = IdleBots(once_per_deal=True)
    played(idle, A, 1, "a1")
    assert idle.drop(A) == "a1"
    assert idle.deals(A) == frozenset() and idle.seat(A, 1) == (None, None)


def test_at_most_two_tables_of_the_largest_table_stay_idle_least_recent_out() -> None:
    idle: IdleBots[str] = IdleBots(once_per_deal=True)
    keys = [(bot, 0) for bot in range(7)]
    for number, key in enumerate(keys):
        played(idle, key, 1, f"bot{number}")
    assert idle.trim(3) == ["bot0"]  # tables of 3: six stay
    assert len(idle) == IDLE_TABLES * 3
    assert idle.deals(keys[0]) == frozenset()  # forgotten with its process
    assert idle.trim(2) == []  # the largest table so far sets the limit
    assert sorted(idle.clear()) == [f"bot{n}" for n in range(1, 7)]
    assert len(idle) == 0 and idle.deals(keys[1]) == frozenset()
