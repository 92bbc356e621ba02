"""What defines a tournament: the spec, its checks, its fingerprint and its size.

Validation lives in one place, `TournamentSpec.__post_init__`, which raises `SpecError`
naming the offending key; the file loader (tournaments/spec/toml_file.py) turns that into a
ConfigError with the file and line. Nothing here knows a game by name: the game's
definition (referee.registry) gives its seats, options and kind of contest.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping

from referee import bounds
from referee.bounds import Bound
from referee.bot_names import RULE, is_bot_name, normal_name
from referee.printable import printable
from referee.errors import ConfigError
from referee.matches.game import Contest, GameOption, OptionError, OptionKind, Options
from referee.registry.games import AnyGame, lookup
from referee.settings import FaultPolicy, ResourceLimits, TimeLimits
from protocols.clock import Clock
from tournaments.spec.settle_rule import SettleRule

# The limits' bounds, as a tournament file and an arena.toml take them.
TIME_BOUNDS = {"startup": bounds.STARTUP_SECONDS, "move": bounds.MOVE_SECONDS,
               "bank": bounds.BANK_SECONDS, "tolerance": bounds.TOLERANCE_SECONDS}
RESOURCE_BOUNDS = {"memory_mb": bounds.MEMORY_MIB, "cpu_seconds": bounds.CPU_SECONDS,
                   "processes": bounds.PROCESSES}
# --clock on the command line offers the same words.
CLOCK_RULE = "must be " + " or ".join(f'"{clock.value}"' for clock in Clock)
# The key that sizes a game, by kind of contest: seats at a table, or players in a team.
SIZE_KEY = {Contest.COMPETITIVE: "table_size", Contest.COOPERATIVE: "team_size"}


class SpecError(ConfigError):
    """A bad value in a tournament definition: `key` names the setting, `bot` the index
    of its [[bots]] entry, `table` its sub-table ("limits", "resources")."""

    def __init__(self, key: str, message: str, bot: int | None = None,
                 table: str | None = None) -> None:
        super().__init__(message)
        self.key = key
        self.bot = bot
        self.table = table


@dataclass(frozen=True)
class BotEntry:
    """A contestant: a unique name and the command that starts it. A reference bot sets
    the bar: once a tournament has one, every other bot (a candidate) plays only with
    references (a gauntlet). `dir`: the folder its sandbox shows it, where declared (as
    given: like the command, relative to the working folder); None: its command tells."""

    name: str
    command: str
    reference: bool = False
    dir: str | None = None

    def to_json(self) -> dict[str, object]:
        entry: dict[str, object] = {"name": self.name, "command": self.command}
        if self.reference:  # absent otherwise: round robins keep their fingerprints
            entry["reference"] = True
        if self.dir is not None:  # likewise
            entry["dir"] = self.dir
        return entry


def declared_dirs(bots: tuple[BotEntry, ...]) -> dict[str, Path]:
    """The folders declared for bots, by name (referee.players.lineup.bot_specs)."""
    return {bot.name: Path(bot.dir) for bot in bots if bot.dir is not None}


def default_size(game: AnyGame, n_bots: int, gauntlet: bool = False) -> int:
    """Competitive: tables of 4, or as many as there are bots if fewer, within the game's
    seats. Cooperative: teams of 2 when there are 2 or more bots (solo deals are always
    played too). A gauntlet's does not follow its number of bots (tables of 4, teams of
    2): its size is in its frame, which must stay the same as its class grows
    (docs/gauntlet.md)."""
    least, most = game.seats.start, game.seats.stop - 1
    if game.contest is Contest.COOPERATIVE:
        return min(2, most) if n_bots >= 2 or gauntlet else least
    return max(least, min(4, most if gauntlet else n_bots, most))


def size_bound(game: AnyGame) -> Bound:
    """The allowed table or team sizes: the game's seat range."""
    unit = "seats" if game.contest is Contest.COMPETITIVE else "players"
    return Bound(game.seats.start, game.seats.stop - 1, unit)


