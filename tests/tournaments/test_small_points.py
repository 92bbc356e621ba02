"""Issue 29 part 7, the smaller points: a tournament's own name on its pages, a db in use
said plainly, `check`'s replay hint, `gate`'s results when interrupted."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli_support import assert_bad_input, run_main
from tournaments.spec.definition import spec_from_json
from tournaments.spec.toml_file import load_tournament_file

FIRST = "stdio:bots/rage_first.sh"
ROOT = Path(__file__).resolve().parents[2]


def tournament_file(folder: Path, *top: str) -> Path:
    bots = "".join(f'[[bots]]\nname = "b{i}"\ncommand = "stdio:{ROOT}/bots/rage_first.sh"\n'
                   for i in range(3))
    path = folder / "t.toml"
    path.write_text("\n".join(top) + '\ngame = "rage"\n' + bots)
    return path


def test_a_named_tournament_heads_every_page_with_its_name(tmp_path: Path) -> None:
    name = "CS101 <Rage> & friends"
    path = tournament_file(tmp_path, f'name = "{name}"')
    spec = load_tournament_file(path)
    assert spec.title == name
    assert spec_from_json(spec.to_json()).title == name  # as the db stores it
    (tmp_path / "unnamed").mkdir()
    unnamed = load_tournament_file(tournament_file(tmp_path / "unnamed"))
    assert unnamed.fingerprint() == spec.fingerprint()  # a name is no other tournament
    db = tmp_path / "t.sqlite"
    code, out, err = run_main(["tournament", str(path), "--db", str(db), "--sandbox", "off",
                               "--format", "html"])
    assert code == 0, err
    assert "<h1>CS101 &lt;Rage&gt; &amp; friends</h1>" in out
    assert "<title>CS101 &lt;Rage&gt; &amp; friends</title>" in out
    code, out, err = run_main(["results", str(db)])
    assert code == 0 and out.startswith(f"{name}\n\n"), out
    code, out, err = run_main(["results", str(db), "--format", "markdown"])
    assert out.startswith("## CS101 &lt;Rage&gt; &amp; friends\n"), out
    code, out, err = run_main(["results", str(db), "--format", "json"])
    assert json.loads(out)["metadata"]["title"] == name


def test_a_tournament_name_that_is_no_line_of_text_is_refused(tmp_path: Path) -> None:
    for value in ("42", '"two\\nlines"', '""'):
        path = tournament_file(tmp_path, f"name = {value}")
        assert_bad_input(["tournament", str(path)], str(path), "line 1", "name")
