"""Bytecode for the modules a Python bot imports from this project (the SDK, the codecs,
the rules engines), written once, as pip writes it when it installs a package.

Why: a sandboxed bot cannot write bytecode (its folders are read-only, and it runs with
PYTHONDONTWRITEBYTECODE), and an editable install, or a machine that sets
PYTHONDONTWRITEBYTECODE for everything, leaves none. Then every bot start compiles those
modules from source again: about a fifth of a sample bot's start (callgrind: 310M
instructions with bytecode missing, 248M with it). The files go to the modules' own
__pycache__ folders (git ignores them); a read-only install is left as it is.
"""

from __future__ import annotations

import compileall
import threading
from pathlib import Path

# What the sample bots and the SDK import (python -X importtime bots/rage_heuristic.py,
# bots/thegame_heuristic.py), with how deep to go: the folders taken whole, and for the
# games every game's folder, whose codec and rules the SDK imports.
SDK_FOLDERS = (("bots", 0), ("protocols", 0), ("referee", 0), ("referee/games", 1))

_lock = threading.Lock()
_done = False


def ensure_sdk_bytecode(root: Path) -> None:
    """Compile what is missing or stale under `root`'s SDK folders; once per process."""
    global _done
    with _lock:
        if _done:
            return
        _done = True
        for folder, depth in SDK_FOLDERS:
            if (root / folder).is_dir():
                # quiet=2: nothing printed; a folder we may not write is simply skipped.
                compileall.compile_dir(root / folder, maxlevels=depth, quiet=2)
