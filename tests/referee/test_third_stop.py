"""A stop that hangs (a bug) still ends: while the first Ctrl-C is acted on, a second is
noted in one line and a third ends the process at once, by the first one's exit code
(referee/cli/stops.py). And a stop whose KeyboardInterrupt Python swallowed (raised in a
finalizer, which prints and ignores it) leaves the next stop acted on as a first."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Stands for a command whose stop hangs: it catches the stop's KeyboardInterrupt, then
# waits for ever (as a pool's shutdown joining a worker that never ends did).
HANGING_STOP = textwrap.dedent("""
    import sys, time
    from referee.cli.stops import listen_for_stops
    listen_for_stops()
    try:
        print("ready", flush=True)
        time.sleep(60)
    except KeyboardInterrupt:
        print("stopping", flush=True)
        time.sleep(60)
    sys.exit(5)
""")

# Its first stop is swallowed where Python ignores exceptions; it then runs on until
# stopped, and exits 7 if the second stop is not acted on.
SWALLOWED_STOP = textwrap.dedent("""
    import gc, os, signal, sys, time
    from referee.cli.stops import listen_for_stops
    listen_for_stops()
    class Finalized:
        def __del__(self):
            os.kill(os.getpid(), signal.SIGINT)
            for _ in range(10000):
                pass
    Finalized()
    try:
        print("ready", flush=True)
        time.sleep(60)
    except KeyboardInterrupt:
        sys.exit(3)
    sys.exit(7)
""")


def started(script: str) -> subprocess.Popen[str]:
    run = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, text=True,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert run.stdout is not None and run.stdout.readline() == "ready\n"
    return run


def test_a_third_stop_ends_a_hanging_stop_at_once_by_the_first_ones_code() -> None:
    run = started(HANGING_STOP)
    assert run.stdout is not None
    try:
        run.send_signal(signal.SIGTERM)
        assert run.stdout.readline() == "stopping\n"  # acted on: the hang begins
        run.send_signal(signal.SIGINT)
        time.sleep(0.2)
        assert run.poll() is None  # the second changes nothing
        run.send_signal(signal.SIGINT)
        _, err = run.communicate(timeout=30)
    finally:
        if run.poll() is None:
            run.kill()
            run.communicate()
    assert run.returncode == 143, err  # the first was SIGTERM
    assert err == "referee: stopping already; a third Ctrl-C or SIGTERM ends it at once\n"


def test_a_stop_after_one_python_swallowed_is_acted_on() -> None:
    run = started(SWALLOWED_STOP)
    try:
        os.kill(run.pid, signal.SIGINT)
        _, err = run.communicate(timeout=30)
    finally:
        if run.poll() is None:
            run.kill()
            run.communicate()
    assert run.returncode == 3, err
    assert "Exception ignored in" in err and "stopping already" not in err
