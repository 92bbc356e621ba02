"""`referee check`: a conformance suite for one bot, played with the real referee against
the sample bots. Each check is a named verdict with its evidence (verdict.py)."""
