"""`referee tournament` and `referee results`: thin commands over tournaments.run.session."""

from __future__ import annotations

import functools
import shlex
from dataclasses import replace
from pathlib import Path
from typing import Any

import click

from referee import bounds
from referee.bot_names import normal_name
from referee.cli.errors import Stopped
from referee.cli.remote import remote_options, with_remote
from referee.cli.options import (
    FAULTED_EXIT, Bounded, compose, bot_dir_option, bot_limit_options, busy_wait_seconds,
    declared_dirs,
    fail_on_fault_option, launch_settings, option_values, per_game_options, sandbox_options,
    sandbox_settings,
)
from referee.errors import ConfigError
from referee.matches.game import GameOption
from referee.players.lineup import LaunchSettings, bot_specs, named
from referee.players.remote_seats import RemoteSettings
from tournaments.spec.definition import declared_dirs as file_dirs
from referee.registry import games
from referee.registry.games import AnyGame
from tournaments.spec.definition import SIZE_KEY, BotEntry, SpecError, TournamentSpec
from tournaments.spec.toml_file import load_tournament_file
from tournaments.output.formats import OutputFormat
from tournaments.run.rerun import rerun
from tournaments.run.runner import Interrupted, PlayFailed, WorkersKeepDying
from tournaments.run.session import (
    DEFAULT_MAX_GAMES, FaultsFound, RunOptions, default_jobs, run_session,
)
from tournaments.output.results import results_tables, write_reports
from tournaments.site.links import published_links
from tournaments.spec.settle_rule import SettleRule
from tournaments.store.results_db import StoreFailure

# Options that define a tournament beside the games' own: set in a file, not beside it.
_DEFINING = ("references", "deals", "seed", "table_size", "team_size", "startup_time",
             "move_time",
             "time_bank", "clock", "max_memory", "max_cpu", "max_procs", "disqualify_after",
             "bot_dirs", "until_settled", "confidence", "top")
_FORMATS = click.Choice([fmt.value for fmt in OutputFormat])
_FORMAT_HELP = ("Format of the tables; json is described in docs/results-json.md, csv "
                "writes one table.")
_TABLE_HELP = ("Write only this table (e.g. standings, head_to_head, references, solo, "
               "teams, solo_vs_team, bot_games, faults); csv writes the first without it.")


def tournament_command() -> click.Command:
    """`referee tournament`, with the options of every game registered now (built anew:
    click's decorators consume what they attach to a function)."""

    @functools.wraps(_tournament)
    def callback(**arguments: Any) -> None:
        _tournament(**arguments)

    command = _tournament_options(callback)
    for game in reversed([games.lookup(name) for name in games.names()]):
        command = per_game_options(game, f"{game.title}: ")(command)
    return click.command("tournament")(command)


