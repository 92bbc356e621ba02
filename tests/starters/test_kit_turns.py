"""Every starter kit's turn search finds a legal turn wherever the referee says one exists:
each position of protocols/thegame-vectors.jsonl with a legal turn is played to the kit's
bot as a game of its own (GAME, COMMANDS, the other hand's size, HAND, TURN?), over the
kit's own transport, and the engine judges the reply (referee.games.thegame.rules)."""

from __future__ import annotations

import json
import os
import secrets
import shlex
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
import zmq

from protocols.wire import WireError
from referee.errors import RuleError
from referee.games.thegame.codec import TurnRequest, decode, parse_turn
from referee.games.thegame.commands import DEFAULT_COMMANDS
from referee.games.thegame.rules import Position, check_turn_at
from tests.starters.kit_builds import KITS, STARTERS, Kit, KitBuilds

VECTORS = STARTERS.parents[1] / "protocols" / "thegame-vectors.jsonl"
HAND = 7  # the GAME line's hand size for 2 players: the other seat starts with 7 cards
REPLY_TIMEOUT_S = 10


def positions() -> list[dict[str, object]]:
    """One vector per position where the referee found some turn legal."""
    seen: dict[tuple[str, ...], dict[str, object]] = {}
    for line in VECTORS.read_text(encoding="utf-8").splitlines():
        vector = json.loads(line)
        key = (vector["commands"], vector["request"], str(vector["hand"]),
               str(vector["others_cards"]))
        if vector["verdict"] == "legal":
            seen.setdefault(key, vector)
    return list(seen.values())


def game_lines(vector: dict[str, object]) -> list[str]:
    """A game of its own for this position: seat 0 of 2, the other seat holding
    `others_cards` (told as a turn or a draw of seat 1), then the hand and TURN?."""
    on = vector["commands"] != "off"
    lines = [f"GAME thegame protocol=2 seat=0 players=2 hand={HAND} "
             f"commands={'on' if on else 'off'} move_ms=1000 bank_ms=0"]
    if on:
        lines.append(f"COMMANDS {vector['commands']}")
    others = int(str(vector["others_cards"]))
    if others < HAND:
        lines.append("TURNED 1 " + " ".join(f"a:{50 + n}" for n in range(HAND - others)))
    elif others > HAND:
        lines.append(f"DREW 1 {others - HAND}")
    hand = vector["hand"]
    assert isinstance(hand, list)
    lines += ["HAND " + " ".join(map(str, hand)), str(vector["request"])]
    return lines


def judged(vector: dict[str, object], reply: str) -> str | None:
    """None if `reply` is a legal turn in the vector's position, else why not."""
    request = decode(str(vector["request"]))
    assert isinstance(request, TurnRequest)
    hand = vector["hand"]
    assert isinstance(hand, list)
    position = Position(tops=request.tops, hand=tuple(hand), draw_pile_size=request.draw_pile,
                        players=2, commands=None if vector["commands"] == "off"
                        else DEFAULT_COMMANDS, others_cards=int(str(vector["others_cards"])))
    try:
        check_turn_at(position, parse_turn(reply))
    except (WireError, RuleError) as error:  # a malformed reply, an illegal turn
        return f"{reply!r}: {error}"
    return None


class StdioBot:
    def __init__(self, command: list[str], folder: Path) -> None:
        env = dict(os.environ, REFEREE_ENDPOINT="stdio", REFEREE_TOKEN=secrets.token_hex(16))
        self.process = subprocess.Popen(command, cwd=folder, env=env, text=True,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert self.hear().startswith("HELLO 2 ")

    def hear(self) -> str:
        assert self.process.stdout is not None
        return self.process.stdout.readline().rstrip("\n")

    def ask(self, lines: list[str]) -> str:
        assert self.process.stdin is not None
        self.process.stdin.write("".join(line + "\n" for line in lines))
        self.process.stdin.flush()
        return self.hear()

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write("BYE\n")
        self.process.stdin.close()
        assert self.process.wait(REPLY_TIMEOUT_S) == 0


class ZmqBot:
    def __init__(self, command: list[str], folder: Path) -> None:
        self.context = zmq.Context()
        self.router = self.context.socket(zmq.ROUTER)
        self.router.setsockopt(zmq.LINGER, 0)
        self.router.setsockopt(zmq.RCVTIMEO, REPLY_TIMEOUT_S * 1000)
        self.folder = tempfile.mkdtemp(prefix="kit-hub-")
        endpoint = f"ipc://{self.folder}/hub"
        self.router.bind(endpoint)
        env = dict(os.environ, REFEREE_ENDPOINT=endpoint, REFEREE_TOKEN=secrets.token_hex(16))
        self.process = subprocess.Popen(command, cwd=folder, env=env)
        self.identity, hello = self.router.recv_multipart()
        assert hello.startswith(b"HELLO 2 ")

    def ask(self, lines: list[str]) -> str:
        self.router.send_multipart([self.identity, "\n".join(lines).encode()])
        identity, reply = self.router.recv_multipart()
        return str(reply.decode())

    def close(self) -> None:
        self.router.send_multipart([self.identity, b"BYE"])
        try:
            assert self.process.wait(REPLY_TIMEOUT_S) == 0
        finally:
            self.context.destroy(linger=0)
            shutil.rmtree(self.folder, ignore_errors=True)


BOTS = [pytest.param(kit, bot, id=f"{kit.name}-{bot.split()[-1]}")
        for kit in KITS for bot in kit.bots]


@pytest.mark.parametrize(("kit", "bot"), BOTS)
def test_the_kit_finds_a_legal_turn_wherever_one_exists(kit_builds: KitBuilds, kit: Kit,
                                                        bot: str) -> None:
    folder = kit_builds.folder(kit)
    stdio = bot.startswith("stdio:")
    command = shlex.split(bot.removeprefix("stdio:"))
    player = StdioBot(command, folder) if stdio else ZmqBot(command, folder)
    wrong = []
    try:
        for vector in positions():
            why = judged(vector, player.ask(game_lines(vector)))
            if why is not None:
                wrong.append(f"{vector['request']} hand={vector['hand']}: {why}")
    finally:
        player.close()
    assert len(positions()) > 100
    assert not wrong, "\n".join(wrong[:10])
