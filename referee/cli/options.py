"""Options and parameter types that several `referee` commands share."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Sequence

import click

from referee import bounds
from referee.bounds import Bound
from referee.matches.game import GameDefinition, GameOption, OptionError, OptionKind, Options
from referee.players.lineup import LaunchSettings
from referee.processes.sandbox import (
    SandboxMode, SandboxSettings, auto_warning, weakness_warning)
from referee.settings import ResourceLimits, TimeLimits
from protocols.clock import Clock
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


def compose(*decorators: Decorator) -> Decorator:
    def apply(function: Callable[..., Any]) -> Callable[..., Any]:
        for decorator in reversed(decorators):
            function = decorator(function)
        return function
    return apply


# The limits a game's bots play under: `play`, `check`, `tournament` and the settings of
# `arena init` take them with the same names, defaults and bounds.
time_limit_options = compose(
    click.option("--startup-time", type=Seconds(), default=10.0, show_default=True,
                 help="Seconds for a bot to start and say HELLO."),
    click.option("--move-time", type=Seconds(), default=1.0, show_default=True,
                 help="Seconds per request."),
    click.option("--time-bank", type=Seconds(allow_zero=True), default=0.0, show_default=True,
                 help="Extra seconds per game, spent on replies later than --move-time."),
    click.option("--clock", type=click.Choice([c.value for c in Clock]), default="wall",
                 show_default=True,
                 help="What --move-time and --time-bank count. wall: seconds on the "
                      "referee's clock. cpu: CPU seconds of all the bot's processes (its "
                      "cgroup's; needs a sandbox and a cgroup), so waiting for a CPU costs "
                      "nothing, with a wall-clock cap per request of 10 times its CPU "
                      "allowance (move time + bank left), at least 5 s more."),
)

resource_limit_options = compose(
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
)

bot_limit_options = compose(
    time_limit_options,
    resource_limit_options,
    click.option("--transport", type=click.Choice(["ipc", "tcp"]), default="ipc",
                 show_default=True, help="ZeroMQ transport between referee and bots."),
    click.option("--busy-wait-us", type=Bounded(bounds.BUSY_WAIT_US), default=None,
                 help="Microseconds a wait for a bot polls before it sleeps: faster games "
                      "with fast bots, for some CPU. 0: never (use it when several games "
                      "share the CPUs: there polling gains nothing). Default: 200 where the referee may use more than "
                      "one CPU, else 0."),
)

sandbox_options = compose(
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


class BotDir(click.ParamType):  # type: ignore[type-arg, unused-ignore]
    """`--bot-dir NAME=DIR`: the folder the bot named NAME is shown in its sandbox."""

    name = "NAME=DIR"

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> tuple[str, Path]:
        if isinstance(value, tuple):
            return value  # a default, already converted
        name, equals, folder = str(value).partition("=")
        if not equals or not name or not folder:
            self.fail(f"{value!r} is not NAME=DIR (NAME: the bot's name in the tables)",
                      param, ctx)
        if not Path(folder).is_dir():
            self.fail(f"{folder!r} is not a folder", param, ctx)
        return name, Path(folder).resolve()


bot_dir_option = click.option(
    "--bot-dir", "bot_dirs", multiple=True, type=BotDir(), metavar="NAME=DIR",
    help="The folder of the bot named NAME (its NAME=COMMAND name, else the one shown in "
         "the tables), which its sandbox shows it instead of the one its command tells "
         "(repeatable). Needed where the command line does not tell it, e.g. java -cp "
         "with entries in several folders.")


def declared_dirs(pairs: Sequence[tuple[str, Path]]) -> dict[str, Path]:
    """--bot-dir's NAME=DIR pairs by name; a name given twice is a usage error."""
    folders: dict[str, Path] = {}
    for name, folder in pairs:
        if name in folders:
            raise click.UsageError(f"--bot-dir gives {name!r} two folders")
        folders[name] = folder
    return folders


def sandbox_settings(sandbox: str, sandbox_dirs: Sequence[Path],
                     clock: Clock = Clock.WALL) -> SandboxSettings:
    """--sandbox and --sandbox-dir; under auto, one warning line where bwrap won't run
    (none under --clock cpu, which then refuses to run with one error line), or where
    it runs without the seccomp filter (referee.processes.sandbox.weakness_warning)."""
    mode = SandboxMode(sandbox)
    warnings = [auto_warning() if clock is Clock.WALL else None, weakness_warning()] \
        if mode is SandboxMode.AUTO else []
    for warning in filter(None, warnings):
        click.echo(f"referee: warning: {warning}", err=True)
    return SandboxSettings(mode, extra_dirs=tuple(p.resolve() for p in sandbox_dirs))


# `--fail-on-fault`: a run in which any bot faulted exits with this (CI gates on it).
FAULTED_EXIT = 1
fail_on_fault_option = click.option(
    "--fail-on-fault", is_flag=True,
    help=f"Exit with {FAULTED_EXIT} if any bot faulted (the results are kept as usual).")

game_options = compose(
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
                    transport: str, busy_wait_us: int | None = None,
                    clock: str = Clock.WALL.value) -> LaunchSettings:
    """Bot launch settings from the shared command-line options."""
    return LaunchSettings(TimeLimits(startup_time, move_time, time_bank, clock=Clock(clock)),
                          ResourceLimits(max_memory, max_cpu, max_procs), transport,
                          busy_wait=busy_wait_seconds(busy_wait_us))


def busy_wait_seconds(microseconds: int | None) -> float | None:
    """--busy-wait-us as seconds; None stays None (the default for the CPUs)."""
    return None if microseconds is None else microseconds / 1e6




def describe_os_error(error: OSError) -> str:
    """'why: file' without Python's [Errno N] prefix."""
    why = error.strerror or str(error)
    return f"{why}: {error.filename}" if error.filename else why


def per_game_options(game: GameDefinition[Any, Any], prefix: str = "") -> Decorator:
    """A game's own options as click options (help led by `prefix`, e.g. "Rage: ")."""
    return compose(*(_click_option(option, prefix) for option in game.options))


def _click_option(option: GameOption, prefix: str) -> Decorator:
    help_text = prefix + option.help
    if option.kind is OptionKind.CHOICES:
        return click.option(option.flag, option.name, multiple=True,
                            type=click.Choice(option.choices), help=help_text)
    if option.kind is OptionKind.FLAG:
        return click.option(option.flag, option.name, is_flag=True, help=help_text)
    return click.option(option.flag, option.name, default=None, help=help_text,
                        type=click.Path(exists=True, dir_okay=False, path_type=Path))


def given_options(game: GameDefinition[Any, Any], values: dict[str, Any]) -> dict[str, Any]:
    """Take the game's options out of a command's keyword arguments: those given."""
    given = {}
    for option in game.options:
        value = values.pop(option.name, option.default)
        if value != option.default:
            given[option.name] = value
    return given


def option_values(game: GameDefinition[Any, Any], values: dict[str, Any]) -> Options:
    """The game's options from a command's keyword arguments (taken out of them), checked;
    a bad combination is a usage error in the words of the command line."""
    try:
        options = Options.of(game, given_options(game, values))
        game.check_options(options)
    except OptionError as error:
        raise click.UsageError(option_message(game, error)) from None
    return options


def option_message(game: GameDefinition[Any, Any], error: OptionError) -> str:
    """An OptionError in the command line's words: flags, not file keys."""
    flags = {option.name: option.flag for option in game.options}
    if error.other is not None:
        return f"{flags[error.other]} and {flags[error.option]} exclude each other"
    return str(error)

