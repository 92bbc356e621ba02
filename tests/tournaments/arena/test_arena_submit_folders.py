"""A submitted --dir folder is a contestant's: hostile. What `arena submit` copies from
it is the folder's own files only, and nothing of the arena or of the organiser's."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tests.tournaments.arena.test_arena_submit import ROOT, referee


def _arena(tmp_path: Path) -> Path:
    arena = tmp_path / "a"
    referee("arena", "init", str(arena), "--game", "rage", "--table-size", "3")
    return arena


def _bot_folder(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "bot.py").write_bytes((ROOT / "bots" / "rage_random.py").read_bytes())
    return folder


def _no_version(arena: Path) -> bool:
    with sqlite3.connect(arena / "arena.db") as db:
        rows = db.execute("SELECT COUNT(*) FROM versions").fetchone()[0]
    return rows == 0 and not any((arena / "submissions").rglob("bot.py"))


def test_a_folder_that_holds_the_arena_is_refused(tmp_path: Path) -> None:
    """`--dir` of a folder the arena is in copied the arena into itself until Python's
    recursion gave out (a traceback); `--dir /` copied the whole machine."""
    arena = _arena(tmp_path)
    _bot_folder(tmp_path / "src")
    (tmp_path / "bot.py").write_bytes((ROOT / "bots" / "rage_random.py").read_bytes())
    for folder in (tmp_path, Path("/")):
        done = referee("arena", "submit", str(arena), "nest", "--dir", str(folder),
                       "--cmd", "python bot.py")
        assert done.returncode == 2, done.stdout + done.stderr
        assert done.stderr == (f"referee: error: --dir {folder}: it holds the arena "
                               f"{arena} itself: give the bot's own folder\n")
        assert _no_version(arena)


def test_a_link_out_of_the_folder_is_refused(tmp_path: Path) -> None:
    """A link to a file of the organiser's (its keys, a db) was followed, and the file
    copied in with the bot, whose sandbox then let it read it as its own."""
    arena = _arena(tmp_path)
    secret = tmp_path / "organiser.key"
    secret.write_text("secret\n")
    source = _bot_folder(tmp_path / "src")
    (source / "data").mkdir()
    (source / "data" / "key").symlink_to(secret)
    (source / "lib").symlink_to(source / "data")  # a link within the folder is fine
    done = referee("arena", "submit", str(arena), "linky", "--dir", str(source), "--cmd",
                   "python bot.py")
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.startswith(f"referee: error: --dir {source}: {source / 'data' / 'key'} "
                                  "links out of the folder")
    assert len(done.stderr.splitlines()) == 1 and _no_version(arena)
    (source / "data" / "key").unlink()
    again = referee("arena", "submit", str(arena), "linky", "--dir", str(source), "--cmd",
                    "python bot.py")
    assert again.returncode == 0, again.stdout + again.stderr
