"""Running the `referee` command line in-process with click's CliRunner, and the bad-input
contract every command keeps.

`CliRunner.invoke` would call the click group directly and so skip `main()`, which turns
every error into one `referee: error:` line and an exit code: the contract under test.
So `main()` itself runs inside the runner's isolation (the standard streams and the
environment that `invoke` gives a command too).
"""

from __future__ import annotations

import os
import signal
import sys

from click.testing import CliRunner

from referee.cli.main import main


def run_main(args: list[str] | None) -> tuple[int, str, str]:
    """Exit code, stdout and stderr of `referee ARGS` run through main(); None: main()
    reads sys.argv, as the installed entry point calls it."""
    handlers = {signum: signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM)}
    with CliRunner().isolation() as (out, err, _):
        try:
            main(args)
            code = 0
        except SystemExit as done:
            code = exit_code(done)
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            for signum, handler in handlers.items():  # main()'s are for a process of its own
                if handler is not None:
                    signal.signal(signum, handler)
        return code, out.getvalue().decode(), err.getvalue().decode()


def exit_code(done: SystemExit) -> int:
    """The process exit code a SystemExit stands for."""
    if done.code is None:
        return 0
    return done.code if isinstance(done.code, int) else 1


def assert_bad_input(args: list[str], *words: str) -> None:
    """Exit 2, exactly one line on stderr that says what is wrong, nothing on stdout."""
    code, out, err = run_main(args)
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("referee: error: "), err
    assert "Traceback" not in err and out == ""
    for word in words:
        assert word in lines[0], lines[0]


def running_with(marker: str, besides: int | None = None) -> bool:
    """Whether a live process other than `besides` has `marker` in its command line
    (sandboxed ones too: the host's /proc sees into every PID namespace)."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == besides:
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                if marker.encode() in f.read():
                    return True
        except OSError:
            continue
    return False
