"""The temporary folders that hold bots' ipc sockets: named by their owner, and swept
once the owner is provably gone.

A referee removes its folder when it closes its hub; a SIGKILLed referee cannot, and left
`/tmp/referee-*/bot-*` behind (issue 26). So a folder is named after its owner as a cgroup
root is, `referee-<pidns>-<pid>-<start>-<random>` (referee.processes.cgroup_owners: the
owner's PID namespace, pid and start time, so a reused pid is not taken for it), and the
first hub a process makes sweeps the folders of owners provably gone. Nothing else is
touched: a name of another form, a folder of another user or a symlink, a live owner's.
"""

from __future__ import annotations

import functools
import os
import shutil
import stat
import tempfile
from pathlib import Path

from referee.processes.cgroup_owners import Liveness, Owner, this_process

PREFIX = "referee-"


def new_socket_folder() -> str:
    """A new folder for this process's ipc sockets, under the temporary folder, after
    sweeping (once per process) those that killed referees left."""
    sweep_once()
    return tempfile.mkdtemp(prefix=this_process().root_name + "-")


@functools.cache
def sweep_once() -> tuple[Path, ...]:
    """sweep(), once per process: a referee's later hubs find nothing new to sweep."""
    return sweep(Path(tempfile.gettempdir()))


def sweep(folder: Path) -> tuple[Path, ...]:
    """Remove the socket folders in `folder` whose owners are provably gone; those
    removed."""
    liveness = Liveness(this_process())
    removed = []
    try:
        names = [name for name in os.listdir(folder) if name.startswith(PREFIX)]
    except OSError:
        return ()
    for name in names:
        owner = owner_of(name)
        path = folder / name
        if owner is not None and _ours(path) and liveness.gone(owner):
            shutil.rmtree(path, ignore_errors=True)  # fd-based: follows no symlink inside
            removed.append(path)
    return tuple(removed)


def owner_of(name: str) -> Owner | None:
    """The owner a folder's name gives (`<root name>-<mkdtemp's random part>`), or None."""
    root, dash, random = name.rpartition("-")
    if not dash or not random:
        return None
    return Owner.of_root(root)


def _ours(path: Path) -> bool:
    """A real folder (not a symlink) of this user's: another user's is none of ours."""
    try:
        info = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid()
