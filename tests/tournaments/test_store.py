"""The SQLite results store: one committed row per game, resume, refusing other tournaments."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from referee.errors import ConfigError
from referee.games.thegame.definition import THEGAME
from tournaments.schedule.fixtures import fixtures_for
from tournaments.store.results_db import ResultStore, default_db_path, logs_dir
from tests.tournaments.fakes import TEST_SECRET, FakeContext, fake_play, make_spec

SPEC = make_spec(n_bots=4, deals=2, seed=3)
FIXTURES = fixtures_for(SPEC, TEST_SECRET)
CONTEXT = FakeContext(SPEC.bot_names)


def rows_seen_by_another_connection(path: Path) -> int:
    with sqlite3.connect(path) as other:
        return int(other.execute("SELECT count(*) FROM games").fetchone()[0])


def test_each_add_is_committed_at_once(tmp_path: Path) -> None:
    db = tmp_path / "deep" / "er" / "r.sqlite"
    with ResultStore(db, SPEC) as store:
        assert rows_seen_by_another_connection(db) == 0
        for count, fixture in enumerate(FIXTURES[:3], start=1):
            assert store.add(fake_play(fixture, CONTEXT))
            assert rows_seen_by_another_connection(db) == count  # store still open


def test_records_come_back_in_fixture_order_whatever_the_completion_order(
        tmp_path: Path) -> None:
    records = [fake_play(fixture, CONTEXT) for fixture in FIXTURES]
    with ResultStore(tmp_path / "r.sqlite", SPEC) as store:
        for record in reversed(records):
            store.add(record)
        assert store.records() == records


def test_resume_sees_what_was_done(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    with ResultStore(db, SPEC) as store:
        for fixture in FIXTURES[:5]:
            store.add(fake_play(fixture, CONTEXT))
    with ResultStore(db, SPEC) as again:
        assert again.done() == {fixture.fixture_id for fixture in FIXTURES[:5]}
        assert again.fingerprint == SPEC.fingerprint()


def test_duplicate_fixture_is_not_counted_twice(tmp_path: Path) -> None:
    record = fake_play(FIXTURES[0], CONTEXT)
    with ResultStore(tmp_path / "r.sqlite", SPEC) as store:
        assert store.add(record) is True
        assert store.add(record) is False
        assert store.records() == [record]
        assert store.add(fake_play(FIXTURES[1], CONTEXT)) is True  # still usable
        assert len(store.records()) == 2


def test_refuses_a_different_definition(tmp_path: Path) -> None:
    db = tmp_path / "x.sqlite"
    ResultStore(db, SPEC).close()
    other = make_spec(n_bots=4, deals=3, seed=3)
    with pytest.raises(ConfigError) as caught:
        ResultStore(db, other)
    message = str(caught.value)
    assert str(db) in message and "different tournament" in message
    assert "deals" in message and "--restart starts over" in message and "another --db" in message


def test_fresh_bots_is_not_part_of_the_definition(tmp_path: Path) -> None:
    """Restarting bots for every game changes how games are run, not which: a db made
    without it resumes with it (a different definition would raise ConfigError)."""
    db = tmp_path / "x.sqlite"
    fresh = make_spec(n_bots=4, deals=2, seed=3, fresh_bots=True)
    assert fresh != SPEC and fresh.fingerprint() == SPEC.fingerprint()
    with ResultStore(db, SPEC) as store:
        store.add(fake_play(FIXTURES[0], CONTEXT))
    with ResultStore(db, fresh) as again:
        assert again.done() == {FIXTURES[0].fixture_id}
        assert again.records() == [fake_play(FIXTURES[0], CONTEXT)]


def test_unknown_fixture_is_refused(tmp_path: Path) -> None:
    foreign = fake_play(fixtures_for(make_spec(n_bots=6), TEST_SECRET)[-1],
                        FakeContext(tuple("abcdef")))
    with ResultStore(tmp_path / "r.sqlite", SPEC) as store, \
            pytest.raises(ValueError, match="not a fixture"):
        store.add(foreign)


def test_open_existing_takes_the_stored_definition(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    with ResultStore(db, SPEC) as store:
        store.add(fake_play(FIXTURES[2], CONTEXT))
    with ResultStore.open_existing(db) as opened:
        assert opened.spec == SPEC
        assert opened.records() == [fake_play(FIXTURES[2], CONTEXT)]


def test_open_existing_refuses_missing_empty_and_foreign_files(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        ResultStore.open_existing(tmp_path / "none.sqlite")
    (tmp_path / "empty.sqlite").touch()
    with pytest.raises(ConfigError, match="holds no tournament"):
        ResultStore.open_existing(tmp_path / "empty.sqlite")
    (tmp_path / "text.sqlite").write_text("hello, this is not a database at all" * 100)
    with pytest.raises(ConfigError, match="not a results db"):
        ResultStore.open_existing(tmp_path / "text.sqlite")
    with sqlite3.connect(tmp_path / "foreign.sqlite") as foreign:
        foreign.execute("CREATE TABLE people (name TEXT)")
    with pytest.raises(ConfigError, match="not a results db"):
        ResultStore(tmp_path / "foreign.sqlite", SPEC)


def test_default_paths() -> None:
    path = default_db_path(SPEC)
    assert path == Path("results") / f"rage-{SPEC.fingerprint()[:10]}.sqlite"
    assert default_db_path(make_spec(THEGAME, n_bots=2)).name.startswith("thegame-")
    assert logs_dir(Path("results/rage-abc.sqlite")) == Path("results/rage-abc-logs")


def test_the_game_records_round_trip(tmp_path: Path) -> None:
    spec = make_spec(THEGAME, n_bots=3, deals=2)
    records = [fake_play(fixture, FakeContext(spec.bot_names))
               for fixture in fixtures_for(spec, TEST_SECRET)]
    with ResultStore(tmp_path / "g.sqlite", spec) as store:
        for record in records:
            store.add(record)
        assert store.records() == records


def test_each_new_db_gets_its_own_secret_and_keeps_it(tmp_path: Path) -> None:
    """Same public definition and seed, two fresh dbs: two secrets, so other deals; the
    db opened again (resume, `referee results`) gives back its own."""
    with ResultStore(tmp_path / "a.sqlite", SPEC) as a, \
            ResultStore(tmp_path / "b.sqlite", SPEC) as b:
        secret_a, secret_b = a.deal_secret, b.deal_secret
    assert len(secret_a) == len(secret_b) == 32 and secret_a != secret_b
    seeds_a = {f.seed for f in fixtures_for(SPEC, secret_a)}
    assert seeds_a.isdisjoint(f.seed for f in fixtures_for(SPEC, secret_b))
    with ResultStore(tmp_path / "a.sqlite", SPEC) as again:
        assert again.deal_secret == secret_a
        assert fixtures_for(SPEC, again.deal_secret) == fixtures_for(SPEC, secret_a)
    with ResultStore.open_existing(tmp_path / "a.sqlite") as opened:
        assert opened.deal_secret == secret_a


def test_a_db_without_a_secret_is_readable_but_not_resumed(tmp_path: Path) -> None:
    """A db made before deals were secret: its tables still print, but playing on would
    deal from the public seed alone."""
    db = tmp_path / "old.sqlite"
    with ResultStore(db, SPEC) as store:
        store.add(fake_play(FIXTURES[0], CONTEXT))
    with sqlite3.connect(db) as conn:
        conn.execute("DELETE FROM meta WHERE key = 'deal_secret'")
    with ResultStore.open_existing(db) as opened:
        assert opened.records() == [fake_play(FIXTURES[0], CONTEXT)]
    with ResultStore(db, SPEC) as store, pytest.raises(ConfigError, match="older referee"):
        store.deal_secret
