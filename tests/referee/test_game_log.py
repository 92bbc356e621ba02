"""The game log (issue 14, part 1): a compact stream of what the bots sent and when,
compressed, and one reader (`read_log`) that gives back every line in and out, in order,
for replay and for everything else that reads logs; the older formats (counted
exchanges, an exchange as an object, a record per line) still read."""

from __future__ import annotations

import gc
import gzip
import io
import json
import zlib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings, strategies as st

from referee import __version__
from referee.errors import Fault
from protocols.faults import FaultKind
from referee.logs.writer import FORMAT, DecidedBy, GameLog
from referee.logs.lines import read_records
from referee.logs import derive as log_rederive
from referee.registry import games
from referee.registry.game_logs import read_log
from tests.cli_support import assert_bad_input, run_main

FOUR = ["python bots/rage_random.py", "python bots/rage_heuristic.py",
        "python bots/rage_random.py", "stdio:bots/rage_first.sh"]
# A format 4 log, as the referee wrote it before format 5 (a Rage game, seed 7, with a
# seat that faults and one that sends LOG lines).
FORMAT_4 = Path(__file__).parent / "logs" / "rage-format4.jsonl.gz"
UNBOUNDED = 1 << 40  # a seat's LOG budget no test here reaches (log_budget.py)

# A game's calls on its log, as the table and the match make them.
lines = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12) | \
    st.sampled_from(["PLAY? r3 y4", "LOG \udcff not utf-8", "BID 2", "{\"},{\"\n"])
seats = st.integers(0, 3)
calls = st.lists(st.one_of(
    st.tuples(st.just("sent"), seats, st.lists(lines, max_size=4)),
    st.tuples(st.just("heard"), seats, lines),  # the seat of the last batch's, if any
    st.tuples(st.just("found"), seats, lines),
    st.tuples(st.just("move"), seats, st.sampled_from(list(DecidedBy)), lines),
    st.tuples(st.just("fault"), seats, lines)), max_size=700)


def record_calls(log: GameLog, script: list[tuple[Any, ...]]) -> list[dict[str, Any]]:
    """Make the calls, as a game makes them; return the records the older per-line log
    would have written. A line is heard from the seat last sent a batch (the one whose
    reply is awaited), else found."""
    log.header("rage", 7, {"players": 4}, [])
    expected: list[dict[str, Any]] = [
        {"type": "game", "format": FORMAT, "referee": __version__, "game": "rage", "seed": 7,
         "settings": {"players": 4}, "players": [], "derived": False}]
    asked = None
    for call in script:
        if call[0] == "sent":
            log.sent(call[1], call[2])
            asked = call[1] if call[2] else asked
            expected += [{"type": "line", "seat": call[1], "dir": "out", "line": line}
                         for line in call[2]]
        elif call[0] in ("heard", "found"):
            seat = call[1] if asked is None or call[0] == "found" else asked
            if seat == asked:
                log.heard(seat, call[2])
            else:
                log.found(seat, call[2])
            expected.append({"type": "line", "seat": seat, "dir": "in", "line": call[2]})
        elif call[0] == "move":
            log.move(call[1], "play", call[3], call[2])
            expected.append({"type": "move", "seat": call[1], "kind": "play",
                             "move": call[3], "by": call[2].value})
        else:
            fault = Fault(call[1], "bot", FaultKind.PROTOCOL, "bad line", call[2])
            log.fault(fault)
            expected.append({"type": "fault", **fault.to_json()})
    log.result({"totals": [1, 2]})
    log.close()
    return [*expected, {"type": "result", "totals": [1, 2]}]


@settings(max_examples=150, deadline=None)
@example(script=[("sent", 1, ["PLAY? a"]), ("heard", 1, "a"), ("move", 1, DecidedBy.BOT, "a"),
                 ("heard", 1, "LOG late"), ("sent", 2, ["x"]), ("found", 1, "LOG later")],
         name="game.jsonl", timestamps=False)  # a line after the move stays after it
@example(script=[("sent", 1, ["PLAY? a"]), ("heard", 1, "LOG a"), ("found", 2, "LOG b"),
                 ("heard", 1, "a")], name="game.jsonl", timestamps=True)  # in order
@given(script=calls, name=st.sampled_from(["game.jsonl", "game.jsonl.gz"]),
       timestamps=st.booleans())
