"""`referee arena`: a long competition where contestants submit new versions (issue 31).

store: the arena's folder, settings and db; submissions: adding a version (its files
copied, hashed and frozen, or its command recorded with its hash)."""
