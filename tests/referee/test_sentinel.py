"""The sentinel's own life: it ends when its referee lets go, and no sooner or later."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from referee.processes.sentinel import Sentinel

SCRIPT = textwrap.dedent("""
    import os, time
    from referee.processes.sentinel import sentinel
    watcher = sentinel()
    child = os.fork()  # like a pool worker: it must not keep the parent's sentinel alive
    if child == 0:
        time.sleep(120)
        os._exit(0)
    try:
        watcher.close()
        # It ends at once, unless the forked child (alive for 120 s) holds its pipe open.
        print(watcher._process.wait(60), flush=True)
    finally:
        os.kill(child, 9)
        os.waitpid(child, 0)
""")


def test_the_sentinel_ends_when_its_referee_closes_even_with_forked_children() -> None:
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                          env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["0"]


def test_without_a_sentinel_the_referee_warns_and_carries_on(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise OSError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(subprocess, "Popen", refuse)
    watcher = Sentinel()
    watcher.watch(12345, b"REFEREE_PROCESS_TAG=0")  # nowhere to say it: no error either
    watcher.release(12345, b"REFEREE_PROCESS_TAG=0")
    watcher.close()
    assert "no sentinel process (" in capsys.readouterr().err
