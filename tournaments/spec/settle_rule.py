"""The stop rule a tournament may be defined with: `--until-settled [--confidence C]
[--top K]`, or a [settle] table in its file (tournaments/stats/settle.py applies it;
docs/settle.md)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping


@dataclass(frozen=True)
class SettleRule:
    """Stop once the order is settled at `confidence`; with `top`, only the first `top`
    bots' set (the rest of the order may stay open)."""

    confidence: float = 0.95
    top: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"confidence": self.confidence, "top": self.top}

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> SettleRule:
        return cls(float(value["confidence"]), value.get("top"))

    def words(self) -> str:
        what = "the order" if self.top is None else f"the top {self.top}"
        return f"{what} at {self.confidence:.0%} confidence"
