"""protocols/thegame-vectors.jsonl says what the referee does: regenerating it from the
engine gives the same bytes, every verdict is the engine's, and it covers each rule a
turn can break on the wire."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from referee.errors import RuleError
from referee.games.thegame.codec import TurnRequest, decode, parse_turn
from referee.games.thegame.commands import DEFAULT_COMMANDS
from referee.games.thegame.rules import Position, check_turn_at

ROOT = Path(__file__).resolve().parents[2]
VECTORS = ROOT / "protocols" / "thegame-vectors.jsonl"


def vectors() -> list[dict[str, object]]:
    return [json.loads(line) for line in VECTORS.read_text(encoding="utf-8").splitlines()]


def test_regenerating_the_vectors_gives_the_file() -> None:
    done = subprocess.run([sys.executable, "tools/thegame_vectors.py", "--check"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr


def test_each_verdict_is_the_engines() -> None:
    for vector in vectors():
        request = decode(str(vector["request"]))
        assert isinstance(request, TurnRequest)
        commands = None if vector["commands"] == "off" else DEFAULT_COMMANDS
        hand = vector["hand"]
        assert isinstance(hand, list)
        position = Position(tops=request.tops, hand=tuple(hand),
                            draw_pile_size=request.draw_pile, players=2, commands=commands,
                            others_cards=int(str(vector["others_cards"])))
        try:
            check_turn_at(position, parse_turn(str(vector["turn"])))
            verdict, reason = "legal", None
        except RuleError as error:
            verdict, reason = "illegal", str(error)
        assert (verdict, reason) == (vector["verdict"], vector["reason"]), vector


def test_the_vectors_cover_every_rule_a_turn_can_break() -> None:
    reasons = " | ".join(str(v["reason"]) for v in vectors())
    for ruling in ("X2", "X3", "X5", "X6", "X7", "X8"):
        assert f"ruling {ruling}" in reasons, ruling
    for words in ("ascends from", "descends from", "not in the hand", "already ended with a Stop",
                  "a Stop is allowed only as the 3rd card", "at least 2 are needed"):
        assert words in reasons, words
    verdicts = [v["verdict"] for v in vectors()]
    assert verdicts.count("legal") > 100 and verdicts.count("illegal") > 100
    # the game's last turn may leave a skull showing: the same turn is legal there only
    by_turn: dict[tuple[str, str, str], set[tuple[object, object]]] = {}
    for v in vectors():
        key = (str(v["request"]), str(v["hand"]), str(v["turn"]))
        by_turn.setdefault(key, set()).add((v["others_cards"], v["verdict"]))
    assert any({(0, "legal"), (3, "illegal")} <= seen for seen in by_turn.values())
