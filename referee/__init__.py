"""Referee and tournament runner for card-game bots: Rage and The Game Extreme."""

__version__ = "0.1.0"
