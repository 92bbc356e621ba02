"""Remote seats for real: `referee play` and `referee tournament` listening on loopback TCP
with CurveZMQ, contestants' `referee connect` processes in their own folders, and
impostors. Short games (a slowed bot only where a test must act mid-game)."""

from __future__ import annotations

import gzip
import json
import os
import signal
import socket
import threading
from pathlib import Path

import zmq

from referee.transport.remote_hall import RefusalLog
from referee.transport.curve_keys import generate, read_public_key
from tests.cli_support import running_with
from tests.remote.remote_support import (
    CRASHING, RANDOM, SLOW, Running, connect, free_port, make_keys,
)


def _organiser(tmp_path: Path) -> Path:
    """The organiser's folder: the referee's keys and each contestant's public key."""
    hall = tmp_path / "organiser"
    make_keys(hall, "referee")
    for name in ("alice", "bob"):
        make_keys(tmp_path / name, name)
        (hall / f"{name}.pub").write_bytes((tmp_path / name / f"{name}.pub").read_bytes())
    return hall


def _play(hall: Path, port: int, seats: list[str], *extra: str) -> Running:
    return Running(["play", "rage", *seats, "--listen", f"tcp://127.0.0.1:{port}",
                    "--sandbox", "off", "--seed", "7", "--log", "game.jsonl", *extra], hall)


def _faults(log: Path) -> list[dict[str, object]]:
    """The faults of a finished game, from its log's last line."""
    opener = gzip.open if log.suffix == ".gz" else open
    with opener(log, "rt") as file:
        last = file.read().splitlines()[-1]
    return list(json.loads(last).get("faults", []))


def test_a_listed_key_plays_and_impostors_take_no_seat(tmp_path: Path) -> None:
    hall, port = _organiser(tmp_path), free_port()
    server = hall / "referee.pub"
    game = _play(hall, port, ["remote:alice=alice.pub", "remote:bob=bob.pub", RANDOM])
    alice = connect(tmp_path / "alice", port, "alice", RANDOM, server)
    others: list[Running] = []
    try:
        game.wait_for("seat alice: connected")
        # the game waits for bob: alice holds her seat meanwhile
        make_keys(tmp_path / "mallory", "mallory")
        others.append(connect(tmp_path / "mallory", port, "mallory", RANDOM, server))
        others.append(connect(tmp_path / "alice", port, "alice", RANDOM, server))
        for impostor in others:
            assert impostor.finish() == 1
        assert "refused this key" in others[0].err and "refused" in others[1].err
        plain = _plain_zmtp_try(port)
        forged = _forged_curve_try(port, read_public_key(server),
                                   read_public_key(hall / "alice.pub"))
        assert plain is None and forged is None  # no SEATED, no line: nothing at all
        game.wait_for("its CurveZMQ handshake failed")
        others.append(connect(tmp_path / "bob", port, "bob", RANDOM, server))
        assert game.finish() == 0, game.err
        assert alice.finish() == 0 and "no more games" in alice.err
        assert others[-1].finish() == 0
    finally:
        for process in (game, alice, *others):
            process.stop()
    assert _faults(hall / "game.jsonl") == []
    assert "listed for no seat" in game.err
    assert "with the key of seat alice: one with that key is playing" in game.err
    assert all(line.startswith("referee: ") for line in game.lines), game.err
    assert "alice" in game.out and "bob" in game.out


def _plain_zmtp_try(port: int) -> bytes | None:
    """A DEALER without CurveZMQ says HELLO: what it hears back in 0.5 s (None: nothing)."""
    with zmq.Context() as context, context.socket(zmq.DEALER) as dealer:
        dealer.linger = 0
        dealer.connect(f"tcp://127.0.0.1:{port}")
        dealer.send(b"HELLO 2 curve plain 1.0")
        return dealer.recv() if dealer.poll(500) else None


def _forged_curve_try(port: int, server_key: bytes, stolen_public: bytes) -> bytes | None:
    """Alice's public key with a secret key that is not hers."""
    with zmq.Context() as context, context.socket(zmq.DEALER) as dealer:
        dealer.linger = 0
        dealer.curve_serverkey = server_key
        dealer.curve_publickey = stolen_public
        dealer.curve_secretkey = generate().secret
        dealer.connect(f"tcp://127.0.0.1:{port}")
        dealer.send_multipart([b"RELAY", b"JOIN x"])
        return dealer.recv() if dealer.poll(500) else None


def test_a_disconnect_mid_game_is_that_seats_crash(tmp_path: Path) -> None:
    hall, port = _organiser(tmp_path), free_port()
    game = _play(hall, port, ["remote:alice=alice.pub", RANDOM, RANDOM])
    marker = f"disconnect-{port}"  # its own: other tests' slow bots may run meanwhile
    alice = connect(tmp_path / "alice", port, "alice", f"stdio:{SLOW} {marker}",
                    hall / "referee.pub")
    try:
        alice.wait_for("in play")  # the game has begun: its bot answers every 20 ms
        alice.kill()
        assert game.finish() == 0, game.err
    finally:
        game.stop()
        alice.stop()
    faults = _faults(hall / "game.jsonl")
    assert [(f["seat"], f["kind"]) for f in faults] == [(0, "crash")], faults
    assert "remote bot disconnected" in str(faults[0]["detail"])
    assert "seat alice: disconnected" in game.err
    assert not running_with(marker)  # its bot died with its relay


