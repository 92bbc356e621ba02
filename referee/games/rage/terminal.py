"""Rage on a terminal: the table drawn as text in Rage's card colours, for `referee show
--board`, and the desk of a human seat (referee/players/human.py).

Both draw the same state, shaped as board.py's (the HTML viewer's): `show --board` takes
board.py's states, replayed from the log; a human's desk folds only the protocol lines
its seat is sent into such a state, exactly what a bot in that seat would be told
(rage.md), and never reads the engine.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from referee.ansi import Paint, width as width_of
from referee.games.screen_fit import (
    DETAIL, HEADER, NEEDED, SEAT_ROW, Block, blank, block, lines_of, prose, wrap,
)
from referee.words import counted
from referee.games.terminal_desk import SeatDesk, State
from referee.games.rage import codec
from referee.games.rage.cards import Colour


# Rage's card colours, as board.css draws them (tests check they agree).
COLOUR_HEX = {"b": "#2f6fd0", "g": "#2f9a48", "r": "#d33a2c", "y": "#e9b514",
              "v": "#8a4fc8", "o": "#ee7d1a"}
# On a terminal: xterm 256-colour indexes chosen by eye, as the nearest to #d33a2c is
# an orange beside the orange's.
XTERM = {"b": 26, "g": 28, "r": 160, "y": 178, "v": 98, "o": 208}
COLOUR_NAMES = {colour.value: colour.name.lower() for colour in Colour}
_ACTION_HEX = {"J": "#2b2b2b", "NT": "#444444", "TC": "#6b4b2a", "+5": "#fafafa",
               "-5": "#fafafa"}
_LIGHT = {"y", "+5", "-5"}  # light backgrounds take dark text
_ORDER = {letter: index for index, letter in enumerate("bgryvo")}
_ACTIONS = ("J", "NT", "TC", "+5", "-5")


def card(face: str, paint: Paint) -> str:
    """A card (`r7`, `J`, a played `J:g`, `NT`...) as a chip in its colour."""
    key = face.split(":")[-1] if face.startswith("J:") else face
    colour = key if key in COLOUR_HEX else key[0] if key[1:].isdigit() else None
    if colour is not None and colour in COLOUR_HEX:
        return paint.chip(f" {face} " if paint.on else face, XTERM[colour],
                          colour in _LIGHT)
    return paint.chip(f" {face} " if paint.on else face, _ACTION_HEX.get(face, "#444444"),
                      face in _LIGHT)


def sort_key(face: str) -> tuple[int, int]:
    """Hands by colour (b g r y v o), values ascending, then the action cards."""
    if face[1:].isdigit() and face[0] in _ORDER:
        return _ORDER[face[0]], int(face[1:])
    return len(_ORDER) + (_ACTIONS.index(face) if face in _ACTIONS else 9), 0


def cards(faces: Sequence[str], paint: Paint) -> str:
    return " ".join(card(face, paint) for face in sorted(faces, key=sort_key))


def _bid(bid: Any, state: State) -> tuple[str, bool]:
    """A seat's bid cell, and whether it is one only this seat sees (drawn dim)."""
    if bid is None:
        return "-", False
    if bid == "?":
        return "hidden", False
    return (f"{bid} (hidden)", True) if state.get("hb") else (str(bid), False)


def draw(state: State, names: Sequence[str], me: int | None, paint: Paint,
         actor: int | None = None, first: State | None = None) -> list[str]:
    """The table as lines of text; `me`: the seat whose eyes these are (None: all),
    `actor`: the seat to act, marked; `first`: the first state (Rage needs none)."""
    return lines_of(layout(state, names, me, paint, actor))


def layout(state: State, names: Sequence[str], me: int | None, paint: Paint,
           actor: int | None = None, width: int | None = None) -> list[Block]:
    """The table as blocks of lines no wider than `width` (None: any), ranked for a small
    terminal (screen_fit.py): the round, trump, trick, every seat's bid, tricks and score
    and `me`'s hand are needed; the order of tricks won and the notes are not."""
    blocks = [block([_heading(state, paint)]),
              block(wrap(_trump(state, paint), width, indent=7, sep="    ")),
              block(wrap(_trick(state, names, paint), width, indent=9))]
    winners = state.get("ws") or []
    if winners:
        blocks.append(block(wrap(["Tricks won this round, in order:"] + listed([
            f"{i + 1}: {names[w]}" for i, w in enumerate(winners)]), width, 2, " "),
            DETAIL, "the order tricks were won in"))
    blocks += [blank(), *_seat_table(state, names, me, paint, actor, width)]
    if state.get("hb"):
        blocks.append(block([paint.dim("Bids are hidden until the variant reveals them.")],
                            DETAIL, "a note on hidden bids"))
    sheet = state.get("sh")
    if sheet:
        blocks += [blank(), block(wrap([f"Round {state['r']} scored (bid/tricks: points):"] + [
            f"{names[seat]} {row[0]}/{row[1]}: {row[-1]:+d}" for seat, row in enumerate(sheet)],
            width, 2), DETAIL, "the last round's points")]
    if state.get("over"):
        blocks += [blank(), block(wrap([paint.bold("Game over. Totals:")] + [
            paint.bold(item) for item in listed([f"{name} {total}" for name, total
                                                 in zip(names, state["s"])])], width, 2, " "))]
    return blocks


