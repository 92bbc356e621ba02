"""What the transcript tests of both games share: the spec's example, a seat that replays
its bot lines, and the checks that its lines speak the codec.

A transcript holds seat 0's whole exchange: `> ` a line from the referee, `< ` a reply.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

from protocols.message import Message
from protocols.wire import is_request

PROTOCOLS = Path(__file__).resolve().parents[2] / "protocols"
Handler = Callable[[str], str | None]


def spec_transcript(page: str) -> list[str]:
    """The lines of the example transcript in protocols/`page` (the section's code block)."""
    text = (PROTOCOLS / page).read_text(encoding="utf-8")
    block = text.split("## Example transcript", 1)[1].split("```\n", 2)[1]
    return block.splitlines()


def bot_lines(transcript: list[str]) -> Iterator[str]:
    """The replies (`<`), in order."""
    return (line[2:] for line in transcript if line.startswith("< "))


def referee_lines(transcript: list[str]) -> list[str]:
    return [line[2:] for line in transcript if line.startswith("> ")]


def exchanges(transcript: list[str]) -> list[tuple[str, str]]:
    """Each request with the reply that follows it."""
    return [(request[2:], reply[2:]) for request, reply in zip(transcript, transcript[1:])
            if reply.startswith("< ")]


def recording_seat(reply: Callable[[str], str], seen: list[str]) -> Handler:
    """A seat that records its exchange in `seen` and answers requests with `reply`."""
    def handle(line: str) -> str | None:
        seen.append("> " + line)
        if not is_request(line):
            return None
        answer = reply(line)
        seen.append("< " + answer)
        return answer
    return handle


def decoded(codec: ModuleType, transcript: list[str]) -> list[Message]:
    """Every referee line decoded, each checked to encode back to itself byte for byte."""
    messages = [codec.decode(line) for line in referee_lines(transcript)]
    assert [message.encode() for message in messages] == referee_lines(transcript)
    return messages
