"""The live view's HTTP server: the standard library's ThreadingHTTPServer, one thread a
connection (a page's event stream holds its thread while it is open), GET only.

Routes: `/` the results page; `/events` its events ("results": the tables again, as the
db changes; "games": the games in progress); `/game/KEY` a game's viewer page (KEY: its
log's name without `.jsonl.gz`), live while it is played; `/game/KEY/events` its steps
as they come ("steps", then "over" when the game has ended).
"""

from __future__ import annotations

import ipaddress
import re
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from referee.errors import ConfigError
from referee.registry.game_logs import load_log
from referee.serve.live_games import game_records, players, read_values
from referee.serve.pages import body_of, event, game_page, live_page, results_page, update
from referee.serve.watch import Watch
from referee.viewer.page import SPECTATOR

POLL = 0.2  # seconds between two looks at a file that may have changed
_GAME = re.compile(r"/game/([A-Za-z0-9_.-]{1,200})(/events)?")
_LOCAL_NAMES = {"localhost", "127.0.0.1", "::1"}
# The pages load nothing from elsewhere and send nothing but their event streams' requests.
_POLICY = ("default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
           "connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'")


class LiveServer(ThreadingHTTPServer):
    daemon_threads = True  # an open event stream does not hold the process at its end

    def __init__(self, address: tuple[str, int], watch: Watch) -> None:
        self.local = loopback(address[0])
        super().__init__(address, Handler)
        self.watch = watch
        # whose view the game pages show: the organiser's (every hand), or for a public
        # watch what anyone watching the table sees
        self.seat = SPECTATOR if watch.public else None
        self.stopping = threading.Event()

    def url(self) -> str:
        host, port = str(self.server_address[0]), self.server_address[1]
        shown = f"[{host}]" if ":" in host else host
        return f"http://{shown}:{port}/"

    def stop(self) -> None:
        """Ends the event streams and closes the socket (serve_forever has returned)."""
        self.stopping.set()
        self.server_close()


class Handler(BaseHTTPRequestHandler):
    server: LiveServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        """No line per request."""

    def do_GET(self) -> None:
        try:
            self._route()
        except (BrokenPipeError, ConnectionResetError):
            pass  # the page was closed

    def _route(self) -> None:
        if self.server.local and not self._local_host():
            self._send(HTTPStatus.FORBIDDEN, "text/plain", "served to localhost only\n")
            return
        path = urlsplit(self.path).path
        found = _GAME.fullmatch(path)
        if path == "/":
            self._results_page()
        elif path == "/events":
            self._results_events()
        elif found and found[2]:
            self._game_events(found[1])
        elif found:
            self._game_page(found[1])
        else:
            self._send(HTTPStatus.NOT_FOUND, "text/plain", "no such page\n")

    def _why(self, error: Exception) -> str:
        """An error's words, a line: for the organiser; at the rail without them, as they
        name files of the organiser's machine (the db's, a log's)."""
        return "not now\n" if self.server.watch.public else f"{error}\n"

    def _local_host(self) -> bool:
        """Whether the request names this machine: a page elsewhere whose name was made to
        point here (DNS rebinding) names its own host, and is refused."""
        host = self.headers.get("Host", "")
        name = host[1:host.find("]")] if host.startswith("[") else host.rsplit(":", 1)[0]
        return name in _LOCAL_NAMES

    def _results_page(self) -> None:
        try:
            tables = self.server.watch.tables()
        except ConfigError as error:
            self._send(HTTPStatus.SERVICE_UNAVAILABLE, "text/plain", self._why(error))
            return
        self._send(HTTPStatus.OK, "text/html; charset=utf-8", results_page(tables))

    def _withheld(self, key: str) -> bool:
        """Whether the game is withheld at the rail (watch.withheld), refused so (403)."""
        why = self.server.watch.withheld(key)
        if why is not None:
            self._send(HTTPStatus.FORBIDDEN, "text/plain", f"game {key}: {why}\n")
        return why is not None

    def _game_page(self, key: str) -> None:
        if self._withheld(key):
            return
        watch = self.server.watch
        live = watch.live_game(key)
        try:
            values = read_values(live.path) if live is not None else None
            if values is not None:
                records, on = game_records(values)
                page = game_page(records, on, f"/game/{key}/events" if on else None,
                                 self.server.seat)
            elif (log := watch.finished_log(key)) is not None:
                page = game_page(load_log(log), False, None, self.server.seat,
                                 watch.fault_stderr(key))
            else:
                self._send(HTTPStatus.NOT_FOUND, "text/plain", f"no game {key} here\n")
                return
        except (ConfigError, ValueError) as error:
            self._send(HTTPStatus.INTERNAL_SERVER_ERROR, "text/plain",
                       f"game {key} cannot be shown: {self._why(error)}")
            return
        self._send(HTTPStatus.OK, "text/html; charset=utf-8", page)

    def _results_events(self) -> None:
        watch, stopping = self.server.watch, self.server.stopping
        self._start_events()
        tables = games = None
        while not stopping.is_set():
            now = body_of(watch.tables())
            if now != tables:
                self._push(event("results", now))
                tables = now
            listed = [{"key": game.key, "players": players(game.path),
                       **({"withheld": why} if (why := watch.withheld(game.key)) else {})}
                      for game in watch.games()]
            if listed != games:
                self._push(event("games", listed))
                games = listed
            stopping.wait(POLL)

    def _game_events(self, key: str) -> None:
        """The game's steps: all of them first, then each change, until it ends."""
        if self._withheld(key):
            return
        watch, stopping = self.server.watch, self.server.stopping
        self._start_events()
        shown: dict[str, Any] = {"steps": [], "states": []}
        seen: tuple[int, int] | None = None
        while not stopping.is_set():
            live = watch.live_game(key)
            mark = _mark(live.path) if live is not None else None
            if mark is None or mark != seen:
                data, on = self._game_data(key, live.path if live is not None else None)
                if data is None:
                    self._push(event("over", "the game is no longer here"))
                    return
                change = update(shown, data, on)
                if change is not None:
                    self._push(event("steps", change))
                    shown = data
                if not on:
                    self._push(event("over", "the game is over"))
                    return
                seen = mark
            stopping.wait(POLL)

    def _game_data(self, key: str, path: Path | None
                   ) -> tuple[dict[str, Any] | None, bool]:
        """The page data of the game so far, and whether it goes on; None when there is
        no such game (or its file does not read: a log that does not derive)."""
        watch = self.server.watch
        try:
            values = read_values(path) if path is not None else None
            if values is not None:
                records, on = game_records(values)
                return live_page(records, on, self.server.seat).data, on
            log = watch.finished_log(key)
            if log is not None:
                return live_page(load_log(log), False, self.server.seat,
                                 watch.fault_stderr(key)).data, False
        except (ConfigError, ValueError):
            pass
        return None, False

    def _start_events(self) -> None:
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

    def _push(self, data: bytes) -> None:
        self.wfile.write(data)
        self.wfile.flush()

    def _send(self, status: HTTPStatus, kind: str, text: str) -> None:
        body = text.encode()
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Content-Security-Policy", _POLICY)
        self.end_headers()
        self.wfile.write(body)


def loopback(host: str) -> bool:
    try:
        return host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _mark(path: Path) -> tuple[int, int] | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return stat.st_mtime_ns, stat.st_size