def _seat_table(state: State, names: Sequence[str], me: int | None, paint: Paint,
                actor: int | None, width: int | None) -> list[Block]:
    """A row per seat: bid, tricks won, score and hand. Where `me`'s hand makes its row
    wider than `width`, the hand has lines of its own under the table."""
    name_width = max(len(name) for name in names)
    bids = [_bid(bid, state) for bid in state["b"]]
    bid_width = max(6, *(len(text) for text, _ in bids))  # padded before it is painted
    blocks = [block([paint.bold(f"   seat  {'player':<{name_width}}  {'bid':<{bid_width}}  "
                                "won  score  hand")], HEADER, "the column headings")]
    below: list[str] = []
    for seat, name in enumerate(names):
        marker = "▶" if seat == actor else " "
        text, own = bids[seat]
        bid = paint.dim(text.ljust(bid_width)) if own else text.ljust(bid_width)
        row = (f" {marker} {seat:>4}  {name:<{name_width}}  {bid}  {state['w'][seat]:>3}  "
               f"{state['s'][seat]:>5}  ")
        hand = state["h"][seat]
        shown = cards(hand, paint) if isinstance(hand, list) else f"{hand} cards"
        if width is not None and isinstance(hand, list) and width_of(row + shown) > width:
            below += wrap([paint.bold("Your hand:" if seat == me else f"{name}'s hand:")] + [
                card(face, paint) for face in sorted(hand, key=sort_key)], width, 11, " ")
            shown = f"{len(hand)} cards ↓"
        row += shown
        blocks.append(block([paint.bold(row) if seat == me else row],
                            NEEDED if seat == me else SEAT_ROW, "seats", seat))
    if below:
        blocks.append(block(below))
    return blocks


def _heading(state: State, paint: Paint) -> str:
    if not state.get("r"):
        return paint.bold("Rage: before the first deal")
    return paint.bold(f"Round {state['r']}") + (
        f" · {_cards_each(state['k'])} · seat {state['d']} deals")


def _cards_each(count: int) -> str:
    return f"{counted(count, 'card')} each"


def _trump(state: State, paint: Paint) -> list[str]:
    """The trump and the cards flipped for it, as segments of a line."""
    trump = state.get("tr")
    shown = "none" if trump is None else card(trump, paint) + " " + COLOUR_NAMES[trump]
    flips = state.get("f") or []
    return [f"Trump: {shown}"] + ([f"flipped: {cards_in_order(flips, paint)}"] if flips else [])


def cards_in_order(faces: Sequence[str], paint: Paint) -> str:
    return " ".join(card(face, paint) for face in faces)


def led_colour(plays: Sequence[Sequence[Any]]) -> str | None:
    """The trick's lead colour from its plays' notation (ruling R3): the first colour card's
    colour, or the colour the first Joker declared; None while only action cards lie."""
    for _, notation in plays:
        if notation.startswith("J:"):
            return str(notation[2:])
        if notation[:1] in COLOUR_HEX and notation[1:].isdigit():
            return str(notation[0])
    return None


def _trick(state: State, names: Sequence[str], paint: Paint) -> list[str]:
    """The trick in play as segments of a line: its number and lead colour, each card by
    the seat that played it, in order, and who won it."""
    plays = state.get("t") or []
    if not plays:
        return ["Trick: none in play" if state.get("r") else ""]
    led = led_colour(plays)
    head = f"Trick {state.get('tn', '')}, " + (
        f"led {COLOUR_NAMES[led]}:" if led else "no lead colour yet:")
    played = [f"{names[seat]} {card(notation, paint)}" for seat, notation in plays]
    won = state.get("tw")
    return [f"{head} {played[0]}", *played[1:]] + (
        [paint.bold(f"→ won by {names[won]}")] if won is not None else [])


def listed(items: Sequence[str]) -> list[str]:
    """Items as segments of a comma-separated list."""
    return [f"{item}," for item in items[:-1]] + list(items[-1:])


