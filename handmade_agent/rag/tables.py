r"""Markdown tables, found inside a paragraph and cut into rows for the chunker.

A table here is a paragraph whose every line starts with ``|`` and whose second
line is the header separator (``|---|---|``). ``table_rows`` returns its header
row and the span of each body row, so the chunker can make a row a chunk that
still knows its columns.

Deliberately left out: tables without a separator line, cells spanning lines,
HTML tables.

    >>> table_rows("| a | b |\n|---|---|\n| 1 | 2 |")
    ('| a | b |', [(20, 29)])
"""
from __future__ import annotations

import re

TABLE_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{2,}")


def table_rows(para: str) -> tuple[str, list[tuple[int, int]]] | None:
    """For a markdown table paragraph: its header row and the (start, end) of each body row; else None."""
    lines = para.strip("\n").split("\n")
    if len(lines) < 3 or not all(l.lstrip().startswith("|") for l in lines) or not TABLE_SEPARATOR.match(lines[1]):
        return None
    offset, spans = para.index(lines[0]), []
    for n, line in enumerate(lines):
        if n >= 2 and line.strip():
            spans.append((offset, offset + len(line.rstrip())))
        offset += len(line) + 1
    return lines[0].strip(), spans
