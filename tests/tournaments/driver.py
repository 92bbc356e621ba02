"""Runs a small fake Rage tournament into a results db: `python -m tests.tournaments.driver
DB DELAY`. The resume test SIGKILLs it mid-run and runs it again."""

from __future__ import annotations

import sys

from tests.tournaments.fakes import FakeContext, fake_play, make_spec
from tournaments.run.runner import run_tournament
from tournaments.schedule.fixtures import fixtures_for
from tournaments.store.results_db import ResultStore

DRIVER_SPEC = make_spec(n_bots=5, deals=2, seed=11)  # 5 tables x 4 rotations x 2 deals


def main(db: str, delay: float) -> None:
    """Play every fixture not yet in `db`, two games at a time in worker processes."""
    with ResultStore(db, DRIVER_SPEC) as store:
        run_tournament(DRIVER_SPEC, fixtures_for(DRIVER_SPEC, store.deal_secret), store, fake_play,
                       FakeContext(DRIVER_SPEC.bot_names, delay), jobs=2)


if __name__ == "__main__":
    main(sys.argv[1], float(sys.argv[2]))
