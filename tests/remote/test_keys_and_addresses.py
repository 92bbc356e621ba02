"""`referee keygen`, the key files and the addresses: written right, read strictly, and
every bad input one clear error (fuzzed with hypothesis)."""

from __future__ import annotations

import os
import socket
import stat
from pathlib import Path

import pytest
import zmq
import zmq.auth
from hypothesis import given, settings, strategies as st

from referee.errors import BotStartError, ConfigError
from referee.players.remote_seats import parse_remote_seat
from referee.transport.curve_keys import (
    KeyPair, certificate_text, generate, parse_certificate, read_public_key,
    read_secret_key,
)
from referee.transport.endpoints import parse_tcp_address
from tests.cli_support import assert_bad_input, run_main


def test_keygen_writes_a_secret_file_only_its_owner_reads(tmp_path: Path) -> None:
    code, out, err = run_main(["keygen", "alice", "--dir", str(tmp_path)])
    assert code == 0, err
    secret, public = tmp_path / "alice.key", tmp_path / "alice.pub"
    assert stat.S_IMODE(os.stat(secret).st_mode) == 0o600
    assert "secret-key" not in public.read_text()
    keys = read_secret_key(secret)
    assert read_public_key(public) == keys.public
    assert keys.secret is not None and zmq.curve_public(keys.secret) == keys.public
    # pyzmq reads them as its own certificates
    assert zmq.auth.load_certificate(str(secret)) == (keys.public, keys.secret)
    assert "alice.key" in out and "alice.pub" in out


def test_keygen_never_overwrites_a_key(tmp_path: Path) -> None:
    assert run_main(["keygen", "alice", "--dir", str(tmp_path)])[0] == 0
    before = (tmp_path / "alice.key").read_bytes()
    assert_bad_input(["keygen", "alice", "--dir", str(tmp_path)], "exists")
    assert (tmp_path / "alice.key").read_bytes() == before
    assert_bad_input(["keygen", "../evil", "--dir", str(tmp_path)], "key name")


def test_a_secret_key_file_must_be_secret_and_whole(tmp_path: Path) -> None:
    run_main(["keygen", "alice", "--dir", str(tmp_path)])
    with pytest.raises(ConfigError, match="public key only"):
        read_secret_key(tmp_path / "alice.pub")
    readable = tmp_path / "readable.key"
    readable.write_text((tmp_path / "alice.key").read_text())
    readable.chmod(0o644)
    with pytest.raises(ConfigError, match="others may read"):
        read_secret_key(readable)
    # someone else's public key beside a secret of one's own: not a key pair
    forged = tmp_path / "forged.key"
    mine = generate()
    forged.write_text(certificate_text(KeyPair(read_public_key(tmp_path / "alice.pub"),
                                               mine.secret), "forged"))
    forged.chmod(0o600)
    with pytest.raises(ConfigError, match="does not belong"):
        read_secret_key(forged)


def test_a_remote_seat_names_its_public_key_file(tmp_path: Path) -> None:
    run_main(["keygen", "alice", "--dir", str(tmp_path)])
    seat = parse_remote_seat(f"remote:alice={tmp_path / 'alice.pub'}")
    assert seat.name == "alice" and seat.key == read_public_key(tmp_path / "alice.pub")
    for bad in ("remote:", "remote:=x", "remote:a b=x", f"remote:{'n' * 41}=x"):
        with pytest.raises(BotStartError, match="remote:NAME=PUBLIC_KEY_FILE"):
            parse_remote_seat(bad)
    with pytest.raises(BotStartError, match="cannot read the key file"):
        parse_remote_seat(f"remote:alice={tmp_path / 'missing.pub'}")


def test_commands_refuse_bad_remote_input_in_one_line(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch
                                                      ) -> None:
    monkeypatch.chdir(tmp_path)
    run_main(["keygen", "alice"])
    bots = ["remote:alice=alice.pub", "stdio:x", "stdio:y"]
    assert_bad_input(["play", "rage", "remote:alice=alice.pub", "python3", "python3"],
                     "referee.key", "keygen")
    run_main(["keygen", "referee"])
    assert_bad_input(["play", "rage", *bots[:1], "python3", "python3", "--listen",
                      "udp://1.2.3.4:5"], "tcp://HOST:PORT")
    assert_bad_input(["play", "rage", "remote:alice=alice.pub", "remote:bob=alice.pub",
                      "python3", "python3"], "same key")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        assert_bad_input(["play", "rage", *bots[:1], "python3", "python3", "--sandbox",
                          "off", "--listen", f"tcp://127.0.0.1:{taken.getsockname()[1]}"],
                         "cannot listen there")
    assert_bad_input(["tournament", "rage", *bots[:1], "python3", "python3",
                      "--table-size", "4", "--sandbox", "off"], "one connection")
    assert_bad_input(["connect", "tcp://example.org:0", "--key", "alice.key",
                      "--server-key", "referee.pub", "--", "python3"], "port")
    assert_bad_input(["connect", "tcp://127.0.0.1:5555", "--key", "alice.pub",
                      "--server-key", "referee.pub", "--", "python3"], "public key only")
    # a secret key where a public one is handed to others: refused, never used
    assert_bad_input(["play", "rage", "remote:alice=alice.key", "python3", "python3"],
                     "alice.key holds a secret key")
    assert_bad_input(["connect", "tcp://127.0.0.1:5555", "--key", "alice.key",
                      "--server-key", "referee.key", "--", "python3"], "holds a secret key")


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=400))
def test_any_text_is_a_key_file_or_one_error(text: str) -> None:
    try:
        keys = parse_certificate(text, "f")
    except ConfigError as error:
        assert str(error).startswith("f: ")
        return
    assert len(keys.public) == 40


_Z85 = st.text("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#",
               min_size=0, max_size=45)


@settings(max_examples=300, deadline=None)
@given(_Z85, st.sampled_from(["public-key", "secret-key"]), st.booleans())
def test_key_lines_are_read_strictly(value: str, kind: str, spaced: bool) -> None:
    line = f'    {kind} {"= " if spaced else "="}"{value}"'
    text = f"curve\n{line}\n" + ("" if kind == "public-key" else
                                f'    public-key = "{generate().public.decode()}"\n')
    try:
        keys = parse_certificate(text, "f")
    except ConfigError:
        return
    got = keys.public if kind == "public-key" else keys.secret
    assert got is not None and got.decode() == value and len(value) == 40


@given(st.booleans())
def test_written_certificates_read_back(with_secret: bool) -> None:
    keys = generate()
    pair = keys if with_secret else KeyPair(keys.public)
    assert parse_certificate(certificate_text(pair, "n"), "f") == pair


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=80) | st.builds(lambda host, port: f"tcp://{host}:{port}",
                                        st.text(max_size=20), st.integers(-5, 70000)),
       st.booleans())
def test_any_text_is_an_address_or_one_error(text: str, listening: bool) -> None:
    try:
        address = parse_tcp_address(text, listening)
    except ConfigError as error:
        assert str(error).startswith("address ") and "\n" not in str(error)
        return
    assert address.endpoint == text and 0 <= address.port <= 65535
    assert listening or (address.port > 0 and address.host != "*")


@given(st.sampled_from(["127.0.0.1", "localhost", "example.org", "[::1]", "a-b.c9"]),
       st.integers(1, 65535))
def test_addresses_parse(host: str, port: int) -> None:
    address = parse_tcp_address(f"tcp://{host}:{port}", listening=False)
    assert (address.host, address.port) == (host, port)
    assert parse_tcp_address("tcp://*:0", listening=True).port == 0
