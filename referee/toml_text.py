"""TOML text parsed for the referee's input files: tournament files and command maps.

tomllib raises more than its TOMLDecodeError: nesting hundreds of levels deep exhausts the
stack (it parses arrays and inline tables recursively), and a value it cannot hold (an
integer of thousands of digits) is a plain ValueError. Both become one ConfigError here,
so that every file gives one clear error line, never a traceback.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from referee.errors import ConfigError


def parse_toml(text: str, source: str) -> dict[str, Any]:
    """`text` parsed. A syntax error stays a tomllib.TOMLDecodeError, for the caller to
    word with its line; what else tomllib cannot take is a ConfigError naming `source`."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        raise
    except RecursionError:
        raise ConfigError(f"{source}: TOML nested too deeply (arrays or inline tables "
                          "within each other hundreds of levels deep).") from None
    except ValueError as error:
        raise ConfigError(f"{source}: unreadable TOML value ({str(error)[:120]}).") from None


def read_text(path: Path, what: str) -> str:
    """A UTF-8 input file's text; ConfigError 'cannot read WHAT PATH: why' if it has none."""
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"cannot read {what} {path}: {error}.") from None
