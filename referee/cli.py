"""The `referee` command line: one click group, thin commands over library functions.

Bad input (bot counts, commands, variants, time values, files) ends with one line
`referee: error: ...` on standard error and exit code 2, never a traceback.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Sequence

import click

from referee import __version__, bounds
from referee.bounds import Bound
from referee.bot_process import raise_open_file_limit
from referee.errors import BotStartError, ConfigError, Fault
from referee.games.rage import RageConfig, Variant
from referee.games.thegame import TheGameConfig
from referee.games.thegame_commands import DEFAULT_COMMANDS, CommandMap, load_command_map
from referee.lineup import LaunchSettings, bot_specs
from referee.processes.sandbox import SandboxMode, SandboxSettings, auto_warning
from referee.play import LogOptions, play_rage, play_thegame
from referee.replay import ReplayMismatch, replay
from referee.settings import ResourceLimits, TimeLimits
from referee.writable import check_writable_file

Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]


class Bounded(click.ParamType):  # type: ignore[type-arg, unused-ignore]
    """A number within a `referee.bounds.Bound`: the same rule as in tournament files."""

    def __init__(self, bound: Bound) -> None:
        self.bound = bound
        self.name = bound.unit or ("integer" if bound.integer else "number")

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> int | float | None:
        try:  # a default, or a value given as a number by a caller, is no string
            return self.bound.parse(value) if isinstance(value, str) else self.bound.check(value)
        except ValueError as error:
            self.fail(str(error), param, ctx)


class Seconds(Bounded):
    """A finite number of seconds, greater than zero (or >= 0 where `allow_zero`)."""

    def __init__(self, allow_zero: bool = False) -> None:
        super().__init__(bounds.BANK_SECONDS if allow_zero else bounds.MOVE_SECONDS)


class LogPath(click.ParamType):  # type: ignore[type-arg, unused-ignore]
    """A file the game log can be written to, checked before any bot starts."""

    name = "path"

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Path:
        path = Path(value)
        try:
            check_writable_file(path)
        except OSError as error:
            if error.filename == str(path):
                error.filename = None  # already named
            self.fail(f"cannot write {path}: {describe_os_error(error)}", param, ctx)
        return path


def _compose(*decorators: Decorator) -> Decorator:
    def apply(function: Callable[..., Any]) -> Callable[..., Any]:
        for decorator in reversed(decorators):
            function = decorator(function)
        return function
    return apply


bot_limit_options = _compose(
    click.option("--startup-time", type=Seconds(), default=10.0, show_default=True,
                 help="Seconds for a bot to start and say HELLO."),
    click.option("--move-time", type=Seconds(), default=1.0, show_default=True,
                 help="Seconds per request."),
    click.option("--time-bank", type=Seconds(allow_zero=True), default=0.0, show_default=True,
                 help="Extra seconds per game, spent on replies later than --move-time."),
    click.option("--max-memory", type=Bounded(bounds.MEMORY_MIB), default=2048,
                 show_default=True, help="Memory limit per bot, MiB (16 to 1048576, or "
                                         "unlimited): all its processes together where "
                                         "a cgroup holds it, else each one's address "
                                         "space."),
    click.option("--max-cpu", type=Bounded(bounds.CPU_SECONDS), default=3600,
                 show_default=True, help="CPU-time limit per bot process, seconds "
                                         "(or unlimited)."),
    click.option("--max-procs", type=Bounded(bounds.PROCESSES), default=256,
                 show_default=True, help="Processes a bot may start (or unlimited). "
                                         "Without a cgroup, not enforced for root."),
    click.option("--transport", type=click.Choice(["ipc", "tcp"]), default="ipc",
                 show_default=True, help="ZeroMQ transport between referee and bots."),
    click.option("--busy-wait-us", type=Bounded(bounds.BUSY_WAIT_US), default=None,
                 help="Microseconds a wait for a bot polls before it sleeps: faster games "
                      "with fast bots, for some CPU. 0: never (use it when several games "
                      "share the CPUs: there polling gains nothing). Default: 200 where the referee may use more than "
                      "one CPU, else 0."),
)

sandbox_options = _compose(
    click.option("--sandbox", type=click.Choice([m.value for m in SandboxMode]),
                 default="auto", show_default=True,
                 help="Run each bot in its own bubblewrap sandbox. auto: where it works "
                      "(else one warning); on: refuse to run without it; off: trusted "
                      "bots only (they can see and touch each other and the referee)."),
    click.option("--sandbox-dir", "sandbox_dirs", multiple=True,
                 type=click.Path(exists=True, file_okay=False, path_type=Path),
                 help="Another folder sandboxed bots may read (repeatable), e.g. a JDK "
                      "under /opt. The system, the bot's own folder and the referee's "
                      "Python are always readable."),
)


def sandbox_settings(sandbox: str, sandbox_dirs: Sequence[Path]) -> SandboxSettings:
    """--sandbox and --sandbox-dir; under auto, one warning line where bwrap won't run."""
    mode = SandboxMode(sandbox)
    warning = auto_warning() if mode is SandboxMode.AUTO else None
    if warning is not None:
        click.echo(f"referee: warning: {warning}", err=True)
    return SandboxSettings(mode, extra_dirs=tuple(p.resolve() for p in sandbox_dirs))


