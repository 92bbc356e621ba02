"""A contestant's relay is the contestant's code: whatever frames an authenticated peer
sends, the referee's reading of them (protocols/remote_relay.read_note) says what it is
or that it is none, bounded, and never raises. Fuzzed with hypothesis; the real-process
tests of tests/remote/test_remote_games.py show what the seat then makes of it."""

from __future__ import annotations

from hypothesis import given, strategies as st

from protocols.remote_relay import MAX_NOTE_BYTES, RELAY, read_note

FRAMES = st.lists(st.binary(max_size=MAX_NOTE_BYTES * 2), max_size=4)


@given(FRAMES)
def test_any_frames_are_a_note_or_none_and_never_raise(parts: list[bytes]) -> None:
    note = read_note(parts)
    if note is None:
        assert len(parts) != 2 or parts[0] != RELAY
        return
    word, text = note
    assert isinstance(word, str) and isinstance(text, str)
    assert len(word) + len(text) <= MAX_NOTE_BYTES  # at most that many characters


@given(st.binary(max_size=MAX_NOTE_BYTES * 3))
def test_a_note_of_any_bytes_is_read_within_its_bound(body: bytes) -> None:
    note = read_note([RELAY, body])
    assert note is not None
    word, text = note
    assert len(word) + len(text) <= MAX_NOTE_BYTES
