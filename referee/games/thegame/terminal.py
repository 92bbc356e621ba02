"""The Game on a terminal: piles, hands, draw pile, hints and who is out, drawn as text,
for `referee show --board`, and the desk of a human seat (referee/players/human.py).

Both draw the same state, shaped as board.py's (the HTML viewer's): `show --board` takes
board.py's states, replayed from the log; a human's desk folds only the protocol lines
its seat is sent (thegame.md) into such a state, and judges a typed turn with the
engine's own pure turn rules on the position that seat knows (as the SDK does).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from protocols.wire import WireError
from referee.ansi import Paint, width as width_of
from referee.games.screen_fit import (
    DETAIL, HEADER, NEEDED, OFFERED, SEAT_ROW, Block, blank, block, lines_of, prose, wrap,
)
from referee.games.terminal_desk import SeatDesk, State
from referee.errors import RuleError
from referee.games.thegame import codec
from referee.games.thegame.commands import Command, CommandMap
from referee.games.thegame.rules import (
    PILE_NAMES, Position, check_turn_at, shortest_legal_turns_at,
)


# The HTML board's colours (board.css): piles up green, down red; commands by kind.
UP, DOWN = "#1f6f43", "#a3361f"
LIGHTNING, INFINITY = "#e0a020", "#3b78d0"
SHORT = {"stop": "stop", "skull": "skull", "three": "3!", "notalk": "no-talk",
         "noreverse": "no-reverse", "onepile": "one-pile", "drawone": "draw-one"}
_LIGHTNING = {"stop", "skull", "three"}
_OFFERED = 9  # legal turns offered by number; any other is typed
_PLACEMENT = re.compile(r"([abcd]):?\s*(\d{1,3})")


def _numbered(turns: Sequence[str], width: int | None) -> list[str]:
    """The offered turns numbered, one a line; in aligned columns where a width is known."""
    items = [f"{i + 1}) {turn}" for i, turn in enumerate(turns)]
    if width is None:
        return [f"  {item}" for item in items]
    column = max((len(item) for item in items), default=0)
    return [f"  {line}" for line in wrap([f"{item:<{column}}" for item in items], width - 2,
                                          sep="   ")]


def number_card(value: int, commands: dict[str, str], paint: Paint) -> str:
    """A card; a command card carries its command, amber (lightning) or blue (infinity)."""
    command = commands.get(str(value))
    if command is None:
        return str(value)
    colour = LIGHTNING if command in _LIGHTNING else INFINITY
    return paint.chip(f"{value}:{SHORT[command]}", colour, command in _LIGHTNING)


def draw(state: State, names: Sequence[str], me: int | None, paint: Paint,
         actor: int | None = None, first: State | None = None) -> list[str]:
    """The table as lines of text; `me`: the seat whose eyes these are (None: all),
    `actor`: the seat to act; `first`: the first state (the command map, pile names)."""
    return lines_of(layout(state, names, me, paint, actor, first))


def layout(state: State, names: Sequence[str], me: int | None, paint: Paint,
           actor: int | None = None, first: State | None = None,
           width: int | None = None) -> list[Block]:
    """The table as blocks of lines no wider than `width` (None: any), ranked for a small
    terminal (screen_fit.py): the piles and `me`'s row and hand are needed; the other
    seats' rows and the hints before this turn go only when a terminal is very small
    (SEAT_ROW)."""
    start = first or state
    commands: dict[str, str] = start.get("cm") or state.get("cm") or {}
    piles = start.get("pn") or list(PILE_NAMES)
    blocks = [block([paint.bold(f"The Game · {state.get('nav', {}).get('turn', '')}") +
                     f" · draw pile: {state['dr']} cards"])]
    last = state.get("l") or []
    for pile, (top, command) in enumerate(state["p"]):
        up = pile < 2
        arrow = paint.fg("↑ from 1  ", UP) if up else paint.fg("↓ from 100", DOWN)
        shown = number_card(top, commands, paint) if command else str(top)
        placed = [str(c) for p, c in last if p == pile]
        fresh = f"   (last turn: + {', '.join(placed)})" if placed else ""
        blocks.append(block([f"  {piles[pile]} {arrow}  {paint.bold(f'{shown:>3}')}{fresh}"]))
    blocks += [blank(), *_seat_table(state, names, me, paint, actor, commands, width)]
    said = [f"{names[seat]}: {' '.join(words)};" for seat, words in enumerate(state["hi"])
            if words]
    if said:
        said[-1] = said[-1].rstrip(";")
        blocks.append(block(wrap(["Hints before this turn:", *said], width, 2, " "),
                            SEAT_ROW, "the hints before this turn"))
    end = state.get("end")
    if end:
        said_end = prose(f"The team {end['o']} ({end['why']}); {end['left']} cards not "
                         "played.", width, 2)
        blocks += [blank(), block([paint.bold(line) for line in said_end])]
    return blocks


def _seat_table(state: State, names: Sequence[str], me: int | None, paint: Paint,
                actor: int | None, commands: dict[str, str], width: int | None) -> list[Block]:
    """A row per seat: cards played, hints given, hand. Where `me`'s hand makes its row
    wider than `width`, the hand has lines of its own under the table."""
    name_width = max(len(name) for name in names)
    blocks = [block([paint.bold(f"   seat  {'player':<{name_width}}  played  hints  hand")],
                    HEADER, "the column headings")]
    below: list[str] = []
    for seat, name in enumerate(names):
        marker = "▶" if seat == actor else " "
        hand = state["h"][seat]
        out = "  (out)" if seat in state.get("out", []) else ""
        row = (f" {marker} {seat:>4}  {name:<{name_width}}  {state['c'][seat]:>6}  "
               f"{state['g'][seat]:>5}  ")
        faces = [number_card(v, commands, paint) for v in hand] if isinstance(hand, list) \
            else []
        shown = " ".join(faces) if isinstance(hand, list) else f"{hand} cards"
        if width is not None and faces and width_of(row + shown + out) > width:
            below += wrap([paint.bold("Your hand:" if seat == me else f"{name}'s hand:"),
                           *faces], width, 11, " ")
            shown = f"{len(hand)} cards ↓"
        row += shown + out
        blocks.append(block([paint.bold(row) if seat == me else row],
                            NEEDED if seat == me else SEAT_ROW, "seats", seat))
    if below:
        blocks.append(block(below))
    return blocks


class TheGameDesk(SeatDesk):
    """A human seat's view: every line the seat is sent, folded into a board state;
    the requests' prompts, and the person's input made a reply line."""

    decode = staticmethod(codec.decode)

    def __init__(self, paint: Paint) -> None:
        super().__init__(paint)
        self.players = 1
        self.commands: CommandMap | None = None
        self.offered: list[str] = []
        self.last_turned = -1  # the seat of the last TURNED line (-1: none yet)

    def _on_game(self, game: codec.Game) -> None:
        n = self.players = game.players
        self.seat, self.last_turned = game.seat, -1
        self.names = [f"seat {s}" if s != game.seat else "you" for s in range(n)]
        self.state = {"p": [[1, None], [1, None], [100, None], [100, None]], "l": [],
                      "dr": 98 - n * game.hand_size, "h": [game.hand_size] * n,
                      "hi": [None] * n, "g": [0] * n, "c": [0] * n, "out": [],
                      "nav": {"turn": "Turn 1"}, "cm": {}, "turns": 0}
        mode = "with commands" if game.commands_on else "without commands"
        self.news = [f"The Game, {n} player(s), {mode}; you are seat {game.seat}."]

    def _on_commands(self, message: codec.Commands) -> None:
        self.commands = message.commands
        self.state["cm"] = {str(card): command.value
                            for card, command in message.commands.by_number.items()}

    def _on_hand(self, message: codec.Hand) -> None:
        self.state["h"][self.seat] = sorted(message.cards)

    def _on_hinted(self, message: codec.Hinted) -> None:
        words = [hint.word for hint in message.hints]
        self.state["hi"][message.seat] = words
        self.state["g"][message.seat] += len(words)
        self.news.append(f"{self.names[message.seat]} hints {' '.join(words)}.")

    def _on_turnrequest(self, message: codec.TurnRequest) -> None:
        self._tops(message.tops)
        self.state["dr"] = message.draw_pile

    def _tops(self, tops: Sequence[int]) -> None:
        command_of = self.commands.command_of if self.commands else (lambda _: None)
        self.state["p"] = [[top, None if (c := command_of(top)) is None else c.value]
                           for top in tops]

    def _on_turned(self, message: codec.Turned) -> None:
        state, seat = self.state, message.seat
        self.last_turned = seat
        tops = [top for top, _ in state["p"]]
        for placement in message.turn:
            tops[placement.pile] = placement.card
        self._tops(tops)
        state["l"] = [[p.pile, p.card] for p in message.turn]
        state["c"][seat] += len(message.turn)
        hand = state["h"][seat]
        if isinstance(hand, list):
            for placement in message.turn:
                hand.remove(placement.card)
        else:
            state["h"][seat] = hand - len(message.turn)
        state["hi"] = [None] * self.players
        state["turns"] += 1
        state["nav"] = {"turn": f"Turn {state['turns'] + 1}"}
        self.news.append(f"{self.names[seat]} played {codec.placements_text(message.turn)}.")

    def _on_draw(self, message: codec.Draw) -> None:
        self.state["h"][self.seat] = sorted(self.state["h"][self.seat] + list(message.cards))

    def _on_drew(self, message: codec.Drew) -> None:
        self.state["dr"] -= message.count
        if message.seat != self.seat:
            self.state["h"][message.seat] += message.count

    def _on_out(self, message: codec.Out) -> None:
        self.state["out"].append(message.seat)
        self.news.append(f"{self.names[message.seat]} is out of cards.")

    def _on_end(self, message: codec.End) -> None:
        self.state["end"] = {"o": message.outcome.value, "why": message.reason.value,
                             "left": message.cards_left}

    def position(self) -> Position:
        """The position the seat knows on its turn (as the SDK builds it)."""
        hands = self.state["h"]
        others = sum(h for s, h in enumerate(hands) if s != self.seat and isinstance(h, int))
        tops = tuple(top for top, _ in self.state["p"])
        return Position(tops=tops, hand=tuple(hands[self.seat]),
                        draw_pile_size=self.state["dr"], players=self.players,
                        commands=self.commands, others_cards=others)

    def _board(self, actor: int | None, width: int | None) -> list[Block]:
        return layout(self.state, self.names, self.seat, self.paint, actor, None, width)

    def _offer(self, request: str, width: int | None) -> list[Block]:
        if request.startswith("HINTS?"):
            return [block(prose(f"Hints for seat {self._coming()}'s turn, coming next: up to 4 "
                                "of leave:P good:P hold:COMMAND (P a pile a-d; no numbers), "
                                "or none.", width, 2)),
                    block(prose("Commands: " + " ".join(c.value for c in Command), width, 2),
                          DETAIL, "the command names")]
        minimum = request.split()[1].partition("=")[2]
        turns = shortest_legal_turns_at(self.position())
        self.offered = [codec.placements_text(turn) for turn in turns[:_OFFERED]]
        more = len(turns) - len(self.offered)
        blocks = [block(prose(f"Your turn: at least {minimum} card(s), placed as pile:card in "
                              "order (e.g. a:37 c:92), or the number of a turn below.",
                              width, 2))]
        # A turn may be typed: on a very small terminal the numbered ones give way.
        blocks += [block([line], OFFERED, "turns offered by number")
                   for line in _numbered(self.offered, width)]
        if more > 0:
            blocks.append(block(prose(f"  ... and {more} more of that length; longer turns "
                                      "may be typed.", width, 4), DETAIL, "how many more"))
        return blocks

    def _coming(self) -> int:
        """Whose turn the hints asked for are for, which HINTS? does not say: the seat
        after the last to play, skipping seats out of cards; seat 0 first (X10)."""
        last = self.last_turned
        for step in range(1, self.players + 1):
            seat = (last + step) % self.players
            if seat not in self.state["out"]:
                return seat
        return (last + 1) % self.players

    def reply(self, request: str, typed: str) -> str:
        """The reply line for what the person typed; ValueError with help for bad input."""
        text = typed.strip().lower()
        if request.startswith("HINTS?"):
            try:
                hints = codec.parse_hints(text or "none")
            except WireError as error:
                raise ValueError(str(error)) from None
            self.state["g"][self.seat] += len(hints)  # no HINT line tells a seat its own
            return codec.hints_reply(hints)
        if text.isdigit() and 1 <= int(text) <= len(self.offered):
            return self.offered[int(text) - 1]
        words = _PLACEMENT.findall(text)
        if not words or _PLACEMENT.sub("", text).strip():
            raise ValueError("type placements as pile:card, e.g. a:37 c:92, or the number "
                             "of an offered turn.")
        reply = " ".join(f"{pile}:{card}" for pile, card in words)
        try:
            check_turn_at(self.position(), codec.parse_turn(reply))
        except (RuleError, WireError) as error:
            raise ValueError(f"{reply}: {error}") from None
        return reply
