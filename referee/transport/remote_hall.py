"""Where remote bots connect: one CurveZMQ ROUTER on `--listen`, its seats by key.

Remote bots come through `referee connect` (protocols/remote.md), which runs the bot on the
contestant's machine. Trust rests on CurveZMQ keys, checked by ZAP (pyzmq's
ThreadAuthenticator): a connection whose key is listed for no seat, or whose seat already
has a connection, is refused during its handshake, before it can send a byte that is
read. The seat is the key's: a connection cannot ask for another. A second connection
that slipped past (both at once) is refused at its first message. Every refusal is one
line for the organiser (`log`), ten in ten seconds at most and the rest counted
(RefusalLog), and touches no seat.

Threads: the main thread sends on the ROUTER, and a drain thread (_Drain) reads it all the
time, each under the ROUTER's own lock; the ZAP thread only reads which seats are
connected; a monitor thread notes disconnections (ZMTP heartbeats notice a peer that went
silent within `heartbeat` seconds) and failed handshakes. The seats' shared state (and
their inboxes) is guarded by one lock.

Why a drain, and no bound on the ROUTER's queue (RCVHWM 0): libzmq (4.3.5) aborts its
whole process (`Assertion failed: !_io_error (src/stream_engine_base.cpp:310)`) when a
connection whose reading had stopped on a full queue ends, its heartbeats running. A
contestant who flooded the referee while it read nothing of theirs (their session over,
the others' turns) and hung up killed the referee, and every seat's game. With no bound
the reading never stops; the drain keeps the queue short, as every line is read at once
and the lines of a seat with no session, or a flooded inbox, are dropped.

A drain reads a few hundred thousand messages a second, and a peer can send more: what
it cannot read waits in libzmq's queue, which no bound holds (a raw peer flooding through
a 7.8 s game took the referee to 301-316 MB: bench/remote_flood_memory.py). So a
connection that sends UNWANTED_LIMIT messages its game would not read (relay notes,
lines while its seat has no session, its game over or faulted, or lines past a full
inbox) is cut off, a flood fault of its seat's game if one is open: its TCP socket is
shut down, which ends libzmq's reading of it, and what it had sent is dropped unread. Its
seat may connect again at once (a relay reconnects by itself), but until its next
session such a connection is cut after RECUT_LIMIT; the organiser is told once a session.
"""

from __future__ import annotations

import os
import select
import socket
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import zmq
from zmq.auth.thread import ThreadAuthenticator
from zmq.utils.monitor import parse_monitor_message

from protocols.remote_relay import (
    END, EXIT, JOIN, REFUSED, SEATED, START, note, read_note,
)
from protocols.wire import MAX_LINE_BYTES
from referee.errors import ConfigError, OutputFlood
from referee.printable import printable
from referee.transport.curve_keys import KeyPair
from referee.transport.endpoints import TcpAddress
from referee.transport.inbox import Inbox

DISCONNECTED = "remote bot disconnected"  # a crash fault's detail starts so
HANDSHAKE_LIMIT_MS = 3000  # a connection that has not finished its handshake by then goes
GOODBYE_S = 3.0  # the longest the referee waits, when it is done, for relays to hang up
READS_PER_PUMP = 256  # messages one read takes at most: a flood cannot keep it there
DRAIN_SLICE = 0.005  # the drain thread looks at the ROUTER at least this often
# Between two full reads: a lock is not fair, and the drain would hold the ROUTER's for as
# long as a peer floods, the sends to the other seats waiting (their time running).
FLOOD_PAUSE = 0.0002
# Messages a connection may send that its game would not read (relay notes, lines with no
# session open or past a full inbox) before it is cut off: twenty times what an inbox
# holds. A relay sends a note or two and, after its game, a few lines in flight; more is
# a flood that would wait, unread, in libzmq's unbounded queue.
UNWANTED_LIMIT = 10_000
# The same for a connection of a seat cut off since its session opened: a relay's JOIN and
# what little may follow it; a peer that floods again after it reconnected meets this.
RECUT_LIMIT = 100
_FAILED: dict[int, str] = {zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL: "its handshake failed",
           zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL: "its CurveZMQ handshake failed (plain "
                                                "ZeroMQ, a wrong --server-key, or a public "
                                                "key without its secret)"}


