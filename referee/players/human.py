"""A person at the table: a Player that shows its seat's lines as a board on the terminal
and takes the replies the person types (`referee play GAME human ...`, docs/human.md).

It is given exactly the lines a bot in its seat would be given, through the same Player
calls (new_game, tell, ask), and the game's desk (GameDefinition.terminal().desk) folds
only those into the board it draws: a human seat sees what a bot would see, and nothing
more. Its lines go to the log's listener like a bot's, so its game replays like any.

A person has no move clock unless one is given (`--human-time`); a bad input is help and
another try, never a fault. Ctrl-C raises KeyboardInterrupt out of the game, as anywhere
in `play`, and the end of input stops the game the same way.
"""

from __future__ import annotations

import os
import select
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import IO, Any, Callable, Protocol

from referee.errors import BotTimeout
from referee.games.screen_fit import HELP, Block, block, prose
from referee.players.player import Player
from referee.transport.channel import KEEP_ALIVE_SLICE

Idle = Callable[[float], None]  # told the time while the person thinks (Lineup.serve_idle)
HUMAN = "human"  # the BOT word for a person's seat; `human=NAME` names the person
CLEAR = "\x1b[H\x1b[2J"
_CLOSING = ("END ", "ERROR ")  # lines after which the seat is asked nothing more
# The most of a typed line that is read: no move is a tenth as long. Input without end (a
# pipe from /dev/zero) is read no further, so it holds no memory and is never echoed.
MAX_TYPED = 1000
_SKIP_CHUNK = 1 << 16


class Desk(Protocol):
    """One game's terminal view of a seat, fed only that seat's lines."""

    def see(self, line: str) -> None:
        """Fold in a line the seat was sent."""

    def screen(self, request: str | None, size: tuple[int, int] | None = None,
               notes: Sequence[Block] = (), again: bool = False) -> list[str]:
        """The board as the seat knows it, the request's offer (None: no request) and
        `notes`, fitted to a terminal of `size` (columns, rows; None: not fitted) less a
        row for the prompt; `again`: the same screen redrawn, with the same news."""

    def reply(self, request: str, typed: str) -> str:
        """The reply line for what the person typed; ValueError, with help, if it is none."""


class HumanLeft(KeyboardInterrupt):
    """The person's input ended (Ctrl-D, a closed pipe): the game stops as at Ctrl-C."""


def human_name(text: str) -> str | None:
    """The person's name if a BOT argument is a human seat (`human`, `human=NAME`)."""
    if text == HUMAN:
        return HUMAN
    word, equals, name = text.partition("=")
    return name.strip() or HUMAN if word == HUMAN and equals else None


@dataclass
class Console:
    """Where the person reads and types; `clear`: redraw on a clean screen (a terminal),
    each screen fitted to the terminal's size (or to `fixed_size`, columns and rows)."""

    input: IO[str]
    output: IO[str]
    clear: bool = False
    fixed_size: tuple[int, int] | None = None

    def size(self) -> tuple[int, int] | None:
        """The terminal's columns and rows, asked at each screen (it may be resized);
        None where the output is no terminal (a pipe, a file): then nothing is fitted."""
        if self.fixed_size is not None or not self.clear:
            return self.fixed_size
        try:
            columns, rows = os.get_terminal_size(self.output.fileno())
        except (OSError, ValueError, AttributeError):
            return None
        return (columns, rows) if columns > 0 and rows > 0 else None

    def show(self, lines: Sequence[str], clear: bool = False) -> None:
        text = "\n".join(lines) + "\n"
        self.output.write((CLEAR if clear and self.clear else "") + text)
        self.output.flush()

    def read(self, deadline: float | None, idle: Idle | None = None) -> str | None:
        """A line typed (without its newline), at most MAX_TYPED + 1 characters of it (a
        longer one is cut there); None at the deadline. HumanLeft at the end of input.
        While the person thinks, `idle(now)` is called every KEEP_ALIVE_SLICE: the bots'
        connections are read, so their heartbeats are answered."""
        while deadline is not None or idle is not None:
            now = time.monotonic()
            if deadline is not None and now >= deadline:
                return None
            wait = KEEP_ALIVE_SLICE if deadline is None else \
                min(KEEP_ALIVE_SLICE, deadline - now)
            if select.select([self.input], [], [], wait)[0]:
                break
            if idle is not None:
                idle(time.monotonic())
        line = self.input.readline(MAX_TYPED + 1)
        if not line:
            raise HumanLeft("end of input")
        if len(line) > MAX_TYPED:
            self._skip_line()
        return line.rstrip("\r\n")

    def _skip_line(self) -> None:
        """The rest of a line too long to be a move, read and dropped chunk by chunk."""
        while True:
            rest = self.input.readline(_SKIP_CHUNK)
            if not rest or rest.endswith("\n"):
                return


