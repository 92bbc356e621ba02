"""The worker side of a tournament: play one fixture with real bots, reusing them.

Each worker (process or thread) keeps a BotPool of started bots keyed by (bot index, copy
at the table); a bot process plays many games, each started with the protocol's GAME line.
Sandboxed bots (the default) never play two fixtures of the same deal: a process that
played one rotation of a duplicate deal, or its /tmp, would know the hands of the next,
so an idle process that has played the deal of the game to seat is closed and a new one
started in a new sandbox (tournaments/run/idle_bots.py). The runner plays fixtures in play
order (tournaments/schedule/play_order.py), which brings a worker new deals for its bots. With
`persistent_bots`, or without a sandbox, a process plays any game and can remember every
deal it has seen. A worker keeps at most two tables' worth of idle bots (of its largest
table so far) and closes the least recently used beyond that: with the seated table, at
most 3 x table size bot processes per worker, however many bots the tournament has. Two
tables' worth, not one: a table of seat copies (AABC, ABBC, ABCC: 3 bots at tables of 4)
needs 6 processes, and one table's worth restarted a bot at every other game. A bot that
faulted was closed by the match's Table and is replaced next time; with `fresh_bots`
every bot is started and closed per game. The sample bots reseed from each hand, so
reused and fresh ones play the same games. A game's missing bots start together
(Lineup.launch_many).

Game logs and bots' stderr go to the logs folder beside the results db; a record's
log_path is relative to the db's folder, so the results stay valid when moved together.
During a game, each seat's stderr goes to a file of that game (its last 64 KiB, made only
if the bot wrote something); between games, a reused bot's goes to its bot's own file.
"""

from __future__ import annotations

import multiprocessing.util
import os
import threading
from collections import Counter
from contextlib import closing
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Collection, Sequence

from referee import __version__
from referee.logs import unfinished
from referee.logs.live import open_log
from referee.logs.writer import GameLog
from referee.matches.logged_game import write_header
from referee.players.lineup import (
    BotLaunch, BotSpec, LaunchSettings, Lineup, bot_specs, close_all, safe_word,
    sandbox_view,
)
from referee.players.player import Player
from referee.players.remote_player import RemotePlayer
from referee.players.remote_seats import RemoteSettings
from referee.processes.bot_command import bot_folder
from referee.processes.sandbox import SandboxSettings, check_sealed
from referee.viewer.fault_steps import with_steps
from tournaments.run.disqualify import disqualified_player
from tournaments.run.idle_bots import IdleBots, SeatKey
from tournaments.run.idle_keep_alive import IdleKeepAlive
from tournaments.store.records import BotHashes, GameRecord
from tournaments.schedule.fixtures import Fixture
from tournaments.spec.definition import TournamentSpec, declared_dirs
from tournaments.store.results_db import logs_dir

# Pools close before multiprocessing's own exit work (joining children) in a worker.
_CLOSE_PRIORITY = 50


@dataclass(frozen=True)
class PlayContext:
    """Everything a worker needs to play fixtures; picklable, the same for a whole run."""

    spec: TournamentSpec
    bots: tuple[BotSpec, ...]  # index i is bot i of the fixtures (spec.bots[i])
    logs: Path  # the game-logs folder beside the results db, absolute
    transport: str = "ipc"
    log_times: bool = True
    busy_wait: float | None = None  # seconds a wait for a bot polls first (busy_wait.py)
    sandbox: SandboxSettings = SandboxSettings()
    persistent_bots: bool = False  # reuse sandboxed bots across games (they can remember)
    secrets: tuple[Path, ...] = ()  # the results db and logs: no bot may see them
    # Per bot, the sha256 of its files, hashed once by the coordinator before any game
    # (tournaments/store/provenance.py) and stamped on each record here; empty: not kept.
    hashes: tuple[BotHashes, ...] = ()
    remote: RemoteSettings | None = None  # where remote seats connect (one worker only)
    # Per bot, its version in the results db (tournaments/store/bots_db.py); empty: all 1.
    # A game of a later version gets logs of its own: the replaced version's stay.
    versions: tuple[int, ...] = ()

    def launch_settings(self) -> LaunchSettings:
        spec = self.spec
        return LaunchSettings(spec.time_limits, spec.resource_limits, self.transport,
                              busy_wait=self.busy_wait, sandbox=self.sandbox,
                              secrets=self.secrets, remote=self.remote)


