"""Every line each seat receives is byte-identical whichever way it travels: through the
real ZeroMQ transport and the bot SDK's batch loop (bots.sdk.MessageBot.take_lines), or
handed line by line to an in-process player; and identical to what the referee sent
before the decision path was reshaped (issue 14).

REFERENCE holds, per game, a sha256 of each seat's lines, recorded with the code of
commit 0b4bf43 (before the reshaping) by the in-process half of this test. A change to
it is a change of the wire: protocols/rage.md and every bot would have to follow.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import pytest

from bots.rage_random import RandomBot
from referee.games.rage.rules import RageConfig, Variant
from referee.games.rage.match import RageMatch
from referee.players.lineup import LaunchSettings, Lineup, bot_specs
from referee.players.player import FunctionPlayer
from referee.processes.sandbox import SandboxMode, SandboxSettings
from referee.settings import TimeLimits

ROOT = Path(__file__).resolve().parents[2]
SEATS = 4
# Generous: no bot here is late, and a loaded machine must not make one so.
TIMES = TimeLimits(startup=30.0, move=30.0)
GAMES = {
    "plain, seed 7": (frozenset(), 7),
    "hidden-bid, seed 11": (frozenset({Variant.HIDDEN_BID}), 11),
    "plus-minus-one + durchmarsch, seed 3":
        (frozenset({Variant.PLUS_MINUS_ONE, Variant.DURCHMARSCH}), 3),
}
REFERENCE = {
    "plain, seed 7": (
        "ba205d44ae0059d90ffe73752a380ee66590eb5c2fa27213ad0df56c848c7a48",
        "c35f182097f0f139a5b1d110b208e324899dd52be3184b42bc39a11b14039577",
        "3718223a9037c8d03e5056bd7cdb37b2560b8ccda5be3bbf6d75a370e1c9d174",
        "dbee6a87d111c0dc4a0eb3fa537b7ac26c2f3df986e7e59e586fb983a11c1dea"),
    "hidden-bid, seed 11": (
        "4497fcc5c2cbc0f946a74621996a9ce85c7f0b44763aec4095a26779686865bf",
        "8a3c2470d954f9b9ab396e5af31af9fcf65f42d695af6b1689d67872092632e4",
        "cfc54f295e5ac951fbdc70d0602a50d5a8a50a1828c9d567772c5c10c7955b8f",
        "f1c45c2c4cc644cca0c216ed1ce9e2ca0894384feb692d3e93d95b68c2ec109c"),
    "plus-minus-one + durchmarsch, seed 3": (
        "c80b5597c168cacbf8385bcfb48a1f2817e075e10a34567d8402c39cee5cb80c",
        "9f507345c4c893f280a67f667eab18f5e93781a9007cd7d2876d23e8c6b3cec2",
        "6a1a58761c8793d1a201a1e3e676b92110983a3130b5db2e3a91c19519413ca3",
        "9b7217b7d2199bb504ecffe4f7320b5467767e6bac10bee77f38c6992bc4443f"),
}

# The sample random bot, its connection wrapped to write down every line it receives.
RECORDER = """
import sys
sys.path.insert(0, {root!r})
from bots import sdk, zmtp_dealer
from bots.rage_random import RandomBot
out = open(sys.argv[1], "w")
recv_lines = zmtp_dealer.DealerConnection.recv_lines
def recording(self):
    lines = recv_lines(self)
    out.write("".join(line + "\\n" for line in lines))
    out.flush()
    return lines
zmtp_dealer.DealerConnection.recv_lines = recording
sdk.run_bot("recorder", "1.0", RandomBot())
"""


def digest(lines: list[str]) -> str:
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


def in_process(variants: frozenset[Variant], seed: int) -> list[list[str]]:
    """Each seat's lines, handed one by one to the sample random bot in this process."""
    received: list[list[str]] = [[] for _ in range(SEATS)]

    def seat_player(seat: int) -> FunctionPlayer:
        on_line = RandomBot().on_line

        def handle(line: str) -> str | None:
            received[seat].append(line)
            return on_line(line)
        return FunctionPlayer(f"b{seat}", handle)

    players = [seat_player(seat) for seat in range(SEATS)]
    result = RageMatch(players, RageConfig(SEATS, variants), seed, TIMES).run()
    assert result.faults == ()
    return received


def over_zeromq(variants: frozenset[Variant], seed: int, folder: Path) -> list[list[str]]:
    """Each seat's lines as its bot process received them over ZeroMQ (BYE left out)."""
    script = folder / "recorder.py"
    script.write_text(RECORDER.format(root=str(ROOT)))
    files = [folder / f"seat{seat}.txt" for seat in range(SEATS)]
    launch = LaunchSettings(times=TIMES, sandbox=SandboxSettings(SandboxMode.OFF))
    with Lineup(launch) as lineup:
        players = lineup.launch_all(bot_specs(
            [f"{sys.executable} {script} {file}" for file in files]))
        result = RageMatch(players, RageConfig(SEATS, variants), seed, TIMES).run()
    assert result.faults == ()
    return [[line for line in file.read_text().splitlines() if line != "BYE"]
            for file in files]


@pytest.mark.parametrize("game", list(GAMES))
def test_zeromq_seats_receive_the_in_process_lines(game: str, tmp_path: Path) -> None:
    variants, seed = GAMES[game]
    expected = in_process(variants, seed)
    assert all(len(lines) > 300 for lines in expected)  # a whole game each
    assert over_zeromq(variants, seed, tmp_path) == expected


@pytest.mark.parametrize("game", list(GAMES))
def test_lines_are_those_sent_before_the_reshaping(game: str) -> None:
    variants, seed = GAMES[game]
    assert tuple(digest(lines) for lines in in_process(variants, seed)) == REFERENCE[game]
