"""Whole matches in process where one seat's reply to one request is fuzzed text.

Whatever the text, the match finishes with a result and no exception escapes. The text
is either a legal move, applied as sent, or that seat's one recorded fault (protocol error
or illegal move, with the text as the offending line and a short detail), answered by one
`ERROR` line that fits the framing. No other seat is charged (docs/rules.md, Faults).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from hypothesis import assume, event, given, settings
from hypothesis import strategies as st

from bots.rage_random import RandomBot as RageRandom
from bots.thegame_random import RandomBot as TheGameRandom
from referee.games.rage import codec as rage_codec
from referee.games.thegame import codec as thegame_codec
from protocols.wire import PROTOCOL_VERSION, format_hello, is_log
from referee.processes.bot_command import parse_bot_command
from referee.errors import BotFault, BotTimeout, Fault
from protocols.faults import FaultKind
from referee.games.rage.rules import BidMade, CardPlayed, Event as RageEvent, RageConfig, Variant
from referee.games.thegame.rules import Event as TheGameEvent, TheGameConfig, TurnPlayed
from referee.players.lineup import FaultedPlayer
from referee.players.player import Player
from referee.games.rage.match import RageMatch, RageResult
from referee.players.remote_player import RemotePlayer
from referee.settings import TimeLimits
from referee.games.thegame.match import TheGameMatch
from referee.transport.channel import encode_line
from tests.bot_text import (
    BOT_TEXT, DETAIL_BOUND, HINT_TEXT, PILES, PLAY_WORDS, TRICKY, is_ascii_number,
    is_hint_reply, is_placement,
)

FUZZ = settings(max_examples=100, deadline=None)
TIMES = TimeLimits()
Choose = Callable[[str, str], str]  # (request, the sample bot's own reply) -> reply sent
BotLine = Callable[[str], "str | None"]


class FuzzedPlayer(Player):
    """A sample bot in process, except that its reply to the nth request starting with
    `keyword` is chosen by the test. Checks every line it is sent fits the framing."""

    def __init__(self, name: str, bot_line: BotLine, keyword: str = "", nth: int = 0,
                 choose: Choose | None = None) -> None:
        self.name = name
        self._bot_line = bot_line
        self._keyword, self._nth, self._choose = keyword, nth, choose
        self._asked = 0
        self.heard: list[str] = []
        self.reply: str | None = None  # the chosen reply, once sent
        self.honest: str | None = None  # what the sample bot would have replied instead

    def new_game(self, line: str) -> None:
        self.tell(line)

    def tell(self, line: str) -> None:
        self._receive(line)
        self._bot_line(line)

    def ask(self, line: str, preamble: Sequence[str] = ()) -> str:
        self.tell_many(preamble)
        self._receive(line)
        honest = self._bot_line(line)
        assert honest is not None, f"the sample bot did not answer {line!r}"
        if line.split(" ", 1)[0] == self._keyword and self._choose is not None:
            self._asked += 1
            if self._asked == self._nth:
                self.honest, self.reply = honest, self._choose(line, honest)
                return self.reply
        return honest

    def _receive(self, line: str) -> None:
        encode_line(line)  # raises ValueError if the referee could not send this line
        self.heard.append(line)

    @property
    def errors(self) -> list[str]:
        return [line for line in self.heard if line.startswith("ERROR ")]


def assert_outcome(faults: Sequence[Fault], players: Sequence[Player], seat: int,
                   kind: FaultKind | None, line: str | None) -> None:
    """Either no fault at all, or exactly the expected one on `seat`, told once, last."""
    event("outcome: " + (kind.value if kind else "legal"))
    others = [p for s, p in enumerate(players) if s != seat]
    assert all(not p.errors for p in others if isinstance(p, FuzzedPlayer))
    culprit = players[seat]
    if kind is None:
        assert faults == ()
        assert not isinstance(culprit, FuzzedPlayer) or not culprit.errors
        return
    [fault] = faults
    assert (fault.seat, fault.bot, fault.kind, fault.line) == (seat, culprit.name, kind, line)
    assert len(fault.detail) <= DETAIL_BOUND + len("bad HELLO: ")
    if isinstance(culprit, FuzzedPlayer):
        assert culprit.errors == [culprit.heard[-1]], "one ERROR line, and nothing after it"
        assert culprit.heard[-1].startswith(f"ERROR {kind.value} ")


# ---- Rage: BID? and PLAY? -------------------------------------------------------------

def rage_players(seat: int, keyword: str, nth: int, choose: Choose) -> list[FuzzedPlayer]:
    return [FuzzedPlayer(f"bot{s}", RageRandom().on_line,
                         *((keyword, nth, choose) if s == seat else ()))
            for s in range(3)]


def run_rage(players: Sequence[Player], variants: frozenset[Variant],
             seen: list[RageEvent]) -> RageResult:
    result = RageMatch(players, RageConfig(3, variants, rounds=2), 7, TIMES,
                       observer=seen.append).run()
    assert len(result.rounds) == 2, "the game is played to the end"
    return result


def assert_placed_last_if_faulted(result: RageResult, seat: int) -> None:
    """Fault policy (docs/rules.md, Faults): the faulty bot is out of the game and places last."""
    if result.faults:
        assert result.places[seat] == 3
        assert all(place < 3 for s, place in enumerate(result.places) if s != seat)


VARIANTS = st.sampled_from([frozenset(), frozenset({Variant.PLUS_MINUS_ONE})])


@FUZZ
@given(st.data(), st.integers(0, 2), st.integers(1, 2), VARIANTS)
def test_any_bid_reply_is_a_bid_or_the_seats_fault(
        data: st.DataObject, seat: int, nth: int, variants: frozenset[Variant]) -> None:
    def choose(request: str, honest: str) -> str:
        legal = request.split()[1:]
        return data.draw(st.one_of(
            st.sampled_from(legal), st.integers(0, 40).map(str),
            st.builds(lambda pad, bid: f"{pad}{bid}{pad}", st.sampled_from(" \t\u3000"),
                      st.sampled_from(legal)),
            BOT_TEXT), label="reply")

    players = rage_players(seat, rage_codec.BID_REQUEST, nth, choose)
    seen: list[RageEvent] = []
    result = run_rage(players, variants, seen)
    reply = players[seat].reply
    assert reply is not None
    bids = [e.bid for e in seen if isinstance(e, BidMade) and e.seat == seat]
    legal = [int(w) for w in _request_words(players[seat], rage_codec.BID_REQUEST, nth)]
    text = reply.strip()
    if is_ascii_number(text, 3) and int(text) in legal:
        assert_outcome(result.faults, players, seat, None, None)
        assert bids[nth - 1] == int(text)
    else:
        kind = FaultKind.ILLEGAL if is_ascii_number(text, 3) else FaultKind.PROTOCOL
        assert_outcome(result.faults, players, seat, kind, reply)
    assert_placed_last_if_faulted(result, seat)


@FUZZ
@given(st.data(), st.integers(0, 2), st.integers(1, 9))
def test_any_play_reply_is_a_play_or_the_seats_fault(
        data: st.DataObject, seat: int, nth: int) -> None:
    def choose(request: str, honest: str) -> str:
        return data.draw(st.one_of(
            st.sampled_from(request.split()[1:]), st.sampled_from(PLAY_WORDS),
            st.sampled_from(["J", "J:", "J:x", "r16", " r3 ", "r3 r4"]), BOT_TEXT),
            label="reply")

    players = rage_players(seat, rage_codec.PLAY_REQUEST, nth, choose)
    seen: list[RageEvent] = []
    result = run_rage(players, frozenset(), seen)
    reply = players[seat].reply
    assert reply is not None
    plays = [e.play.notation for e in seen if isinstance(e, CardPlayed) and e.seat == seat]
    text = reply.strip()
    if text in _request_words(players[seat], rage_codec.PLAY_REQUEST, nth):
        assert_outcome(result.faults, players, seat, None, None)
        assert plays[nth - 1] == text
    else:
        kind = FaultKind.ILLEGAL if text in PLAY_WORDS else FaultKind.PROTOCOL
        assert_outcome(result.faults, players, seat, kind, reply)
    assert_placed_last_if_faulted(result, seat)


def _request_words(player: FuzzedPlayer, keyword: str, nth: int) -> list[str]:
    """The words after the keyword of the nth such request the player heard."""
    requests = [line for line in player.heard if line.split(" ", 1)[0] == keyword]
    return requests[nth - 1].split()[1:]


# ---- The Game: TURN? and HINTS? --------------------------------------------------------

def thegame_players(bots: Sequence[TheGameRandom], seat: int, keyword: str, nth: int,
                    choose: Choose) -> list[FuzzedPlayer]:
    return [FuzzedPlayer(f"bot{s}", bot.on_line, *((keyword, nth, choose) if s == seat else ()))
            for s, bot in enumerate(bots)]


def turn_replies(honest: str, hand: Sequence[int]) -> st.SearchStrategy[str]:
    """The bot's own turn, variations on it, cards of its hand anywhere, or any text."""
    words = honest.split()
    own = st.builds(lambda pile, card: f"{pile}:{card}", st.sampled_from(PILES),
                    st.sampled_from(list(hand) or [0]))
    return st.one_of(
        st.just(honest), st.permutations(words).map(" ".join),
        st.lists(st.one_of(st.sampled_from(words), own), min_size=1, max_size=5).map(" ".join),
        st.lists(st.text(alphabet=TRICKY, max_size=6), max_size=3).map(" ".join),
        BOT_TEXT)


