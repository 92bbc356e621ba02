"""`referee view LOG`: a game's log as one self-contained HTML page (docs/viewer.md)."""

from __future__ import annotations

from pathlib import Path

import click

from referee.errors import ConfigError
from referee.registry.game_logs import load_log
from referee.viewer.page import build, html


@click.command("view")
@click.argument("log_path", metavar="LOG", type=click.Path(exists=True, dir_okay=False,
                                                           path_type=Path))
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
              default=None, help="The page to write (default: LOG's name with .html).")
@click.option("--seat", type=click.IntRange(min=0), default=None,
              help="Only what this seat was shown, in the page's source too (default: "
                   "everything, for the organiser).")
def view_command(log_path: Path, output: Path | None, seat: int | None) -> None:
    """Write a game's replay as one HTML page: no network, no server, opens from file://.
    Step through the decisions, with each bot's requests, replies, LOG lines, think
    times and faults."""
    page = html(build(load_log(log_path), seat))
    target = output if output is not None else _default_output(log_path, seat)
    try:
        target.write_text(page, encoding="utf-8")
    except OSError as error:
        raise ConfigError(f"cannot write {target}: {error.strerror or error}") from None
    click.echo(f"{target}: {len(page.encode()) // 1024} KB", err=True)


def _default_output(log_path: Path, seat: int | None) -> Path:
    name = log_path.name
    for suffix in (".gz", ".jsonl", ".json"):
        name = name.removesuffix(suffix)
    return log_path.with_name(name + ("" if seat is None else f".seat{seat}") + ".html")
