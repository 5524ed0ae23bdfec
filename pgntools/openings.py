"""Opening classification: the Lichess chess-openings table (ECO code, name and move line of
3,807 positions; CC0, shipped in pgntools/data/openings with its licence and source commit) as
a position table of the C core, built from the move lines when a run first classifies a game.

The rule (the table's own advice): a game's opening is the deepest position of its mainline,
within its first 40 plies, that the table names, matched by position (EPD without the counters;
the en-passant square only when a capture is legal), so a transposition finds its name. A game
from another start position (a FEN tag that is not the standard start, a Chess960 game) is not
classified. The replay looks the position up after each of those plies (_c/openings.c).
"""
from __future__ import annotations

import os
import threading
from typing import List, Tuple

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "openings")
FILES = ("a.tsv", "b.tsv", "c.tsv", "d.tsv", "e.tsv")
MAX_PLY = 40

_lock = threading.Lock()
_table = None


def table_text() -> bytes:
    """The table's TSV files, one after the other (each starts with its header line)."""
    parts = []
    for name in FILES:
        with open(os.path.join(DATA, name), "rb") as f:
            data = f.read()
        parts.append(data if data.endswith(b"\n") else data + b"\n")
    return b"".join(parts)


def table():
    """The compiled table (pgntools._core.OpeningTable), built on first use (a few ms) and shared
    by every reader of the process."""
    global _table
    if _table is None:
        with _lock:
            if _table is None:
                from pgntools import _core

                _table = _core.OpeningTable(table_text())
    return _table


def rows() -> List[Tuple[str, str]]:
    """(eco, name) of every row, in the table's order."""
    t = table()
    return [t.row(i) for i in range(len(t))]
