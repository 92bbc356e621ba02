"""The fault policy is data the match loops read (issue 11, part 7): each game's default
is today's policy, and a policy a game's loop cannot play is refused up front."""

from __future__ import annotations

import pytest

from referee.errors import ConfigError
from referee.games.rage.rules import RageConfig
from referee.games.thegame.rules import TheGameConfig
from referee.games.rage.match import FAULT_POLICY as RAGE_POLICY, RageMatch
from referee.games.thegame.match import FAULT_POLICY as THEGAME_POLICY, TheGameMatch
from referee.players.player import FunctionPlayer
from referee.games.rage.definition import RAGE
from referee.games.thegame.definition import THEGAME
from referee.settings import FaultPolicy, OnFault, TimeLimits

TIMES = TimeLimits(startup=5.0, move=1.0)


def first_legal(line: str) -> str | None:
    """Answer a Rage request with its first legal choice."""
    words = line.split()
    return words[1] if words and words[0].endswith("?") else None


def mute(line: str) -> str | None:
    """A bot that answers every request with a word no game accepts: a protocol fault."""
    return "???" if line.split()[0].endswith("?") else None


def rage_places(policy: FaultPolicy) -> tuple[int, ...]:
    players = [FunctionPlayer("a", first_legal), FunctionPlayer("b", first_legal),
               FunctionPlayer("c", mute)]
    return RageMatch(players, RageConfig(3, rounds=2), 5, TIMES, policy=policy).run().places


def test_the_defaults_are_todays_policies_and_the_definitions_carry_them() -> None:
    # docs/rules.md, Faults: Rage plays on with a fallback; ruling X1: a fault ends The Game.
    assert RAGE_POLICY == FaultPolicy(OnFault.FALLBACK, faulted_place_last=True)
    assert THEGAME_POLICY == FaultPolicy(OnFault.END_GAME, faulted_place_last=True)
    assert RAGE.fault_policy is RAGE_POLICY and THEGAME.fault_policy is THEGAME_POLICY


def test_rage_places_a_faulted_seat_last_only_where_the_policy_says_so() -> None:
    assert rage_places(RAGE_POLICY)[2] == 3
    # Without the rule, the fallback's own score decides the place; in this deal it does
    # better than last, which shows the rule is what put it there.
    lenient = rage_places(FaultPolicy(OnFault.FALLBACK, faulted_place_last=False))
    assert lenient[2] < 3, lenient


@pytest.mark.parametrize("make", [
    lambda: RageMatch([FunctionPlayer(n, first_legal) for n in "abc"], RageConfig(3), 1,
                      TIMES, policy=FaultPolicy(OnFault.END_GAME)),
    lambda: TheGameMatch([FunctionPlayer("a", mute)], TheGameConfig(1), 1, TIMES,
                         policy=FaultPolicy(OnFault.FALLBACK)),
])
def test_a_policy_the_loop_cannot_play_is_refused(make: object) -> None:
    with pytest.raises(ConfigError, match="supports on_fault"):
        make()  # type: ignore[operator]
