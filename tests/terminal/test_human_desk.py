"""A human seat in process: it sees what a bot in its seat would see and nothing more
(its screens are a function of the seat's lines alone), bids show as the variant shows
them, and no input, however odd, is anything but a move or help."""

from __future__ import annotations

import ast
import io
from pathlib import Path

from hypothesis import given, settings, strategies as st

from referee.ansi import Paint
from referee.games.rage.rules import RageConfig, Variant
from referee.games.rage.terminal import RageDesk
from referee.games.thegame.terminal import TheGameDesk
from referee.players.human import Console, HumanPlayer
from referee.players.player import FunctionPlayer
from referee.registry.games import lookup
from referee.settings import TimeLimits

ROOT = Path(__file__).resolve().parents[2]


class RecordingDesk(RageDesk):
    """Rage's desk, keeping every line its seat was sent."""

    def __init__(self, paint: Paint) -> None:
        super().__init__(paint)
        self.lines: list[str] = []

    def see(self, line: str) -> None:
        self.lines.append(line)
        super().see(line)


def first_offered(line: str) -> str | None:
    words = line.split()
    return words[1] if words[0].endswith("?") else None


def play_rage(variants: frozenset[Variant]) -> tuple[str, list[str]]:
    """A whole game with a person in seat 0 typing "1" each time: what the person's
    terminal showed, and the lines seat 0 was sent."""
    out = io.StringIO()
    desk = RecordingDesk(Paint(False))
    human = HumanPlayer("ann", desk, Console(io.StringIO("1\n" * 200), out))
    bots = [FunctionPlayer(f"b{i}", first_offered) for i in (1, 2)]
    lookup("rage").run([human, *bots], RageConfig(3, variants), 5, TimeLimits(), None)
    return out.getvalue(), desk.lines


def test_the_screens_are_made_of_the_seats_lines_alone() -> None:
    """The same lines fed to a fresh desk draw the same screens: nothing else (the
    engine, the other seats) reaches the person."""
    shown, lines = play_rage(frozenset({Variant.SECRET_BID}))
    desk = RageDesk(Paint(False))
    again = []
    for line in lines:
        desk.see(line)
        if line.split()[0].endswith("?"):
            again.append("\n".join(desk.screen(line)))
    assert again and all(screen in shown for screen in again)


def test_bids_show_as_the_variant_shows_them() -> None:
    """Base game: every bid as it is made. secret-bid: the others' only once the round
    is scored (their rows read hidden until then)."""
    base, _ = play_rage(frozenset())
    secret, _ = play_rage(frozenset({Variant.SECRET_BID}))
    assert "seat 1 bid " in base and "seat 1 bid " not in secret
    asked = secret.rsplit("Type ? for help.", 1)[0]  # every screen up to the last request
    assert "The bids are revealed" in asked  # after each round's last trick: shown then
    rows = [line for line in asked.splitlines() if line.startswith(("      1  seat 1",
                                                                      "      2  seat 2"))]
    assert rows and all(row.split()[3] in ("hidden", "-") for row in rows)
    base_rows = [line for line in base.splitlines() if line.startswith("      1  seat 1")]
    assert any(row.split()[3].isdigit() for row in base_rows)  # the check can fail


def test_no_desk_reads_the_engines_state() -> None:
    """The desks are built on the protocol's lines (and The Game's pure turn rules, as
    the SDK is): neither names the engine's game state."""
    for game in ("rage", "thegame"):
        tree = ast.parse((ROOT / "referee" / "games" / game / "terminal.py").read_text())
        names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)} | {
            alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
            for alias in node.names}
        assert not {"RageState", "TheGameState", "state_of"} & names


REQUESTS = ["BID? 0 1 2", "PLAY? r5 J:b J:g J:r J:y J:v J:o", "PLAY? g10"]


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=40), st.sampled_from(REQUESTS))
def test_any_input_to_rage_is_a_listed_move_or_help(typed: str, request: str) -> None:
    desk = RageDesk(Paint(False))
    try:
        reply = desk.reply(request, typed)
    except ValueError as error:
        assert str(error)
        return
    assert reply in request.split()[1:]


def thegame_desk() -> TheGameDesk:
    desk = TheGameDesk(Paint(False))
    for line in ("GAME thegame protocol=2 seat=0 players=1 hand=8 commands=off move_ms=1000 "
                 "bank_ms=0", "HAND 11 17 39 44 50 55 61 70",
                 "TURN? min=2 draw=90 a=1 b=1 c=100 d=100"):
        desk.see(line)
    return desk


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=40) | st.from_regex(r"[abcd]:?\d{1,3}( [abcd]:?\d{1,3}){0,3}"))
def test_any_input_to_the_game_is_a_legal_turn_or_help(typed: str) -> None:
    desk = thegame_desk()
    request = "TURN? min=2 draw=90 a=1 b=1 c=100 d=100"
    desk.screen(request)
    try:
        reply = desk.reply(request, typed)
    except ValueError as error:
        assert str(error)
        return
    cards = [int(word.split(":")[1]) for word in reply.split()]
    assert len(cards) >= 2 and set(cards) <= {11, 17, 39, 44, 50, 55, 61, 70}
