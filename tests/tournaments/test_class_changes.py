"""Issue 29, part 5: classes that change. In a gauntlet each candidate plays with the
references only, so a late student, a student's fixed bot or one who left changes no
other candidate's games: a run on the same db plays only the games that change, keeps
the others, and the tables say which version of each bot they count. A round robin's
games depend on every bot: a change there is refused, with how to start over.

Real sample bots from bots/, one table of 3 (a candidate and the two references), one
deal, --jobs 1."""

from __future__ import annotations

import json
import shutil
import sqlite3
import sys
from contextlib import closing
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from referee.errors import ConfigError
from tests.cli_support import assert_bad_input, run_main
from tests.tournaments.fakes import TEST_SECRET
from tournaments.schedule.fixtures import fixtures_for
from tournaments.spec.definition import BotEntry, TournamentSpec
from tournaments.store.provenance import BotProvenance, file_sha256
from tournaments.store.records import BotHashes
from tournaments.store.results_db import ResultStore, default_db_path

pytestmark = pytest.mark.usefixtures("no_bot_left")

RANDOM = "python bots/rage_random.py"
HEURISTIC = "python bots/rage_heuristic.py"
FIRST = "stdio:bots/rage_first.sh"
REFERENCES = ["--reference", f"ref={FIRST}", "--reference", f"rnd={RANDOM}"]
# A deterministic stdio bot: the first legal answer to every request, or the last.
PY_BOT = ("import os, sys\n"
          "print('HELLO 2', os.environ['REFEREE_TOKEN'], 'pick {version}', flush=True)\n"
          "for line in sys.stdin:\n"
          "    words = line.split()\n"
          "    if words and words[0].endswith('?'):\n"
          "        print(words[{choice}], flush=True)\n")
OLD_DB = Path(__file__).parent / "data" / "gauntlet-schema-2.sqlite"


def gauntlet(db: Path, *candidates: str,
             references: list[str] = REFERENCES) -> tuple[int, str, str]:
    """The two references and `candidates` (NAME=COMMAND) at one table of 3, one deal."""
    return run_main(["tournament", "rage", "--db", str(db), "--jobs", "1", "--table-size",
                     "3", *references, *candidates])


def to_play(err: str) -> tuple[int, int]:
    """(scheduled, to play) from the run's `rage: N games scheduled, M to play` line."""
    line = next(line for line in err.splitlines() if " games scheduled, " in line)
    words = line.replace(",", "").split()
    return int(words[1]), int(words[4])


def rows(db: Path, table: str = "games") -> dict[str, str]:
    """The db's stored game rows, record text by fixture id."""
    with closing(sqlite3.connect(db)) as conn:
        return dict(conn.execute(f"SELECT fixture_id, record FROM {table}").fetchall())


def tables(db: Path) -> dict[str, list[dict[str, object]]]:
    code, out, err = run_main(["results", str(db), "--format", "json"])
    assert code == 0, err
    return {name: table["rows"] for name, table in json.loads(out)["tables"].items()}


def ranked(shown: dict[str, list[dict[str, object]]]) -> list[tuple[object, ...]]:
    return [(row["bot"], row["games"], row["mean_score"], row["mean_place"])
            for row in shown["standings"]]


def fresh_copy(db: Path, to: Path) -> None:
    """The same tournament, deal secret included, with nothing played or recorded."""
    shutil.copyfile(db, to)
    with closing(sqlite3.connect(to)) as conn, conn:
        for table in ("games", "bots", "replaced_games"):
            conn.execute(f"DELETE FROM {table}")


def test_a_late_student_plays_only_the_new_games_like_a_fresh_run(tmp_path: Path) -> None:
    db = tmp_path / "class.sqlite"
    code, _, err = gauntlet(db, f"alice={FIRST}", f"bob={RANDOM}")
    assert code == 0 and to_play(err) == (6, 6), err
    before = rows(db)
    code, grown, err = gauntlet(db, f"alice={FIRST}", f"bob={RANDOM}", f"carol={HEURISTIC}")
    assert code == 0 and to_play(err) == (9, 3), err
    assert "class: carol is new" in err
    after = rows(db)
    assert {key: after[key] for key in before} == before  # the others' games, untouched
    assert sorted(after.keys() - before.keys()) == [
        f"rage/d01/c-carol/t01/r{rotation}" for rotation in range(3)]
    fresh = tmp_path / "fresh.sqlite"
    fresh_copy(db, fresh)
    code, out, err = gauntlet(fresh, f"alice={FIRST}", f"bob={RANDOM}", f"carol={HEURISTIC}")
    assert code == 0 and to_play(err) == (9, 9), err
    assert out.replace("fresh-logs", "class-logs") == grown  # every table, to the digit


