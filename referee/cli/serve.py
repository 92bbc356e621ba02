"""`referee serve DB`: the results and the games in progress of a tournament, live, in a
browser (docs/viewer.md, "Watching a running tournament")."""

from __future__ import annotations

import errno
from pathlib import Path

import click

from referee.cli.errors import Stopped
from referee.cli.exit_codes import INTERRUPTED, TERMINATED
from referee.cli.stops import by_sigterm
from referee.errors import ConfigError
from referee.serve.server import LiveServer, loopback
from referee.serve.watch import Watch, announced

LOCALHOST = "127.0.0.1"


@click.command("serve")
@click.argument("db_path", metavar="DB", type=click.Path(exists=True, dir_okay=False,
                                                          path_type=Path))
@click.option("--port", type=click.IntRange(0, 65535), default=8080, show_default=True,
              help="The port (0: any free one, printed).")
@click.option("--host", default=LOCALHOST, show_default=True,
              help="The address to serve on. Another than 127.0.0.1 exposes, with no "
                   "login, to whoever reaches it: the standings, and every game, in "
                   "progress or ended, as the organiser sees it (every hand, each bot's "
                   "command, lines and LOG lines) unless --public.")
@click.option("--public", is_flag=True,
              help="Show every game as a spectator sees it: no hand, seed, bot's line "
                   "or LOG line, each decision only as the move it made; and the "
                   "results without the bots' stderr. For a live view that contestants "
                   "reach while their remote bots play.")
def serve_command(db_path: Path, port: int, host: str, public: bool) -> None:
    """Serve a tournament's results page, updated as games finish, and every game in
    progress, step by step as it is played, read-only. Run it beside a tournament on
    DB once DB exists (the tournament has started, or an earlier run made it): it
    follows the run, also when it is resumed; Ctrl-C stops it."""
    watch = Watch(db_path, public)
    watch.tables()  # a file that is no results db: one error line, before serving
    if not public and not loopback(host):
        click.echo(f"referee serve: warning: every hand of every game, in progress too, "
                   f"is shown to whoever reaches {host}; --public shows what a spectator "
                   "sees", err=True)
    try:
        server = LiveServer((host, port), watch)
    except OSError as error:
        why = "address already in use" if error.errno == errno.EADDRINUSE else \
            error.strerror or str(error)
        raise ConfigError(f"cannot serve on {host}:{port}: {why}") from None
    try:
        with announced(watch):
            click.echo(f"referee serve: {server.url()} ({db_path}); Ctrl-C stops",
                       err=True)
            server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt as stop:  # how a server always ends: said so, not "aborted"
        by = "SIGTERM" if by_sigterm(stop) else "Ctrl-C"
        raise Stopped(f"serve: stopped by {by}; a tournament writing {db_path} plays on",
                      TERMINATED if by == "SIGTERM" else INTERRUPTED) from None
    finally:
        server.stop()
