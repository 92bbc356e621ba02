"""A worker's idle bots keep their ZeroMQ connections between its games (issue 14).

A bot whose ZeroMQ library sends heartbeats drops its connection when a PING goes
unanswered for its timeout (tests/referee/fault_bots/heartbeat_bot.py: 250 ms), a crash
charged to it in its next game. Between two tasks a pool or cluster worker runs no game,
so nothing read its kept bots' connections: a worker left idle longer than that (a slow
coordinator, a cluster's scheduling) charged a crash to every heartbeating bot it kept.
The pool's keep-alive thread serves them while the worker waits for work.
"""

from __future__ import annotations

import shlex
import time
from pathlib import Path

import pytest

from referee.games.rage.definition import RAGE
from referee.settings import TimeLimits
from tests.tournaments.fakes import TEST_SECRET
from tournaments.run.fixture_play import play_context, play_fixture, worker_pool
from tournaments.schedule.fixtures import fixtures_for
from tournaments.spec.definition import BotEntry, TournamentSpec

ROOT = Path(__file__).resolve().parents[2]
HEARTBEAT_BOT = ROOT / "tests" / "referee" / "fault_bots" / "heartbeat_bot.py"
IDLE = 1.25  # seconds between two games: five of the bot's heartbeat timeouts


pytestmark = pytest.mark.usefixtures("no_bot_left")


def test_bots_kept_between_games_keep_their_connections_however_long_the_worker_waits(
        tmp_path: Path) -> None:
    bots = tuple(BotEntry(f"beat{n}", shlex.join(["python", str(HEARTBEAT_BOT)]))
                 for n in range(3))
    spec = TournamentSpec.create(RAGE, bots, time_limits=TimeLimits(startup=10.0, move=2.0))
    context = play_context(spec, tmp_path / "results.sqlite", persistent_bots=True)
    first, second = fixtures_for(spec, TEST_SECRET)[:2]
    assert play_fixture(first, context).faults == ()
    time.sleep(IDLE)
    assert play_fixture(second, context).faults == ()
    assert worker_pool(context).started == 3  # the same three processes played both