def test_a_silent_peer_is_dropped_by_heartbeats(tmp_path: Path) -> None:
    """A relay that stops answering (SIGSTOP: its TCP connection stays open, as behind a
    dead network) loses its seat within the heartbeat time (here the move time, 0.5 s)
    though nothing closed its connection; the game then charges that seat: frozen before
    its bot said HELLO, a start-up fault."""
    hall, port = _organiser(tmp_path), free_port()
    server = hall / "referee.pub"
    game = _play(hall, port, ["remote:alice=alice.pub", "remote:bob=bob.pub", RANDOM],
                 "--move-time", "0.5")
    alice = connect(tmp_path / "alice", port, "alice", RANDOM, server)
    bob: Running | None = None
    try:
        game.wait_for("seat alice: connected")  # the game waits for bob meanwhile
        os.kill(alice.process.pid, signal.SIGSTOP)
        game.wait_for("seat alice: disconnected", timeout=10)
        bob = connect(tmp_path / "bob", port, "bob", RANDOM, server)
        assert game.finish() == 0, game.err
    finally:
        game.stop()
        alice.kill()
        if bob is not None:
            bob.stop()
    faults = _faults(hall / "game.jsonl")
    assert [(f["seat"], f["kind"]) for f in faults] == [(0, "startup")], faults
    assert "remote bot disconnected" in str(faults[0]["detail"])


def test_a_crash_on_the_contestants_machine_is_that_seats_crash(tmp_path: Path) -> None:
    hall, port = _organiser(tmp_path), free_port()
    game = _play(hall, port, [RANDOM, "remote:alice=alice.pub", RANDOM])
    alice = connect(tmp_path / "alice", port, "alice", f"stdio:{CRASHING}",
                    hall / "referee.pub")
    try:
        assert game.finish() == 0, game.err
        assert alice.finish() == 0  # the relay outlives its bot
    finally:
        game.stop()
        alice.stop()
    faults = _faults(hall / "game.jsonl")
    assert [(f["seat"], f["kind"]) for f in faults] == [(1, "crash")], faults
    assert faults[0]["detail"] == ("remote bot: bot exited with code 3 (on the "
                                   "contestant's machine)")
    # where its stderr is, rather than none (a bot that wrote nothing)
    assert "[referee: a remote bot's stderr stays on the contestant's machine]" in game.err
    assert "the bot ended: bot exited with code 3" in alice.err


def test_a_flood_of_strangers_disturbs_no_game(tmp_path: Path) -> None:
    hall, port = _organiser(tmp_path), free_port()
    game = _play(hall, port, ["remote:alice=alice.pub", RANDOM, RANDOM])
    alice = connect(tmp_path / "alice", port, "alice", f"stdio:{SLOW}", hall / "referee.pub")
    try:
        alice.wait_for("in play")  # the flood comes while the game is played
        _flood(port, read_public_key(hall / "referee.pub"))
        assert game.finish() == 0, game.err
        assert alice.finish() == 0
    finally:
        game.stop()
        alice.stop()
    assert _faults(hall / "game.jsonl") == []
    told = [line for line in game.err.splitlines() if "refused a connection" in line]
    counted = [int(line.split("refused ")[1].split()[0]) for line in game.err.splitlines()
               if "more connection(s) in the last" in line]
    assert told, game.err  # each told with its reason, the first ones of a window
    # a few lines, then a count: the organiser's screen is not scrolled away (RefusalLog)
    assert len(told) <= 2 * RefusalLog.MOST and sum(counted) >= 10, game.err


def _flood(port: int, server_key: bytes) -> None:
    """Raw bytes, plain ZMTP and CurveZMQ with unlisted keys, many of each, at once."""
    raw = []
    for _ in range(40):
        client = socket.create_connection(("127.0.0.1", port))
        client.sendall(b"\xff" + b"\0" * 8 + b"\x7fGARBAGE" * 64)
        raw.append(client)
    with zmq.Context() as context:
        dealers = []
        for index in range(40):
            dealer = context.socket(zmq.DEALER)
            dealer.linger = 0
            if index % 2:
                keys = generate()
                dealer.curve_serverkey, dealer.curve_publickey = server_key, keys.public
                dealer.curve_secretkey = keys.secret
            dealer.connect(f"tcp://127.0.0.1:{port}")
            try:  # a handshake refused already leaves no pipe: the send would wait for ever
                dealer.send(b"HELLO 2 curve flood 1.0" * 100, zmq.NOBLOCK)
            except zmq.Again:
                pass
            dealers.append(dealer)
        threading.Event().wait(0.5)
        assert not any(dealer.poll(0) for dealer in dealers)
        for dealer in dealers:
            dealer.close()
    for client in raw:
        client.close()


