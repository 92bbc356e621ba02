"""Where a key or table of a TOML text was written: TOML parsers give values, not lines,
and an error message that names the line is worth a scan of the text."""

from __future__ import annotations

import re

_HEADER = re.compile(r"\s*(\[\[?)\s*([^\]\s]+)\s*\]")


class TomlLines:
    """Finds the line a table or key was written on, by scanning the text."""

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()
        # (table name, 0-based index among its [[array]] headers, first line, last line)
        self.sections: list[tuple[str | None, int, int, int]] = []
        starts: list[tuple[str | None, int, int]] = [(None, 0, 1)]
        counts: dict[str, int] = {}
        for number, line in enumerate(self.lines, start=1):
            header = _HEADER.match(line)
            if header:
                name = header.group(2).strip("\"'")
                starts.append((name, counts.get(name, 0), number))
                counts[name] = counts.get(name, 0) + 1
        ends = [start for _, _, start in starts[1:]] + [len(self.lines) + 1]
        for (name, index, start), end in zip(starts, ends):
            self.sections.append((name, index, start, end - 1))

    def table_start(self, table: str | None, bot: int | None) -> int | None:
        """The header line of a table (1 for the top level), or None if written inline."""
        section = self._section(table, bot)
        return None if section is None else section[2]

    def key_line(self, key: str, table: str | None, bot: int | None) -> int:
        """The line where `key` is set in that table, or the best nearby line."""
        header = self.table_start(key, 0) if table is None else None
        if header is not None:  # the key names a table, e.g. [limits] or [[bots]]
            return header
        section = self._section(table, bot)
        if section is not None:
            found = self._search(rf"\s*[\"']?{re.escape(key)}[\"']?\s*=", section[2],
                                 section[3])
            if found is not None:
                return found
        dotted = key if table is None else f"{table}.{key}"
        found = self._search(rf"\s*{re.escape(dotted)}\s*=", 1, len(self.lines))
        if found is not None:
            return found
        inline = self._nth_match(rf"(^|[{{,\s])[\"']?{re.escape(key)}[\"']?\s*=", bot or 0)
        if inline is not None:
            return inline
        return section[2] if section is not None else self._outer_line(table)

    def _outer_line(self, table: str | None) -> int:
        if table is None:
            return 1
        return self.table_start(table, 0) or self.key_line(table, None, None)

    def _section(self, table: str | None, bot: int | None) -> tuple[str | None, int, int,
                                                                      int] | None:
        for section in self.sections:
            if section[0] == table and section[1] == (bot or 0):
                return section
        return None

    def _search(self, pattern: str, first: int, last: int) -> int | None:
        compiled = re.compile(pattern)
        for number in range(first, last + 1):
            if compiled.match(self.lines[number - 1]):
                return number
        return None

    def _nth_match(self, pattern: str, nth: int) -> int | None:
        compiled = re.compile(pattern)
        hits = [number for number, line in enumerate(self.lines, start=1)
                if compiled.search(line)]
        return hits[nth] if nth < len(hits) else None