def test_a_fixed_bot_replays_its_games_and_one_who_left_is_left_out(tmp_path: Path) -> None:
    for path in (tmp_path.parent, tmp_path):  # a sandboxed bot runs as another user
        path.chmod(0o755)
    script, db = tmp_path / "dave.py", tmp_path / "results" / "class.sqlite"
    script.write_text(PY_BOT.format(version="1.0", choice=1))
    dave = f"dave=stdio:python {script}"
    code, _, err = gauntlet(db, f"alice={RANDOM}", dave)
    assert code == 0 and to_play(err) == (6, 6), err
    alice_games = {key: text for key, text in rows(db).items() if "c-alice" in key}
    first_logs = sorted(path.name for path in (db.parent / "class-logs").iterdir())

    script.write_text(PY_BOT.format(version="2.0", choice=-1))  # the fix: another card
    code, out, err = gauntlet(db, dave)  # and alice has left
    assert code == 0 and to_play(err) == (3, 3), err
    assert "class: dave's files or command changed: version 2 plays its games" in err
    assert "class: alice is no longer in the class: its 3 games stay in the db" in err
    shown = tables(db)
    assert [row["bot"] for row in shown["standings"]] == ["dave"]
    assert {row["bot"]: row["version"] for row in shown["bots"]} == {
        "dave": 2, "ref": 1, "rnd": 1}
    assert [(row["bot"], row["version"], row["games"], row["why"])
            for row in shown["left_out"]] == [
        ("alice", 1, 3, "removed from the class"), ("dave", 1, 3, "replaced by version 2")]
    assert "Not counted above" in out and "alice" not in out.split("Not counted")[0]
    with ResultStore.open_existing(db) as store:
        hellos = {record.hellos[record.bots.index("dave")] for record in store.records()
                  if record.hellos is not None}
    assert hellos == {("pick", "2.0")}  # the tables count version 2's games alone
    assert len(rows(db, "replaced_games")) == 3
    code, out, err = run_main(["results", str(db), "--bot", "dave", "--format", "json"])
    assert code == 0, err
    history = json.loads(out)["tables"]["replaced_games"]["rows"]
    assert [(row["version"], row["game"]) for row in history] == [
        (1, f"rage/d01/c-dave/t01/r{rotation}") for rotation in range(3)]
    assert all(Path(str(row["log"])).is_file() for row in history)
    logs = sorted(path.name for path in (db.parent / "class-logs").iterdir())
    assert set(first_logs) <= set(logs)  # the old version's logs stay beside its games
    assert sum(name.endswith(".v2.jsonl.gz") for name in logs) == 3, logs
    # the fix against version 1's game: --version 1 replays that game, where dave now
    # answers otherwise; without it, version 2's own game, which it passes
    game = "rage/d01/c-dave/t01/r0"
    seat = json.loads(rows(db)[game])["bots"].index("dave")
    code, out, err = run_main(["reproduce", str(db), game, "--seat", str(seat),
                               "--version", "1", "--sandbox", "off"])
    assert code == 1 and "as version 1 played it" in out, out + err
    code, out, err = run_main(["reproduce", str(db), game, "--seat", str(seat),
                               "--sandbox", "off"])
    assert code == 0, out + err
    assert_bad_input(["reproduce", str(db), game, "--seat", "0", "--version", "2"],
                     "no game 'rage/d01/c-dave/t01/r0' of a version 2 since replaced")

    code, _, err = gauntlet(db, f"alice={RANDOM}", dave)  # alice is back, unchanged
    assert code == 0 and to_play(err) == (6, 0), err
    assert {key: text for key, text in rows(db).items() if "c-alice" in key} == alice_games
    assert [row["bot"] for row in tables(db)["left_out"]] == ["dave"]


def test_a_round_robin_that_gains_a_bot_is_refused_saying_how_to_start_over(
        tmp_path: Path) -> None:
    db = tmp_path / "rr.sqlite"
    bots = [f"a={FIRST}", f"b={FIRST}", f"c={FIRST}"]
    code, _, err = run_main(["tournament", "rage", "--db", str(db), "--jobs", "1", *bots])
    assert code == 0, err
    before = db.read_bytes()
    code, out, err = run_main(["tournament", "rage", "--db", str(db), "--jobs", "1", *bots,
                               f"d={FIRST}"])
    assert code == 2 and out == "" and err.count("\n") == 1, err
    for words in ("referee: error:", "differs in bots", "round robin", "--restart",
                  "another --db"):
        assert words in err, err
    assert db.read_bytes() == before