def _standings(out: str) -> dict[str, list[str]]:
    """The standings table's rows by bot: games, clean games, mean score, ..., faults."""
    rows: dict[str, list[str]] = {}
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Rage standings"))
    for line in lines[start + 3:]:
        if not line.strip():
            break
        words = line.split()
        rows[words[1]] = words[2:]
    return rows


def test_a_tournament_file_of_two_remote_and_two_local_bots(tmp_path: Path) -> None:
    hall, port = _organiser(tmp_path), free_port()
    server = hall / "referee.pub"
    heuristic = RANDOM.replace("rage_random", "rage_heuristic")
    bots = [("alice", "remote:alice=alice.pub"), ("bob", "remote:bob=bob.pub"),
            ("random", RANDOM), ("heuristic", heuristic)]
    (hall / "cup.toml").write_text('game = "rage"\n' + "".join(
        f'[[bots]]\nname = "{name}"\ncommand = "{command}"\n' for name, command in bots))
    tournament = Running(["tournament", "cup.toml", "--listen", f"tcp://127.0.0.1:{port}",
                          "--sandbox", "off", "--db", "results.sqlite"], hall)
    players = [connect(tmp_path / "alice", port, "alice", RANDOM, server),
               connect(tmp_path / "bob", port, "bob", f"stdio:{SLOW}", server,
                       env={"SLOW_BOT_DELAY": "0"})]
    try:
        assert tournament.finish() == 0, tournament.err
        for player in players:
            assert player.finish() == 0 and "no more games" in player.err
    finally:
        for process in (tournament, *players):
            process.stop()
    rows = _standings(tournament.out)
    assert sorted(rows) == ["alice", "bob", "heuristic", "random"]
    assert all(row[0] == "4" and row[6] == "none" for row in rows.values()), rows
    assert "remote:alice=alice.pub" in tournament.out  # the bots table: its command


def test_check_and_gate_seat_a_remote_bot(tmp_path: Path) -> None:
    hall, port = _organiser(tmp_path), free_port()
    listen = ["--listen", f"tcp://127.0.0.1:{port}", "--sandbox", "off"]
    alice = connect(tmp_path / "alice", port, "alice", RANDOM, hall / "referee.pub")
    gate: Running | None = None
    check = Running(["check", "remote:alice=alice.pub", "--game", "rage", "--quick",
                     *listen], hall)
    try:
        assert check.finish() == 0, check.out + check.err
        assert alice.finish() == 0
        alice = connect(tmp_path / "alice", port, "alice", RANDOM, hall / "referee.pub")
        gate = Running(["gate", "--game", "rage", "--new", "remote:alice=alice.pub",
                        "--baseline", RANDOM, "--opponent", RANDOM, "--opponent", RANDOM,
                        "--delta", "5", "--max-games", "6", *listen], hall)
        assert gate.finish() in (0, 1, 3), gate.err
        assert alice.finish() == 0
    finally:
        for process in (check, alice, gate):
            if process is not None:
                process.stop()
    assert "alice conforms" in check.out and "SKIP  BYE" in check.out
    # its games' replay commands listen where alice's relay connects
    replays = [line for line in check.out.splitlines() if "referee play rage" in line]
    assert replays and all(f"--listen tcp://127.0.0.1:{port} --key " in line
                           for line in replays), check.out
    assert "games 6" in gate.err + gate.out and "fault" not in gate.out


def test_a_remote_bot_reconnects_and_plays_the_next_game(tmp_path: Path) -> None:
    hall, port = _organiser(tmp_path), free_port()
    server = hall / "referee.pub"
    tournament = Running(["tournament", "rage", "remote:alice=alice.pub", RANDOM,
                          RANDOM.replace("rage_random", "rage_heuristic"),
                          "--listen", f"tcp://127.0.0.1:{port}", "--sandbox", "off",
                          "--db", "results.sqlite", "--fresh-bots"], hall)
    first = connect(tmp_path / "alice", port, "alice", f"stdio:{SLOW}", server)
    second: Running | None = None
    try:
        first.wait_for("in play")  # the first game has begun
        first.kill()
        tournament.wait_for("seat alice: disconnected")
        second = connect(tmp_path / "alice", port, "alice", f"stdio:{SLOW}", server,
                         env={"SLOW_BOT_DELAY": "0"})
        assert tournament.finish() == 0, tournament.err
        assert second.finish() == 0
    finally:
        tournament.stop()
        first.stop()
        if second is not None:
            second.stop()
    rows = _standings(tournament.out)
    assert rows["alice"][0] == "3" and rows["alice"][6:8] == ["crash", "1"], rows
    assert rows["rage_random"][6] == "none" and rows["rage_heuristic"][6] == "none"
    assert tournament.err.count("seat alice: connected") == 2
