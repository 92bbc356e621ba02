"""High Card, a third game registered from the tests only, in the shape of the shipped
games' folders (referee/games/README.md, "A game is one folder")."""
