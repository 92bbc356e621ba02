"""The layers (README, Layout): imports run one way, downward, and never in a cycle.

Parsed with `ast`, so the check sees every import a module makes, also those inside
functions, without running any of them.
"""

from __future__ import annotations

import ast
from fnmatch import fnmatchcase
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("referee", "protocols", "bots", "tournaments")

# Bottom first. A module may import from its own layer and from the layers below it. A
# pattern names a module and what lies under it; `*` stands for one game's folder.
WIRE = ("protocols",)
GAME_RULES = tuple(f"referee.games.*.{part}" for part in ("cards", "rules", "view", "commands",
                                                          "codec"))
GAME_MATCHES = tuple(f"referee.games.*.{part}" for part in ("match", "render", "board",
                                                             "definition"))
LOG_WRITING = ("referee.logs.writer", "referee.logs.budget", "referee.logs.file",
               "referee.logs.unfinished",
               "referee.logs.live")
LAYERS: tuple[tuple[str, ...], ...] = (
    WIRE,
    ("referee.errors", "referee.settings", "referee.bounds", "referee.writable",
     "referee.words", "referee"),
    ("referee.games",) + GAME_RULES,
    ("bots",),
    ("referee.processes",),
    ("referee.transport",),
    ("referee.players",),
    LOG_WRITING,
    ("referee.matches",),
    ("referee.logs",),  # reading and deriving logs: the games' definitions, looked up
    GAME_MATCHES,
    ("referee.registry",),
    ("referee.viewer",),  # `referee view`'s page: the registry's games, their boards
    ("referee.reproduce",),  # a seat played again by a bot: players, logs, view's steps
    ("referee.conformance",),
    # tournaments/ by concern, in the order its folders import one another (README,
    # Layout): the spec, its schedule, the stored results, their statistics, the
    # tables, running (which renders the tables at the end) and the gate.
    ("tournaments", "tournaments.spec"),
    ("tournaments.schedule",),
    ("tournaments.store",),
    ("tournaments.stats",),
    ("tournaments.output",),
    ("tournaments.run",),
    ("tournaments.gate",),
    ("tournaments.site",),  # `referee publish`: the result tables and the viewer's pages
    ("tournaments.arena",),  # `referee arena`: versions, matchmaking, rounds, its site
    ("referee.serve",),  # `referee serve`: the results' pages, the viewer, live logs
    ("referee.cli", "referee.__main__"),
)
# A game's folder: these modules in every one (a game adds its own, e.g. Rage's cards).
GAME_SHAPE = {"__init__", "rules", "view", "codec", "match", "render", "definition"}
SHIPPED_GAMES = ("rage", "thegame")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def all_modules() -> dict[str, Path]:
    return {module_name(p): p for package in PACKAGES for p in (ROOT / package).rglob("*.py")}


def imports_of(path: Path, modules: dict[str, Path]) -> set[str]:
    """The project modules `path` imports (a `from package import module` names the module)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                found.add(sub if sub in modules else node.module)
    return {name for name in found if name in modules}


def holds(pattern: str, module: str) -> bool:
    """Whether `pattern` names `module` or a package above it."""
    depth = pattern.count(".") + 1
    return fnmatchcase(".".join(module.split(".")[:depth]), pattern)


def layer_of(module: str) -> int:
    """The index of the most specific layer pattern that holds `module`."""
    best: tuple[int, int] | None = None
    for index, patterns in enumerate(LAYERS):
        for pattern in patterns:
            if holds(pattern, module) and (best is None or len(pattern) > best[1]):
                best = (index, len(pattern))
    if best is None:
        raise AssertionError(f"{module} is in no layer: add it to LAYERS")
    return best[0]


GRAPH = {name: imports_of(path, all_modules()) for name, path in all_modules().items()}


@pytest.mark.parametrize("module", sorted(GRAPH))
def test_imports_run_downward(module: str) -> None:
    upward = sorted(dep for dep in GRAPH[module]
                    if layer_of(dep) > layer_of(module) and dep != "referee")
    assert not upward, f"{module} imports from a higher layer: {upward}"


def test_no_import_cycles() -> None:
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    cycles: list[list[str]] = []

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for dep in sorted(GRAPH[module]):
            if dep == module or dep in ("referee",) and module.startswith("referee."):
                continue  # a package's __init__ holds only its version
            if state.get(dep) == 1:
                cycles.append(path[path.index(dep):] + [dep])
            elif dep not in state:
                visit(dep, path + [dep])
        state[module] = 2

    for module in sorted(GRAPH):
        if module not in state:
            visit(module, [module])
    assert not cycles, f"import cycles: {cycles}"


def test_the_layer_check_catches_an_upward_import(tmp_path: Path) -> None:
    """The check itself can fail: an engine that imports the CLI is reported, and so is a
    game's codec that imports its own match."""
    fake = tmp_path / "referee" / "games" / "bad" / "rules.py"
    fake.parent.mkdir(parents=True)
    fake.write_text("from referee.cli.main import cli\n")
    modules = {**all_modules(), "referee.games.bad.rules": fake}
    deps = imports_of(fake, modules)
    assert deps == {"referee.cli.main"}
    assert layer_of("referee.cli.main") > layer_of("referee.games.bad.rules")
    assert layer_of("referee.games.rage.match") > layer_of("referee.games.rage.codec")


