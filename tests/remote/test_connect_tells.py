"""What `referee connect` and the organiser are told when a remote seat goes wrong, with
real processes over loopback: each says what happened, and why, in one line."""

from __future__ import annotations

import json
from pathlib import Path

from tests.remote.remote_support import RANDOM, Running, connect, free_port, make_keys


def _organiser(tmp_path: Path) -> Path:
    hall = tmp_path / "organiser"
    make_keys(hall, "referee", "other")
    make_keys(tmp_path / "alice", "alice")
    (hall / "alice.pub").write_bytes((tmp_path / "alice" / "alice.pub").read_bytes())
    return hall


def _faults(log: Path) -> list[dict[str, object]]:
    """The faults of a finished game, from its log's last line."""
    last = log.read_text(encoding="utf-8").splitlines()[-1]
    return list(json.loads(last).get("faults", []))


def _wait_for_alice(hall: Path, port: int, *extra: str) -> Running:
    """A game whose remote seat alice waits long for its bot."""
    return Running(["play", "rage", "remote:alice=alice.pub", RANDOM, RANDOM,
                    "--listen", f"tcp://127.0.0.1:{port}", "--sandbox", "off",
                    "--seed", "7", "--log", "game.jsonl", *extra], hall)


def test_a_wrong_server_key_ends_connect_with_its_reason(tmp_path: Path) -> None:
    """With another public key as --server-key the referee cannot read the handshake and
    hangs up, again at each retry: the relay stops (exit 1, as protocols/remote.md says)
    and names the likely cause, rather than retrying silently for ever while each retry
    is one more refusal line on the organiser's screen."""
    hall, port = _organiser(tmp_path), free_port()
    game = _wait_for_alice(hall, port, "--startup-time", "60")
    alice = connect(tmp_path / "alice", port, "alice", RANDOM, hall / "other.pub")
    try:
        game.wait_for("listening on")
        assert alice.finish() == 1, alice.err
    finally:
        alice.stop()
        game.stop()
    assert "--server-key" in alice.err and "referee.pub" in alice.err
    assert alice.lines[-1].startswith("referee: error: "), alice.err
    refusals = [line for line in game.lines if "refused a connection" in line]
    assert 1 <= len(refusals) <= 5, game.err


def test_a_seat_whose_relay_never_came_says_so(tmp_path: Path) -> None:
    """No `referee connect` ever came for alice: her start-up fault says that (what the
    organiser must chase), not only that no HELLO came, as of a bot that booted slowly."""
    hall, port = _organiser(tmp_path), free_port()
    game = _wait_for_alice(hall, port, "--startup-time", "0.5")
    try:
        assert game.finish() == 0, game.err
    finally:
        game.stop()
    faults = _faults(hall / "game.jsonl")
    assert [(f["seat"], f["kind"]) for f in faults] == [(0, "startup")], faults
    detail = str(faults[0]["detail"])
    assert "no HELLO within" in detail and "is connected" in detail, detail
    assert "no `referee connect` with its key is connected" in game.err


GARBLER = """#!/bin/sh
echo "HELLO 2 $REFEREE_TOKEN garbler 1.0"
while IFS= read -r line; do
    case "$line" in
        "BID? "*) echo "<b>seven</b> \\033[31m" ;;
        BYE) exit 0 ;;
    esac
done
"""


def test_the_contestant_hears_their_bots_fault(tmp_path: Path) -> None:
    """A remote bot's fault is recorded at the referee, on another machine: the relay
    tells its contestant what the referee told the bot (its ERROR line, escaped), since
    a bot that ignores ERROR would otherwise leave them with 'the referee is done'."""
    hall, port = _organiser(tmp_path), free_port()
    bot = tmp_path / "alice" / "garbler.sh"
    bot.write_text(GARBLER)
    bot.chmod(0o755)
    game = _wait_for_alice(hall, port)
    alice = connect(tmp_path / "alice", port, "alice", "stdio:./garbler.sh",
                    hall / "referee.pub")
    try:
        assert game.finish() == 0, game.err
        assert alice.finish() == 0, alice.err
    finally:
        game.stop()
        alice.stop()
    # alice's bot runs on her machine: the organiser's hint asks for it, never for the
    # remote seat, which `referee reproduce` cannot seat
    assert "reproduce --log game.jsonl --seat 0 BOT" in game.err, game.err
    told = [line for line in alice.lines if "fault" in line]
    assert len(told) == 1, alice.err
    assert "protocol" in told[0] and "a bid must be a whole number" in told[0], told
    assert "<b>seven</b>" in told[0] and "\x1b" not in told[0], told


def test_connect_stopped_between_games_blames_no_game(tmp_path: Path) -> None:
    """Ctrl-C while no game of the seat is in play: nothing is counted as a crash, and
    the relay does not say it is."""
    hall, port = _organiser(tmp_path), free_port()
    alice = connect(tmp_path / "alice", port, "alice", RANDOM, hall / "referee.pub")
    try:
        alice.wait_for("connecting to")
        alice.process.send_signal(2)
        assert alice.finish() == 130, alice.err
    finally:
        alice.stop()
    assert "crash" not in alice.err, alice.err
    assert "stopped" in alice.lines[-1], alice.err


def test_connect_says_when_nothing_answers_yet(tmp_path: Path) -> None:
    """Before the referee listens (or at a mistyped address) the relay keeps trying, as
    protocols/remote.md says; it tells the contestant so once, rather than nothing at
    all after 'connecting to', and keeps trying."""
    hall, port = _organiser(tmp_path), free_port()
    alice = connect(tmp_path / "alice", port, "alice", RANDOM, hall / "referee.pub")
    try:
        alice.wait_for("nothing answers at", timeout=20)
        assert alice.process.poll() is None  # still trying
        game = _wait_for_alice(hall, port)  # the referee comes after all
        try:
            assert game.finish() == 0, game.err
        finally:
            game.stop()
        assert alice.finish() == 0, alice.err
    finally:
        alice.stop()
    assert sum("nothing answers at" in line for line in alice.lines) == 1, alice.err
    assert "seated as alice" in alice.err
