"""Where each page of a results site lives, and the manifest that lists them.

DIR/index.html, DIR/bots/NAME.html, DIR/games/GAME.html (the organiser's replay, or a
spectator's) or DIR/games/GAME.seatN.html (seat N's); DIR/.referee-site.json lists every
file the site wrote, so that publishing again replaces exactly those, and says which
replay pages there are, at which step each fault is in them, and how the site was
written.
"""

from __future__ import annotations

import enum
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

INDEX = "index.html"
BOTS = "bots"
GAMES = "games"
MANIFEST = ".referee-site.json"
_SAFE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,80}")
_OURS = re.compile(rf"({re.escape(INDEX)}|{BOTS}/[^/]+\.html|{GAMES}/[^/]+\.html)")


class ReplayMode(enum.StrEnum):
    """Whose eyes the replays have: the organiser's (everything), each seat's own (one
    page per seat, built with `referee view --seat`), a spectator's (one page per game,
    no hand or bot's line: a public site's), or no replays at all."""

    ALL = "all"
    SEAT = "seat"
    SPECTATOR = "spectator"
    NONE = "none"

    @property
    def per_game(self) -> bool:
        """One page per game, shown for every seat (the organiser's or a spectator's)."""
        return self in (ReplayMode.ALL, ReplayMode.SPECTATOR)


def bot_page(names: Sequence[str], name: str) -> str:
    """The bot's page, relative to DIR: its name where that is a safe file name (bot
    names are the bots' own text), else its place among the bots."""
    index = names.index(name)
    stem = name if _SAFE.fullmatch(name) and not name.endswith(".") else f"bot-{index + 1}"
    return f"{BOTS}/{stem}.html"


def replay_page(game_id: str, seat: int | None) -> str:
    """A game's replay page, relative to DIR: the game's own (None), or seat `seat`'s."""
    stem = game_id if _SAFE.fullmatch(game_id) else re.sub(r"[^A-Za-z0-9_.-]", "_", game_id)
    return f"{GAMES}/{stem}{'' if seat is None else f'.seat{seat}'}.html"


@dataclass
class Replay:
    """One replay page: its file relative to DIR and, per seat that faulted, the step of
    the page (`#step=N`) where its fault is."""

    href: str
    fault_steps: dict[int, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"href": self.href, "fault_steps": {str(k): v for k, v in
                                                   self.fault_steps.items()}}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Replay:
        steps, href = data.get("fault_steps", {}), str(data["href"])
        if not _OURS.fullmatch(href) or not href.startswith(GAMES + "/"):
            raise ValueError(f"not a replay page of a site: {href!r}")  # a link we made, only
        return cls(href, {int(k): int(v) for k, v in steps.items()})


@dataclass
class GameReplays:
    """A game's replay pages: None for the game's own (the organiser's or a spectator's),
    or each seat's own."""

    pages: dict[int | None, Replay] = field(default_factory=dict)

    def for_seat(self, seat: int | None) -> Replay | None:
        """The page that shows `seat`: the game's own if there is one, else its own."""
        return self.pages.get(None) or (None if seat is None else self.pages.get(seat))

    def link(self, seat: int | None, fault: bool = False) -> str | None:
        """The href of the page showing `seat`, at its fault's step if `fault`."""
        page = self.for_seat(seat)
        if page is None:
            return None
        step = page.fault_steps.get(seat) if fault and seat is not None else None
        return page.href if step is None else f"{page.href}#step={step}"

    def to_json(self) -> dict[str, Any]:
        return {("all" if seat is None else str(seat)): page.to_json()
                for seat, page in self.pages.items()}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> GameReplays:
        return cls({(None if key == "all" else int(key)): Replay.from_json(page)
                    for key, page in data.items()})


@dataclass
class Manifest:
    """What a published site holds: its files, its bots' pages by name, its replays by
    game id, and whose eyes it was written for (its replay mode, and whether public)."""

    files: list[str] = field(default_factory=list)
    bots: dict[str, str] = field(default_factory=dict)
    replays: dict[str, GameReplays] = field(default_factory=dict)
    mode: str | None = None  # None: a site written before the manifest said it
    public: bool = False

    def write(self, folder: Path) -> None:
        data = {"written_by": "referee publish", "files": self.files, "bots": self.bots,
                "replays": {game: r.to_json() for game, r in self.replays.items()},
                "mode": self.mode, "public": self.public}
        (folder / MANIFEST).write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")

    @classmethod
    def read(cls, folder: Path) -> Manifest | None:
        """The site's manifest; None where there is none, or none that reads (a site
        made by hand, a damaged file): then nothing is taken from it."""
        try:
            data = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
            files = [f for f in data["files"] if isinstance(f, str) and _OURS.fullmatch(f)]
            bots = {str(name): str(page) for name, page in data["bots"].items()
                    if page in files}
            replays = {str(game): GameReplays.from_json(pages)
                       for game, pages in data["replays"].items()}
            mode = data.get("mode", _mode_of(replays))  # written before it said its mode
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None
        return cls(files, bots, replays, mode if isinstance(mode, str) else None,
                   data.get("public") is True)

    def written_as(self, mode: ReplayMode, public: bool) -> bool:
        """Whether the site was written with these replays, public or not."""
        return self.mode == mode.value and self.public == public


def _mode_of(replays: Mapping[str, GameReplays]) -> str:
    """The replay mode of a site written before its manifest said it (never public then):
    the organiser's pages are a game's own, a seat's are numbered."""
    pages = [seat for game in replays.values() for seat in game.pages]
    if None in pages:
        return ReplayMode.ALL.value
    return ReplayMode.SEAT.value if pages else ReplayMode.NONE.value
