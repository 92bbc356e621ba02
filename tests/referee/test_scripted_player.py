"""RemotePlayer against scripted bots (tests/referee/scripted_channel.py): the handshake,
floods, the time bank, unsolicited lines, garbage and a bot that leaves, each to the
virtual second. The same player against real bot processes: test_remote_player.py and
test_faults.py."""

from __future__ import annotations

import re
from unittest.mock import Mock

import pytest

from protocols.wire import MAX_LINE_BYTES, PROTOCOL_VERSION
from referee.players.remote_player import RemotePlayer
from referee.errors import BotCrashed, BotTimeout, OutputFlood, ProtocolError
from referee.settings import TimeLimits
from referee.transport.inbox import MAX_QUEUED_BYTES, MAX_QUEUED_LINES
from tests.referee.scripted_channel import START, TOKEN, Exit, Scripted, ScriptedChannel

TIMES = TimeLimits(startup=2.0, move=1.0, bank=0.5, tolerance=0.05)
NO_BANK = TimeLimits(startup=2.0, move=1.0, bank=0.0, tolerance=0.05)
OTHER_TOKEN = "ab" * 16


def recorder() -> Mock:
    """A LineListener that keeps its calls, with their virtual times."""
    return Mock(spec=["sent", "heard", "replied", "found"])


def told(listener: Mock) -> list[tuple[str, str]]:
    """What the listener was told, as (what, line), a batch's lines one by one."""
    events: list[tuple[str, str]] = []
    for name, args, _ in listener.mock_calls:
        lines = args[0] if name == "sent" else [args[0]]
        events += [(name, line) for line in lines]
    return events


def greeted(scripted: Scripted, times: TimeLimits = TIMES, listener: Mock | None = None
            ) -> tuple[ScriptedChannel, RemotePlayer]:
    """A channel whose bot says HELLO at once, and its greeted player."""
    channel = scripted.channel().says(ScriptedChannel.hello)
    return channel, scripted.player(channel, times, listener)


# The handshake.

def test_the_hello_is_awaited_and_nothing_is_sent_before_it(scripted: Scripted) -> None:
    channel = scripted.channel().says(ScriptedChannel.hello, after=1.5)
    player = scripted.player(channel, TIMES)
    assert (player.hello.name, player.hello.version, player.hello.protocol) == (
        "scripted", "1.0", PROTOCOL_VERSION)
    assert channel.now == START + 1.5
    assert channel.sent == []


@pytest.mark.parametrize("after, in_time", [(2.05, True), (2.051, False)])
def test_the_hello_may_come_until_startup_plus_tolerance(
        scripted: Scripted, after: float, in_time: bool) -> None:
    channel = scripted.channel().says(ScriptedChannel.hello, after=after)
    if in_time:
        scripted.player(channel, TIMES)
        return
    with pytest.raises(BotTimeout, match=r"^no HELLO within 2 s$"):
        scripted.player(channel, TIMES)
    assert channel.now == pytest.approx(START + 2.05)  # gave up at the deadline, not later
    assert channel.process.killed and channel.closed
    assert channel.sent == []  # no BYE to a bot that never greeted


def test_try_greet_waits_for_nothing_until_the_hello_comes(scripted: Scripted) -> None:
    channel = scripted.channel().says("LOG booting", ScriptedChannel.hello, after=1.0)
    player = scripted.player(channel, TIMES, greet=False)
    assert player.try_greet() is False
    assert channel.now == START  # it did not wait
    scripted.clock.advance_to(START + 1.0)
    assert player.try_greet() is True
    assert player.hello.name == "scripted"


def test_try_greet_past_the_deadline_is_a_timeout(scripted: Scripted) -> None:
    channel = scripted.channel()
    player = scripted.player(channel, TIMES, greet=False)
    scripted.clock.advance_to(START + 2.049)
    assert player.try_greet() is False
    scripted.clock.advance_to(START + 2.05)
    with pytest.raises(BotTimeout, match="no HELLO within 2 s"):
        player.try_greet()
    assert player.closed


@pytest.mark.parametrize("hello, error", [
    (f"HELLO {PROTOCOL_VERSION} {OTHER_TOKEN} bot 1.0", "HELLO with a wrong token"),
    (f"HELLO {PROTOCOL_VERSION + 1} {TOKEN} bot 1.0", "bot speaks protocol version"),
    (f"HELLO {PROTOCOL_VERSION} {TOKEN} b@d 1.0", "bad HELLO: name and version"),
    ("PLAY? r3", "bad HELLO: expected"),
])
def test_a_bad_hello_is_a_protocol_fault_with_its_tokens_redacted(
        scripted: Scripted, hello: str, error: str) -> None:
    channel = scripted.channel().says(hello)
    with pytest.raises(ProtocolError, match=re.escape(error)) as caught:
        scripted.player(channel, TIMES)
    fault = caught.value
    assert fault.line is not None
    for token in (TOKEN, OTHER_TOKEN):
        assert token not in fault.line and token not in str(fault)
    assert fault.line == hello.replace(TOKEN, "<token>").replace(OTHER_TOKEN, "<token>")
    assert channel.process.killed


