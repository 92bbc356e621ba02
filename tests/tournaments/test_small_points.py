"""Issue 29 part 7, the smaller points: a tournament's own name on its pages, a db in use
said plainly, `check`'s replay hint, `gate`'s results when interrupted, a db in a bot's
folder as the README says."""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from referee.processes.sandbox import SandboxMode, sandbox_enabled
from tests.cli_support import assert_bad_input, run_main
from tournaments.spec.definition import spec_from_json
from tournaments.spec.toml_file import load_tournament_file

FIRST = "stdio:bots/rage_first.sh"
ROOT = Path(__file__).resolve().parents[2]


def sandbox_works() -> bool:
    return sandbox_enabled(SandboxMode.AUTO)


def tournament_file(folder: Path, *top: str) -> Path:
    bots = "".join(f'[[bots]]\nname = "b{i}"\ncommand = "stdio:{ROOT}/bots/rage_first.sh"\n'
                   for i in range(3))
    path = folder / "t.toml"
    path.write_text("\n".join(top) + '\ngame = "rage"\n' + bots)
    return path


def test_a_named_tournament_heads_every_page_with_its_name(tmp_path: Path) -> None:
    name = "CS101 <Rage> & friends"
    path = tournament_file(tmp_path, f'name = "{name}"')
    spec = load_tournament_file(path)
    assert spec.title == name
    assert spec_from_json(spec.to_json()).title == name  # as the db stores it
    (tmp_path / "unnamed").mkdir()
    unnamed = load_tournament_file(tournament_file(tmp_path / "unnamed"))
    assert unnamed.fingerprint() == spec.fingerprint()  # a name is no other tournament
    db = tmp_path / "t.sqlite"
    code, out, err = run_main(["tournament", str(path), "--db", str(db), "--sandbox", "off",
                               "--format", "html"])
    assert code == 0, err
    assert "<h1>CS101 &lt;Rage&gt; &amp; friends</h1>" in out
    assert "<title>CS101 &lt;Rage&gt; &amp; friends</title>" in out
    code, out, err = run_main(["results", str(db)])
    assert code == 0 and out.startswith(f"{name}\n\n"), out
    code, out, err = run_main(["results", str(db), "--format", "markdown"])
    assert out.startswith("## CS101 &lt;Rage&gt; &amp; friends\n"), out
    code, out, err = run_main(["results", str(db), "--format", "json"])
    assert json.loads(out)["metadata"]["title"] == name


def test_a_tournament_name_that_is_no_line_of_text_is_refused(tmp_path: Path) -> None:
    for value in ("42", '"two\\nlines"', '""'):
        path = tournament_file(tmp_path, f"name = {value}")
        assert_bad_input(["tournament", str(path)], str(path), "line 1", "name")


def test_a_second_run_on_a_db_in_use_is_refused_and_the_lock_dies_with_its_run(
        tmp_path: Path) -> None:
    db = tmp_path / "results" / "t.sqlite"
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from pathlib import Path; "
         "from tournaments.store.run_lock import run_lock\n"
         "with run_lock(Path(sys.argv[1])):\n print('held', flush=True); time.sleep(60)",
         str(db)], stdout=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        path = tournament_file(tmp_path)
        assert_bad_input(["tournament", str(path), "--db", str(db), "--sandbox", "off"],
                         f"{db} is in use by pid {holder.pid}")
        assert not db.exists()  # refused before anything was made
    finally:
        holder.kill()  # as a run killed by SIGKILL: no stale lock is left
        holder.wait()
    code, _, err = run_main(["tournament", str(path), "--db", str(db), "--sandbox", "off"])
    assert code == 0, err


def test_checks_replay_hint_is_a_whole_command_that_plays_the_failure_again(
        tmp_path: Path) -> None:
    student = ROOT / "tests" / "referee" / "fault_bots" / "student.py"
    bot = f"stdio:{sys.executable} {student} crash 3"
    report = tmp_path / "report.json"
    code, out, err = run_main(["check", "--game", "rage", bot, "--quick", "--sandbox", "off",
                               "--json", str(report)])
    assert code == 1, out + err
    failed = [c for c in json.loads(report.read_text())["checks"] if c["status"] == "fail"]
    evidence = failed[0]["evidence"]
    command = evidence[evidence.index("(referee play ") + 1:evidence.index("): crash")]
    words = shlex.split(command)
    assert words[:2] == ["referee", "play"] and bot in words
    code, _, err = run_main([*words[1:], "--sandbox", "off"])
    seat = words.index(bot) - words.index("--seed") - 2
    assert code == 0 and f"referee: fault: seat {seat} " in err and "crash" in err, err


