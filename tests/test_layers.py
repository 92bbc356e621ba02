"""The layers (README, Layout): imports run one way, downward, and never in a cycle.

Parsed with `ast`, so the check sees every import a module makes, also those inside
functions, without running any of them.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("referee", "protocols", "bots", "tournaments")

# Bottom first. A module may import from its own layer and from the layers below it.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("referee.errors", "referee.settings", "referee.bounds", "referee.writable",
     "referee"),
    ("referee.games",),
    ("protocols",),
    ("bots",),
    ("referee.processes",),
    ("referee.transport",),
    ("referee.players",),
    ("referee.matches",),
    ("referee.registry",),
    ("referee.conformance",),
    ("tournaments",),
    ("referee.cli", "referee.__main__"),
)


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


def layer_of(module: str) -> int:
    """The index of the most specific layer prefix that holds `module`."""
    best: tuple[int, int] | None = None
    for index, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if module == prefix or module.startswith(prefix + "."):
                if best is None or len(prefix) > best[1]:
                    best = (index, len(prefix))
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
    """The check itself can fail: an engine that imports the CLI is reported."""
    fake = tmp_path / "referee" / "games" / "bad.py"
    fake.parent.mkdir(parents=True)
    fake.write_text("from referee.cli.main import cli\n")
    modules = {**all_modules(), "referee.games.bad": fake}
    deps = imports_of(fake, modules)
    assert deps == {"referee.cli.main"}
    assert layer_of("referee.cli.main") > layer_of("referee.games.bad")
