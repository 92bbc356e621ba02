"""Format 5 logs hold a stream of times and lines heard, and the reader derives the rest
(the lines out, whose lines and moves they were) by playing the game again
(referee/logs/stream.py, docs/game-log.md). The oracle here: the same game logged
twice at once, derived and written out, must read back as the same records, with real
misbehaving bot processes faulting in every way a seat can (before its batch goes out,
after, at start, never)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any, Sequence

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from referee import __version__
from referee.errors import Fault
from referee.games.rage.rules import RageConfig
from referee.matches.game import Options
from referee.logs.writer import DecidedBy, GameLog
from referee.logs.lines import read_records
from referee.matches.logged_game import LogOptions, play_game
from referee.players.lineup import BotSpec, LaunchSettings
from referee.processes.bot_command import parse_bot_command
from referee.processes.sandbox import SandboxMode, SandboxSettings
from referee.registry.game_logs import read_log
from referee.games.rage.definition import RAGE
from referee.games.thegame.definition import THEGAME
from referee.settings import TimeLimits
from tests.cli_support import assert_bad_input, run_main
from tests.referee.fault_bots.support import MISBEHAVE

FAST = LaunchSettings(TimeLimits(startup=3.0, move=1.0, bank=0.0),
                      sandbox=SandboxSettings(SandboxMode.OFF))


class TeeSeat:
    """A seat's listener that tells both logs."""

    def __init__(self, *seats: Any) -> None:
        self._seats = seats

    def sent(self, lines: Sequence[str], at: float) -> None:
        for seat in self._seats:
            seat.sent(lines, at)

    def heard(self, line: str) -> None:
        for seat in self._seats:
            seat.heard(line)

    def replied(self, line: str, at: float) -> None:
        for seat in self._seats:
            seat.replied(line, at)

    def found(self, line: str) -> None:
        for seat in self._seats:
            seat.found(line)


class TeeLog(GameLog):
    """One game into two logs: derived (the default) and written out."""

    bot_moves = True  # each log keeps what it wants of them

    def __init__(self, counted: Path, written: Path) -> None:
        self.counted = GameLog.open(counted, timestamps=False)
        self.written = GameLog.open(written, timestamps=False, derive=False)
        self.lines_sent = self.counted.lines_sent  # the table's lines, for its digest

    def header(self, *args: Any) -> None:
        self.counted.header(*args)
        self.written.header(*args)

    def seat(self, seat: int) -> Any:
        return TeeSeat(self.counted.seat(seat), self.written.seat(seat))

    def move(self, seat: int, kind: str, move: str, by: DecidedBy) -> None:
        self.counted.move(seat, kind, move, by)
        self.written.move(seat, kind, move, by)

    def fault(self, fault: Fault) -> None:
        self.counted.fault(fault)
        self.written.fault(fault)

    def fault_stderr(self, seat: int, lines: Sequence[str]) -> list[str]:
        self.counted.fault_stderr(seat, lines)
        return self.written.fault_stderr(seat, lines)

    def result(self, result: dict[str, Any]) -> None:
        self.counted.result(result)
        self.written.result(result)

    def close(self) -> None:
        self.counted.close()
        self.written.close()


def play_tee(game: Any, config: Any, culprit: str, good: str, seats: int, tmp_path: Path,
             monkeypatch: pytest.MonkeyPatch, seed: int = 11, seat: int = 1
             ) -> tuple[Path, Path]:
    counted, written = tmp_path / "counted.jsonl.gz", tmp_path / "written.jsonl"
    monkeypatch.setattr(LogOptions, "open", lambda self: TeeLog(counted, written))
    commands = [good] * seats
    commands[seat % seats] = culprit
    specs = [BotSpec(parse_bot_command(c), f"bot{seat}") for seat, c in enumerate(commands)]
    play_game(game, specs, config, seed, FAST, LogOptions(counted), lambda _: None)
    return counted, written


def assert_same_records(counted: Path, written: Path) -> list[dict[str, Any]]:
    derived, kept = read_log(counted), read_log(written)
    assert derived[0].pop("format") == kept[0].pop("format") == 5
    assert kept[0].pop("derived") is False
    for record, as_kept in zip(derived, kept):
        if record["type"] == "result":  # and what follows from the moves, derived too
            for key in set(record) - set(as_kept):
                del record[key]
    assert derived == kept
    return derived


RAGE_CULPRITS = [
    "good", "logs 1", "twice 4", "spew 4", "sleep 5", "exit 9", "garbage 3", "flood 2",
    "nohello", "badtoken"]