def test_an_interrupted_gate_prints_its_results_so_far(tmp_path: Path) -> None:
    first = f"stdio:{ROOT}/bots/rage_first.sh"
    run = subprocess.Popen(
        [sys.executable, "-m", "referee", "gate", "--game", "rage", "--new", first,
         "--baseline", first, "--opponent", first, "--delta", "0.01", "--alpha", "0.001",
         "--beta", "0.001", "--sandbox", "off", "--logs", str(tmp_path / "logs")],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True)
    assert run.stderr is not None
    progress = run.stderr.readline()  # the first deal's running line: mid-test now
    assert progress.startswith("deals 1, games "), progress
    os.killpg(run.pid, signal.SIGINT)  # Ctrl-C, to the terminal's process group
    out, err = run.communicate(timeout=60)
    assert run.returncode == 130, err
    lines = out.splitlines()
    assert lines[0] == "gate: interrupted (SIGINT) before a decision; the results so far:"
    assert re.match(r"deals \d+, games \d+: mean [+-]\d", lines[1]), out
    assert lines[-1] == f"game logs: {tmp_path / 'logs'}"
    assert err.strip().splitlines()[-1].startswith("referee: aborted (SIGINT): the gate "
                                                   "stopped; its results so far are above")


@pytest.mark.skipif(not sandbox_works(), reason="no bubblewrap sandbox here")
def test_a_db_in_a_bots_folder_is_as_the_readme_says(tmp_path: Path) -> None:
    """README, Sandbox: refused where the db's folder is the bot's own; run, hidden, where
    it is a folder under it."""
    alice = tmp_path / "alice"
    alice.mkdir()
    (alice / "bot.sh").write_bytes((ROOT / "bots" / "rage_first.sh").read_bytes())
    (alice / "bot.sh").chmod(0o755)
    bots = [f"stdio:{alice}/bot.sh", FIRST, FIRST]
    assert_bad_input(["tournament", "rage", "--sandbox", "on", "--db",
                      str(alice / "r.sqlite"), *bots],
                     "holds results or logs, and is also a bot's own folder")
    code, _, err = run_main(["tournament", "rage", "--sandbox", "on", "--db",
                             str(alice / "results" / "r.sqlite"), *bots])
    assert code == 0, err


def test_paths_in_a_tournament_file_are_relative_to_its_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "class"
    (folder / "alice").mkdir(parents=True)
    (folder / "alice" / "bot.sh").write_bytes((ROOT / "bots" / "rage_first.sh").read_bytes())
    (folder / "alice" / "bot.sh").chmod(0o755)
    path = folder / "t.toml"
    path.write_text('game = "rage"\n' + "".join(
        f'[[bots]]\nname = "b{i}"\ncommand = "stdio:alice/bot.sh"\ndir = "alice"\n'
        for i in range(3)))
    spec = load_tournament_file(path)  # the tests run from the project's root
    moved = os.path.relpath(folder / "alice", ROOT)
    assert spec.bots[0].command == f"stdio:{moved}/bot.sh" and spec.bots[0].dir == moved
    code, _, err = run_main(["tournament", str(path), "--db", str(tmp_path / "t.sqlite"),
                             "--sandbox", "off"])
    assert code == 0, err
    monkeypatch.chdir(folder)  # from its own folder, the file reads as written
    assert load_tournament_file(path).bots[0].command == "stdio:alice/bot.sh"


def test_a_path_found_only_from_the_current_folder_is_one_error_line(
        tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    path.write_text('game = "rage"\n' + "".join(
        f'[[bots]]\nname = "b{i}"\ncommand = "stdio:bots/rage_first.sh"\n' for i in range(3)))
    fixed = os.path.relpath(ROOT / "bots" / "rage_first.sh", tmp_path)
    if fixed.startswith("../../../"):  # then the error names the whole path
        fixed = str(ROOT / "bots" / "rage_first.sh")
    assert_bad_input(["tournament", str(path)], f"{path}, line 4", "'bots/rage_first.sh' is "
                     "found from the current folder", f"write {fixed!r}")