game_options = _compose(
    click.option("--seed", type=Bounded(bounds.SEED), default=None,
                 help="Seed of the deal, printed (default: a secret random one, "
                      "written only to the --log)."),
    click.option("--log", "log_path", type=LogPath(),
                 default=None, help="Write the JSON Lines game log here."),
    click.option("--log-times/--no-log-times", default=True, show_default=True,
                 help="Timestamps in the log (off: the log is byte-reproducible)."),
)


def launch_settings(startup_time: float, move_time: float, time_bank: float,
                    max_memory: int | None, max_cpu: int | None, max_procs: int | None,
                    transport: str, busy_wait_us: int | None = None) -> LaunchSettings:
    """Bot launch settings from the shared command-line options."""
    return LaunchSettings(TimeLimits(startup_time, move_time, time_bank),
                          ResourceLimits(max_memory, max_cpu, max_procs), transport,
                          busy_wait=busy_wait_seconds(busy_wait_us))


def busy_wait_seconds(microseconds: int | None) -> float | None:
    """--busy-wait-us as seconds; None stays None (the default for the CPUs)."""
    return None if microseconds is None else microseconds / 1e6


# no_args_is_help=False: without a command a group fails with "Missing command", which
# main() shows as one usage line, instead of a whole help page.
@click.group(context_settings={"help_option_names": ["-h", "--help"]}, no_args_is_help=False)
@click.version_option(__version__, prog_name="referee")
def cli() -> None:
    """Referee and round-robin tournament runner for card-game bots."""


@cli.group(no_args_is_help=False)
def play() -> None:
    """Referee one game between bots. A BOT is a command line, or stdio:COMMAND."""


@play.command("rage")
@click.argument("bots", nargs=-1, required=True)
@click.option("--variant", "variants", multiple=True,
              type=click.Choice([v.value for v in Variant]),
              help="A rule variant (repeatable).")
@game_options
@bot_limit_options
@sandbox_options
def play_rage_command(bots: tuple[str, ...], variants: tuple[str, ...], seed: int | None,
                      log_path: Path | None, log_times: bool, sandbox: str,
                      sandbox_dirs: tuple[Path, ...], **limits: Any) -> None:
    """Referee one game of Rage between 3 and 8 BOTs."""
    if not 3 <= len(bots) <= 8:
        raise click.UsageError(f"Rage needs 3 to 8 bots, got {len(bots)}")
    config = RageConfig(len(bots), frozenset(Variant(v) for v in variants))
    launch = _play_launch(limits, sandbox, sandbox_dirs, log_path)
    result = play_rage(bot_specs(bots), config, seed, launch,
                       LogOptions(log_path, log_times), click.echo)
    report_faults(result.faults)