@pytest.mark.parametrize("mode", RAGE_CULPRITS)
def test_a_rage_log_derives_the_lines_each_seat_was_sent(
        mode: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAULT_LOGS", "2")
    counted, written = play_tee(RAGE, RageConfig(3, rounds=3), f"python {MISBEHAVE} {mode}",
                                "python bots/rage_random.py", 3, tmp_path, monkeypatch)
    records = assert_same_records(counted, written)
    faults = [r["seat"] for r in records if r["type"] == "fault"]
    assert faults == ([] if mode.startswith(("good", "logs")) else [1])
    sent = [r for r in records if r["type"] == "line" and r["dir"] == "out"]
    assert len(sent) > 30 and counted.stat().st_size < written.stat().st_size


@pytest.mark.parametrize("mode", ["good", "logs 2", "twice 2", "exit 3", "garbage 2"])
def test_a_thegame_log_derives_the_lines_each_seat_was_sent(
        mode: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    counted, written = play_tee(THEGAME, THEGAME.configure(3, Options.of(THEGAME, {})),
                                f"python {MISBEHAVE} {mode}",
                                "python bots/thegame_random.py", 3, tmp_path, monkeypatch)
    assert_same_records(counted, written)


def test_a_bot_that_cannot_start_is_derived_too(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    counted, written = play_tee(RAGE, RageConfig(3, rounds=2), "sh -c 'exit 5'",
                                "python bots/rage_random.py", 3, tmp_path, monkeypatch)
    records = assert_same_records(counted, written)
    assert not any(r["type"] == "line" and r["seat"] == 1 for r in records)


SCRIPTED = Path(__file__).parent / "fault_bots" / "scripted.py"


@pytest.mark.parametrize("game, seats, seed, nth", [
    ("thegame", 1, 5, 1), ("rage", 3, 3, 2), ("rage", 3, 3, 8), ("rage", 3, 3, 21)])
def test_a_fault_found_before_a_seats_batch_right_after_its_own_reply_is_not_its_reply(
        game: str, seats: int, seed: int, nth: int, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Bytes that are not UTF-8 sent after a legal reply are found when the seat is next
    asked, before its batch, with no line found first: when that seat was also the last
    one asked (a lone The Game player, a Rage trick's winner who leads), its fault comes
    right after its own reply in the log. It is not that reply's refusal: the reply
    stays its move (a review found the reader refusing or misreading such logs)."""
    script = ",".join(["ok"] * (nth - 1) + ["afterutf8now"])  # in one write: no race
    definition, config = (THEGAME, THEGAME.configure(1, Options.of(THEGAME, {}))) \
        if game == "thegame" else (RAGE, RageConfig(3))
    counted, written = play_tee(definition, config, f"stdio:python {SCRIPTED} {game} {script}",
                                f"python bots/{game}_random.py", seats, tmp_path, monkeypatch,
                                seed=seed, seat=0)
    logged = read_records(counted)
    fault = next(i for i, r in enumerate(logged) if isinstance(r, dict) and r["type"] == "fault")
    *_, reply, reply_time = logged[fault - 1]  # the case named: right after its own reply
    assert isinstance(reply, str) and not reply.startswith("LOG") and reply_time is None
    records = assert_same_records(counted, written)
    assert [r["seat"] for r in records if r["type"] == "fault"] == [0]
    moves = [r for r in records if r["type"] == "move" and r["seat"] == 0]
    assert [m["by"] for m in moves[:nth]] == ["bot"] * nth
    code, out, err = run_main(["replay", str(counted)])
    assert code == 0 and "result reproduced" in out, err


def real_log(tmp_path: Path) -> Path:
    log = tmp_path / "game.jsonl"
    code, _, err = run_main(["play", "rage", "--seed", "3", "--no-log-times", "--log", str(log),
                             *["python bots/rage_random.py"] * 3])
    assert code == 0, err
    return log


@pytest.mark.parametrize("tamper", ["time", "reply", "drop", "extra", "game", "seed"])
def test_a_log_whose_lines_do_not_derive_is_one_error_line(tmp_path: Path, tamper: str) -> None:
    """A line where a time was, a reply turned into a LOG line, an item missing or too
    many, another game or seed: the game played again does not come to what the log
    holds."""
    log = real_log(tmp_path)
    records = read_records(log)
    stream = max((r for r in records if isinstance(r, list)), key=len)
    middle = len(stream) // 2
    replies = [i for i, item in enumerate(stream) if isinstance(item, str) and i >= middle]
    if tamper == "time":
        stream[stream.index(None, middle)] = "0"
    elif tamper == "reply":
        stream[replies[0]] = "LOG no reply"
    elif tamper == "drop":
        del stream[middle]
    elif tamper == "extra":
        records.insert(-1, [None, "0", None])
    elif tamper == "game":
        records[0]["game"] = "thegame"
    else:
        records[0]["seed"] += 1
    log.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert_bad_input(["show", str(log)], str(log), "does not derive")


@pytest.mark.parametrize("record", [
    {"type": "sent", "seat": 1, "lines": ["PLAY? fake"]},
    {"type": "move", "seat": 1, "kind": "play", "move": "r3", "by": "bot"},
    {"type": "move", "seat": 1, "kind": "play", "move": "zz", "by": "fallback"},
    {"type": "result", "totals": [0, 0, 0], "places": [1, 1, 1], "faults": []},
    {"type": "fault", "seat": True, "bot": "b", "kind": "protocol", "detail": "x"},
    {"type": "banana"}])
def test_a_record_the_game_does_not_come_to_is_refused(tmp_path: Path,
                                                       record: dict[str, Any]) -> None:
    """Every record of a derived log but what a faulted seat was sent must be where the
    game comes to it: a batch written out for a seat that never faulted, a bot's move
    (derived, never written), a fallback's move no fallback made, a result mid-game, a
    fault whose seat is no number, a record of no known type."""
    log = real_log(tmp_path)
    records = read_records(log)
    stream = max((r for r in records if isinstance(r, list)), key=len)
    at, middle = records.index(stream), len(stream) // 2
    if record["type"] == "fault":  # in place of seat 1's END batch, as a fault of seat 1
        records[at:at + 1] = [stream[:-2], record, stream[-1:]]  # would be (seat 2's last)
    else:
        records[at:at + 1] = [stream[:middle], record, stream[middle:]]
    log.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert_bad_input(["show", str(log)], str(log), "does not derive")


def test_a_log_that_does_not_derive_names_the_other_referee_that_wrote_it(
        tmp_path: Path) -> None:
    """A derived log is read by the version that wrote it: the header says which, and
    the error says so when another version's log does not derive here."""
    log = real_log(tmp_path)
    records = read_records(log)
    assert records[0]["referee"] == __version__
    records[0].update(referee="0.0.1", seed=records[0]["seed"] + 1)
    log.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert_bad_input(["show", str(log)], str(log), "does not derive",
                     f"written by referee '0.0.1', this is {__version__}")


def test_a_log_with_every_line_written_reads_without_its_game(tmp_path: Path) -> None:
    """derive=False: nothing to play again, so even a game no registry knows reads."""
    path = tmp_path / "game.jsonl.gz"
    log = GameLog.open(path, timestamps=False, derive=False)
    log.header("no such game", 1, {}, [])
    log.sent(0, ["HELLO?"])
    log.heard(0, "yes")
    log.close()
    assert [r.get("line") for r in read_log(path)] == [None, "HELLO?", "yes"]
    assert b"HELLO?" in gzip.decompress(path.read_bytes())


@pytest.fixture(scope="module")
def real_records(tmp_path_factory: pytest.TempPathFactory) -> list[Any]:
    return read_records(real_log(tmp_path_factory.mktemp("real")))


mutations = st.lists(st.tuples(
    st.sampled_from(["item", "drop", "copy", "record", "header"]),
    st.integers(0, 10**6),
    st.none() | st.integers(-2, 40) | st.text(max_size=6)
    | st.lists(st.integers(-1, 4) | st.text(max_size=3), max_size=3)), min_size=1, max_size=4)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(changes=mutations)
def test_a_damaged_derived_log_reads_or_is_a_value_error(
        tmp_path_factory: pytest.TempPathFactory, real_records: list[Any],
        changes: list[tuple[str, int, Any]]) -> None:
    """Whatever is changed in a real format 5 log (items of its stream replaced, dropped
    or repeated, whole records dropped or repeated, the header's settings), reading it
    gives records or one ValueError: never another exception, nor a hang."""
    records = json.loads(json.dumps(real_records))
    for what, where, value in changes:
        stream = max((r for r in records if isinstance(r, list)), key=len, default=[])
        if what == "header":
            records[0]["settings"]["players" if isinstance(value, int) else "rounds"] = value
        elif what == "record" and len(records) > 1:
            del records[1 + where % (len(records) - 1)]
        elif what == "record" or not stream:
            records.insert(1, json.loads(json.dumps(records[-1])))
        elif what == "item":
            stream[where % len(stream)] = value
        elif what == "drop":
            del stream[where % len(stream)]
        else:
            stream.insert(where % len(stream), json.loads(json.dumps(stream[where % len(stream)])))
    path = tmp_path_factory.mktemp("fuzz") / "game.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    try:
        read = read_log(path)
    except ValueError:
        return
    assert all(isinstance(record, dict) for record in read)