class RageDesk(SeatDesk):
    """A human seat's view: every line the seat is sent, folded into a board state;
    the requests' prompts, and the person's input made a reply line."""

    decode = staticmethod(codec.decode)

    def __init__(self, paint: Paint) -> None:
        super().__init__(paint)
        self.hiding = False
        self.last_sheet: str | None = None

    def _on_game(self, game: codec.Game) -> None:
        n = game.players
        self.seat = game.seat
        self.hiding = any(v.value in ("hidden-bid", "secret-bid") for v in game.variants)
        self.names = [f"seat {s}" if s != game.seat else "you" for s in range(n)]
        variants = ", ".join(sorted(v.value for v in game.variants)) or "none"
        self.news = [f"A game of Rage, {n} players; you are seat {game.seat}; "
                     f"variants: {variants}."]
        self.state = {"r": 0, "k": 0, "d": 0, "h": [0] * n, "b": [None] * n, "w": [0] * n,
                      "s": [0] * n, "t": [], "tw": None, "tn": 1, "ws": [], "f": [],
                      "tr": None}

    def _on_round(self, message: codec.Round) -> None:
        n = len(self.names)
        self.state.update({"r": message.round_no, "k": message.cards, "d": message.dealer,
                           "h": [message.cards] * n, "b": [None] * n, "w": [0] * n,
                           "t": [], "tw": None, "tn": 1, "ws": [], "f": [], "tr": None})
        self.state.pop("sh", None)
        if self.hiding:
            self.state["hb"] = 1
        self.news.append(f"Round {message.round_no}: {_cards_each(message.cards)}, "
                         f"seat {message.dealer} deals.")

    def _on_hand(self, message: codec.Hand) -> None:
        self.state["h"][self.seat] = [c.face for c in message.cards]

    def _on_flip(self, message: codec.Flip) -> None:
        self.state["f"].append(message.card.face)

    def _on_trump(self, message: codec.Trump) -> None:
        colour = None if message.colour is None else message.colour.value
        self.state["tr"] = colour
        self.news.append(f"Trump: {COLOUR_NAMES[colour] if colour else 'none'} "
                         f"({message.reason.value}).")

    def _on_bidrequest(self, message: codec.BidRequest) -> None:
        if self.hiding:  # those left of the dealer up to this seat have bid, unseen
            n, bids = len(self.names), self.state["b"]
            seat = (self.state["d"] + 1) % n
            while seat != self.seat:
                bids[seat] = "?" if bids[seat] is None else bids[seat]
                seat = (seat + 1) % n

    def _on_bid(self, message: codec.Bid) -> None:
        self.state["b"][message.seat] = message.bid
        self.news.append(f"{self.names[message.seat]} bid {message.bid}.")

    def _on_bids(self, message: codec.Bids) -> None:
        self.state["b"] = list(message.bids)
        self.state.pop("hb", None)
        self.news.append("The bids are revealed: " + " ".join(map(str, message.bids)) + ".")

    def _on_played(self, message: codec.Played) -> None:
        state = self.state
        if state["tw"] is not None:
            state["t"], state["tw"], state["tn"] = [], None, state["tn"] + 1
        if not state["t"] and self.hiding:  # the first card: every seat has bid
            state["b"] = ["?" if b is None else b for b in state["b"]]
        hand = state["h"][message.seat]
        if isinstance(hand, list):
            hand.remove(message.play.card.face)
        else:
            state["h"][message.seat] = hand - 1
        state["t"].append([message.seat, message.play.notation])
        self.news.append(f"{self.names[message.seat]} played {message.play.notation}.")

    def _on_trick(self, message: codec.Trick) -> None:
        state = self.state
        state["tw"], state["tn"] = message.winner, message.trick_no
        state["w"][message.winner] += 1
        state["ws"].append(message.winner)
        self.news.append(f"Trick {message.trick_no} to {self.names[message.winner]}.")

    def _on_score(self, message: codec.Score) -> None:
        self.state["s"] = [s + p for s, p in zip(self.state["s"], message.points)]
        self.state["sh"] = [[b, t, p] for b, t, p in
                            zip(message.bids, message.tricks, message.points)]
        self.state.pop("hb", None)
        self.state["b"] = list(message.bids)
        self.news.append(f"Round {message.round_no} scored: points "
                         + " ".join(f"{p:+d}" for p in message.points) + ".")

    def _on_end(self, message: codec.End) -> None:
        self.state["s"], self.state["over"] = list(message.totals), 1
        self.news.append(f"The game is over: you place {message.places[self.seat]} "
                         f"with {message.totals[self.seat]} points.")

    def _board(self, actor: int | None, width: int | None) -> list[Block]:
        return layout(self.state, self.names, self.seat, self.paint, actor, width)

    def _offer(self, request: str, width: int | None) -> list[Block]:
        words = request.split()[1:]
        if request.startswith(codec.BID_REQUEST):
            return [block(prose(f"Your bid: type one of {' '.join(words)}.", width, 2))]
        numbered = [f"{i + 1}) {card(w, self.paint)}" for i, w in enumerate(words)]
        return [block(prose("Your card: type its number or its name (e.g. " + words[0] + ").",
                            width, 2) + wrap(numbered, width))]

    def reply(self, request: str, typed: str) -> str:
        """The reply line for what the person typed; ValueError with help for bad input."""
        words = request.split()[1:]
        text = typed.strip()
        if request.startswith(codec.BID_REQUEST):
            if text in words:
                return text
            raise ValueError(f"{text!r} is not a bid you may make: type one of "
                             f"{' '.join(words)}.")
        if text.isdigit() and 1 <= int(text) <= len(words):
            return words[int(text) - 1]
        for word in words:
            if word.lower() == text.lower():
                return word
        if text.upper() == "J" and any(w.startswith("J:") for w in words):
            raise ValueError("a Joker needs the colour you declare: J:b J:g J:r J:y J:v "
                             "or J:o (blue, green, red, yellow, violet, orange).")
        raise ValueError(f"{text!r} is not a card you may play now: type a number from "
                         f"1 to {len(words)}, or one of {' '.join(words)}.")