def test_a_gauntlet_db_made_before_schema_3_reads_and_grows(tmp_path: Path) -> None:
    """tests/tournaments/data/gauntlet-schema-2.sqlite was made by referee 0.1.0 (schema
    2, ids numbering the bots): `gauntlet` with references ref=HEURISTIC and rnd=RANDOM,
    and candidates alice=RANDOM and bob=HEURISTIC."""
    db = tmp_path / "old.sqlite"
    shutil.copyfile(OLD_DB, db)
    with closing(sqlite3.connect(db)) as conn, conn:  # the bots' files as they are here
        for name, command in (("alice", RANDOM), ("bob", HEURISTIC), ("ref", HEURISTIC),
                              ("rnd", RANDOM)):
            conn.execute("UPDATE bots SET executable_sha256 = ?, script_sha256 = ? "
                         "WHERE name = ?", (file_sha256(Path(sys.executable).resolve()),
                                            file_sha256(Path(command.split()[1])), name))
    old = tables(db)
    assert [(row["bot"], row["games"]) for row in old["standings"]] == [("bob", 3),
                                                                         ("alice", 3)]
    assert "rage/d01/c01/t01/r0" in rows(db)
    code, out, err = run_main(["rerun", str(db), "rage/d01/c01/t01/r1"])  # its old ids
    assert code == 0 and "reproduced" in out, out + err
    code, out, err = gauntlet(db, f"alice={RANDOM}", f"bob={HEURISTIC}", f"carol={FIRST}",
                              references=["--reference", f"ref={HEURISTIC}", "--reference",
                                          f"rnd={RANDOM}"])
    assert code == 0 and to_play(err) == (9, 3), err
    stored = rows(db)
    assert sorted(stored) == sorted(f"rage/d01/c-{name}/t01/r{rotation}"
                                    for name in ("alice", "bob", "carol")
                                    for rotation in range(3))
    assert all(json.loads(text)["fixture_id"] == key for key, text in stored.items())
    grown = tables(db)
    assert [row for row in ranked(grown) if row[0] != "carol"] == ranked(old)
    assert {row["bot"]: row["version"] for row in grown["bots"]}["bob"] == 1


def test_the_default_db_of_a_gauntlet_made_before_keeps_being_found(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    spec = TournamentSpec.create("rage", (BotEntry("a", "x"), BotEntry("r", "y", True)))
    older = Path("results") / f"rage-{spec.full_fingerprint()[:10]}.sqlite"
    assert default_db_path(spec) != older
    older.parent.mkdir()
    older.write_bytes(b"")
    assert default_db_path(spec) == older


def spec_of(candidates: list[str], deals: int, size: int | None,
            game: str = "rage") -> TournamentSpec:
    bots = tuple(BotEntry(name, f"python {name}.py") for name in candidates)
    bots += (BotEntry("r1", "python r.py", True), BotEntry("r2", "python r.py", True),
             BotEntry("r3", "python r.py", True))
    return TournamentSpec.create(game, bots, deals=deals, size=size)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(["al", "bo", "cy", "di", "Ed.x", "f_g"]), min_size=2,
                max_size=6, unique=True), st.data(), st.integers(1, 3),
       st.sampled_from([("rage", 3), ("rage", 4), ("thegame", 1), ("thegame", 3)]))
def test_a_candidates_games_do_not_change_with_the_class(
        names: list[str], data: st.DataObject, deals: int, game_size: tuple[str, int]) -> None:
    """Another class (a candidate added or removed, the order changed) keeps each shared
    candidate's fixtures, and the references' solo deals: the same ids, deals, seeds, and
    bots in the same seats; and the same fingerprint, so the same db."""
    game, size = game_size
    other = data.draw(st.permutations(names[1:] + ["zed"]))
    specs = spec_of(names, deals, size, game), spec_of(list(other), deals, size, game)
    assert specs[0].fingerprint() == specs[1].fingerprint()

    def games(spec: TournamentSpec) -> dict[str, tuple[int, int, tuple[str, ...]]]:
        return {f.fixture_id: (f.deal, f.seed, tuple(spec.bot_names[b] for b in f.seats))
                for f in fixtures_for(spec, TEST_SECRET)}
    first, second = games(specs[0]), games(specs[1])
    shared = {key: value for key, value in first.items() if names[0] not in value[2]}
    assert shared == {key: value for key, value in second.items() if "zed" not in value[2]}
    assert any(names[1] in value[2] for value in shared.values())  # not vacuous
    frame_changed = specs[0].bots[:-1] + (BotEntry("r3", "python other.py", True),)
    assert TournamentSpec.create(game, frame_changed, deals=deals, size=size
                                 ).fingerprint() != specs[0].fingerprint()