@dataclass
class Seat:
    """One remote seat: its key, its connection (routing id, fd) once bound, and the
    inbox of its session (from launch to close), if one is open."""

    name: str
    key: bytes  # Z85
    routing_id: bytes | None = None
    fd: int = -1
    peer: object = None  # the connection's getpeername(): its fd is checked to be it
    inbox: Inbox | None = None  # the active channel's
    unwanted: int = 0  # messages of its connection that its game would not read
    cut: bool = False  # cut off since its last session opened (the organiser was told)
    gone: str = ""  # why the active channel can get no more
    # Where no relay had come by the end of a start-up ("" while none was missed): until
    # one connects, later sessions fault at once rather than wait (RemoteHall.absent_since)
    missed: str = ""

    def detach(self, why: str) -> None:
        """The session ends (`why`): later lines are dropped until the next launch."""
        if self.inbox is not None:
            self.gone = self.gone or why
        self.inbox = None


@dataclass
class _Shared:
    lock: threading.Lock = field(default_factory=threading.Lock)
    by_key: dict[bytes, Seat] = field(default_factory=dict)
    closing: bool = False  # the referee is done: relays hanging up is no news


class RemoteHall:
    """The listening socket of the remote seats, for one thread (plus its helpers)."""

    def __init__(self, address: TcpAddress, keys: KeyPair, seats: Mapping[str, bytes],
                 heartbeat: float, log: Callable[[str], None]) -> None:
        """Listen on `address` with the referee's `keys`, for `seats` (name -> the public
        key allowed to take it); `heartbeat`: seconds within which a silent peer counts
        as gone; `log`: where each refusal and connection is told (one line each)."""
        if keys.secret is None:
            raise ConfigError("the referee's key file holds no secret key")
        self._log = log
        self._refusals = RefusalLog(log)  # a flood of strangers: a few lines, then a count
        self._shared = _Shared()
        self._io = threading.RLock()  # the ROUTER: the main thread's sends, the drain's reads
        self._arrived = threading.Condition(self._shared.lock)  # told by each dispatch
        self._generation = 0  # messages dispatched so far (under the shared lock)
        for name, key in seats.items():
            if key in self._shared.by_key:
                raise ConfigError(f"remote seats {self._shared.by_key[key].name} and "
                                  f"{name} have the same key: a key takes only its own seat")
            self._shared.by_key[key] = Seat(name, key)
        self._by_name = {seat.name: seat for seat in self._shared.by_key.values()}
        self._refused: set[bytes] = set()  # routing ids told REFUSED: told once
        self._severed: set[bytes] = set()  # routing ids cut off: what they had sent is dropped
        self._closed = False
        self._monitor: _Monitor | None = None
        self._drain: _Drain | None = None
        self._context = zmq.Context()
        self._auth = _SeatAuthenticator(self._context, self._shared, self._refusals)
        self._auth.start()
        self._auth.configure_curve_callback("*", self._auth)
        self._router = self._context.socket(zmq.ROUTER)
        self.endpoint = self._bind(address, keys, heartbeat)
        self._monitor = _Monitor(self._router.get_monitor_socket(), self._shared, log,
                                 self._refusals)
        self._monitor.start()
        self._fd = int(self._router.getsockopt(zmq.FD))
        self._drain = _Drain(self)
        self._drain.start()

    def _bind(self, address: TcpAddress, keys: KeyPair, heartbeat: float) -> str:
        router = self._router
        router.curve_server = True
        router.curve_secretkey = keys.secret
        router.curve_publickey = keys.public
        router.linger = 0
        router.rcvhwm = 0  # never a full queue: see the module's docstring
        router.setsockopt(zmq.MAXMSGSIZE, 4 * MAX_LINE_BYTES)  # bigger: libzmq drops it
        router.setsockopt(zmq.HANDSHAKE_IVL, HANDSHAKE_LIMIT_MS)
        ms = max(1, round(heartbeat * 1000))
        router.setsockopt(zmq.HEARTBEAT_IVL, max(1, ms // 4))
        router.setsockopt(zmq.HEARTBEAT_TIMEOUT, ms)
        router.setsockopt(zmq.HEARTBEAT_TTL, ms)
        try:
            if address.port == 0:
                port = router.bind_to_random_port(f"tcp://{address.host}")
                return f"tcp://{address.host}:{port}"
            router.bind(address.endpoint)
        except zmq.ZMQError as error:
            self.close()
            raise ConfigError(f"--listen {address.endpoint}: cannot listen there: "
                              f"{error.strerror}") from None
        return address.endpoint

    @property
    def fd(self) -> int:
        """Readable (edge-triggered) when the ROUTER may have messages: see pump()."""
        return self._fd

    def seat(self, name: str) -> Seat:
        return self._by_name[name]

    def open_seat(self, name: str) -> Seat:
        """Start a seat's session: a fresh inbox, and its relay told to start the bot
        (now, or as soon as it connects)."""
        seat = self._by_name[name]
        with self._shared.lock:
            seat.inbox, seat.gone = Inbox(), ""
            seat.unwanted, seat.cut = 0, False
            routing_id = seat.routing_id
        self._send_note(routing_id, START)
        return seat

    def absent_since(self, name: str) -> str:
        """Where the seat missed a start-up with no relay connected, if none has connected
        since ("": one is connected, or none was missed). What has come is read first: a
        relay that connected since the last look counts."""
        self.pump(0)
        seat = self._by_name[name]
        with self._shared.lock:
            return seat.missed if seat.routing_id is None else ""

    def note_missed(self, seat: Seat, where: str) -> None:
        """The seat's start-up (`where`) ended with no relay connected: told once, and its
        next sessions fault at once until one connects."""
        with self._shared.lock:
            if seat.routing_id is not None or seat.missed:
                return
            seat.missed = where
        self._log(f"seat {seat.name}: no relay connected by the end of its start-up "
                  f"({where}); its later games fault at once, without waiting, until "
                  "one connects")

    def close_seat(self, seat: Seat) -> None:
        with self._shared.lock:
            seat.detach("closed")
            seat.gone = ""

    def send(self, seat: Seat, data: bytes) -> None:
        """Lines (joined by newlines) to the seat's connection; none: lost, as to a dead
        bot (the next wait says why)."""
        routing_id = seat.routing_id
        if routing_id is None:
            return
        try:
            with self._io:
                self._router.send_multipart([routing_id, data], zmq.NOBLOCK)
        except zmq.ZMQError:
            pass  # its queue is full or it is gone: the wait for its reply says so

    @property
    def generation(self) -> int:
        """How many messages have been taken so far: give it to pump() as `seen`."""
        return self._generation

    def take(self, inbox: Inbox) -> str | None:
        """The next line of `inbox` (Inbox.take), which the drain thread fills."""
        with self._shared.lock:
            return inbox.take()

    def pump(self, timeout: float, seen: int | None = None) -> None:
        """Take what has come, each message to its seat (at most READS_PER_PUMP), and if
        nothing has come since `generation` was `seen` (None: now), wait up to `timeout`
        seconds for the drain thread to take something."""
        if self._closed:
            time.sleep(max(0.0, timeout))
            return
        if seen is None:
            seen = self._generation
        self.read()
        if timeout > 0:
            with self._arrived:
                self._arrived.wait_for(lambda: self._generation != seen, timeout)

    def read(self) -> int:
        """Take what the ROUTER holds, at most READS_PER_PUMP messages: how many."""
        taken = 0
        with self._io:
            if self._closed:
                return 0
            router = self._router
            while taken < READS_PER_PUMP:
                try:
                    parts = router.recv_multipart(zmq.NOBLOCK, copy=False)
                except zmq.Again:
                    break
                taken += 1
                self._dispatch(parts)
        if taken:
            with self._arrived:
                self._generation += taken
                self._arrived.notify_all()
        return taken

    def _dispatch(self, parts: list[zmq.Frame]) -> None:
        routing_id, body = parts[0].bytes, parts[1:]
        if routing_id in self._severed:
            return
        user = body[0].get("User-Id") if body else ""
        with self._shared.lock:
            seat = self._shared.by_key.get(str(user).encode("ascii", "replace"))
            if seat is None:  # ZAP let no such key in: a bug, not the peer's doing
                return
            if seat.routing_id is None:
                seat.routing_id, seat.fd = routing_id, int(body[0].get(zmq.SRCFD))
                seat.peer, seat.unwanted = _peer_name(seat.fd), 0
                seat.missed = ""  # it plays from its next session on
                if not seat.cut:
                    self._log(f"seat {seat.name}: connected from "
                              f"{printable(str(body[0].get('Peer-Address')))}")
            elif seat.routing_id != routing_id:
                if routing_id in self._refused or len(self._refused) > 4096:
                    return  # told already: its further messages are dropped unread
                self._refused.add(routing_id)
                where = printable(str(body[0].get("Peer-Address")))
                self._refusals(f"refused a second connection with the key of seat "
                               f"{seat.name} (from {where}): one is playing")
                self._send_note(routing_id, REFUSED, "a connection with this key is "
                                "playing already")
                return
            self._take(seat, [frame.bytes for frame in body])

    def _take(self, seat: Seat, parts: list[bytes]) -> None:
        relay = read_note(parts)
        inbox = seat.inbox
        # A relay sends a note or two a connection: a note counts as a line nothing reads.
        if (relay is not None or inbox is None or inbox.flooded) and self._unwanted(seat):
            return
        if relay is not None:
            word, text = relay
            if word == JOIN:
                self._send_note(seat.routing_id, SEATED, seat.name)
                if seat.inbox is not None:  # launched, waiting for its HELLO
                    self._send_note(seat.routing_id, START)
            elif word == EXIT:
                seat.detach(f"remote bot: {printable(text)[:200]} (on the contestant's "
                            "machine)")
            return
        if len(parts) != 1:
            if seat.inbox is not None:  # the relay passes single lines only
                seat.inbox.push_raw(b"|".join(parts))
            return
        if seat.inbox is not None:  # else late lines of a session that ended: dropped
            seat.inbox.push_raw(parts[0])

    def _unwanted(self, seat: Seat) -> bool:
        """Count a message of the seat's connection that its game would not read (a
        relay note, no session open, a flooded inbox); past UNWANTED_LIMIT (RECUT_LIMIT
        once cut off this session), cut the connection off, drop the message and say so
        (True). The seat is free at once for a connection of its own again (a relay
        reconnects by itself); the organiser is told once a session."""
        seat.unwanted += 1
        limit = RECUT_LIMIT if seat.cut else UNWANTED_LIMIT
        if seat.unwanted <= limit or seat.routing_id is None:
            return False
        if len(self._severed) < 4096:
            self._severed.add(seat.routing_id)
        if not seat.cut:
            seat.cut = True
            if seat.inbox is not None:  # its game's fault (after a full inbox's, if any)
                seat.inbox.push_fault(OutputFlood(
                    f"sent more than {UNWANTED_LIMIT:,} messages that its game would not "
                    "read (relay notes, or lines past a full inbox): cut off"))
            self._log(f"seat {seat.name}: cut off: {UNWANTED_LIMIT:,} messages that no "
                      "game of its own would read (a flood); it may connect again")
        _shut_down(seat.fd, seat.peer)
        seat.routing_id, seat.fd, seat.peer = None, -1, None
        return True

    def _send_note(self, routing_id: bytes | None, word: str, text: str = "") -> None:
        """A relay note to a connection; from the drain thread too (the answers to
        JOIN): the ROUTER's lock is taken, and may be held already by this thread."""
        if routing_id is None:
            return
        try:
            with self._io:
                self._router.send_multipart([routing_id, *note(word, text)], zmq.NOBLOCK)
        except zmq.ZMQError:
            pass

    def close(self) -> None:
        """Tell every connected relay the event is over, and stop listening. Idempotent."""
        if self._closed:
            return
        with self._shared.lock:
            self._shared.closing = True
            goodbyes = [seat.routing_id for seat in self._by_name.values()]
        for routing_id in goodbyes:
            self._send_note(routing_id, END)
        self._await_goodbyes()  # the drain reads meanwhile
        if self._drain is not None:
            self._drain.stop()
        with self._io:
            self._closed = True
            self._router.setsockopt(zmq.LINGER, 200)
        if self._monitor is not None:
            self._monitor.stop()
        self._router.close()
        self._auth.stop()
        self._context.term()
        self._refusals.flush()

    def _await_goodbyes(self) -> None:
        """Until every relay told END has hung up, for GOODBYE_S at most. Closing first
        would lose END: a relay's socket (ZMQ_IMMEDIATE) drops what it has not read yet
        when its connection ends, and that relay would wait for the referee for ever."""
        end = time.monotonic() + GOODBYE_S
        while self._monitor is not None and time.monotonic() < end:
            with self._shared.lock:
                if all(seat.routing_id is None for seat in self._by_name.values()):
                    return
            time.sleep(0.01)


def _peer_name(fd: int) -> object:
    """The peer address of the TCP socket `fd` (libzmq's), or None."""
    try:
        with socket.socket(fileno=os.dup(fd)) as connection:
            return connection.getpeername()
    except OSError:
        return None


def _shut_down(fd: int, peer: object) -> None:
    """Shut down libzmq's TCP socket `fd`, if it is still the connection to `peer` (a
    closed connection's fd number may be another's by now): libzmq's engine then ends the
    connection, as if the peer had hung up, and reads no more of it."""
    if fd < 0 or peer is None:
        return
    try:
        with socket.socket(fileno=os.dup(fd)) as connection:
            if connection.getpeername() == peer:
                connection.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass  # gone already


class _Drain(threading.Thread):
    """Reads the hall's ROUTER all the time, whatever the main thread does: its queue
    stays short and its reading never stops (the module's docstring says why)."""

    def __init__(self, hall: RemoteHall) -> None:
        super().__init__(daemon=True, name="remote-seats-drain")
        self._hall = hall
        self._halt = threading.Event()

    def run(self) -> None:
        poller = select.poll()
        poller.register(self._hall.fd, select.POLLIN)
        while not self._halt.is_set():
            if self._hall.read() < READS_PER_PUMP:
                # Edge-triggered: an edge the main thread took is found a slice later.
                poller.poll(round(DRAIN_SLICE * 1000))
            else:  # more is waiting (a flood): a pause lets the main thread send meanwhile
                time.sleep(FLOOD_PAUSE)

    def stop(self) -> None:
        self._halt.set()
        self.join(2.0)


class RefusalLog:
    """The organiser's lines about refused connections, from any thread, bounded: the
    first MOST of each WINDOW seconds told one by one, the rest counted and told in one
    line when the window is over (or the hall closes). A flood of strangers' handshakes
    (thousands a second) no longer scrolls the organiser's screen away."""

    MOST = 10
    WINDOW = 10.0

    def __init__(self, log: Callable[[str], None],
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._log, self._clock = log, clock
        self._lock = threading.Lock()
        self._start, self._told, self._untold = clock(), 0, 0

    def __call__(self, line: str) -> None:
        with self._lock:
            if self._clock() - self._start >= self.WINDOW:
                self._summary()
                self._start, self._told = self._clock(), 0
            if self._told < self.MOST:
                self._told += 1
                self._log(line)
            else:
                self._untold += 1

    def flush(self) -> None:
        with self._lock:
            self._summary()

    def _summary(self) -> None:
        if self._untold:
            self._log(f"refused {self._untold} more connection(s) in the last "
                      f"{self.WINDOW:g} s, not told one by one")
            self._untold = 0


class _SeatAuthenticator(ThreadAuthenticator):
    """ZAP for the seats: a listed key whose seat has no connection passes; every other
    handshake is refused and told (with the peer's address) in one line."""

    def __init__(self, context: zmq.Context[zmq.Socket[bytes]], shared: _Shared,
                 log: Callable[[str], None]) -> None:
        super().__init__(context)
        self._shared = shared
        self._tell = log
        self._address = ""

    async def handle_zap_message(self, msg: list[bytes]) -> None:
        self._address = msg[3].decode("utf-8", "replace") if len(msg) > 3 else "?"
        await super().handle_zap_message(msg)

    def callback(self, domain: str, key: bytes) -> bool:
        """Called in the ZAP thread with the client's Z85 public key."""
        where = printable(self._address)
        with self._shared.lock:
            seat = self._shared.by_key.get(key)
            busy = seat is not None and seat.routing_id is not None
        if seat is None:
            self._tell(f"refused a connection from {where}: its key "
                       f"{printable(key.decode('ascii', 'replace'))} is listed for no seat")
            return False
        if busy:
            self._tell(f"refused a connection from {where} with the key of seat "
                       f"{seat.name}: one with that key is playing")
            return False
        return True


class _Monitor(threading.Thread):
    """Reads the ROUTER's monitor socket (its own): disconnections free their seat, and
    failed handshakes are told."""

    def __init__(self, socket: zmq.Socket[bytes], shared: _Shared,
                 log: Callable[[str], None], refusals: Callable[[str], None]) -> None:
        super().__init__(daemon=True, name="remote-seats-monitor")
        self._socket = socket
        self._shared = shared
        self._log = log
        self._refusals = refusals
        self._halt = threading.Event()

    def run(self) -> None:
        socket = self._socket
        try:
            while not self._halt.is_set():
                if socket.poll(100):
                    self._event(dict(parse_monitor_message(socket.recv_multipart())))
        finally:
            socket.close(0)

    def _event(self, event: Mapping[str, object]) -> None:
        kind, value = event.get("event"), event.get("value")
        if kind == zmq.EVENT_DISCONNECTED and isinstance(value, int):
            with self._shared.lock:
                for seat in self._shared.by_key.values():
                    if seat.routing_id is not None and seat.fd == value:
                        if not self._shared.closing and not seat.cut:
                            self._log(f"seat {seat.name}: disconnected")
                        seat.routing_id, seat.fd, seat.peer = None, -1, None
                        seat.detach(DISCONNECTED)
        elif isinstance(kind, int) and kind in _FAILED:
            self._refusals(f"refused a connection: {_FAILED[kind]}")

    def stop(self) -> None:
        self._halt.set()
        self.join(2.0)
