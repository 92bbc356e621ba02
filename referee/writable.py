"""Checking, before any work starts, that files and folders we will write can be written."""

from __future__ import annotations

import errno
import os
from pathlib import Path


def make_folder(folder: Path) -> None:
    """`folder` and its parents, made if missing; OSError saying why not."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:  # mkdir's word when a file stands where a folder should
        raise NotADirectoryError(errno.ENOTDIR, "a file stands where a folder is needed",
                                 str(_first_file(folder))) from None


def check_writable_file(path: Path) -> None:
    """OSError unless `path` can be created or overwritten, its folders made as needed;
    a file made only to try is removed again."""
    if path.is_dir():
        raise IsADirectoryError(errno.EISDIR, "it is a folder", str(path))
    make_folder(path.parent)
    existed = path.exists()
    with path.open("a", encoding="utf-8"):
        pass
    if not existed:
        path.unlink()


def check_writable_folder(folder: Path) -> None:
    """OSError unless a file can be written in `folder`, which is made as needed."""
    make_folder(folder)
    probe = folder / f".write-check-{os.getpid()}"
    with probe.open("w", encoding="utf-8"):
        pass
    probe.unlink()


def _first_file(folder: Path) -> Path:
    for parent in reversed([folder, *folder.parents]):
        if parent.exists() and not parent.is_dir():
            return parent
    return folder