def test_every_call_reads_back_as_the_per_line_records_in_order(
        tmp_path_factory: pytest.TempPathFactory, script: list[tuple[Any, ...]], name: str,
        timestamps: bool) -> None:
    path = tmp_path_factory.mktemp("log") / name
    expected = record_calls(GameLog.open(path, timestamps, derive=False, budget=UNBOUNDED),
                            script)
    read = read_log(path)
    times = [record.pop("t", None) for record in read]
    assert read == expected
    if timestamps:
        assert all(isinstance(t, float) for t in times) and times == sorted(times)
    else:
        assert times == [None] * len(times)
    assert (path.read_bytes()[:2] == b"\x1f\x8b") == name.endswith(".gz")


def test_a_derived_log_is_a_stream_of_times_and_lines_heard_and_the_records_between(
        tmp_path: Path) -> None:
    """Format 5: a batch out is its time, a line heard is itself, a reply is followed by
    its time, a line found carries its seat; the bots' moves are left out (the reader
    derives them), and every record the game does not derive is an object: a fallback's
    move, a fault, what a seat is sent after it."""
    path = tmp_path / "game.jsonl"
    log = GameLog.open(path, timestamps=False)
    log.sent(1, ["PLAYED 0 r3", "PLAY? r4 y2"])
    log.heard(1, "LOG thinking")
    log.heard(1, "r4")
    log.move(1, "play", "r4", DecidedBy.BOT)
    log.move(2, "play", "y1", DecidedBy.FALLBACK)
    log.found(3, "LOG late")
    log.sent(3, ["BID? 0 1 2"])
    log.heard(3, 'y"9')
    log.fault(Fault(3, "bot", FaultKind.PROTOCOL, "bad line", 'y"9'))
    log.sent(3, ["ERROR protocol bad line"])
    log.sent(0, ["END"])
    log.close()
    assert [json.loads(line) for line in path.read_text().splitlines()] == [
        [None, "LOG thinking", "r4", None],
        {"type": "move", "seat": 2, "kind": "play", "move": "y1", "by": "fallback"},
        [[3, "LOG late"], None, 'y"9', None],
        {"type": "fault", "seat": 3, "bot": "bot", "kind": "protocol", "detail": "bad line",
         "line": 'y"9'},
        {"type": "sent", "seat": 3, "lines": ["ERROR protocol bad line"]},
        [None]]


def test_a_stream_with_timestamps_has_when_each_batch_went_out_and_each_reply_came(
        tmp_path: Path) -> None:
    path = tmp_path / "game.jsonl"
    log = GameLog.open(path)
    log.header("rage", 1, {}, [])
    log.sent(0, ["PLAY? r1"])
    log.heard(0, "LOG a")
    log.heard(0, "r1")
    log.close()
    sent, heard, log_line, replied = json.loads(path.read_text().splitlines()[1])
    assert (heard, log_line) == ("LOG a", "r1")
    assert type(sent) is int and type(replied) is int and 0 <= sent <= replied < 10**6


def test_a_log_written_whole_has_each_batch_and_move_and_reads_with_their_times(
        tmp_path: Path) -> None:
    """derive=False: each batch a record with its time, the bots' moves too."""
    path = tmp_path / "game.jsonl"
    log = GameLog.open(path, derive=False)
    log.header("rage", 1, {}, [])
    log.sent(0, ["PLAY? r1"])
    log.heard(0, "r1")
    log.move(0, "play", "r1", DecidedBy.BOT)
    log.close()
    sent, (heard, replied), move = [json.loads(line)
                                    for line in path.read_text().splitlines()[1:]]
    assert (sent["lines"], heard, move["move"]) == (["PLAY? r1"], "r1", "r1")
    records = read_log(path)
    assert [record["t"] for record in records[1:]] == [
        sent["us"] / 1e6, replied / 1e6, move["us"] / 1e6]


def as_format_3(path: Path) -> list[Any]:
    """A format 4 log's JSON values as format 3 wrote them: every line out written, and
    the whole result (FORMAT_4: the referee writes format 5 now)."""
    records = read_records(path)
    derived = log_rederive.derive(records, games.lookup)
    for index, lines in derived.lines.items():
        records[index][3] = list(lines)
    assert records[-1]["type"] == "result" and "rounds" not in records[-1]
    records[-1] = {**derived.result, **records[-1]}
    return [{**records[0], "format": 3}, *records[1:]]


def test_a_log_in_format_3_reads_as_the_same_records(tmp_path: Path) -> None:
    new, old = FORMAT_4, tmp_path / "old.jsonl"
    old.write_text("".join(json.dumps(record) + "\n" for record in as_format_3(new)))
    records = read_log(new)
    records[0]["format"] = 3
    assert read_log(old) == records
    assert sum(record["type"] == "line" and record["dir"] == "out" for record in records) > 200