@dataclass(frozen=True)
class TournamentSpec:
    """Everything that defines a tournament's results, plus how bots are run (fresh_bots).

    Build it with `TournamentSpec.create` to get the default size and options.
    """

    game: AnyGame
    bots: tuple[BotEntry, ...]
    size: int  # seats per table (competitive) or players per team (cooperative)
    deals: int
    seed: int
    time_limits: TimeLimits = field(default_factory=TimeLimits)
    resource_limits: ResourceLimits = field(default_factory=ResourceLimits)
    options: Options = Options()  # the game's own options, complete
    fresh_bots: bool = False  # start new bot processes for every game
    disqualify_after: int | None = None  # faulted games that end a bot's tournament
    # The tournament's name (a file's `name =`), shown on every page; not part of what
    # defines the results, so a renamed tournament is the same one.
    title: str | None = None
    settle: SettleRule | None = None  # stop at the first deal the ranking is settled after
    # The tables to play (bot indices each), instead of every combination of bots: an
    # arena's round (tournaments/arena/) plays the tables its matchmaking chose.
    tables: tuple[tuple[int, ...], ...] | None = None

    @classmethod
    def create(cls, game: AnyGame | str, bots: tuple[BotEntry, ...], *, deals: int = 1,
               seed: int = 0, size: int | None = None, time_limits: TimeLimits | None = None,
               resource_limits: ResourceLimits | None = None,
               options: Mapping[str, Any] | None = None,
               fresh_bots: bool = False,
               disqualify_after: int | None = None,
               title: str | None = None,
               settle: SettleRule | None = None,
               tables: tuple[tuple[int, ...], ...] | None = None) -> TournamentSpec:
        """A validated spec; a size left as None gets its default."""
        if isinstance(game, str):
            game = _game(game)
        try:
            values = Options.of(game, options or {})
        except OptionError as error:
            raise SpecError(error.option, str(error)) from None
        return cls(
            game=game, bots=bots,
            size=(default_size(game, len(bots), any(bot.reference for bot in bots))
                  if size is None else size),
            deals=deals, seed=seed, time_limits=time_limits or TimeLimits(),
            resource_limits=resource_limits or ResourceLimits(), options=values,
            fresh_bots=fresh_bots, disqualify_after=disqualify_after, title=title,
            settle=settle, tables=tables)

    def __post_init__(self) -> None:
        _check_bots(self.game, self.bots)
        _check_number("deals", self.deals, bounds.DEALS)
        _check_number("seed", self.seed, bounds.SEED)
        _check_number(self.size_key, self.size, size_bound(self.game))
        try:
            self.game.check_options(self.options)
        except OptionError as error:
            raise SpecError(error.option, str(error)) from None
        _check_limits(self.time_limits)
        _check_resources(self.resource_limits)
        if self.title is not None and not _is_title(self.title):
            raise SpecError("name", f"the tournament's name must be 1 to {MAX_TITLE} "
                                    "printable characters on one line")
        if self.disqualify_after is not None:
            _check_number("disqualify_after", self.disqualify_after,
                          bounds.DISQUALIFY_AFTER, "faults")
        _check_games(self)
        if self.settle is not None:
            _check_settle(self, self.settle)
        if self.tables is not None:
            _check_tables(self, self.tables)

    @property
    def size_key(self) -> str:
        """'table_size' or 'team_size': how files and options name this spec's size."""
        return SIZE_KEY[self.game.contest]

    @property
    def games(self) -> int:
        """How many games the schedule holds, counted without building it."""
        if self.tables is not None:
            return len(self.tables) * self.size * self.deals
        if self.references:
            return gauntlet_count(self.game.contest, len(self.candidates),
                                  len(self.references), self.size, self.deals)
        return game_count(self.game.contest, len(self.bots), self.size, self.deals)

    @property
    def fault_policy(self) -> FaultPolicy:
        """The game's fault policy with this tournament's disqualification."""
        return replace(self.game.fault_policy, disqualify_after=self.disqualify_after)

    @property
    def bot_names(self) -> tuple[str, ...]:
        """Names in entry order; bot index i in a fixture is bot_names[i]."""
        return tuple(bot.name for bot in self.bots)

    @property
    def references(self) -> tuple[int, ...]:
        """The indices of the reference bots; none for a round robin."""
        return tuple(index for index, bot in enumerate(self.bots) if bot.reference)

    @property
    def candidates(self) -> tuple[int, ...]:
        """The indices of the bots measured against the references (all, without any)."""
        return tuple(index for index, bot in enumerate(self.bots) if not bot.reference)

    def definition(self) -> dict[str, object]:
        """What defines the results; not jobs, db path, output format, fresh_bots."""
        return {
            "game": self.game.name,
            "bots": [bot.to_json() for bot in self.bots],
            "deals": self.deals, "seed": self.seed,
            "limits": self.time_limits.to_json(),
            "resources": self.resource_limits.to_json(),
            self.size_key: self.size,
            **self.game.option_identity(self.options),
            **self._faults_json(), **self._settle_json(), **self._tables_json(),
        }

    def frame(self) -> dict[str, object]:
        """What the games already played rest on: `definition()`, less a gauntlet's
        candidates. Each candidate plays with the references only, so adding, removing or
        replacing one changes no other candidate's games (docs/gauntlet.md); a round robin's
        games depend on every bot, so its frame is its whole definition."""
        return frame_of(self.definition())

    def fingerprint(self) -> str:
        """sha256 hex of the canonical JSON of `frame()`: a gauntlet's results db stays
        the same as its class changes."""
        return hashlib.sha256(canonical_json(self.frame()).encode()).hexdigest()

    def full_fingerprint(self) -> str:
        """sha256 hex of the canonical JSON of the whole `definition()`: what fingerprint()
        was before gauntlets kept their db as their class changes (older default db
        paths)."""
        return hashlib.sha256(canonical_json(self.definition()).encode()).hexdigest()

    def to_json(self) -> dict[str, object]:
        """Every field, for storing beside the results; `spec_from_json` inverts it."""
        return {
            "game": self.game.name,
            "bots": [bot.to_json() for bot in self.bots],
            self.size_key: self.size, "deals": self.deals, "seed": self.seed,
            "limits": self.time_limits.to_json(), "resources": self.resource_limits.to_json(),
            **self.options.to_json(), "fresh_bots": self.fresh_bots,
            **self._faults_json(), **self._settle_json(), **self._tables_json(),
            **({"title": self.title} if self.title else {}),
        }

    def _faults_json(self) -> dict[str, object]:
        """The [faults] table; absent when unset, so older tournaments keep their
        fingerprint."""
        if self.disqualify_after is None:
            return {}
        return {"faults": {"disqualify_after": self.disqualify_after}}

    def _settle_json(self) -> dict[str, object]:
        """The [settle] table; absent when unset, likewise. It defines the results: the
        tables count the deals up to the one the ranking settled after."""
        return {} if self.settle is None else {"settle": self.settle.to_json()}

    def _tables_json(self) -> dict[str, object]:
        """The chosen tables; absent for a round robin, likewise."""
        return {} if self.tables is None else {"tables": [list(t) for t in self.tables]}


