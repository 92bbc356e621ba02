"""`referee tournament --cluster`: games on a Dask cluster give the tables of a local pool,
survive a worker's death, leave no bot behind, and refuse a worker whose bots differ.

Real processes throughout: `--cluster local:2` starts its own cluster; the tcp:// tests
run a LocalCluster in the test process (worker processes, a real scheduler) and point the
referee at its address, so that they can kill a worker or move it to another folder.
"""

from __future__ import annotations

import json
import logging
import os
import pickle
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import BrokenExecutor, Future, ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import dask
import pytest
from distributed import Client, LocalCluster
from distributed.scheduler import KilledWorker

from referee import __version__
from referee.errors import ConfigError
from tests.cli_support import assert_bad_input
from tests.tournaments.db_support import unplayed_copy, wait_for_games
from tests.tournaments.test_kill_resume_real import TAG, tagged_processes
from tests.tournaments.test_runner import Played, noting_play
from tournaments.run.cluster_probe import PROBE_SECONDS
from tournaments.run.cluster import (
    GAMES_PER_TASK, Cluster, GameExecutor, open_cluster, parse_cluster,
)
from tournaments.run.cluster_worker import check_answers, run_calls, worker_problems
from tournaments.run.runner import PlayFailed, run_tournament
from tournaments.schedule.fixtures import fixtures_for
from tournaments.store.results_db import ResultStore
from referee.players.lineup import sandbox_view
from tournaments.run.fixture_play import PlayContext, play_context
from tournaments.store.provenance import BotProvenance, bots_provenance
from tests.tournaments.fakes import TEST_SECRET, FakeContext, fake_play, make_spec

ROOT = Path(__file__).resolve().parents[2]
BOTS = ["python bots/rage_random.py", "python bots/rage_heuristic.py",
        "stdio:bots/rage_first.sh"]


def command(db: Path, deals: int, *how: str) -> list[str]:
    return [sys.executable, "-m", "referee", "tournament", "rage", "--deals", str(deals),
            "--db", str(db), "--format", "json", "--move-time", "5", *how, *BOTS]


def start(db: Path, deals: int, *how: str, env: dict[str, str] | None = None
          ) -> subprocess.Popen[str]:
    # TMPDIR: the hubs' socket folders stay in tmp_path.
    return subprocess.Popen(command(db, deals, *how), cwd=ROOT, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, "TMPDIR": str(db.parent), **(env or {})})


def finish(run: subprocess.Popen[str]) -> tuple[str, str]:
    out, err = run.communicate(timeout=180)
    assert run.returncode == 0, err
    assert "Traceback" not in err
    return out, err


def played_by_jobs_2(db: Path, unplayed: Path, deals: int) -> str:
    """The tables of `db`'s tournament played on a local pool of 2, from an unplayed copy
    of `db`: the same deal secret, so the same deals."""
    unplayed_copy(db, unplayed)
    out, _ = finish(start(unplayed, deals, "--jobs", "2", "--sandbox", "off"))
    return out


@pytest.fixture
def tag() -> str:
    return uuid.uuid4().hex


@pytest.fixture
def client(tag: str) -> Iterator[Any]:
    """A cluster of 2 worker processes (one thread each) in the repository's folder, as
    the docs ask; the bots they start carry `tag` in their environment."""
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,  # type: ignore[no-untyped-call]
                      dashboard_address=None, silence_logs=logging.ERROR,
                      env={TAG: tag}) as local, Client(local) as dask:  # type: ignore[no-untyped-call]
        dask.run(os.chdir, str(ROOT))
        yield dask


def test_a_local_cluster_of_2_gives_the_tables_of_jobs_2(tmp_path: Path) -> None:
    db = tmp_path / "cluster.sqlite"
    # The default sandbox: bots are sandboxed on the workers as on a local pool.
    out, err = finish(start(db, 4, "--cluster", "local:2"))
    assert "12/12 games" in err and json.loads(out)["metadata"]["complete"]
    assert out == played_by_jobs_2(db, tmp_path / "jobs.sqlite", 4)