def as_format_2(record: Any) -> str:
    """A format 3 record as format 2 wrote it: an exchange an object with long keys."""
    if isinstance(record, dict):
        return json.dumps({**record, "format": 2} if record["type"] == "game" else record)
    seat, us, taken, sent, heard, *decided = record
    exchange = {"type": "exchange", "seat": seat, "out": sent, "in": heard}
    if decided:
        exchange["move"] = [decided[0], decided[-1] if len(decided) == 2 else heard[-1]]
    return json.dumps({**exchange, "us": us, "us_in": us + taken})


def test_a_log_in_format_2_reads_as_the_same_records_and_replays(tmp_path: Path) -> None:
    new, old = FORMAT_4, tmp_path / "old.jsonl.gz"
    old.write_bytes(gzip.compress("".join(as_format_2(record) + "\n"
                                          for record in as_format_3(new)).encode()))
    assert '"type": "exchange"' in gzip.decompress(old.read_bytes()).decode()
    records = read_log(new)
    records[0]["format"] = 2
    assert read_log(old) == records
    code, out, err = run_main(["replay", str(old)])
    assert code == 0 and "result reproduced" in out, err


def test_a_compressed_log_of_a_real_game_replays_and_tampering_is_caught(
        tmp_path: Path) -> None:
    """Issue 14's target: at most 20 KB of log per 4-player Rage game."""
    log = tmp_path / "game.jsonl.gz"
    code, _, err = run_main(["play", "rage", "--seed", "7", "--log", str(log), *FOUR])
    assert code == 0, err
    assert log.stat().st_size <= 20_000
    lines = [record for record in read_log(log) if record["type"] == "line"]
    assert sum(line["line"].startswith("GAME rage ") for line in lines) == 4
    assert sum(record["dir"] == "in" for record in lines) >= 4 * 55 + 4 * 10  # every reply
    code, out, err = run_main(["replay", str(log)])
    assert code == 0 and "260 moves replayed, result reproduced" in out, err
    records = gzip.decompress(log.read_bytes()).decode().splitlines()
    result = json.loads(records[-1])
    result["totals"][0] += 1
    log.write_bytes(gzip.compress("\n".join([*records[:-1], json.dumps(result)]).encode()))
    code, _, err = run_main(["replay", str(log)])
    assert code == 1 and "does not reproduce" in err


def test_a_log_in_the_older_per_line_format_still_replays(tmp_path: Path) -> None:
    new, old = tmp_path / "new.jsonl.gz", tmp_path / "old.jsonl"
    assert run_main(["play", "thegame", "--seed", "3", "--log", str(new),
                     "python bots/thegame_heuristic.py",
                     "python bots/thegame_random.py"])[0] == 0
    records = read_log(new)
    del records[0]["format"]
    old.write_text("".join(json.dumps(record) + "\n" for record in records))
    assert read_log(old) == records
    code, out, err = run_main(["replay", str(old)])
    assert code == 0 and "result reproduced" in out, err


@pytest.mark.parametrize("damage", ["truncated", "not gzip", "not json", "broken stream",
                                    "not an object", "an array in format 2"])
def test_a_damaged_log_is_one_error_line(tmp_path: Path, damage: str) -> None:
    log = tmp_path / "game.jsonl.gz"
    assert run_main(["play", "rage", "--seed", "1", "--log", str(log), *FOUR[:3]])[0] == 0
    data = log.read_bytes()
    text = gzip.decompress(data).decode()
    log.write_bytes({
        "truncated": data[:len(data) // 2],
        "not gzip": b"\x1f\x8b" + data[10:],
        "not json": gzip.compress(text.replace("}", "", 5).encode()),
        "broken stream": gzip.compress(text.replace("\n[", "\n[2.5,", 1).encode()),
        "not an object": gzip.compress(b"[1, 2]\n" + text.encode()),
        "an array in format 2": gzip.compress(text.replace('"format":5', '"format":2').encode()),
    }[damage])
    assert_bad_input(["replay", str(log)], str(log))


@settings(max_examples=200, deadline=None)
@given(data=st.binary(max_size=300) | st.builds(
    lambda text, level: zlib.compress(text.encode(), level, 31),
    st.text(st.sampled_from('{}[]",:0123456789 \n"typeexchangeseatoutinmove'), max_size=200),
    st.integers(0, 9)))
def test_read_log_of_any_bytes_returns_records_or_raises_value_error(
        tmp_path_factory: pytest.TempPathFactory, data: bytes) -> None:
    path = tmp_path_factory.mktemp("fuzz") / "game.jsonl.gz"
    path.write_bytes(data)
    try:
        records = read_log(path)
    except ValueError:
        return
    assert all(isinstance(record, dict) for record in records)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 10**400) | st.floats() | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=4), inner,
                                                                max_size=3), max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(lines=st.lists(json_values | st.lists(st.integers(0, 3) | st.lists(st.text(max_size=3),
                                                                        max_size=2)
                                             | st.none() | st.text(max_size=3),
                                             max_size=7), max_size=4),
       version=st.sampled_from([3, 4, FORMAT]))
