"""Counts in words, as the referee prints them: "1 round", "2 rounds", "1,024 games"."""

from __future__ import annotations


def counted(number: int, noun: str) -> str:
    """`number` and `noun`, plural (an added s) unless it is exactly one."""
    return f"{number:,} {noun}{'' if number == 1 else 's'}"