@contextmanager
def holding_port(port: int) -> Iterator[None]:
    """Port `port` of 127.0.0.1 taken meanwhile (by us, or already by another)."""
    with socket.socket() as held:
        try:
            held.bind(("127.0.0.1", port))
            held.listen()
        except OSError:  # taken already
            pass
        yield


def timers(dask_worker: Any = None, dask_scheduler: Any = None) -> dict[str, float]:
    """A Dask server's timers (Server.periodic_callbacks): name to milliseconds."""
    server = dask_worker or dask_scheduler
    return {name: timer.callback_time for name, timer in server.periodic_callbacks.items()}


def test_a_local_cluster_runs_without_dasks_dashboard_timers(
        recwarn: pytest.WarningsRecorder) -> None:
    # Dask's defaults: a tick every 20 ms, counters read every 500 ms, a worker's stack
    # sampled every 10 ms for a profile no one sees: CPU the games' cores pay for.
    with holding_port(8787), open_cluster("local:2") as cluster:
        servers = [*cluster.client.run(timers).values(),
                   cluster.client.run_on_scheduler(timers)]
        assert dask.config.get("distributed.admin.tick.interval") == "1s"
    assert len(servers) == 3
    for server in servers:
        assert "profile" not in server
        assert server["tick"] >= 1000 and server["monitor"] >= 5000
    # Dask's HTTP port taken (another run's, say) is no warning: ours is any free one.
    assert not [str(warning.message) for warning in recwarn if "8787" in str(warning.message)]
    # The run's own settings end with it.
    assert dask.config.get("distributed.admin.tick.interval") == "20ms"
    assert dask.config.get("distributed.worker.profile.enabled") is True


def test_a_worker_killed_mid_run_costs_no_game_and_leaves_no_bot(
        tmp_path: Path, client: Any, tag: str) -> None:
    db, deals = tmp_path / "killed.sqlite", 30  # 90 games: a wide window to kill in
    workers = client.run(os.getpid)
    run = start(db, deals, "--cluster", client.scheduler.address, "--sandbox", "off")
    wait_for_games(db, 8)
    os.kill(sorted(workers.values())[0], signal.SIGKILL)
    assert run.poll() is None  # killed mid-run
    out, err = finish(run)
    assert f"{deals * 3}/{deals * 3} games" in err
    # The killed worker's bots died with it, the other's were closed at the end, while
    # the cluster itself lives on.
    assert bots_left(tag) == []
    assert len(client.nthreads()) >= 1
    assert out == played_by_jobs_2(db, tmp_path / "jobs.sqlite", deals)


def bots_left(tag: str, timeout: float = 30.0) -> list[str]:
    """The command lines of bots carrying `tag` still running after `timeout` (the
    workers and their sentinels carry it too, but run no bot)."""
    deadline = time.monotonic() + timeout
    while True:
        left = []
        for pid in tagged_processes(tag):
            try:
                line = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
            except OSError:  # gone meanwhile
                continue
            if b"bots/rage_" in line:
                left.append(line.decode(errors="replace"))
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.05)


def bot_folder(folder: Path, text: str) -> Path:
    """A folder holding a bot script bot.py (which never needs to run)."""
    folder.mkdir()
    (folder / "bot.py").write_text(text)
    return folder


