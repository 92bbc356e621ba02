"""A public page's settings name no file of the organiser's machine: The Game's
--commands file by its name alone (a hunt found the whole path on serve --public's and
publish --public's index)."""

from __future__ import annotations

from dataclasses import replace

from referee.games.thegame.definition import THEGAME
from tournaments.output.public import public_metadata
from tournaments.output.results import metadata
from tests.tournaments.fakes import make_spec


def test_a_settings_file_is_named_without_its_folder() -> None:
    settings = replace(metadata(make_spec(THEGAME, 2), 0),
                       options={"commands": "/home/organiser/secret/cmds.toml",
                                "variants": ["extreme"], "hints": None})
    shown = dict(public_metadata(settings).settings())["options"]
    assert shown == "commands cmds.toml, variants extreme, hints default"
    assert "/home" in dict(settings.settings())["options"]  # the organiser's keeps it
