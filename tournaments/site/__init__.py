"""A tournament's results site (`referee publish DB DIR`): an index, a page per bot and
a replay page per game, static files that open from file:// (docs/viewer.md, "A results
site")."""
