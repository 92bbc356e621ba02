"""The `referee` command line: one click group, thin commands over library functions.

Bad input (bot counts, commands, variants, time values, files) ends with one line
`referee: error: ...` on standard error and exit code 2, never a traceback.
"""

from __future__ import annotations

import sys

import click

from referee import __version__
from referee.cli.arena import arena_group
from referee.cli.check import check_command
from referee.cli.errors import Stopped
from referee.cli.exit_codes import BAD_USAGE, FAILED, INTERRUPTED, TERMINATED, help_text
from referee.cli.gate import gate_command
from referee.cli.options import describe_os_error
from referee.cli.play import play
from referee.cli.remote import connect_command, keygen_command
from referee.cli.publish import publish_command
from referee.cli.replay import replay_command
from referee.cli.serve import serve_command
from referee.cli.reproduce import reproduce_command
from referee.cli.show import show_command
from referee.cli.stops import by_sigterm, ending, listen_for_stops
from referee.cli.tournament import rerun_command, results_command, tournament_command
from referee.cli.view import view_command
from referee.errors import BotStartError, ConfigError
from referee.processes.rlimits import raise_open_file_limit


class Commands(click.Group):
    """The `referee` commands; `tournament` is built when asked for, with the options of
    every game registered by then."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted([*super().list_commands(ctx), "tournament"])

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name == "tournament":
            return tournament_command()
        return super().get_command(ctx, name)


# no_args_is_help=False: without a command a group fails with "Missing command", which
# main() shows as one usage line, instead of a whole help page.
@click.group(cls=Commands, context_settings={"help_option_names": ["-h", "--help"]},
             no_args_is_help=False, epilog=help_text())
@click.version_option(__version__, prog_name="referee")
def cli() -> None:
    """Referee and round-robin tournament runner for card-game bots."""



cli.add_command(play)
cli.add_command(replay_command)
cli.add_command(reproduce_command)
cli.add_command(show_command)
cli.add_command(results_command)
cli.add_command(rerun_command)
cli.add_command(check_command)
cli.add_command(gate_command)
cli.add_command(view_command)
cli.add_command(keygen_command)
cli.add_command(connect_command)
cli.add_command(publish_command)
cli.add_command(serve_command)
cli.add_command(arena_group)


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the CLI; every error is one line, and every exit code is one of
    referee/cli/exit_codes.py's."""
    raise_open_file_limit()
    listen_for_stops()
    try:
        code = cli.main(args=argv, prog_name="referee", standalone_mode=False)
        if isinstance(code, int) and code:  # an Exit(code) comes back as the result here
            sys.exit(code)
    except click.exceptions.Exit as done:
        sys.exit(done.exit_code)
    except (click.Abort, KeyboardInterrupt) as stop:
        ending()  # before the line: nothing comes after it but the exit
        terminated = by_sigterm(stop)
        click.echo(f"referee: {'terminated' if terminated else 'aborted'}", err=True)
        sys.exit(TERMINATED if terminated else INTERRUPTED)
    except Stopped as stop:
        ending()
        click.echo(f"referee: {stop}", err=True)
        sys.exit(stop.exit_code)
    except click.UsageError as error:
        _error_line(usage_message(error), BAD_USAGE)
    except click.ClickException as error:
        _error_line(error.format_message(), error.exit_code)
    except (BotStartError, ConfigError) as error:
        _error_line(str(error), BAD_USAGE)
    except OSError as error:  # the machine, e.g. a full disk under the game log
        _error_line(describe_os_error(error), FAILED)


def usage_message(error: click.UsageError) -> str:
    """The error's message; for a group given no command, its usage in one line."""
    ctx = error.ctx
    # click's own words when a group is called without a command (no_args_is_help=False)
    if ctx is None or not isinstance(ctx.command, click.Group) or \
            error.format_message() != "Missing command.":
        return error.format_message()
    usage = " ".join(ctx.get_usage().split())
    commands = ", ".join(ctx.command.list_commands(ctx))
    return (f"missing command. {usage} (COMMAND: {commands}; "
            f"'{ctx.command_path} --help' explains)")


def _error_line(message: str, code: int) -> None:
    click.echo(f"referee: error: {' '.join(message.split())}", err=True)
    sys.exit(code)