def test_a_round_robins_fingerprint_is_its_whole_definition() -> None:
    spec = TournamentSpec.create("rage", (BotEntry("a", "x"), BotEntry("b", "y"),
                                          BotEntry("c", "z")))
    assert spec.fingerprint() == spec.full_fingerprint()  # older dbs keep resuming


def test_a_gauntlets_default_table_size_stays_as_its_class_grows() -> None:
    """A round robin of 3 bots sits at tables of 3; a gauntlet's default size must not
    follow its number of candidates, or a second student would make another tournament."""
    small, grown = spec_of(["al"], 1, None), spec_of(["al", "bo"], 1, None)
    assert small.size == grown.size == 4 and small.fingerprint() == grown.fingerprint()
    one_reference = (BotEntry("al", "x"), BotEntry("r", "y", True))
    assert TournamentSpec.create("rage", one_reference).size == 4


def test_a_changed_reference_is_refused_and_changes_nothing(tmp_path: Path) -> None:
    spec = spec_of(["al", "bo"], 1, 3)
    bots = [BotProvenance(bot.name, "reference" if bot.reference else "candidate",
                          bot.command, "/usr/bin/python3", None, BotHashes(f"{i:x}" * 64))
            for i, bot in enumerate(spec.bots)]
    db = tmp_path / "r.sqlite"
    with ResultStore(db, spec) as store:
        store.claim_bots(bots)
    rebuilt = replace(bots[2], hashes=BotHashes("f" * 64))  # r1, a reference
    before = db.read_bytes()
    with ResultStore(db, spec) as store, pytest.raises(ConfigError) as refused:
        store.claim_bots([*bots[:2], rebuilt, *bots[3:]])
    for words in ("bot 'r1' changed", "a reference sets every candidate's bar",
                  "--restart", "another --db"):
        assert words in str(refused.value)
    assert db.read_bytes() == before
    with ResultStore(db, spec) as store:  # a candidate's change is a new version
        claim = store.claim_bots([replace(bots[0], hashes=BotHashes("e" * 64)), *bots[1:]])
    assert claim.versions == {"al": 2, "bo": 1, "r1": 1, "r2": 1, "r3": 1}
    assert claim.replaced == (("al", 1, 0),)


def test_a_cooperative_class_keeps_the_references_solo_deals(tmp_path: Path) -> None:
    """The Game: a reference's solo deals are its baseline, played once for any class."""
    db = tmp_path / "coop.sqlite"

    def coop(*candidates: str) -> tuple[int, str, str]:
        return run_main(["tournament", "thegame", "--db", str(db), "--jobs", "1",
                         "--reference", "ref=python bots/thegame_heuristic.py", *candidates])
    code, _, err = coop("alice=python bots/thegame_random.py")
    assert code == 0 and to_play(err) == (3, 3), err  # two solo deals and one team
    solo = rows(db)["thegame/d01/solo/r-ref"]
    code, _, err = coop("bob=python bots/thegame_heuristic.py")  # alice left, bob came
    assert code == 0 and to_play(err) == (3, 2), err
    assert rows(db)["thegame/d01/solo/r-ref"] == solo
    shown = tables(db)
    assert [row["bot"] for row in shown["solo"]] == ["bob"]
    assert [row["team"] for row in shown["teams"]] == ["bob+ref"]
    assert [(row["bot"], row["games"]) for row in shown["left_out"]] == [("alice", 2)]


def test_a_students_game_is_found_by_their_name_as_typed(tmp_path: Path) -> None:
    """A game id keeps José as c-Jos%C3%A9 (fixtures.id_word); reproduce and rerun take
    the id as a teacher types it too, composed or not."""
    db = tmp_path / "class.sqlite"
    code, _, err = gauntlet(db, f"José={FIRST}")
    assert code == 0, err
    stored = [game for game in rows(db) if "c-Jos%C3%A9" in game]
    assert stored, rows(db)
    for typed in (stored[0].replace("Jos%C3%A9", "José"),
                  stored[0].replace("Jos%C3%A9", "Jose\u0301")):  # e + combining accent
        code, out, err = run_main(["rerun", str(db), typed, "--sandbox", "off"])
        assert code == 0 and "reproduced" in out, err
        code, out, err = run_main(["reproduce", str(db), typed, "--seat", "0",
                                   "--sandbox", "off"])
        assert code == 0, err
