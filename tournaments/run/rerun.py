"""`referee rerun DB GAME_ID`: play one stored game again, with its deal and seats, and say
whether it came out the same. With deterministic bots it must; a difference points at a
bot that changed, or one that plays by chance. Nothing stored is touched: the new game's
log goes to a folder of its own beside the db."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from referee.processes.sandbox import SandboxSettings
from tournaments.output.tables import NoScore
from tournaments.run.disqualify import disqualified_bots
from tournaments.run.fixture_play import close_worker_pool, play_context, play_fixture
from tournaments.store.records import GameRecord
from tournaments.schedule.fixtures import fixtures_for
from tournaments.store.results_db import ResultStore


@dataclass(frozen=True)
class Rerun:
    stored: GameRecord
    replayed: GameRecord
    log: Path

    @property
    def reproduced(self) -> bool:
        return _result(self.stored) == _result(self.replayed)

    def verdict(self) -> str:
        if self.reproduced:
            return (f"{self.stored.fixture_id}: reproduced (scores {_scores(self.stored)}, "
                    f"places {list(self.stored.places)}); log: {self.log}")
        return (f"{self.stored.fixture_id}: differs: stored {_words(self.stored)}, now "
                f"{_words(self.replayed)}; log: {self.log}")


def rerun(db_path: Path, fixture_id: str, sandbox: SandboxSettings) -> Rerun:
    """Play the stored game `fixture_id` of the db again, with bots of its own. ConfigError if it has none."""
    with ResultStore.open_existing(db_path) as store:
        spec, secret, legacy_ids = store.spec, store.deal_secret, store.legacy_ids
        stored = store.stored_game(fixture_id)
    fixture = next(f for f in fixtures_for(spec, secret, legacy_ids)
                   if f.fixture_id == stored.fixture_id)
    # A bot disqualified then is seated so again: no process of it played that game.
    fixture = replace(fixture, disqualified=disqualified_bots(stored, spec.bot_names))
    context = play_context(spec, db_path, sandbox=sandbox)
    logs = context.logs.with_name(context.logs.name + "-rerun")
    context = replace(context, logs=logs, secrets=(logs, *context.secrets))
    try:
        replayed = play_fixture(fixture, context)
    finally:
        close_worker_pool()
    return Rerun(stored, replayed, db_path.resolve().parent / (replayed.log_path or ""))


def _result(record: GameRecord) -> tuple[object, ...]:
    return (record.scores, record.places, tuple((f.seat, f.kind) for f in record.faults))


def _words(record: GameRecord) -> str:
    faults = ", ".join(f"seat {f.seat} {f.kind.value}" for f in record.faults) or "no fault"
    return f"scores {_scores(record)}, places {list(record.places)}, {faults}"


def _scores(record: GameRecord) -> str:
    """Each seat's score, a faulted seat's as "— (kind)": its points are the fallback's."""
    faulted = {fault.seat: fault.kind.value for fault in record.faults}
    return "[" + ", ".join(str(NoScore(faulted[seat])) if seat in faulted else str(score)
                           for seat, score in enumerate(record.scores)) + "]"
