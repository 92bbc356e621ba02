"""The referee's last word to a relay, END, must reach it even when the relay reads it
late. A relay's socket is ZMQ_IMMEDIATE (nothing queued for a connection not made), and
such a socket drops what it has not read when its connection ends: a referee that hung
up right after END left a busy relay reconnecting for ever (CI, stop 34). RemoteHall.close
now waits, a bounded time, for each relay told END to hang up first."""

from __future__ import annotations

import threading
import time

import zmq

from protocols.remote_relay import END, JOIN, note, read_note
from referee.transport.curve_keys import KeyPair, generate
from referee.transport.endpoints import TcpAddress
from referee.transport.remote_hall import GOODBYE_S, RemoteHall

LATE = 0.6  # the relay reads its messages this long after the referee said END


def _relay(context: zmq.Context[zmq.Socket[bytes]], keys: KeyPair, endpoint: str,
           server: bytes) -> zmq.Socket[bytes]:
    """A DEALER set up as `referee connect` sets up its own, joined to its seat."""
    dealer = context.socket(zmq.DEALER)
    dealer.curve_secretkey, dealer.curve_publickey = keys.secret, keys.public
    dealer.curve_serverkey = server
    dealer.immediate, dealer.linger = True, 0
    dealer.connect(endpoint)
    dealer.send_multipart(note(JOIN, "test"))
    return dealer


def _pump_until_joined(hall: RemoteHall, name: str) -> None:
    end = time.monotonic() + 10
    while hall.seat(name).routing_id is None:
        assert time.monotonic() < end, "the relay never joined its seat"
        hall.pump(0.05)


def test_a_relay_that_reads_late_still_hears_end_and_the_referee_waits_for_it() -> None:
    referee_keys, alice, context = generate(), generate(), zmq.Context()
    lines: list[str] = []
    hall = RemoteHall(TcpAddress("127.0.0.1", 0), referee_keys, {"alice": alice.public},
                      heartbeat=5.0, log=lines.append)
    relay = _relay(context, alice, hall.endpoint, referee_keys.public)
    try:
        _pump_until_joined(hall, "alice")
        closer = threading.Thread(target=hall.close)
        started = time.monotonic()
        closer.start()
        time.sleep(LATE)  # busy elsewhere: END waits unread in the relay's socket
        assert closer.is_alive(), "the referee hung up before the relay read its END"
        heard = []
        while relay.poll(2000):
            heard.append(read_note(relay.recv_multipart()))
        assert (END, "") in heard, heard
        relay.close(0)  # as a relay does on END
        closer.join(GOODBYE_S + 5)
        assert not closer.is_alive()
        assert time.monotonic() - started < GOODBYE_S + 5
        assert not any("disconnected" in line for line in lines), lines
    finally:
        relay.close(0)
        hall.close()
        context.term()
