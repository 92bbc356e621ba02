"""The organiser's terminal during a tournament with a remote seat (tmux): the hall's news
lines, written by the worker process, stand on lines of their own, not after the
progress bar the parent process draws there without a newline ("... ETA ?referee:
remote: listening on ...")."""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path

from tests.remote.remote_support import RANDOM, free_port
from tests.remote.test_remote_games import _organiser
from tests.terminal.tmux import Tmux, exit_code


def test_the_halls_lines_stand_apart_from_the_progress_bar(tmp_path: Path) -> None:
    hall, port = _organiser(tmp_path), free_port()
    command = [sys.executable, "-m", "referee", "tournament", "rage",
               "remote:alice=alice.pub", RANDOM, RANDOM.replace("rage_random",
                                                                 "rage_heuristic"),
               "--listen", f"tcp://127.0.0.1:{port}", "--sandbox", "off", "--db",
               "cup.sqlite", "--startup-time", "1", "--table", "standings"]
    terminal = Tmux(hall)
    try:
        terminal.type(f"{shlex.join(command)}; echo EXIT=$?")
        screen = terminal.wait(lambda shown: exit_code(shown) is not None, timeout=60)
    finally:
        terminal.close()
    assert exit_code(screen) == 0, screen
    news = [line for line in screen.splitlines() if "referee: remote:" in line]
    assert len(news) == 2, screen  # listening, and alice missed her start-up
    assert all(line.startswith("referee: remote: ") for line in news), screen
    # alice's 3 faults, and any of a local bot that missed the short start-up under load
    assert re.search(r"\[#{20}\] rage: 3/3 games, \d+ faults", screen), screen