@example(lines=[[0, 10**400, 1, [], []]], version=3)
@example(lines=[[None, "a", 10**400]], version=FORMAT)
def test_any_json_after_a_header_reads_as_records_or_is_a_value_error(
        tmp_path_factory: pytest.TempPathFactory, lines: list[Any], version: int) -> None:
    """Arrays are exchanges in format 3 and 4, stretches of the stream in format 5:
    whatever array a damaged file holds is read or refused, never a crash (nor a time no
    float holds)."""
    path = tmp_path_factory.mktemp("fuzz") / "game.jsonl"
    header = {"type": "game", "format": version, "derived": False}
    path.write_text("".join(json.dumps(line) + "\n" for line in [header, *lines]))
    try:
        records = read_log(path)
    except ValueError:
        return
    assert all(isinstance(record, dict) for record in records)


@pytest.mark.parametrize("exchange", [
    [], [1], [1, ["a"]], ["1", ["a"], []], [1, ["a"], "b"], [1, ["a"], [], "play"],
    [1, ["a"], ["b"], "play", "b", "x"], [1, ["a"], ["b"], 2], [1, 2, ["a"], []],
    [1, 2, 3, ["a"]], [1, 2.5, 3, ["a"], []]])
def test_a_broken_format_3_exchange_is_one_error_line(tmp_path: Path,
                                                       exchange: list[Any]) -> None:
    path = tmp_path / "game.jsonl"
    header = {"type": "game", "format": 3, "game": "rage", "seed": 1}
    path.write_text(f"{json.dumps(header)}\n{json.dumps(exchange)}\n")
    assert_bad_input(["show", str(path)], str(path), "broken exchange")


def test_a_flood_of_long_lines_is_written_as_it_comes_not_held_in_memory(
        tmp_path: Path) -> None:
    """A bot may send 16 LOG lines of 4 KB per request: the log holds about 1 MB of them
    at most, however few records that is (a seat's budget, unbounded here, keeps less)."""
    path = tmp_path / "game.jsonl"
    log = GameLog.open(path, timestamps=False, derive=False, budget=UNBOUNDED)
    log.header("rage", 1, {}, [])
    flood = "LOG " + "x" * 4000
    for _ in range(60):
        log.sent(0, ["PLAY? a"])
        for _ in range(16):
            log.heard(0, flood)
    sent = 60 * 16 * len(flood)
    assert path.stat().st_size >= sent - (1 << 20) - 20 * len(flood)
    log.close()
    assert [r["line"] for r in read_log(path) if r.get("dir") == "in"] == [flood] * 16 * 60


def test_a_flood_of_short_lines_is_written_through_to_the_file_as_it_comes(
        tmp_path: Path) -> None:
    """Each line held counts more than its characters (the objects that hold it), and a
    flood's write goes through to the file, compressed or not: LogFile holds no second
    megabyte (a seat's budget, unbounded here, keeps less)."""
    path = tmp_path / "game.jsonl.gz"
    log = GameLog.open(path, derive=False, budget=UNBOUNDED)
    log.header("rage", 1, {}, [])
    for _ in range(1000):
        log.sent(0, ["PLAY? a"])
        for _ in range(16):
            log.heard(0, "LOG x")
    assert path.stat().st_size > 0
    log.close()
    assert sum(r.get("line") == "LOG x" for r in read_log(path)) == 16_000


# Exchanges as the table and the match make them, with lines a JSON string holds as they
# are, or not: quotes, backslashes, control characters, a newline, past ASCII.
plain_lines = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E,
                                    exclude_characters='"\\'), max_size=8)
hostile_lines = plain_lines | st.sampled_from(
    ['a","b', '"', "\\", "x\\u0041", "\n", "\x00", "\x7f", "é", "LOG \udcff", "LOG ],[\""])