def frame_of(definition: Mapping[str, Any]) -> dict[str, object]:
    """The frame (TournamentSpec.frame) of a stored definition: a gauntlet's keeps only
    its reference bots."""
    bots = definition.get("bots", [])
    if not any(isinstance(bot, dict) and bot.get("reference") for bot in bots):
        return dict(definition)
    return {**definition, "bots": [bot for bot in bots if bot.get("reference")]}


def spec_from_json(data: dict[str, Any]) -> TournamentSpec:
    """Rebuild a spec from `TournamentSpec.to_json` output (keys of other games, which
    older versions stored, are ignored)."""
    game = _game(data["game"])
    options = {option.name: _option_value(option, data[option.name])
               for option in game.options if option.name in data}
    return TournamentSpec.create(
        game, tuple(BotEntry(bot["name"], bot["command"], bot.get("reference", False),
                             bot.get("dir")) for bot in data["bots"]),
        size=data[SIZE_KEY[game.contest]], deals=data["deals"], seed=data["seed"],
        time_limits=TimeLimits.from_json(data["limits"]),
        resource_limits=ResourceLimits(**data["resources"]), options=options,
        fresh_bots=data["fresh_bots"],
        disqualify_after=data.get("faults", {}).get("disqualify_after"),
        title=data.get("title"),
        settle=SettleRule.from_json(data["settle"]) if "settle" in data else None,
        tables=_tables_of(data["tables"]) if "tables" in data else None)


def _tables_of(value: Any) -> tuple[tuple[int, ...], ...]:
    if not isinstance(value, list) or not all(isinstance(t, list) for t in value):
        raise SpecError("tables", f"'tables' must be lists of bot numbers, not {value!r:.80}")
    return tuple(tuple(table) for table in value)


def _check_tables(spec: TournamentSpec, tables: tuple[tuple[int, ...], ...]) -> None:
    """Chosen tables: a competitive game's, each of `size` bots of the spec, no bot
    twice at one table, every bot seated somewhere."""
    if spec.game.contest is not Contest.COMPETITIVE or spec.references:
        raise SpecError("tables", "chosen tables are for a competitive round robin")
    bots = range(len(spec.bots))
    for table in tables:
        if (len(table) != spec.size or len(set(table)) != len(table)
                or not all(type(bot) is int and bot in bots for bot in table)):
            raise SpecError("tables", f"table {list(table)!r:.80} is not {spec.size} "
                                      f"different bots of the {len(spec.bots)}")
    if not tables or {bot for table in tables for bot in table} != set(bots):
        raise SpecError("tables", "every bot must sit at one of the tables at least")


