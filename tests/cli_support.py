"""Running the `referee` entry point in-process, and the bad-input contract every command keeps."""

from __future__ import annotations

import pytest

from referee.cli.main import main


def run_main(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Exit code, stdout and stderr of `referee ARGS` run through main()."""
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    out, err = capsys.readouterr()
    code = exit_info.value.code
    return (code if isinstance(code, int) else 0), out, err


def assert_bad_input(args: list[str], capsys: pytest.CaptureFixture[str], *words: str) -> None:
    """Exit 2, exactly one line on stderr that says what is wrong, nothing on stdout."""
    code, out, err = run_main(args, capsys)
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("referee: error: "), err
    assert "Traceback" not in err and out == ""
    for word in words:
        assert word in lines[0], lines[0]
