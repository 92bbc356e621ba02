"""RemotePlayer's own logic against a scripted bot (tests/scripted_transport.py): the
handshake, the time bank, LOG lines and floods, unsolicited lines, a bot that exits,
told exactly and without a process or a sleep. The real-process tests stay beside these
(test_remote_player.py, test_faults.py): they cover the pipes, sockets and processes."""

from __future__ import annotations

import pytest

from protocols.faults import FaultKind
from protocols.wire import MAX_LOG_LINES_PER_REQUEST
from referee.errors import BotCrashed, BotFault, BotTimeout, OutputFlood, ProtocolError
from referee.players.remote_player import UNSOLICITED, RemotePlayer
from referee.processes.bot_command import parse_bot_command
from referee.settings import TimeLimits
from tests.scripted_transport import TOKEN, script

TIMES = TimeLimits(startup=5.0, move=1.0, bank=2.0, tolerance=0.05)


def test_the_handshake_takes_the_hello_and_its_name(monkeypatch: pytest.MonkeyPatch) -> None:
    player = script(monkeypatch).player(TIMES)
    assert (player.hello.name, player.hello.version) == ("scripted", "1.0")


@pytest.mark.parametrize("hello, detail", [
    (f"HELLO 2 {'x' * 32} scripted 1.0", "HELLO with a wrong token"),
    (f"HELLO 1 {TOKEN} scripted 1.0", "bot speaks protocol version 1"),
    ("hi there", "bad HELLO"),
])
def test_a_bad_hello_is_a_protocol_fault_and_the_bot_is_closed(
        monkeypatch: pytest.MonkeyPatch, hello: str, detail: str) -> None:
    bot = script(monkeypatch)
    with pytest.raises(ProtocolError, match=detail) as caught:
        bot.player(TIMES, hello=hello)
    assert TOKEN not in str(caught.value) and TOKEN not in (caught.value.line or "")
    assert bot.process.killed and bot.channel.closed


def test_no_hello_times_out_at_the_startup_limit_exactly(monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    bot = script(monkeypatch)
    start = bot.clock.now
    player = RemotePlayer("scripted", parse_bot_command("true"),
                          bot.process, bot.channel, TIMES,  # type: ignore[arg-type]
                          token=TOKEN)
    with pytest.raises(BotTimeout, match="no HELLO within 5 s"):
        player.greet()
    assert bot.clock.now == pytest.approx(start + TIMES.startup + TIMES.tolerance)


def test_a_late_reply_spends_the_bank_and_a_later_one_times_out_at_what_is_left(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A reply past `move` pays the excess from the bank; once the bank is short, the
    wait ends at move + what is left + tolerance, a timeout that empties it."""
    bot = script(monkeypatch)
    bot.expect("PLAY? r3", "r3", after=1.5)  # 0.5 s late: 1.5 s of bank left
    bot.expect("PLAY? r4", "r4", after=4.0)  # past move + 1.5 + tolerance
    player = bot.player(TIMES)
    assert player.ask("PLAY? r3") == "r3"
    assert player.bank_left == pytest.approx(1.5)
    asked = bot.clock.now
    with pytest.raises(BotTimeout):
        player.ask("PLAY? r4")
    assert bot.clock.now == pytest.approx(asked + 1.0 + 1.5 + 0.05)
    assert player.bank_left == 0.0


def test_a_new_game_refills_the_bank(monkeypatch: pytest.MonkeyPatch) -> None:
    bot = script(monkeypatch)
    bot.expect("PLAY? r3", "r3", after=2.0)
    player = bot.player(TIMES)
    player.ask("PLAY? r3")
    assert player.bank_left == pytest.approx(1.0)
    player.new_game("GAME rage seat 0")
    assert player.bank_left == TIMES.bank


def test_log_lines_before_the_reply_are_heard_not_taken_for_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    bot = script(monkeypatch)
    bot.expect("BID? 0 1", "LOG thinking", "LOG still", "1", after=0.2)
    player = bot.player(TIMES)
    assert player.ask("BID? 0 1") == "1"


def test_one_log_line_over_the_cap_is_a_flood(monkeypatch: pytest.MonkeyPatch) -> None:
    bot = script(monkeypatch)
    logs = [f"LOG {n}" for n in range(MAX_LOG_LINES_PER_REQUEST)]
    bot.expect("BID? 0 1", *logs, "1")
    bot.expect("BID? 0 2", *logs, "LOG one more", "1")
    player = bot.player(TIMES)
    assert player.ask("BID? 0 1") == "1"  # the cap itself is allowed, and counts anew
    with pytest.raises(OutputFlood) as caught:
        player.ask("BID? 0 2")
    assert caught.value.kind is FaultKind.FLOOD and caught.value.line == "LOG one more"


def test_a_second_reply_is_an_unsolicited_line_at_the_next_request(
        monkeypatch: pytest.MonkeyPatch) -> None:
    bot = script(monkeypatch)
    bot.expect("PLAY? r3", "r3", "r3 again")
    player = bot.player(TIMES)
    assert player.ask("PLAY? r3") == "r3"
    player.tell("PLAYED 0 r3")  # told lines are not where it is looked for
    with pytest.raises(ProtocolError, match=UNSOLICITED) as caught:
        player.ask("PLAY? r4")
    assert caught.value.line == "r3 again"
    assert bot.sent[-1] == "PLAYED 0 r3"  # the request was not sent


def test_log_lines_sent_unasked_are_allowed(monkeypatch: pytest.MonkeyPatch) -> None:
    bot = script(monkeypatch)
    bot.expect("PLAY? r3", "r3")
    player = bot.player(TIMES)
    bot.say("LOG idle thoughts")
    assert player.ask("PLAY? r3") == "r3"


def test_lines_left_from_the_last_game_are_dropped_at_the_new_one(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """new_game: what a bot sent after the last game belongs to that game."""
    bot = script(monkeypatch)
    bot.expect("PLAY? r3", "r3")
    player = bot.player(TIMES)
    bot.say("END 1 2")
    player.new_game("GAME rage seat 0")
    assert player.ask("PLAY? r3") == "r3"


def test_a_bot_that_exits_instead_of_replying_is_a_crash_with_its_code(
        monkeypatch: pytest.MonkeyPatch) -> None:
    bot = script(monkeypatch)
    bot.expect("PLAY? r3", exit_code=3, after=0.1)
    player = bot.player(TIMES)
    with pytest.raises(BotCrashed, match="code 3") as caught:
        player.ask("PLAY? r3")
    assert isinstance(caught.value, BotFault)


def test_the_preamble_goes_out_with_the_request_in_order_and_close_says_bye(
        monkeypatch: pytest.MonkeyPatch) -> None:
    bot = script(monkeypatch)
    bot.expect("PLAY? y4", "y4")
    player = bot.player(TIMES)
    player.new_game("GAME rage seat 0")
    assert player.ask("PLAY? y4", preamble=["PLAYED 2 b1", "TRICK 1 2"]) == "y4"
    player.close()
    assert bot.sent == ["GAME rage seat 0", "PLAYED 2 b1", "TRICK 1 2", "PLAY? y4", "BYE"]
    assert bot.process.killed and bot.channel.closed


def test_the_script_fails_a_test_when_the_player_waits_too_little(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The double can tell a wrong wait: a reply due after the deadline is a timeout,
    one due just before it is taken."""
    bot = script(monkeypatch)
    bot.expect("PLAY? r3", "r3", after=1.0 + 2.0 + 0.05 - 1e-6)
    assert bot.player(TIMES).ask("PLAY? r3") == "r3"