@FUZZ
@given(st.data(), st.integers(1, 3), st.integers(1, 2), st.booleans())
def test_any_turn_reply_is_a_turn_or_the_seats_fault(
        data: st.DataObject, count: int, nth: int, commands: bool) -> None:
    """Ruling X1: a malformed or rule-breaking turn ends the game lost, charged to its bot."""
    seat = data.draw(st.integers(0, count - 1), label="seat")
    bots = [TheGameRandom() for _ in range(count)]

    def choose(request: str, honest: str) -> str:
        return data.draw(turn_replies(honest, bots[seat].game.hand), label="reply")

    players = thegame_players(bots, seat, thegame_codec.TURN_REQUEST, nth, choose)
    seen: list[TheGameEvent] = []
    config = TheGameConfig(count) if commands else TheGameConfig(count, None)
    result = TheGameMatch(players, config, 3, TIMES, observer=seen.append).run()
    reply = players[seat].reply
    assume(reply is not None)  # the game may end before the seat's nth turn
    assert reply is not None
    words = reply.split()
    turns = [e.turn for e in seen if isinstance(e, TurnPlayed) and e.seat == seat]
    if not (words and all(is_placement(w) for w in words)):
        assert_outcome(result.faults, players, seat, FaultKind.PROTOCOL, reply)
    elif result.faults:
        assert_outcome(result.faults, players, seat, FaultKind.ILLEGAL, reply)
        assert reply != players[seat].honest, "the sample bot's own turn is legal"
    else:
        assert_outcome(result.faults, players, seat, None, None)
        assert thegame_codec.placements_text(turns[nth - 1]) == " ".join(
            f"{w[0]}:{int(w[2:])}" for w in words)
    if result.faults:
        assert not result.won and result.reason == "fault"
        assert len(turns) == nth - 1, "the faulty turn was not applied"