@pytest.mark.parametrize("elsewhere, words", [
    (None, ("script is missing here",)),
    ("print('another bot')\n", ("script", "sha256", "on the coordinator")),
])
def test_a_worker_without_the_coordinators_bot_is_one_error_naming_both(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, client: Any,
        elsewhere: str | None, words: tuple[str, ...]) -> None:
    here = bot_folder(tmp_path / "here", "print('the bot')\n")
    monkeypatch.chdir(here)
    other = tmp_path / "other"
    if elsewhere is None:
        other.mkdir()
    else:
        bot_folder(other, elsewhere)
    addresses = sorted(client.nthreads())
    client.run(os.chdir, str(here), workers=[addresses[0]])  # as the coordinator
    client.run(os.chdir, str(other), workers=[addresses[1]])
    assert_bad_input(["tournament", "rage", "--cluster", client.scheduler.address,
                      "--sandbox", "off", "--db", str(tmp_path / "r.sqlite"),
                      "mine=python bot.py", "python bot.py", "python bot.py"],
                     f"Dask worker {addresses[1]}: ", "bot 'mine'", *words)
    assert not (tmp_path / "r.sqlite").exists()  # refused before anything is written


@pytest.mark.parametrize("args, words", [
    (["--cluster", "nonsense"], ("tcp://HOST:PORT", "local:N")),
    (["--cluster", "local:0"], ("local:N", "from 1 to 1024")),
    (["--cluster", "local:x"], ("local:N",)),
    (["--cluster", "local:2", "--jobs", "2"], ("--jobs", "--cluster")),
])
def test_bad_cluster_options_are_one_line(tmp_path: Path, args: list[str],
                                          words: tuple[str, ...]) -> None:
    assert_bad_input(["tournament", "rage", "--db", str(tmp_path / "r.sqlite"), *args,
                      *BOTS], *words)
    assert not (tmp_path / "r.sqlite").exists()


def test_an_unreachable_scheduler_is_one_line(tmp_path: Path) -> None:
    assert_bad_input(["tournament", "rage", "--cluster", "tcp://127.0.0.1:9",
                      "--sandbox", "off", "--db", str(tmp_path / "r.sqlite"), *BOTS],
                     "tcp://127.0.0.1:9", "cannot reach the Dask scheduler")


@contextmanager
def listener(greeting: bytes) -> Iterator[str]:
    """A server on a free loopback port, as `tcp://127.0.0.1:PORT`, that sends
    `greeting` to whoever connects (nothing: it waits to be spoken to, as a web server
    does) and holds the connection open."""
    server = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []
    stop = threading.Event()

    def serve() -> None:
        server.settimeout(0.1)
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except (socket.timeout, OSError):
                continue
            held.append(conn)
            conn.sendall(greeting)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"tcp://127.0.0.1:{server.getsockname()[1]}"
    finally:
        stop.set()
        thread.join()
        for conn in [*held, server]:
            conn.close()


SSH_LIKE = b"SSH-2.0-OpenSSH_9.2\r\n" + b"\xff\xff\xff\x7f" * 64  # then a huge "length"
HTTP_LIKE = b""  # a web server (Dask's dashboard at 8787) says nothing until asked
# Dask's framing (size, 1 frame of 4 bytes), but a frame that is no msgpack map
FRAMED_NOT_A_HANDSHAKE = struct.pack("<3Q", 20, 1, 4) + b"\xc1" * 4


@pytest.mark.parametrize("greeting, words", [
    (SSH_LIKE, ("not a Dask scheduler", "SSH-2.0-")),
    (HTTP_LIKE, ("no Dask scheduler greeted there within",)),
    (b"HTTP/1.1 400 Bad Request\r\n\r\n", ("not a Dask scheduler", "HTTP/1.1")),
    (FRAMED_NOT_A_HANDSHAKE, ("not a Dask scheduler",))])
def test_a_port_that_is_no_dask_scheduler_is_one_line_within_seconds(
        tmp_path: Path, greeting: bytes, words: tuple[str, ...]) -> None:
    """Before: an SSH server's port gave a 72-line traceback ending in MemoryError, an
    HTTP server's hung silently for 300 s. Now one line, exit 2, within the probe's
    seconds (cluster_probe.PROBE_SECONDS, with room for a loaded machine)."""
    with listener(greeting) as address:  # `referee` in a process of its own: a hang ends
        run = subprocess.run(
            [sys.executable, "-m", "referee", "tournament", "rage", "--cluster", address,
             "--sandbox", "off", "--db", str(tmp_path / "r.sqlite"), *BOTS],
            cwd=ROOT, capture_output=True, text=True, timeout=PROBE_SECONDS + 30)
    assert run.returncode == 2 and run.stdout == "", run.stderr
    [line] = run.stderr.splitlines()
    assert line.startswith(f"referee: error: --cluster {address}: ")
    assert all(word in line for word in words), line
    assert not (tmp_path / "r.sqlite").exists()


