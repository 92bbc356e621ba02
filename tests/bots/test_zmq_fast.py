"""bots/zmq_fast.py: the backend's calls on the pyzmq they were measured with, the public
API anywhere else, and both doing the same real round trips."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import types
from collections.abc import Iterator
from pathlib import Path

import pytest
import zmq

from bots import zmq_fast
from bots.zmq_fast import MEASURED_MAJOR, NOBLOCK, POLLIN, PUBLIC, SNDMORE, Calls

ROOT = Path(__file__).resolve().parents[2]
INSTALLED = zmq.pyzmq_version_info()
BACKEND = zmq_fast.backend_calls(INSTALLED, zmq.backend)
WAIT_MS = 5000  # a poll that should end at once, with room for a loaded machine


def calls_of(kind: str) -> Calls:
    if kind == "public":
        return PUBLIC
    if BACKEND is None:
        pytest.skip(f"the backend's calls are used only on pyzmq {MEASURED_MAJOR}.x")
    return BACKEND


# --- which calls --------------------------------------------------------------------

def test_the_measured_pyzmq_gets_the_backend_calls_and_any_other_the_public_ones() -> None:
    assert zmq_fast.FAST == (INSTALLED[0] == MEASURED_MAJOR)
    assert zmq_fast.CALLS == (BACKEND or PUBLIC)


def test_on_the_measured_major_the_calls_are_the_backends() -> None:
    calls = zmq_fast.choose((MEASURED_MAJOR, 0, 0), zmq.backend)
    assert calls.fast
    assert (calls.send, calls.recv, calls.poll) == (
        zmq.backend.Socket.send, zmq.backend.Socket.recv, zmq.backend.zmq_poll)


@pytest.mark.parametrize("major", [MEASURED_MAJOR - 1, MEASURED_MAJOR + 1])
def test_another_major_gets_the_public_calls(major: int) -> None:
    assert zmq_fast.choose((major, 0, 0), zmq.backend) is PUBLIC


def test_a_backend_without_one_of_the_calls_gets_the_public_calls() -> None:
    no_poll = types.ModuleType("backend")
    no_poll.Socket = zmq.backend.Socket  # type: ignore[attr-defined]
    assert zmq_fast.choose((MEASURED_MAJOR, 0, 0), no_poll) is PUBLIC
    assert zmq_fast.choose((MEASURED_MAJOR, 0, 0), None) is PUBLIC


def test_a_backend_whose_socket_is_not_pyzmqs_gets_the_public_calls() -> None:
    other = types.ModuleType("backend")
    other.Socket = type("Socket", (), {"send": None, "recv": None})  # type: ignore[attr-defined]
    other.zmq_poll = zmq.backend.zmq_poll  # type: ignore[attr-defined]
    assert zmq_fast.choose((MEASURED_MAJOR, 0, 0), other) is PUBLIC


# --- the calls at work: a ROUTER (the referee) and a DEALER (a bot) -------------------

@pytest.fixture
def pair(tmp_path: Path) -> Iterator[tuple[zmq.Socket[bytes], zmq.Socket[bytes]]]:
    context = zmq.Context()
    router: zmq.Socket[bytes] = context.socket(zmq.ROUTER)
    dealer: zmq.Socket[bytes] = context.socket(zmq.DEALER)
    endpoint = f"ipc://{tmp_path}/socket"
    router.bind(endpoint)
    dealer.connect(endpoint)
    yield router, dealer
    router.close(linger=0)
    dealer.close(linger=0)
    context.term()


@pytest.mark.parametrize("kind", ["backend", "public"])
def test_a_round_trip_as_the_referee_and_the_sdk_make_it(
        kind: str, pair: tuple[zmq.Socket[bytes], zmq.Socket[bytes]]) -> None:
    calls = calls_of(kind)
    router, dealer = pair
    assert calls.poll([(router, POLLIN)], 0) == []  # nothing yet, and no wait
    with pytest.raises(zmq.Again):
        calls.recv(router, NOBLOCK)
    calls.send(dealer, b"HELLO")
    assert calls.poll([(router, POLLIN)], WAIT_MS) == [(router, POLLIN)]
    rid = calls.recv(router, NOBLOCK)
    frame = calls.recv(router, NOBLOCK, False)
    assert (frame.bytes, frame.more) == (b"HELLO", False)
    calls.send(router, rid, NOBLOCK | SNDMORE)
    calls.send(router, b"BID? 0 1\nTRICK 1", NOBLOCK)
    assert calls.recv(dealer) == b"BID? 0 1\nTRICK 1"


@pytest.mark.parametrize("kind", ["backend", "public"])
def test_a_poll_watches_sockets_and_file_descriptors_alike(
        kind: str, pair: tuple[zmq.Socket[bytes], zmq.Socket[bytes]]) -> None:
    calls = calls_of(kind)
    router, _ = pair
    read_end, write_end = os.pipe()
    try:
        items = [(router, POLLIN), (read_end, POLLIN)]
        assert calls.poll(items, 10) == []  # waits its 10 ms, and nothing came
        os.write(write_end, b"x")  # as a bot's exit fd becomes readable
        assert calls.poll(items, WAIT_MS) == [(read_end, POLLIN)]
    finally:
        os.close(read_end)
        os.close(write_end)


# --- a whole game, referee and bots on one set of calls ------------------------------

# Run as a bot: pyzmq reports the major given, then the sample bot runs as it would.
BOT_WRAPPER = """
import runpy, sys
sys.path.insert(0, {root!r})
import zmq
{patch}
from bots import zmq_fast
if zmq_fast.FAST != {fast}:
    sys.exit("the bot got the wrong pyzmq calls")
sys.argv = [{bot!r}]
runpy.run_path({bot!r}, run_name="__main__")
"""

# Run as the referee: the same patch, then one Rage game with three such bots.
REFEREE = """
import sys
import zmq
{patch}
from bots import zmq_fast
assert zmq_fast.FAST == {fast}, "the referee got the wrong pyzmq calls"
from referee.games.rage import RageConfig
from referee.matches.rage_match import RageMatch
from referee.players.lineup import LaunchSettings, Lineup, bot_specs
from referee.processes.sandbox import SandboxMode, SandboxSettings
from referee.settings import TimeLimits

settings = LaunchSettings(TimeLimits(startup=30.0, move=10.0),
                          sandbox=SandboxSettings(SandboxMode.OFF))
with Lineup(settings) as lineup:
    players = lineup.launch_all(bot_specs([{command!r}] * 3))
    result = RageMatch(players, RageConfig(3, rounds=3), 5, settings.times).run()
print("faults", len(result.faults), result.faults)
"""


@pytest.mark.parametrize("kind", ["backend", "public"])
def test_a_whole_game_runs_on_either_set_of_calls(kind: str, tmp_path: Path) -> None:
    fast = calls_of(kind).fast
    patch = "" if fast else (
        f"zmq.pyzmq_version_info = lambda: ({MEASURED_MAJOR + 1}, 0, 0)  # another major")
    wrapper = tmp_path / "bot.py"
    wrapper.write_text(BOT_WRAPPER.format(root=str(ROOT), patch=patch, fast=fast,
                                          bot=str(ROOT / "bots" / "rage_random.py")))
    script = REFEREE.format(patch=patch, fast=fast, command=f"python {wrapper}")
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(script)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("faults 0 "), done.stdout
