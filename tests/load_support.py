"""Loading a file a user wrote (a command map, a tournament file) that is wrong."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from referee.errors import ConfigError


def loading_error(load: Callable[[Path], object], path: Path) -> str:
    """The message of the ConfigError that `load(path)` raises; it must name the file."""
    with pytest.raises(ConfigError) as caught:
        load(path)
    message = str(caught.value)
    assert str(path) in message, "every loading error names the file"
    return message
