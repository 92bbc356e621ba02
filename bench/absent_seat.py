"""What an absent remote contestant costs a tournament: a Rage tournament of a remote seat
nobody connects for and two local bots, timed from start to end.

    python bench/absent_seat.py [DEALS] [STARTUP]

3 bots play 3 games a deal. Each game of the absent seat used to wait the whole start-up
time (STARTUP seconds, 10 by default, as `referee tournament` has it) for its HELLO, so
the tournament took at least games x STARTUP; now only its first game does, and each
later one faults that seat at once (referee/players/remote_seats.py, start_remote).
Prints the tournament's time, that old lower bound, and
`ratio absent_seat_vs_every_game_waited VALUE` (the time over the old bound: below 1 is
faster than the old way could ever be).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from referee.transport.curve_keys import write_key_pair  # noqa: E402


def main(deals: int, startup: float) -> None:
    with tempfile.TemporaryDirectory() as folder:
        here = Path(folder)
        write_key_pair("referee", here)
        write_key_pair("alice", here)
        bots = [f"python {ROOT / 'bots' / name}.py" for name in ("rage_random",
                                                                  "rage_heuristic")]
        began = time.monotonic()
        done = subprocess.run(
            [sys.executable, "-m", "referee", "tournament", "rage", "remote:alice=alice.pub",
             *bots, "--deals", str(deals), "--startup-time", f"{startup:g}",
             "--listen", "tcp://127.0.0.1:0", "--sandbox", "off", "--db", "cup.sqlite"],
            cwd=here, capture_output=True, text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT)})
        took = time.monotonic() - began
    if done.returncode != 0:
        sys.exit(f"the tournament failed ({done.returncode}):\n{done.stderr}")
    games = 3 * deals
    old = games * startup
    print(f"{games} games, start-up {startup:g} s, the remote seat absent: {took:.1f} s "
          f"(the old way: at least {old:g} s)")
    print(f"ratio absent_seat_vs_every_game_waited {took / old:.3f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3,
         float(sys.argv[2]) if len(sys.argv) > 2 else 10.0)