@play.command("thegame")
@click.argument("bots", nargs=-1, required=True)
@click.option("--no-commands", is_flag=True, help="Play the original The Game (no command cards).")
@click.option("--commands", "commands_file", type=click.Path(dir_okay=False, path_type=Path),
              default=None, help="TOML file mapping card numbers to commands.")
@game_options
@bot_limit_options
@sandbox_options
def play_thegame_command(bots: tuple[str, ...], no_commands: bool, commands_file: Path | None,
                         seed: int | None, log_path: Path | None, log_times: bool,
                         sandbox: str, sandbox_dirs: tuple[Path, ...],
                         **limits: Any) -> None:
    """Referee one cooperative game of The Game Extreme for 1 to 5 BOTs."""
    if not 1 <= len(bots) <= 5:
        raise click.UsageError(f"The Game needs 1 to 5 bots, got {len(bots)}")
    config = TheGameConfig(len(bots), command_map(no_commands, commands_file))
    launch = _play_launch(limits, sandbox, sandbox_dirs, log_path)
    result = play_thegame(bot_specs(bots), config, seed, launch,
                          LogOptions(log_path, log_times), click.echo)
    report_faults(result.faults)


def _play_launch(limits: dict[str, Any], sandbox: str, sandbox_dirs: Sequence[Path],
                 log_path: Path | None) -> LaunchSettings:
    """`play`'s launch settings: no bot may see the game log."""
    secrets = (log_path.resolve(),) if log_path is not None else ()
    return replace(launch_settings(**limits), sandbox=sandbox_settings(sandbox, sandbox_dirs),
                   secrets=secrets)


def report_faults(faults: Sequence[Fault]) -> None:
    """Diagnostics: each fault on standard error, with the offending line."""
    for fault in faults:
        line = f" (line: {fault.line[:120]!r})" if fault.line is not None else ""
        click.echo(f"referee: fault: seat {fault.seat} {fault.bot}: {fault.kind.value}: "
                   f"{fault.detail}{line}", err=True)


def command_map(no_commands: bool, path: Path | None) -> CommandMap | None:
    """The command cards in play: none, a loaded mapping, or the shipped default."""
    if no_commands and path is not None:
        raise click.UsageError("--no-commands and --commands exclude each other")
    if no_commands:
        return None
    return load_command_map(path) if path is not None else DEFAULT_COMMANDS


@cli.command("replay")
@click.argument("log_path", metavar="LOG", type=click.Path(exists=True, dir_okay=False,
                                                           path_type=Path))
def replay_command(log_path: Path) -> None:
    """Re-verify a game log: replay its seed and moves and check the logged result."""
    try:
        click.echo(replay(log_path))
    except ReplayMismatch as mismatch:
        raise click.ClickException(str(mismatch)) from None


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the CLI; every error is one line. Exit codes: 0 done, 1 a failure
    while running (damaged results db, disk, workers, referee bug), 2 bad usage or input,
    130 interrupted."""
    raise_open_file_limit()
    try:
        cli.main(args=argv, prog_name="referee", standalone_mode=False)
    except click.exceptions.Exit as done:
        sys.exit(done.exit_code)
    except click.Abort:
        click.echo("referee: aborted", err=True)
        sys.exit(130)
    except click.UsageError as error:
        _error_line(usage_message(error), 2)
    except click.ClickException as error:
        _error_line(error.format_message(), error.exit_code)
    except (BotStartError, ConfigError) as error:
        _error_line(str(error), 2)
    except OSError as error:  # the machine, e.g. a full disk under the game log
        _error_line(describe_os_error(error), 1)


def describe_os_error(error: OSError) -> str:
    """'why: file' without Python's [Errno N] prefix."""
    why = error.strerror or str(error)
    return f"{why}: {error.filename}" if error.filename else why


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


from referee import cli_tournament  # noqa: E402  (it uses the options defined above)

cli.add_command(cli_tournament.tournament_command)
cli.add_command(cli_tournament.results_command)
