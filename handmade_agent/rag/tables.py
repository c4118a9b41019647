r"""Markdown tables, found inside a paragraph and cut into rows for the chunker.

A table here is a paragraph whose every line starts with ``|`` and whose second
line is the header separator (``|---|---|``). ``table_rows`` returns its header
row and the span of each body row, so the chunker can make a row a chunk that
still knows its columns. ``row_record`` writes a row as ``column: value`` pairs,
which is how the search tool shows it to the model: with the header two lines up, the
0.5B model read the first value column whatever the question asked ("2.6 L" for the
T4 Pro, whose tank is 4.1 L).

Deliberately left out: tables without a separator line, cells spanning lines,
HTML tables.

    >>> table_rows("| a | b |\n|---|---|\n| 1 | 2 |")
    ('| a | b |', [(20, 29)])
    >>> row_record("| Item | T4 | T4 Pro |", "| Tank | 2.6 L | 4.1 L |")
    'Item: Tank; T4: 2.6 L; T4 Pro: 4.1 L'
"""
from __future__ import annotations

import re
from typing import Sequence

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


def cells(row: str) -> list[str]:
    """The cells of one markdown table row, stripped (outer pipes optional)."""
    row = row.strip()
    row = row[1:] if row.startswith("|") else row
    row = row[:-1] if row.endswith("|") else row
    return [c.strip() for c in row.split("|")]


def row_record(header: str, row: str, columns: Sequence[int] | None = None) -> str:
    """A body row as ``column: value`` pairs (empty cells left out; only ``columns`` when given, by index);
    the row itself if the widths differ."""
    names, values = cells(header), cells(row)
    if len(names) != len(values):
        return row.strip()
    keep = range(len(names)) if columns is None else columns
    return "; ".join(f"{names[i]}: {values[i]}" if names[i] else values[i] for i in keep if values[i])