_tournament_options = compose(
    click.argument("game_or_file", metavar="GAME_OR_FILE"),
    click.argument("bots", nargs=-1),
    click.option("--reference", "references", multiple=True, metavar="BOT",
                 help="A reference bot (repeatable): each other BOT then plays only with "
                      "references, on the same deals, opponents and seats (a gauntlet)."),
    click.option("--deals", type=Bounded(bounds.DEALS), default=None,
                 help="Deals every table plays (default 1, at most 100000)."),
    click.option("--seed", type=Bounded(bounds.SEED), default=None,
                 help="Tournament seed; deal seeds derive from it and the results db's "
                      "secret (default 0)."),
    click.option("--table-size", type=Bounded(bounds.GAME_SIZE), default=None,
                 help="Competitive games (Rage): seats per table (default 4, or fewer bots, "
                      "within the game's seats; with --reference, 4)."),
    click.option("--team-size", type=Bounded(bounds.GAME_SIZE), default=None,
                 help="Cooperative games (The Game): players per team (default 2 with 2+ "
                      "bots)."),
    click.option("--max-games", type=Bounded(bounds.MAX_GAMES_OPTION),
                 default=DEFAULT_MAX_GAMES, show_default=True,
                 help="Refuse a schedule of more games than this, before it starts."),
    click.option("--disqualify-after", type=Bounded(bounds.DISQUALIFY_AFTER), default=None,
                 metavar="N",
                 help="A bot with N faulted games plays no further games: its process is "
                      "not started again, and its remaining games count as faulted "
                      "(\"disqualified\")."),
    click.option("--until-settled", is_flag=True,
                 help="Stop at the first deal after which the ranking is settled: every "
                      "two neighbours in it ordered at --confidence by their ratings "
                      "(docs/settle.md); the tables count the deals up to it. Competitive "
                      "games only."),
    click.option("--confidence", type=click.FloatRange(0.5, 1, min_open=True, max_open=True),
                 default=None, metavar="C",
                 help="With --until-settled: how sure each neighbour's order must be "
                      "(default 0.95)."),
    click.option("--top", type=Bounded(bounds.TOP), default=None, metavar="K",
                 help="With --until-settled: settle only which bots are the first K, not "
                      "the order of the rest."),
    click.option("--standings-every", type=Bounded(bounds.STANDINGS_EVERY), default=None,
                 metavar="N",
                 help="Print the standings so far to standard error every N games."),
    click.option("--jobs", type=Bounded(bounds.JOBS), default=None,
                 help="Games played at once (default: one per core)."),
    click.option("--cluster", default=None, metavar="ADDRESS",
                 help="Play the games on a Dask cluster: its scheduler's tcp://HOST:PORT, "
                      "or local:N to start N local worker processes; as many games run at "
                      "once as its workers have threads (docs/cluster.md). Not with --jobs."),
    click.option("--fresh-bots", is_flag=True, help="Start new bot processes for every game."),
    click.option("--persistent-bots", is_flag=True,
                 help="Let sandboxed bot processes play any game (by default none plays "
                      "two games of a deal; a bot can then remember the hands of a "
                      "duplicate deal's other rotations)."),
    click.option("--db", "db_path", type=click.Path(dir_okay=False, path_type=Path),
                 default=None, help="Results db (default results/<game>-<fingerprint>.sqlite); "
                                    "the same db again resumes."),
    click.option("--restart", is_flag=True,
                 help="Start over: move an existing --db and its game logs into a backup "
                      "folder beside it (<db>.bak-DATE-TIME/), printed, then play afresh."),
    click.option("--format", "fmt", type=_FORMATS, default="text", show_default=True,
                 help=_FORMAT_HELP),
    click.option("--table", "table", default=None, metavar="NAME", help=_TABLE_HELP),
    fail_on_fault_option,
    bot_limit_options,
    sandbox_options,
    bot_dir_option,
    remote_options,
)


def _tournament(game_or_file: str, bots: tuple[str, ...], jobs: int | None, max_games: int,
                fresh_bots: bool, persistent_bots: bool, db_path: Path | None,
                restart: bool, fmt: str, table: str | None,
                transport: str, busy_wait_us: int | None, sandbox: str,
                sandbox_dirs: tuple[Path, ...], standings_every: int | None,
                fail_on_fault: bool, cluster: str | None, listen: str | None,
                referee_key: Path, **options: Any) -> None:
    """Play a round-robin tournament. GAME_OR_FILE is a game (rage, thegame) or a
    tournament .toml file (which lists its own bots); a BOT is a command line, or
    stdio:COMMAND.

    Tables go to standard output, progress to standard error. Running the same command
    again on the same --db resumes where it stopped, unless a bot's executable or script
    changed since (then --restart starts over).
    """
    if cluster is not None and jobs is not None:
        raise click.UsageError("--jobs and --cluster exclude each other: a cluster plays "
                               "as many games at once as its workers have threads")
    if _is_file(game_or_file):
        spec = _file_spec(Path(game_or_file), bots, fresh_bots)
    else:
        spec = _command_line_spec(_game(game_or_file), bots, fresh_bots, options)
    remote = _remote(spec, listen, referee_key)
    if remote is not None:
        jobs = jobs or 1  # one worker listens for them
    run = RunOptions(db_path, jobs or default_jobs(), OutputFormat(fmt), table=table,
                     transport=transport,
                     busy_wait=busy_wait_seconds(busy_wait_us),
                     sandbox=sandbox_settings(sandbox, sandbox_dirs, spec.time_limits.clock),
                     persistent_bots=persistent_bots, max_games=max_games,
                     standings_every=standings_every, restart=restart,
                     fail_on_fault=fail_on_fault, cluster=cluster, remote=remote)
    try:
        click.echo(run_session(spec, run), nl=False)
    except FaultsFound as found:
        click.echo(found.tables, nl=False)
        raise Stopped(str(found), FAULTED_EXIT) from None
    except Interrupted as stop:
        raise Stopped(str(stop), 143 if stop.signal_name == "SIGTERM" else 130) from None
    except (PlayFailed, WorkersKeepDying, StoreFailure) as error:
        raise click.ClickException(str(error)) from error  # exit 1: not bad usage


@click.command("results")
@click.argument("db_path", metavar="DB", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--format", "fmt", type=_FORMATS, default="text", show_default=True,
              help=_FORMAT_HELP)
