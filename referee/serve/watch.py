"""What the server watches: a results db, the live folder beside its logs, and the
marker that tells the tournament someone watches (referee/logs/live.py)."""

from __future__ import annotations

import os
import re
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from referee.logs.live import WATCHING, live_folder, watched
from referee.serve.live_games import LiveGame, game_key, live_games
from referee.serve.pages import results_html
from tournaments.output.public import games_shown
from tournaments.run.fixture_play import LOG_SUFFIX, log_name
from referee.errors import ConfigError
from tournaments.store.results_db import ResultStore, StoreFailure, logs_dir

_UNREADABLE = (ConfigError, StoreFailure, OSError, sqlite3.Error)
ANNOUNCE_EVERY = 1.0  # seconds between a server's looks at its marker
_VERSION_TAG = re.compile(r"\.v\d+$")  # a later version's game: rage_d01_c-x_t01_r0.v2


class Watch:
    """A results db and its logs, read as they change; shared by every request."""

    def __init__(self, db_path: Path, public: bool = False) -> None:
        """`public`: what anyone may see: the results without the bots' own words
        (results_html), each game as a spectator sees it (the server's pages)."""
        self.db_path = db_path
        self.public = public
        self.logs = logs_dir(db_path)
        self.live = live_folder(self.logs)
        self._lock = threading.Lock()
        self._seen: tuple[tuple[int, int], ...] | None = None
        self._tables = ""
        self._stderr_seen: tuple[tuple[int, int], ...] | None = None
        self._stderr: dict[str, dict[int, tuple[str, ...]]] = {}  # by log name
        self._shown_seen: tuple[tuple[int, int], ...] | None = None
        self._shown: dict[str, str] = {}  # why each game a public watch withholds, by key

    def tables(self) -> str:
        """The results page as the db is now, made again only when the db's files
        changed. A db that cannot be read now (a resumed run moving it) keeps the page
        last made; ConfigError if there was none."""
        with self._lock:
            seen = self.signature()
            if seen != self._seen or not self._tables:
                try:
                    self._tables = results_html(self.db_path, self.public)
                    self._seen = seen
                except _UNREADABLE:
                    if not self._tables:
                        raise
            return self._tables

    def signature(self) -> tuple[tuple[int, int], ...]:
        """The db's files' change times and sizes (SQLite's journal and WAL included)."""
        marks = []
        for suffix in ("", "-wal", "-journal"):
            try:
                stat = os.stat(f"{self.db_path}{suffix}")
                marks.append((stat.st_mtime_ns, stat.st_size))
            except OSError:
                marks.append((0, 0))
        return tuple(marks)

    def games(self) -> list[LiveGame]:
        return live_games(self.live)

    def live_game(self, key: str) -> LiveGame | None:
        return next((game for game in self.games() if game.key == key), None)

    def fault_stderr(self, key: str) -> dict[int, tuple[str, ...]]:
        """Per faulted seat of the finished game `key`, its stderr's last lines as the db
        holds them (GameRecord.fault_stderr: what publish adds to a replay, for a log
        older than its fault records' own); none for a public watch (a bot's stderr is
        its own words, and may hold its cards), for a game the db has not stored yet,
        or a db that cannot be read now."""
        if self.public:
            return {}
        with self._lock:
            seen = self.signature()
            if seen != self._stderr_seen:
                try:
                    with ResultStore.open_existing(self.db_path) as store:
                        records = store.records()
                except _UNREADABLE:
                    return {}
                # Every game's at once, once per change of the db: a page, and each of
                # its event streams, asks again; decoding each record is the cost.
                self._stderr = {Path(record.log_path).name: record.fault_stderr()
                                for record in records
                                if record.log_path is not None and record.faults}
                self._stderr_seen = seen
            return self._stderr.get(key + LOG_SUFFIX, {})

    def withheld(self, key: str) -> str | None:
        """Why a public watch does not show the game `key` now (None: it does, as the
        organiser's always does): tournaments/output/public.py's games_shown, and any
        game that is not one of the db's (or while the db cannot be read)."""
        if not self.public:
            return None
        with self._lock:
            seen = self.signature()
            if seen != self._shown_seen:
                try:
                    with ResultStore.open_existing(self.db_path) as store:
                        shown = games_shown(store.spec, store.done())
                except _UNREADABLE:
                    return "not shown while the results db cannot be read"
                self._shown = {game_key(log_name(game)): why
                               for game, why in shown.reasons.items()}
                self._shown_seen = seen
            said = self._shown.get(_VERSION_TAG.sub("", key))
        return "no such game in this tournament" if said is None else said or None

    def finished_log(self, key: str) -> Path | None:
        """The log of a game that ended, if there is one by that name."""
        path = self.logs / (key + LOG_SUFFIX)
        return path if path.is_file() and game_key(path.name) == key else None


@contextmanager
def announced(watch: Watch) -> Iterator[None]:
    """The marker that makes a tournament stream its games, with this process's pid, for
    as long as the block runs; removed after, if it is still ours. Two servers of one db
    (the organiser's and a --public one) share the one marker: the first to stop removes
    it if it holds its pid, so each looks every ANNOUNCE_EVERY seconds and writes it
    again if it is gone or names a watcher that is gone."""
    watch.live.mkdir(parents=True, exist_ok=True)
    marker = watch.live / WATCHING
    mine = str(os.getpid())
    marker.write_text(mine + "\n")
    done = threading.Event()
    keeper = threading.Thread(target=_keep_announced, args=(watch, mine, done),
                              name="serve-announce", daemon=True)
    keeper.start()
    try:
        yield
    finally:
        done.set()
        keeper.join()
        try:
            if marker.read_text().strip() == mine:
                marker.unlink()
        except OSError:
            pass


def _keep_announced(watch: Watch, mine: str, done: threading.Event) -> None:
    while not done.wait(ANNOUNCE_EVERY):
        if not watched(watch.logs):
            try:
                (watch.live / WATCHING).write_text(mine + "\n")
            except OSError:
                pass  # its folder gone, or a full disk: tried again next time