@FUZZ
@given(st.data(), st.integers(2, 3), st.integers(1, 2), st.booleans())
def test_any_hints_reply_is_hints_or_the_seats_fault(
        data: st.DataObject, count: int, nth: int, commands: bool) -> None:
    """docs/rules.md, Talking: a fixed non-numeric vocabulary; anything else is a protocol fault"""
    seat = data.draw(st.integers(0, count - 1), label="seat")

    def choose(request: str, honest: str) -> str:
        return data.draw(HINT_TEXT, label="reply")

    bots = [TheGameRandom() for _ in range(count)]
    players = thegame_players(bots, seat, thegame_codec.HINTS_REQUEST, nth, choose)
    config = TheGameConfig(count) if commands else TheGameConfig(count, None)
    result = TheGameMatch(players, config, 3, TIMES).run()
    reply = players[seat].reply
    assume(reply is not None)  # a notalk card or the game's end may come first
    assert reply is not None
    if is_hint_reply(reply):
        assert_outcome(result.faults, players, seat, None, None)
        if reply.strip() != "none":
            hint = f"HINT {seat} {' '.join(reply.split())}"
            assert all(hint in p.heard for s, p in enumerate(players) if s != seat)
    else:
        assert_outcome(result.faults, players, seat, FaultKind.PROTOCOL, reply)
        assert not result.won and result.reason == "fault"