def play_context(spec: TournamentSpec, db_path: Path, transport: str = "ipc",
                 log_times: bool = True, busy_wait: float | None = None,
                 sandbox: SandboxSettings = SandboxSettings(),
                 persistent_bots: bool = False,
                 remote: RemoteSettings | None = None) -> PlayContext:
    """The context of a tournament whose logs go beside its results db (checked_context);
    no bot may see either."""
    logs = logs_dir(db_path).resolve()
    # The db's whole folder, not the file: SQLite's journal, its WAL and the backups
    # appear beside the db as it is written, and a bot that saw them would read seeds.
    # The referee's secret key too: a bot holding it could pose as the referee.
    key = () if remote is None else (remote.key_file,)
    return checked_context(PlayContext(spec, (), logs, transport, log_times, busy_wait,
                                       sandbox, persistent_bots,
                                       (logs, db_path.resolve().parent, *key), remote=remote))


def checked_context(context: PlayContext) -> PlayContext:
    """`context` with its bots' specs, once everything a game will need is checked before
    any starts: the bot commands (BotStartError), the game's config, e.g. a command
    mapping file, and the sandbox (ConfigError)."""
    spec = context.spec
    specs = bot_specs([bot.command for bot in spec.bots], list(spec.bot_names),
                      declared_dirs(spec.bots))
    spec.game.configure(spec.size, spec.options)  # in a worker it would look like our bug
    context = replace(context, bots=tuple(specs))
    view = sandbox_view(context.launch_settings())  # `--sandbox on` where none: fail now
    if view is not None:  # a secret a bot's sandbox could not hide: fail now, not per game
        check_sealed(view, [(bot.label, bot_folder(bot.command, view.cwd)) for bot in specs
                            if bot.remote is None])  # a remote seat has no folder here
    return context


LOG_SUFFIX = ".jsonl.gz"


def log_name(fixture_id: str, version: int = 1) -> str:
    """The game log's file name: the fixture id made safe, e.g. rage_d01_t02_r3.jsonl.gz
    (gzip-compressed); a game of a bot's version 2 or later, e.g.
    rage_d01_c-alice_t01_r0.v2.jsonl.gz."""
    tag = f".v{version}" if version > 1 else ""
    return safe_word(fixture_id).strip("_") + tag + LOG_SUFFIX


def stderr_path(context: PlayContext, bot: str) -> Path:
    """Where a bot's standard error (and a ZeroMQ bot's stdout) goes outside games: one
    file per bot."""
    return context.logs / f"{bot}.stderr"


def game_stderr_name(log: str, seat: int, bot: str) -> str:
    """The file of one seat's stderr in one game, beside the game's log `log`, e.g.
    rage_d01_t02_r3.seat1.alice.stderr."""
    return f"{Path(log).name.removesuffix(LOG_SUFFIX)}.seat{seat}.{safe_word(bot)}.stderr"


def seat_keys(seats: Sequence[int]) -> list[SeatKey]:
    """(bot, copy) per seat: AABC gives (0,0) (0,1) (1,0) (2,0)."""
    seen: Counter[int] = Counter()
    keys = []
    for bot in seats:
        keys.append((bot, seen[bot]))
        seen[bot] += 1
    return keys


