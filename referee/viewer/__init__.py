"""`referee view`: a game's log as one self-contained HTML page (docs/viewer.md).

The part that knows no game: the log's decisions (steps.py), the page (page.py) with its
playback script and styles (viewer.js, viewer.css). Each game draws its own board
(GameDefinition.board, in the game's folder).
"""
