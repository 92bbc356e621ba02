"""What a sample bot loads to start: tournaments start a fresh bot for every game, so
every module a bot imports is paid for at every game (issue 14)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def modules_loaded_by(module: str) -> set[str]:
    """The modules a fresh interpreter holds after importing `module` (not running it)."""
    code = (f"import sys; sys.path.insert(0, {str(ROOT)!r}); import {module}; "
            "print('\\n'.join(sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, timeout=60)
    return set(done.stdout.split())


def test_the_random_bot_starts_without_the_rules_engine() -> None:
    loaded = modules_loaded_by("bots.rage_random")
    assert "referee.games.rage.codec" in loaded  # it has its codec, and the cards that holds
    assert "referee.games.rage.cards" in loaded
    assert "referee.games.rage.rules" not in loaded


def test_the_sdk_bot_has_the_rules_engine_for_its_legal_move_helper() -> None:
    assert "referee.games.rage.rules" in modules_loaded_by("bots.rage_heuristic")


def test_the_sdks_zeromq_connection_loads_no_zeromq_library() -> None:
    """bots/zmtp_dealer.py speaks ZMTP itself: pyzmq (its import and I/O thread were a
    quarter of a sample bot's start) and the socket module (selectors, enums) stay out."""
    loaded = modules_loaded_by("bots.zmtp_dealer")
    assert not {"zmq", "socket", "selectors"} & loaded