def test_parse_cluster_keeps_the_address_or_the_count() -> None:
    assert parse_cluster("tcp://10.0.0.5:8786").scheduler == "tcp://10.0.0.5:8786"
    assert parse_cluster("local:3").local_workers == 3
    with pytest.raises(ConfigError):
        parse_cluster("tcp://")


@pytest.fixture
def coordinator(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                ) -> tuple[PlayContext, tuple[BotProvenance, ...]]:
    """A tournament's context and bots, as the coordinator makes them, in tmp_path."""
    monkeypatch.chdir(tmp_path)
    spec = make_spec(n_bots=3, deals=1, seed=0)
    for bot in range(3):
        (tmp_path / f"bot_{bot}.py").write_text("print('a bot')\n")
    context = play_context(spec, tmp_path / "results" / "r.sqlite")
    bots = bots_provenance(spec.bots, context.bots)
    return context, bots


def test_a_worker_names_another_referee_version_and_another_sandbox(
        coordinator: tuple[PlayContext, tuple[BotProvenance, ...]]) -> None:
    context, bots = coordinator
    sandboxed = sandbox_view(context.launch_settings()) is not None
    assert worker_problems(context, bots, __version__, sandboxed) == []
    problems = worker_problems(context, bots, "0.0.0-other", sandboxed)
    assert problems == [f"the referee here is version {__version__}, the coordinator's "
                        "0.0.0-other"]
    # A coordinator that would sandbox its bots, a worker that would not (or the reverse)
    problems = worker_problems(context, bots, __version__, not sandboxed)
    assert len(problems) == 1 and "on the coordinator" in problems[0]
    assert ("without a sandbox" in problems[0]) and ("sandboxed" in problems[0])


class Answering:
    """A Dask client whose workers all answer `answer` to client.run."""

    def __init__(self, answer: object) -> None:
        self.answer = answer

    def run(self, function: object, *args: object, on_error: str) -> dict[str, object]:
        assert on_error == "return"
        return {"tcp://w:2": [], "tcp://w:1": self.answer}


def test_a_worker_whose_check_cannot_run_is_named_too(
        coordinator: tuple[PlayContext, tuple[BotProvenance, ...]]) -> None:
    context, bots = coordinator
    Cluster(Answering([])).check(context, bots)
    with pytest.raises(ConfigError) as caught:
        # e.g. an older referee there, whose worker_problems takes other arguments
        Cluster(Answering(TypeError("worker_problems() takes 3 arguments"))).check(
            context, bots)
    assert str(caught.value).startswith("Dask worker tcp://w:1: the check could not run "
                                        "there (TypeError: worker_problems() takes 3")
    assert f"is referee {__version__} installed there?" in str(caught.value)


def test_the_first_problem_is_the_error_and_the_rest_are_counted() -> None:
    check_answers({"tcp://a:1": [], "tcp://b:2": []})
    with pytest.raises(ConfigError) as caught:
        check_answers({"tcp://b:2": ["y"], "tcp://a:1": ["x", "z"], "tcp://c:3": []})
    assert str(caught.value) == ("Dask worker tcp://a:1: x (and 2 more problems on the "
                                 "cluster's workers)")


