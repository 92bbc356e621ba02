"""`referee serve DB`: a live view of a tournament, read-only (docs/viewer.md,
"Watching a running tournament")."""