@click.option("--table", "table", default=None, metavar="NAME", help=_TABLE_HELP)
@click.option("--bot", default=None, metavar="NAME",
              help="That bot's page instead: a summary (games, clean games, places, "
                   "faults), each distinct failure with where it clusters and its stderr, "
                   "then every game with its fault, log and stderr file.")
@click.option("--reports", "reports_dir", type=click.Path(file_okay=False, path_type=Path),
              default=None, metavar="DIR",
              help="Write one page per student (each candidate bot) to hand back, "
                   "DIR/NAME.txt (.md, .html, .json by --format): the --bot page "
                   "without the organiser's files, and no path outside its own folder.")
@click.option("--faults", is_flag=True, help="Every fault of the tournament, with its "
                                             "offending line and game log.")
@click.option("--replays-dir", type=click.Path(file_okay=False, path_type=Path),
              default=None, metavar="DIR",
              help="With --format html: link the bots and games to the site `referee "
                   "publish DB DIR` wrote, each fault to its step in the replay (links "
                   "as DIR is written: relative to where the page is opened).")
def results_command(db_path: Path, fmt: str, table: str | None, bot: str | None,
                    reports_dir: Path | None, faults: bool,
                    replays_dir: Path | None) -> None:
    """Print the tables of a results DB again (finished or not), or one bot's page, or
    write one page per student (--reports)."""
    if replays_dir is not None and fmt != OutputFormat.HTML.value:
        raise click.UsageError("--replays-dir links an HTML page: give --format html")
    if reports_dir is not None:
        if bot is not None or faults or table is not None or replays_dir is not None:
            raise click.UsageError("--reports writes every student's page: give no --bot, "
                                   "--faults, --table or --replays-dir with it")
        if fmt == OutputFormat.CSV.value:  # a CSV file holds one table of the page's four
            raise click.UsageError("--reports writes pages of several tables, and a CSV "
                                   "file holds one: give --format text, markdown, html "
                                   "or json")
        try:
            written = write_reports(db_path, OutputFormat(fmt), reports_dir)
        except StoreFailure as error:
            raise click.ClickException(str(error)) from error
        click.echo(f"{len(written)} reports written in {reports_dir}/", err=True)
        return
    links = None if replays_dir is None else published_links(replays_dir)
    bot = None if bot is None else normal_name(bot)  # as names are stored: José, however typed
    try:
        click.echo(results_tables(db_path, OutputFormat(fmt), bot, faults, table,
                                  links=links), nl=False)
        if faults and fmt == OutputFormat.TEXT.value:
            click.echo(f"reproduce: referee reproduce {shlex.quote(str(db_path))} GAME "
                       "--seat SEAT plays a faulted seat again (its game and seat above)",
                       err=True)
    except StoreFailure as error:
        raise click.ClickException(str(error)) from error  # exit 1: a damaged db


@click.command("rerun")
@click.argument("db_path", metavar="DB", type=click.Path(exists=True, dir_okay=False,
                                                          path_type=Path))
@click.argument("game_id", metavar="GAME_ID")
@sandbox_options
def rerun_command(db_path: Path, game_id: str, sandbox: str,
                  sandbox_dirs: tuple[Path, ...]) -> None:
    """Play the stored game GAME_ID of DB again, with its deal and seats, and say whether
    it reproduced the stored result (exit 0) or not (exit 1)."""
    try:
        again = rerun(db_path, game_id, sandbox_settings(sandbox, sandbox_dirs))
    except StoreFailure as error:
        raise click.ClickException(str(error)) from error
    click.echo(again.verdict())
    if not again.reproduced:
        raise click.exceptions.Exit(1)


def _remote(spec: TournamentSpec, listen: str | None, key: Path) -> RemoteSettings | None:
    """Where the tournament's remote seats connect (None: it has none). ConfigError where
    a bot would fill several seats of a table: a remote bot has one connection."""
    specs = bot_specs([bot.command for bot in spec.bots], list(spec.bot_names),
                      file_dirs(spec.bots))
    remote = with_remote(LaunchSettings(spec.time_limits), specs, listen, key).remote
    if remote is not None and spec.size > len(spec.bots):
        raise ConfigError(f"{len(spec.bots)} bots at {spec.size} seats: a bot would fill "
                          "several seats of a table, and a remote bot has one connection "
                          f"(give at least {spec.size} bots, or a smaller {spec.size_key})")
    return remote