def test_every_layer_pattern_holds_a_module() -> None:
    """A mistyped pattern would leave its modules to a wider one, unchecked."""
    empty = [pattern for patterns in LAYERS for pattern in patterns
             if not any(holds(pattern, module) for module in GRAPH)]
    assert not empty


def test_the_wire_layer_imports_nothing_of_the_referee() -> None:
    """protocols/ is what bot authors and the SDK stand on: wire, messages, frames, fault
    kinds and clocks. It imports no module of the referee (issue 27)."""
    wire = {module: sorted(dep for dep in GRAPH[module] if not dep.startswith("protocols"))
            for module in GRAPH if module.startswith("protocols")}
    assert {"protocols.wire", "protocols.faults", "protocols.clock"} <= set(wire)
    assert not {module: deps for module, deps in wire.items() if deps}


def game_folders() -> dict[str, Path]:
    shipped = {game: ROOT / "referee" / "games" / game for game in SHIPPED_GAMES}
    return {**shipped, "high-card": ROOT / "tests" / "third_game" / "high_card"}


def test_every_game_is_one_folder_of_the_same_shape() -> None:
    """The shipped games and the tests' third game: rules, view, codec, match, render and
    definition each (referee/games/README.md, "A game is one folder")."""
    folders = {p.name for p in (ROOT / "referee" / "games").iterdir() if p.is_dir()
               and (p / "__init__.py").exists()}
    assert folders == set(SHIPPED_GAMES)
    for game, folder in game_folders().items():
        modules = {p.stem for p in folder.glob("*.py")}
        assert GAME_SHAPE <= modules, f"{game} lacks {sorted(GAME_SHAPE - modules)}"


def names_a_game(path: Path, game: str) -> list[str]:
    """Where the module at `path` names `game`: an import of its folder, or its name as a
    string of the code."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and \
                holds(f"referee.games.{game}", node.module):
            found.append(f"line {node.lineno}: imports {node.module}")
        elif isinstance(node, ast.Import):
            found += [f"line {node.lineno}: imports {alias.name}" for alias in node.names
                      if holds(f"referee.games.{game}", alias.name)]
        elif isinstance(node, ast.Constant) and node.value == game:
            found.append(f"line {node.lineno}: the string {game!r}")
    return found


@pytest.mark.parametrize("game", SHIPPED_GAMES)
def test_no_module_outside_a_games_folder_and_the_registry_names_it(game: str) -> None:
    """Adding or changing a game touches its folder and one registry line. The SDK and
    sample bots (bots/) are a game's by purpose and are not counted."""
    own = (f"referee.games.{game}", "referee.registry", "bots")
    naming = {module: names_a_game(path, game) for module, path in all_modules().items()
              if not any(holds(prefix, module) for prefix in own)}
    assert not {module: where for module, where in naming.items() if where}


def test_the_game_naming_check_can_fail(tmp_path: Path) -> None:
    fake = tmp_path / "cli.py"
    fake.write_text("from referee.games.rage.rules import Variant\nGAME = 'rage'\n")
    assert names_a_game(fake, "rage") == ["line 1: imports referee.games.rage.rules",
                                          "line 2: the string 'rage'"]