class Settled:
    """An inner executor whose every future is already done with `outcome` ("run": the
    batch's own outcomes, played here)."""

    def __init__(self, outcome: BaseException | str | None) -> None:
        self.outcome = outcome
        self.shutdowns: list[bool] = []

    def submit(self, fn: Any, *args: Any) -> Future[Any]:
        future: Future[Any] = Future()
        if self.outcome is None:
            future.cancel()
        elif isinstance(self.outcome, BaseException):
            future.set_exception(self.outcome)
        else:
            future.set_result(fn(*args))
        return future

    def shutdown(self, wait: bool = True) -> None:
        self.shutdowns.append(wait)


@pytest.mark.parametrize("outcome, expected", [
    ("run", "1"),
    (KilledWorker("t", "tcp://w:1", 3),  # type: ignore[arg-type]  # its type is what counts
     BrokenExecutor),  # the runner plays it again
    (None, BrokenExecutor),  # dropped by the cluster: played again
    (ValueError("a referee bug"), ValueError),  # not a lost game: PlayFailed
])
def test_the_executor_reports_a_game_lost_with_its_worker_as_a_broken_pool(
        outcome: BaseException | str | None, expected: object) -> None:
    inner = Settled(outcome)
    executor = GameExecutor(inner, threads=1, batch=1)  # type: ignore[arg-type]
    future = executor.submit(str, 1)
    if isinstance(expected, str):
        assert future.result(timeout=5) == expected
    else:
        assert isinstance(future.exception(timeout=5), expected)  # type: ignore[arg-type]
    executor.shutdown(wait=False, cancel_futures=True)
    assert inner.shutdowns == [False]


class Held:
    """An inner executor that holds each batch until the test settles it."""

    def __init__(self) -> None:
        self.batches: list[tuple[Future[Any], Any, list[Any]]] = []
        self.shutdowns: list[bool] = []

    def submit(self, fn: Any, function: Any, calls: list[Any]) -> Future[Any]:
        future: Future[Any] = Future()
        self.batches.append((future, function, calls))
        return future

    def sizes(self) -> list[int]:
        return [len(calls) for _, _, calls in self.batches]

    def play(self, batch: int) -> None:
        """Play batch number `batch` here, as a worker would."""
        future, function, calls = self.batches[batch]
        future.set_result(run_calls(function, calls))

    def shutdown(self, wait: bool = True) -> None:
        self.shutdowns.append(wait)


def test_batches_keep_each_thread_busy_and_one_full_batch_queued() -> None:
    inner = Held()
    executor = GameExecutor(inner, threads=2, batch=3)  # type: ignore[arg-type]
    games = [executor.submit(str, number) for number in range(8)]
    # A game each for the idle threads at once, then full batches, one queued a thread.
    assert inner.sizes() == [1, 1, 3, 3]
    inner.play(0)
    assert games[0].result(timeout=5) == "0" and not games[1].done()
    more = [executor.submit(str, number) for number in range(8, 10)]
    assert inner.sizes() == [1, 1, 3, 3]  # 3 batches for 2 threads: these 2 wait
    inner.play(1)  # a batch of 3 for each thread
    assert inner.sizes() == [1, 1, 3, 3]
    inner.play(2)  # now a thread would idle: the 2 go as they are
    assert inner.sizes() == [1, 1, 3, 3, 2]
    for batch in (3, 4):
        inner.play(batch)
    assert [game.result(timeout=5) for game in games + more] == [str(n) for n in range(10)]
    executor.shutdown(wait=True)
    assert inner.shutdowns == [True]


def fails_on_2(number: int) -> int:
    if number == 2:
        raise ValueError("the game broke")
    return number


class Unpicklable(Exception):
    def __init__(self, why: str, lock: Any) -> None:
        super().__init__(why)
        self.lock = lock


def raises_unpicklable() -> None:
    raise Unpicklable("held a lock", threading.Lock())