def _is_file(argument: str) -> bool:
    if argument.endswith(".toml") and not Path(argument).is_file():
        raise click.UsageError(f"tournament file {argument} does not exist")
    return argument.endswith(".toml")


def _game(argument: str) -> AnyGame:
    try:
        return games.lookup(argument)
    except ConfigError:
        raise click.UsageError(f"unknown game {argument!r}: give "
                               f"{', '.join(games.names())} or a tournament .toml file"
                               ) from None


def _games_options() -> list[tuple[AnyGame, GameOption]]:
    """Every registered game's own options, each with its game."""
    return [(game, option) for game in map(games.lookup, games.names())
            for option in game.options]


def _flag(name: str) -> str:
    """The command-line spelling of an option's name."""
    singular = {"references": "--reference", "bot_dirs": "--bot-dir"}
    if name in singular:
        return singular[name]
    flags = {option.name: option.flag for _, option in _games_options()}
    return flags.get(name, "--" + name.replace("_", "-"))


def _file_spec(path: Path, bots: tuple[str, ...], fresh_bots: bool) -> TournamentSpec:
    """The file's tournament; options that would redefine it are refused."""
    if bots:
        raise click.UsageError("a tournament file lists its own bots: give no BOT arguments")
    ctx = click.get_current_context()
    for name in (*_DEFINING, *(option.name for _, option in _games_options())):
        if ctx.get_parameter_source(name) not in (click.core.ParameterSource.DEFAULT, None):
            raise click.UsageError(f"{_flag(name)} cannot be combined with a tournament "
                                   f"file: set it in {path}")
    spec = load_tournament_file(path)
    if fresh_bots and not spec.fresh_bots:  # how bots run, not what the results are
        return replace(spec, fresh_bots=True)
    return spec


def _command_line_spec(game: AnyGame, bots: tuple[str, ...], fresh_bots: bool,
                       options: dict[str, Any]) -> TournamentSpec:
    _refuse_other_games_options(game, options)
    _refuse_other_contests_size(game, options)
    game_options = option_values(game, dict(options))  # a conflict in the flags' words
    launch = launch_settings(options["startup_time"], options["move_time"],
                             options["time_bank"], options["max_memory"],
                             options["max_cpu"], options["max_procs"], "ipc",
                             clock=options["clock"])
    references = tuple(options["references"])
    texts = (*bots, *references)
    dirs = declared_dirs(options["bot_dirs"])
    entries = tuple(BotEntry(spec.label, named(text)[1], reference=index >= len(bots),
                             dir=None if spec.command.folder is None
                             else str(spec.command.folder))
                    for index, (spec, text) in enumerate(zip(bot_specs(texts, dirs=dirs),
                                                             texts)))
    try:
        return TournamentSpec.create(
            game, entries, deals=options["deals"] or 1, seed=options["seed"] or 0,
            size=options[SIZE_KEY[game.contest]], time_limits=launch.times, resource_limits=launch.limits,
            options=dict(game_options.items), fresh_bots=fresh_bots,
            disqualify_after=options["disqualify_after"], settle=_settle_rule(options))
    except SpecError as error:
        raise click.UsageError(_spec_message(error)) from None


def _settle_rule(options: dict[str, Any]) -> SettleRule | None:
    """--until-settled's rule; --confidence and --top only with it."""
    if not options["until_settled"]:
        for name in ("confidence", "top"):
            if options[name] is not None:
                raise click.UsageError(f"{_flag(name)} applies with --until-settled")
        return None
    confidence = 0.95 if options["confidence"] is None else options["confidence"]
    return SettleRule(confidence, options["top"])


def _refuse_other_games_options(game: AnyGame, options: dict[str, Any]) -> None:
    own = {option.name for option in game.options}
    for owner, option in _games_options():
        if option.name not in own and options.get(option.name, option.default) != \
                option.default:
            raise click.UsageError(f"{option.flag} applies to {owner.name} tournaments, "
                                   f"not {game.name}")


def _refuse_other_contests_size(game: AnyGame, options: dict[str, Any]) -> None:
    """--table-size sizes competitive games, --team-size cooperative ones."""
    for contest, key in SIZE_KEY.items():
        if contest is not game.contest and options[key] is not None:
            owners = ", ".join(name for name in games.names()
                               if games.lookup(name).contest is contest)
            raise click.UsageError(f"{_flag(key)} applies to {contest.value} games "
                                   f"({owners}), not {game.name}")


def _spec_message(error: SpecError) -> str:
    """A SpecError in the command line's words: the flag, not the file's key."""
    return str(error).replace(f"'{error.key}'", _flag(error.key), 1)
