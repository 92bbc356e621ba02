"""Hypothesis strategies for text a hostile bot might send, shared by the fuzz tests."""

from __future__ import annotations

from hypothesis import strategies as st

from protocols.wire import MAX_QUOTE_CHARS
from referee.games.rage.cards import COLOURS
from referee.games.thegame.commands import Command

# The longest fixed wording of any WireError, plus the quoted bot text cut short.
DETAIL_BOUND = 120 + MAX_QUOTE_CHARS + len("...")
# Characters a hostile bot would try: digits of other scripts, numerals, odd spaces, NUL.
TRICKY = "0123456789²³¹٣٧०三½Ⅻ \t\u3000\u2028\x85\x00:=,abcdrgbyvoJNTC+-HELOleavgodhskulnt"
PILES = "abcd"
PLAY_WORDS = ([f"{c.value}{v}" for c in COLOURS for v in range(16)]
              + ["NT", "TC", "+5", "-5"] + [f"J:{c.value}" for c in COLOURS])
HINT_WORDS = ([f"{kind}:{pile}" for kind in ("leave", "good") for pile in PILES]
              + [f"hold:{command.value}" for command in Command])


def _repeat(chars: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """Long texts (about one line's worth), built cheaply by repetition."""
    return st.builds(lambda c, n: c * n, chars, st.integers(1000, 4200))


BOT_TEXT = st.one_of(
    st.text(),
    st.text(alphabet=TRICKY, max_size=40),
    # Text a bot can send is UTF-8 (other bytes come from st.binary() where raw bytes
    # are fuzzed): no lone surrogates, which no encoder would write.
    _repeat(st.characters(codec="utf-8")),
    _repeat(st.sampled_from(["1", "²", "é", "😀", "a:1 ", "leave:a "])),
)
HINT_TEXT = st.one_of(
    BOT_TEXT, st.just("none"),
    st.lists(st.one_of(st.sampled_from(HINT_WORDS), st.text(alphabet=TRICKY, max_size=8)),
             max_size=6).map(" ".join))


def is_ascii_number(text: str, max_digits: int) -> bool:
    """1 to `max_digits` characters 0-9: the oracle, without regexes or str.isdigit()."""
    return 1 <= len(text) <= max_digits and all("0" <= ch <= "9" for ch in text)


def is_placement(word: str) -> bool:
    """`pile:card` with a card of 1 to 3 ASCII digits."""
    return len(word) > 2 and word[0] in PILES and word[1] == ":" and is_ascii_number(word[2:], 3)


def is_hint_reply(reply: str) -> bool:
    """`none`, or 1 to 4 words of the fixed vocabulary (docs/rules.md, Talking)."""
    words = reply.split()
    return reply.strip() == "none" or (1 <= len(words) <= 4 and set(words) <= set(HINT_WORDS))