def _check_settle(spec: TournamentSpec, rule: SettleRule) -> None:
    """A settled ranking needs a ranking of bots against each other (a competitive
    game), a confidence that means something, and fewer bots in `top` than are ranked."""
    if spec.game.contest is not Contest.COMPETITIVE:
        raise SpecError("until_settled", f"'until_settled' needs a competitive game: "
                                         f"{spec.game.title} is cooperative, and its tables "
                                         "rank no bot above another")
    if not 0.5 < rule.confidence < 1:
        raise SpecError("confidence", "'confidence' must be above 0.5 and below 1, not "
                                      f"{rule.confidence}", table="settle")
    ranked = len(spec.candidates)
    if rule.top is not None and not 1 <= rule.top < ranked:
        raise SpecError("top", f"'top' must be at least 1 and fewer than the {ranked} bots "
                               f"ranked, not {rule.top}", table="settle")


def _option_value(option: GameOption, value: Any) -> Any:
    if option.kind is OptionKind.CHOICES:
        return tuple(value)
    if option.kind is OptionKind.FILE and value is not None:
        return Path(value)  # stored as text
    return value


def canonical_json(data: object) -> str:
    """Sorted keys, no whitespace: equal data gives equal text."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def group_count(n_bots: int, size: int) -> int:
    """len(fixtures.groups(n_bots, size)), without listing them: the combinations of
    `size` bots, or with fewer bots than places the multisets holding each bot."""
    if n_bots >= size:
        return math.comb(n_bots, size)
    return math.comb(size - 1, n_bots - 1) if n_bots >= 1 else 0


def game_count(contest: Contest, n_bots: int, size: int, deals: int) -> int:
    """len(fixtures.fixtures_for(spec, secret)), without building them."""
    if contest is Contest.COMPETITIVE:
        return group_count(n_bots, size) * size * deals
    teams = group_count(n_bots, size) if size >= 2 else 0
    return (n_bots + teams) * deals


def gauntlet_count(contest: Contest, candidates: int, references: int, size: int,
                   deals: int) -> int:
    """len(fixtures.fixtures_for(spec, secret)) of a gauntlet, without building it."""
    groups = group_count(references, size - 1) if size >= 2 else 0
    if contest is Contest.COMPETITIVE:
        return candidates * groups * size * deals
    return (candidates + references + candidates * groups) * deals


def least_bots(game: AnyGame) -> int:
    """Bots a tournament needs: two to compete, one to cooperate."""
    return 2 if game.contest is Contest.COMPETITIVE else 1


def _game(name: str) -> AnyGame:
    try:
        return lookup(name)
    except ConfigError as error:
        raise SpecError("game", str(error)) from None


def _check_number(key: str, value: object, bound: Bound, table: str | None = None,
                  label: str = "") -> None:
    try:
        bound.check(value)
    except ValueError as error:
        raise SpecError(key, f"{label}'{key}' {error}", table=table) from None


def _check_games(spec: TournamentSpec) -> None:
    games = spec.games
    if games > bounds.MAX_GAMES:
        raise SpecError("deals", f"this tournament would be {games:,} games; at most "
                                 f"{bounds.MAX_GAMES:,} are allowed (fewer deals, bots or a "
                                 "smaller table or team size)")


MAX_TITLE = 100


def _is_title(text: str) -> bool:
    return 0 < len(text.strip()) and len(text) <= MAX_TITLE and text.isprintable()


def _check_bots(game: AnyGame, bots: tuple[BotEntry, ...]) -> None:
    least = least_bots(game)
    if any(bot.reference for bot in bots) and all(bot.reference for bot in bots):
        raise SpecError("bots", "every bot is a reference: a gauntlet needs a candidate")
    if len(bots) < least:
        raise SpecError("bots", f"a {game.name} tournament needs at least {least} bot"
                                f"{'s' if least > 1 else ''}, not {len(bots)}")
    seen: set[str] = set()
    for index, bot in enumerate(bots):
        if bot.name != normal_name(bot.name) or not is_bot_name(bot.name):
            raise SpecError("name", f"bot name {printable(bot.name)!r} must be {RULE} "
                                    "('+' joins team names)", index)
        if bot.name in seen:
            raise SpecError("name", f"bot name {bot.name!r} is used twice; names must be "
                                    "unique", index)
        if not bot.command.strip():
            raise SpecError("command", f"bot {bot.name!r} has an empty command", index)
        seen.add(bot.name)


def _check_limits(limits: TimeLimits) -> None:
    for key, bound in TIME_BOUNDS.items():
        _check_number(key, getattr(limits, key), bound, "limits", "time limit ")
    if not isinstance(limits.clock, Clock):
        raise SpecError("clock", f"time limit 'clock' {CLOCK_RULE}, not {limits.clock!r}",
                        table="limits")


def _check_resources(limits: ResourceLimits) -> None:
    for key, bound in RESOURCE_BOUNDS.items():
        _check_number(key, getattr(limits, key), bound, "resources", "resource limit ")