def test_a_batch_answers_each_game_apart_and_an_error_loses_no_other() -> None:
    outcomes = run_calls(fails_on_2, [((number,), {}) for number in range(4)])
    assert [outcome[0] for outcome in outcomes] == [True, True, False, True]
    assert [outcomes[n][1] for n in (0, 1, 3)] == [0, 1, 3]
    assert isinstance(outcomes[2][1], ValueError)
    # An error that could not travel back comes back as its type and words.
    [(ok, error)] = run_calls(raises_unpicklable, [((), {})])
    assert not ok and str(error) == "Unpicklable: held a lock"
    pickle.dumps(error)


def test_a_lost_batch_fails_each_of_its_games_and_shutdown_cancels_the_unsent() -> None:
    inner = Held()
    executor = GameExecutor(inner, threads=1, batch=2)  # type: ignore[arg-type]
    games = [executor.submit(str, number) for number in range(6)]
    assert inner.sizes() == [1, 2]
    inner.batches[1][0].set_exception(KilledWorker("t", "tcp://w:1", 3))  # type: ignore[arg-type]
    assert all(isinstance(game.exception(timeout=5), BrokenExecutor) for game in games[1:3])
    assert inner.sizes() == [1, 2, 2] and not games[0].done()
    executor.shutdown(wait=False, cancel_futures=True)
    assert games[5].cancelled()  # never sent
    for batch in (0, 2):
        inner.batches[batch][0].cancel()  # as Dask's shutdown cancels what it runs
    assert all(games[number].cancelled() for number in (0, 3, 4))
    assert inner.shutdowns == [False]
    with pytest.raises(RuntimeError):
        executor.submit(str, 5)


def batches_of_2_threads(jobs: int) -> GameExecutor:
    """The batching executor with threads for Dask's workers."""
    return GameExecutor(ThreadPoolExecutor(2), threads=2, batch=jobs // 2)


def test_a_tournament_played_in_batches_plays_and_stores_every_game_once(
        tmp_path: Path) -> None:
    spec = make_spec(n_bots=4, deals=3, seed=8)
    fixtures = fixtures_for(spec, TEST_SECRET)
    played = Played(FakeContext(spec.bot_names))
    with ResultStore(tmp_path / "r.sqlite", spec) as store:
        run_tournament(spec, fixtures, store, noting_play, played, jobs=8,
                       executor_factory=batches_of_2_threads)
        assert store.records() == [fake_play(fixture, played.inner) for fixture in fixtures]
    assert sorted(played.ids) == sorted(fixture.fixture_id for fixture in fixtures)


def test_a_referee_bug_in_a_batch_is_that_games_alone(tmp_path: Path) -> None:
    spec = make_spec(n_bots=4, deals=3, seed=8)
    fixtures = fixtures_for(spec, TEST_SECRET)
    bad = fixtures[5].fixture_id
    context = FakeContext(spec.bot_names, fail_on=bad)
    with ResultStore(tmp_path / "r.sqlite", spec) as store:
        with pytest.raises(PlayFailed) as caught:
            run_tournament(spec, fixtures, store, fake_play, context, jobs=8,
                           executor_factory=batches_of_2_threads)
        assert bad in str(caught.value) and "engine exploded" in str(caught.value)
        records = store.records()
    assert bad not in {record.fixture_id for record in records}
    # every game before it, and those sent with it or after it before it broke
    assert {fixture.fixture_id for fixture in fixtures[:5]} <= {r.fixture_id for r in records}
    assert records == [fake_play(fixture, context) for fixture in fixtures
                       if fixture.fixture_id in {record.fixture_id for record in records}]


class Threads:
    """A Dask client of a cluster of `threads` worker threads."""

    def __init__(self, threads: int) -> None:
        self.threads = threads

    def nthreads(self) -> dict[str, int]:
        return {f"tcp://w:{n}": 1 for n in range(self.threads)}


def test_games_run_ahead_in_batches_unless_bots_may_be_disqualified() -> None:
    cluster = Cluster(Threads(3))
    assert cluster.jobs(batches=True) == 3 * GAMES_PER_TASK
    assert cluster.jobs(batches=False) == 3  # no game runs ahead of the faults counted