class HumanPlayer(Player):
    """A person's seat: the board at each request, and their typed move as the reply."""

    def __init__(self, name: str, desk: Desk, console: Console,
                 move_time: float | None = None, idle: Idle | None = None) -> None:
        self.name = name
        self.desk = desk
        self.console = console
        self.move_time = move_time  # seconds per request; None: no clock
        self.idle = idle

    def new_game(self, line: str) -> None:
        self.tell_many((line,))

    def tell(self, line: str) -> None:
        self.tell_many((line,))

    def tell_many(self, lines: Sequence[str]) -> None:
        if not lines:
            return
        self._sent(lines)
        for line in lines:
            self.desk.see(line)
        closing = [line for line in lines if line.startswith(_CLOSING)]
        if closing:
            errors = [f"Your seat faulted: {line[6:]}" for line in closing
                      if line.startswith("ERROR ")]
            self._draw(None, errors)

    def ask(self, line: str, preamble: Sequence[str] = ()) -> str:
        self._sent((*preamble, line))
        for told in (*preamble, line):
            self.desk.see(told)
        deadline = None if self.move_time is None else time.monotonic() + self.move_time
        clock = "" if self.move_time is None else f" You have {self.move_time:g} s."
        footer = f"Type ? for help.{clock}"
        self._draw(line, [], footer)
        while True:
            self.console.output.write("> ")
            self.console.output.flush()
            typed = self.console.read(deadline, self.idle)
            if typed is None:
                raise BotTimeout(f"no move within {self.move_time:g} s (--human-time)")
            if len(typed) > MAX_TYPED:
                why = f"Not a move: a line longer than {MAX_TYPED} characters."
                self._again(line, why, footer, lambda: [why])
                continue
            if typed.strip().lower() in ("?", "help"):
                self._again(line, _HELP, None, lambda: self.desk.screen(line)[-3:] + [_HELP])
                continue
            try:
                reply = self.desk.reply(line, typed)
            except ValueError as error:
                why = f"Not a move: {error}"
                self._again(line, why, footer, lambda: [why])
                continue
            self._replied(reply)
            return reply

    def _draw(self, request: str | None, notes: Sequence[str], footer: str | None = None,
              again: bool = False) -> None:
        """The screen, on a clean terminal, fitted to its size: the notes (a fault, help,
        why an input is no move) are kept whatever it takes, the footer is not."""
        size = self.console.size()
        width = None if size is None else size[0]
        blocks = [block(prose(note, width)) for note in notes]
        if footer is not None:
            blocks.append(block(prose(footer, width), HELP))  # given up unsaid
        self.console.show(self.desk.screen(request, size, blocks, again), clear=True)

    def _again(self, request: str, note: str, footer: str | None,
               plain: Callable[[], list[str]]) -> None:
        """A note under the same screen: on a terminal of known size, the screen redrawn
        with it, so nothing scrolls off; elsewhere (a pipe) `plain()`'s lines added."""
        if self.console.size() is None:
            self.console.show(plain())
        else:
            self._draw(request, [note], footer, again=True)


_HELP = ("Type your move as shown, or its number where the moves are numbered; "
         "Ctrl-C stops the game (its log is kept).")


def human_entry(player: Any) -> dict[str, Any]:
    """What the log's header adds for a human seat: that it is one, and its clock."""
    if isinstance(player, HumanPlayer):
        return {"human": True, "human_time": player.move_time}
    return {}
