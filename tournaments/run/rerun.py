"""`referee rerun DB GAME_ID`: play one stored game again, with its deal and seats, and say
whether it came out the same. With deterministic bots it must; a difference points at a
bot that changed, or one that plays by chance. Nothing stored is touched: the new game's
log goes to a folder of its own beside the db."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from referee.processes.sandbox import SandboxSettings
from tournaments.output.tables import NoScore
from tournaments.run.disqualify import disqualified_bots
from tournaments.run.fixture_play import close_worker_pool, play_context, play_fixture
from tournaments.store.provenance import BotProvenance, bots_provenance, short_hash
from tournaments.store.records import GameRecord
from tournaments.schedule.fixtures import fixtures_for
from tournaments.store.results_db import ResultStore


@dataclass(frozen=True)
class Rerun:
    stored: GameRecord
    replayed: GameRecord
    log: Path
    changed: tuple[str, ...] = ()  # the seats whose bot's files changed since, in words

    @property
    def reproduced(self) -> bool:
        return _result(self.stored) == _result(self.replayed)

    def verdict(self) -> str:
        if self.reproduced:
            said = (f"{self.stored.fixture_id}: reproduced (scores {_scores(self.stored)}, "
                    f"places {list(self.stored.places)}); log: {self.log}")
        else:
            said = (f"{self.stored.fixture_id}: differs: stored {_words(self.stored)}, now "
                    f"{_words(self.replayed)}; log: {self.log}")
        if self.changed:
            said += "\nnote: changed since the stored game: " + "; ".join(self.changed)
        return said


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
    changed = _changed(stored, bots_provenance(spec.bots, context.bots))
    logs = context.logs.with_name(context.logs.name + "-rerun")
    context = replace(context, logs=logs, secrets=(logs, *context.secrets))
    try:
        replayed = play_fixture(fixture, context)
    finally:
        close_worker_pool()
    return Rerun(stored, replayed, db_path.resolve().parent / (replayed.log_path or ""),
                 changed)


def _changed(stored: GameRecord, now: Sequence[BotProvenance]) -> tuple[str, ...]:
    """Each seat whose bot's files are not those the stored game recorded: "seat 2
    carol's script (sha256 1a2b3c4d5e6f then, 7a8b9c0d1e2f now)". A difference of
    result then points at them, not at chance."""
    if stored.hashes is None:  # a record older than the bots' files were kept
        return ()
    current = {bot.name: bot.hashes for bot in now}
    said = []
    for seat, (name, then) in enumerate(zip(stored.bots, stored.hashes)):
        hashes = current.get(name)
        if hashes is None:
            continue
        for part in ("executable", "script"):
            old, new = getattr(then, part), getattr(hashes, part)
            if old != new:
                said.append(f"seat {seat} {name}'s {part} (sha256 {short_hash(old)} then, "
                            f"{short_hash(new)} now)")
    return tuple(said)


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
