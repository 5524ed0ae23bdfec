"""Polyglot opening books: `pgntools book` (issue 19); the counting is in C (_c/book_table.c,
BookCounts in _core_book.pxi), the sink in pgntools.sinks.book.

A Polyglot book is a file of 16-byte entries sorted by position key: the key (the Polyglot
Zobrist hash, as pgntools computes it for every position), a move, a weight and a learn field,
all big-endian. The move packs to-file, to-rank, from-file, from-rank and a promotion piece
(1 knight ... 4 queen) into 16 bits, castling written as the king taking its own rook (e1h1).

The rule: every move of the first --max-ply plies of each valid or fixed game with a result
(1-0, 0-1, 1/2-1/2) from the standard start position. The weight of a move in a position is 2
per win and 1 per draw of the side that played it, summed over every time it was played; a
move that was only ever lost (weight 0, which Polyglot readers skip) is left out, as is one
played fewer than --min-games times. When the largest weight exceeds the field's 65535, every
weight is scaled by the same factor, rounding up (so none becomes 0). Entries are sorted by
key, then weight from the highest, then move; learn fields are 0.
"""
from __future__ import annotations

import struct
from typing import List

ENTRY = struct.Struct(">QHHI")
START_KEY = 0x463B96181691FC9C  # the standard start position's key (the Polyglot format's example)
MAX_WEIGHT = 0xFFFF
# What a worker's BookCounts.parts() holds a pair as (book_table.h's BookSlot, native order).
SLOT = struct.Struct("=QQIHH")


def read_entries(path: str) -> List[tuple]:
    """The (key, move, weight, learn) entries of a Polyglot file."""
    with open(path, "rb") as f:
        data = f.read()
    return [ENTRY.unpack_from(data, i) for i in range(0, len(data) - len(data) % ENTRY.size, ENTRY.size)]