class BotPool:
    """The started bots of one worker thread, with the Lineup that starts them."""

    def __init__(self, context: PlayContext) -> None:
        self.context = context
        self.pid = os.getpid()
        self._lineup = Lineup(context.launch_settings())
        self._reuse = not context.spec.fresh_bots
        # A sandboxed process plays a deal at most once, unless persistent_bots lets it
        # remember the deals it has seen.
        self._idle: IdleBots[RemotePlayer] = IdleBots(
            once_per_deal=self._lineup.sandboxed and not context.persistent_bots)
        self.started = 0  # bot processes started so far (for tests and bench/)
        # Kept bots' heartbeats are answered between games too (idle_keep_alive.py);
        # fresh bots are all closed after each game, and need no thread for it.
        self.keep_alive = IdleKeepAlive(self._lineup.serve_idle, needed=self._reuse)

    def take(self, keys: Sequence[SeatKey], game_stderr: Sequence[Path], deal: int,
             disqualified: Collection[int] = (), game: str = "") -> list[Player]:
        """A player per seat for the game `game` of `deal`: an idle bot still running that
        may play it, else a newly started one (all started at once: Lineup.launch_many),
        its stderr sent to that seat's file of `game_stderr` until give_back; for a
        `disqualified` bot, a seat that faults at once, with no process."""
        seats: list[Player | None] = []
        spent: list[Player] = []  # idle bots that have played this deal: closed, together
        try:
            for key, path in zip(keys, game_stderr, strict=True):
                seats.append(self._disqualified_seat(key) if key[0] in disqualified
                             else self._idle_bot(key, path, deal, spent))
            close_all(spent)
            empty = [seat for seat, player in enumerate(seats) if player is None]
            launched = self._lineup.launch_many([self._launch(keys[seat], game_stderr[seat],
                                                              game) for seat in empty])
        except BaseException:
            self.discard([player for player in seats if player is not None] + spent)
            raise
        self.started += len(empty)
        for seat, player in zip(empty, launched):
            seats[seat] = player
            self._idle.started(keys[seat], deal)
        return [player for player in seats if player is not None]

    def give_back(self, keys: Sequence[SeatKey], players: Sequence[Player],
                  faulted: frozenset[int]) -> None:
        """Keep the bots that may play on, their stderr drained into the game's files and
        sent back to their own; close the faulted ones (and all, if fresh)."""
        closing: list[Player] = []
        for seat, (key, player) in enumerate(zip(keys, players)):
            # A FaultedPlayer (it never started) is tried again next game.
            if self._reuse and seat not in faulted and isinstance(player, RemotePlayer):
                player.process.redirect_stderr(None)
                self._idle.keep(key, player)
            else:
                self._idle.drop(key)
                closing.append(player)
        closing.extend(self._idle.trim(len(keys)))
        close_all(closing)

    def discard(self, players: Sequence[Player]) -> None:
        """Close players after a failed game: their state is unknown."""
        close_all(players)

    def close(self) -> None:
        """Say BYE to every idle bot, kill them, and close the lineup. Idempotent."""
        if self.pid != os.getpid():
            return  # inherited through fork: the parent's bots and sockets, not ours
        self.keep_alive.stop()
        close_all(self._idle.clear())
        self._lineup.close()

    def _disqualified_seat(self, key: SeatKey) -> Player:
        """The seat of a disqualified bot; its idle process, if any, closed."""
        idle = self._idle.drop(key)
        if idle is not None:  # it will not play again: no process left waiting
            idle.close()
        return disqualified_player(self.context.bots[key[0]].label,
                                   self.context.spec.fault_policy.disqualify_after)

    def _idle_bot(self, key: SeatKey, game_stderr: Path, deal: int,
                  spent: list[Player]) -> Player | None:
        """The idle bot of `key` if it is still running and may play `deal`, else None
        (one must start); one that has played `deal` goes to `spent`, to be closed."""
        player, played = self._idle.seat(key, deal)
        if played is not None:  # it must not see this deal again
            spent.append(played)
        if player is not None and not player.process.exited():
            player.process.redirect_stderr(game_stderr)
            return player
        if player is not None:  # died between games: start another, as fresh bots would
            player.close()
        return None

    def _launch(self, key: SeatKey, game_stderr: Path, game: str) -> BotLaunch:
        spec = self.context.bots[key[0]]
        return BotLaunch(spec, stderr_path(self.context, spec.label), game_stderr, game)