# ---- HELLO: the handshake's fault reaches the match as that seat's fault ---------------

TOKEN = "0123456789abcdef0123456789abcdef"


class LinesChannel:
    """Stands in for a transport Channel: the given lines, then silence."""

    def __init__(self, lines: Sequence[str]) -> None:
        self._lines = list(lines)

    def recv(self, deadline: float) -> str:
        if not self._lines:
            raise BotTimeout("no more lines")
        return self._lines.pop(0)

    def pending(self) -> bool:
        return bool(self._lines)

    def send_lines(self, lines: Sequence[str], deadline: float | None = None) -> None:
        for line in lines:
            encode_line(line)

    def close(self) -> None:
        pass


class ExitedProcess:
    """Stands in for a BotProcess that has already exited."""

    def exited(self) -> bool:
        return True

    def wait(self, timeout: float) -> bool:
        return True

    def kill(self) -> None:
        pass


def handshake(line: str) -> Player:
    """The player a lineup seats for a bot whose first line is `line` (stdio)."""
    player = RemotePlayer("culprit", parse_bot_command("stdio:true"), ExitedProcess(),
                          LinesChannel([line]), TIMES)
    try:
        player._handshake(TOKEN, None)
    except BotFault as error:
        return FaultedPlayer(player.name, error)
    return player


def _hello_word() -> st.SearchStrategy[str]:
    return st.one_of(st.from_regex(r"[A-Za-z0-9._+-]{1,42}", fullmatch=True),
                     st.text(alphabet=TRICKY, min_size=1, max_size=6), BOT_TEXT)


HELLO_LINES = st.one_of(
    BOT_TEXT, st.just(format_hello(TOKEN, "bot", "1.0")),
    st.builds(lambda v, t, n, w: f"HELLO {v} {t} {n} {w}",
              st.one_of(st.sampled_from(["2", "02", "²", "٢", "2" * 5000, "3"]), _hello_word()),
              st.one_of(st.just(TOKEN), _hello_word()), _hello_word(), _hello_word()))


def _is_name(word: str) -> bool:
    return 1 <= len(word) <= 40 and all(ch.isascii() and (ch.isalnum() or ch in "._+-")
                                        for ch in word)


@FUZZ
@given(HELLO_LINES, st.integers(0, 2))
def test_any_hello_greets_or_becomes_the_seats_fault(line: str, seat: int) -> None:
    """A bad HELLO is a protocol error charged to its seat; the game goes on without it."""
    parts = line.split()
    good = (len(parts) == 5 and parts[0] == "HELLO" and parts[2] == TOKEN
            and is_ascii_number(parts[1], 9) and int(parts[1]) == PROTOCOL_VERSION
            and all(_is_name(w) for w in parts[3:]))
    greeted = handshake(line)
    if good:
        event("outcome: greeted")
        assert isinstance(greeted, RemotePlayer) and greeted.hello.name == parts[3]
        greeted.close()
        return
    assert isinstance(greeted, FaultedPlayer)
    players: list[Player] = [FuzzedPlayer(f"bot{s}", RageRandom().on_line) for s in range(3)]
    players[seat] = greeted
    result = run_rage(players, frozenset(), [])
    if is_log(line):  # recorded and skipped: then no HELLO comes in time
        assert_outcome(result.faults, players, seat, FaultKind.TIMEOUT, None)
    else:
        assert_outcome(result.faults, players, seat, FaultKind.PROTOCOL, line)
    assert_placed_last_if_faulted(result, seat)