# (seat, lines out, lines in, moved)
exchanges = st.lists(st.tuples(seats, st.lists(hostile_lines, min_size=1, max_size=3),
                               st.lists(hostile_lines, max_size=2), st.booleans()),
                     max_size=40)


def play_exchanges(log: GameLog, script: list[tuple[Any, ...]]) -> None:
    for seat, out, back, moved in script:
        log.sent(seat, out)
        for line in back:
            log.heard(seat, line)
        if moved:
            log.move(seat, "play", back[-1] if back else "x", DecidedBy.BOT)


@settings(max_examples=200, deadline=None)
@given(script=exchanges, timestamps=st.booleans())
def test_each_line_is_compact_ascii_json_and_a_hostile_line_stays_in_its_string(
        tmp_path_factory: pytest.TempPathFactory, script: list[tuple[Any, ...]],
        timestamps: bool) -> None:
    """Whatever the bots send (a quote, a backslash, a control character, a newline, past
    ASCII, bytes that were not UTF-8), each line of the file is one compact JSON value in
    ASCII and the lines heard read back as they were, derived or written whole."""
    folder = tmp_path_factory.mktemp("log")
    for derive in (False, True):
        log = GameLog.open(folder / f"{derive}.jsonl", timestamps, derive)
        log.header("rage", 1, {}, [])
        play_exchanges(log, script)
        log.close()
        written = (folder / f"{derive}.jsonl").read_bytes().decode("ascii").split("\n")
        assert written[-1] == ""
        for text in written[:-1]:
            assert text == json.dumps(json.loads(text), separators=(",", ":"))
    stream = [item for record in read_records(folder / "True.jsonl")[1:]
              for item in record]
    marked = [None if item is None or type(item) is int else item for item in stream]
    assert marked == [item for _, out, back, _ in script
                      for item in [None] + [
                          piece for line in back
                          for piece in [line] + [None] * (not line.startswith("LOG ")
                                                          and line != "LOG")]]
    read = read_log(folder / "False.jsonl")
    assert [(r["seat"], r["dir"], r["line"]) for r in read if r["type"] == "line"] == \
        [(seat, way, line) for seat, out, back, _ in script
         for way, lines in [("out", out), ("in", back)] for line in lines]
    assert [(r["seat"], r["move"]) for r in read if r["type"] == "move"] == \
        [(seat, back[-1] if back else "x") for seat, _, back, moved in script if moved]


def test_the_stream_waiting_to_be_written_is_not_tracked_by_the_garbage_collector() -> None:
    """The stream waits up to a whole game: its items must not be containers the
    collector keeps walking (nor promote to its oldest generation)."""
    log = GameLog(io.BytesIO())
    play_exchanges(log, [(seat % 4, ["PLAY? a b"], ["LOG x", "a"], True)
                         for seat in range(20)])
    log.found(2, "LOG late")
    log.sent(1, ["GAME"])
    gc.collect()
    gc.collect()  # the first may look at a tuple before the items in it
    assert len(log._stream) == 20 * 4 + 2
    assert not any(gc.is_tracked(item) for item in log._stream)


def test_a_log_is_opened_in_a_folder_made_if_missing_and_one_that_exists(
        tmp_path: Path) -> None:
    """GameLog.open makes the log's folders only when opening fails for want of them (a
    tournament's games share one folder: no look at it per game), and writes either way."""
    for path in (tmp_path / "new" / "deeper" / "a.jsonl.gz", tmp_path / "new" / "b.jsonl"):
        log = GameLog.open(path)
        log.header("rage", 1, {"players": 3}, [])
        log.close()
        assert read_records(path)[0]["seed"] == 1


def test_a_rage_result_is_logged_without_its_rounds_and_read_with_them(
        tmp_path: Path) -> None:
    """The scores per round follow from the logged moves: the file leaves them out (a
    third of a game's bytes before gzip) and read_log derives them again, consistent
    with the totals the file holds."""
    path = tmp_path / "game.jsonl.gz"
    assert run_main(["play", "rage", "--seed", "3", "--log", str(path), *FOUR])[0] == 0
    written = read_records(path)[-1]
    assert written["type"] == "result" and set(written) == {
        "type", "totals", "places", "faults", "us", "sent_sha256"}
    read = read_log(path)[-1]
    assert read["totals"] == written["totals"] and len(read["rounds"]) == 10
    assert [sum(round_["seats"][seat]["total"] for round_ in read["rounds"])
            for seat in range(4)] == written["totals"]