# Floods.

@pytest.mark.parametrize("logs, flood", [(16, False), (17, True)])
def test_more_than_16_log_lines_before_a_reply_is_a_flood(
        scripted: Scripted, logs: int, flood: bool) -> None:
    record = recorder()
    channel, player = greeted(scripted, listener=record)
    channel.expect("PLAY? a", *[f"LOG {i}" for i in range(logs)], "a")
    if not flood:
        assert player.ask("PLAY? a") == "a"
        assert [line for what, line in told(record) if what == "heard"] == [
            f"LOG {i}" for i in range(16)]
        return
    with pytest.raises(OutputFlood, match="more than 16 LOG lines") as caught:
        player.ask("PLAY? a")
    assert caught.value.line == "LOG 16"


@pytest.mark.parametrize("lines, size, flood", [
    (MAX_QUEUED_LINES, 1, False),
    (MAX_QUEUED_LINES + 1, 1, True),
    (MAX_QUEUED_BYTES // MAX_LINE_BYTES + 1, MAX_LINE_BYTES, True),  # few, but too many bytes
])
def test_unread_lines_past_the_inbox_bounds_are_a_flood(
        scripted: Scripted, lines: int, size: int, flood: bool) -> None:
    """Lines the bot sends between games are dropped at the next GAME, up to the inbox's
    bounds; past them, the whole output is a flood, charged there."""
    channel, player = greeted(scripted)
    channel.says(*["x" * size] * lines, after=0.1)
    scripted.clock.advance_to(START + 0.1)
    if not flood:
        player.new_game("GAME 1")
        assert channel.lines_sent() == ["GAME 1"]
        return
    with pytest.raises(OutputFlood, match=f"more than {MAX_QUEUED_LINES} lines or "):
        player.new_game("GAME 1")
    assert channel.lines_sent() == []


@pytest.mark.parametrize("size, too_long", [(MAX_LINE_BYTES, False), (MAX_LINE_BYTES + 1, True)])
def test_a_reply_longer_than_the_line_limit_is_a_protocol_fault(
        scripted: Scripted, size: int, too_long: bool) -> None:
    channel, player = greeted(scripted)
    reply = "r" * size
    channel.expect("PLAY? a", reply)
    if not too_long:
        assert player.ask("PLAY? a") == reply
        return
    with pytest.raises(ProtocolError, match=f"line longer than {MAX_LINE_BYTES} bytes") as caught:
        player.ask("PLAY? a")
    assert caught.value.line == "r" * 200 + "..."  # an excerpt, not the whole line


# The time bank, to the virtual second.

def test_a_reply_within_the_move_time_keeps_the_bank(scripted: Scripted) -> None:
    channel, player = greeted(scripted)
    channel.expect("PLAY? a", "a", after=1.0)
    assert player.ask("PLAY? a") == "a"
    assert player.bank_left == TIMES.bank


def test_a_late_reply_spends_its_overrun_then_the_bank_runs_out(scripted: Scripted) -> None:
    channel, player = greeted(scripted)
    channel.expect("PLAY? a", "a", after=1.3)
    channel.expect("PLAY? b", "b", after=1.3)
    assert player.ask("PLAY? a") == "a"
    assert player.bank_left == pytest.approx(0.2)
    asked = channel.now
    with pytest.raises(BotTimeout, match=re.escape("no reply to PLAY? within 1 s + 0.200 s "
                                                   "of time bank")):
        player.ask("PLAY? b")  # allowed 1 + 0.2 + 0.05 s; the reply comes at 1.3 s
    assert channel.now - asked == pytest.approx(1.25)  # it waited exactly that long
    assert player.bank_left == 0.0


def test_new_game_refills_the_bank(scripted: Scripted) -> None:
    channel, player = greeted(scripted)
    channel.expect("GAME 1").expect("PLAY? a", "a", after=1.4).expect("GAME 2")
    player.new_game("GAME 1")
    player.ask("PLAY? a")
    assert player.bank_left == pytest.approx(0.1)
    player.new_game("GAME 2")
    assert player.bank_left == TIMES.bank
    channel.assert_done()


@pytest.mark.parametrize("after, in_time", [(1.04, True), (1.06, False)])
def test_without_a_bank_only_the_tolerance_is_forgiven(
        scripted: Scripted, after: float, in_time: bool) -> None:
    channel, player = greeted(scripted, NO_BANK)
    channel.expect("PLAY? a", "a", after=after)
    if in_time:
        assert player.ask("PLAY? a") == "a"
        assert player.bank_left == 0.0
        return
    with pytest.raises(BotTimeout, match=re.escape("within 1 s + 0.000 s of time bank")):
        player.ask("PLAY? a")


def test_log_lines_do_not_stop_the_clock(scripted: Scripted) -> None:
    """The reply's lateness runs from the request, whatever LOG lines came before it."""
    record = recorder()
    channel, player = greeted(scripted, listener=record)
    channel.expect("PLAY? a", "LOG thinking", after=0.9)
    channel.says("a", after=1.2)
    assert player.ask("PLAY? a") == "a"
    assert player.bank_left == pytest.approx(0.3)
    replied, at = record.replied.call_args.args
    assert (replied, at) == ("a", pytest.approx(START + 1.2))  # the listener's time, too


# Lines sent with no request outstanding.

def test_a_second_reply_is_a_fault_found_before_the_next_request_goes(
        scripted: Scripted) -> None:
    channel, player = greeted(scripted)
    channel.expect("PLAY? a", "a", "a again", after=0.1)
    assert player.ask("PLAY? a") == "a"
    with pytest.raises(ProtocolError, match=re.escape("line sent without a request "
                                                      "(a second reply?)")) as caught:
        player.ask("PLAY? b")
    assert caught.value.line == "a again"
    assert channel.lines_sent() == ["PLAY? a"]  # PLAY? b never went


def test_log_lines_between_requests_are_found_not_faults(scripted: Scripted) -> None:
    record = recorder()
    channel, player = greeted(scripted, listener=record)
    channel.expect("PLAY? a", "a", "LOG after a", after=0.1)
    channel.expect("PLAY? b", "b", after=0.1)
    assert player.ask("PLAY? a") == "a"
    assert player.ask("PLAY? b") == "b"
    assert told(record)[1:] == [("sent", "PLAY? a"), ("replied", "a"), ("found", "LOG after a"),
                                 ("sent", "PLAY? b"), ("replied", "b")]


def test_a_line_after_the_game_is_dropped_at_the_next_game_not_charged(
        scripted: Scripted) -> None:
    record = recorder()
    channel, player = greeted(scripted, listener=record)
    channel.expect("PLAY? a", "a", "too late", after=0.1)
    channel.expect("GAME 2").expect("PLAY? b", "b")
    assert player.ask("PLAY? a") == "a"
    player.new_game("GAME 2")
    assert player.ask("PLAY? b") == "b"
    assert ("found", "too late") in told(record)
    channel.assert_done()


def test_bytes_that_are_no_line_are_charged_at_the_next_game(scripted: Scripted) -> None:
    channel, player = greeted(scripted)
    channel.expect("PLAY? a", "a", b"\xff\xfe", after=0.1)
    assert player.ask("PLAY? a") == "a"
    with pytest.raises(ProtocolError, match="line is not UTF-8"):
        player.new_game("GAME 2")


# Garbage.

@pytest.mark.parametrize("reply, error", [
    (b"r3 \xc3", "line is not UTF-8"),
    (b"r3\nr4", "a frame must hold exactly one line"),
])
def test_a_reply_that_is_no_line_is_a_protocol_fault(
        scripted: Scripted, reply: bytes, error: str) -> None:
    channel, player = greeted(scripted)
    channel.expect("PLAY? a", reply)
    with pytest.raises(ProtocolError, match=error) as caught:
        player.ask("PLAY? a")
    assert caught.value.line == reply.decode("utf-8", "backslashreplace")


def test_a_garbage_reply_is_returned_as_it_came_for_the_match_to_judge(
        scripted: Scripted) -> None:
    record = recorder()
    channel, player = greeted(scripted, listener=record)
    channel.expect("PLAY? a", "  PLAY banana \u202e ")
    assert player.ask("PLAY? a") == "  PLAY banana \u202e "
    assert told(record)[-1] == ("replied", "  PLAY banana \u202e ")


# A bot that leaves.

def test_a_bot_that_exits_while_a_request_waits_has_crashed(scripted: Scripted) -> None:
    channel, player = greeted(scripted)
    channel.expect("PLAY? a", Exit(3), after=0.4)
    asked = channel.now
    with pytest.raises(BotCrashed, match="^bot exited with code 3$") as caught:
        player.ask("PLAY? a")
    assert caught.value.exit_code == 3
    assert channel.now - asked == pytest.approx(0.4)  # said when it happened: no wait


def test_what_a_bot_sent_before_it_exited_still_counts(scripted: Scripted) -> None:
    channel, player = greeted(scripted)
    channel.expect("PLAY? a", "a", Exit(0))
    channel.expect("PLAY? b", "b")  # never answered: the bot is gone
    assert player.ask("PLAY? a") == "a"
    with pytest.raises(BotCrashed, match="exited with code 0"):
        player.ask("PLAY? b")


def test_close_says_bye_to_a_live_bot_and_nothing_to_a_gone_one(scripted: Scripted) -> None:
    live, live_player = greeted(scripted)
    live.expect("BYE", Exit(0), after=0.1)
    gone, gone_player = greeted(scripted)
    gone.says(Exit(1), after=0.1)
    scripted.clock.advance_to(START + 0.1)
    live_player.close()
    gone_player.close()
    live.assert_done()
    assert live.process.exit_code == 0  # it left on BYE, before the kill
    assert gone.lines_sent() == []
    assert live.closed and gone.closed and gone.process.killed