_local = threading.local()


def worker_pool(context: PlayContext) -> BotPool:
    """This worker thread's pool for `context`; a pool for another context is closed."""
    pool: BotPool | None = getattr(_local, "pool", None)
    if pool is not None and pool.pid == os.getpid() and pool.context == context:
        return pool
    if pool is not None:
        pool.close()  # a no-op for a pool inherited through fork
    pool = BotPool(context)
    context.logs.mkdir(parents=True, exist_ok=True)
    # Runs at interpreter exit, and also in a multiprocessing worker, which skips atexit.
    multiprocessing.util.Finalize(None, pool.close, exitpriority=_CLOSE_PRIORITY)
    _local.pool = pool
    return pool


def close_worker_pool() -> None:
    """Close this thread's pool now (tests, and callers that run games in-process)."""
    pool: BotPool | None = getattr(_local, "pool", None)
    if pool is not None:
        pool.close()
        _local.pool = None


def play_fixture(fixture: Fixture, context: PlayContext) -> GameRecord:
    """Play one fixture with this worker's bots, log it, and return its record."""
    pool = worker_pool(context)
    keys = seat_keys(fixture.seats)
    version = max((context.versions[bot] for bot in fixture.seats), default=1) \
        if context.versions else 1
    log_path = context.logs / log_name(fixture.fixture_id, version)
    game_stderr = _game_stderr(context, fixture, log_path)
    with pool.keep_alive.busy(), unfinished.being_written(game_stderr):
        with closing(open_log(log_path, context.log_times, context.logs)) as log:
            players = pool.take(keys, game_stderr, fixture.deal, fixture.disqualified,
                                fixture.fixture_id)
            try:
                record = _play(fixture, context, players, log)
            except BaseException:
                pool.discard(players)
                raise
        pool.give_back(keys, players, frozenset(fault.seat for fault in record.faults))
    return replace(record, log_path=_relative(context, log_path),
                   faults=with_steps(record.faults, log_path),
                   stderr_paths=tuple(_relative(context, path) if path.is_file() else None
                                      for path in game_stderr))


def _relative(context: PlayContext, path: Path) -> str:
    """`path` in the logs folder, from the db's folder: valid wherever the two move."""
    return f"{context.logs.name}/{path.name}"


def _game_stderr(context: PlayContext, fixture: Fixture, log_path: Path) -> list[Path]:
    """Each seat's stderr file for the game, none of them there yet: a game played again
    (resumed after a crash) must not show the earlier try's output."""
    paths = [context.logs / game_stderr_name(log_path.name, seat, context.bots[bot].label)
             for seat, bot in enumerate(fixture.seats)]
    for path in paths:
        path.unlink(missing_ok=True)
    return paths


def _play(fixture: Fixture, context: PlayContext, players: list[Player],
          log: GameLog) -> GameRecord:
    spec, game = context.spec, context.spec.game
    config = game.configure(len(players), spec.options)
    write_header(log, game, config, fixture.seed, spec.time_limits,
                 [context.bots[bot] for bot in fixture.seats], players)
    outcome = game.outcome(game.run(players, config, fixture.seed, spec.time_limits, log))
    names = tuple(spec.bot_names[bot] for bot in fixture.seats)
    hashes = tuple(context.hashes[bot] for bot in fixture.seats) if context.hashes else None
    # HELLO's words are known here only, where the bots ran (None: it never said one).
    hellos = tuple((p.hello.name, p.hello.version) if isinstance(p, RemotePlayer) else None
                   for p in players)
    return GameRecord(fixture.fixture_id, game.name, fixture.seed, names, outcome.scores,
                      outcome.places, outcome.faults, **outcome.details,
                      seats=tuple(fixture.seats), hashes=hashes, hellos=hellos,
                      referee_version=__version__)
