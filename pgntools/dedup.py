"""`--dedup moves|position` (issue 18): drops a game whose key an earlier game of the run had, and
keeps the first. ``moves``: the start position with the mainline's moves as played (the
movetext_hash column's key); ``position``: the final position (pieces, side to move, castling,
en passant; not the clocks). Both are 128-bit keys computed by the replay (_c/game_hash.h); a
game without one (not replayed to its end) is never a duplicate and is not remembered.

The decision is made in input order, in one place (the run's selection stage, in the parent):
memory is the C key set's (_c/keyset.h: 16-byte slots, at most 3/4 full).
"""
from __future__ import annotations

from array import array
from typing import List, NamedTuple, Sequence, Tuple

from pgntools import _core

MODES = {"moves": ("movetext_hash", "movetext_hash2"), "position": ("position_hash", "position_hash2")}


class Duplicate(NamedTuple):
    """A game the dedup dropped, for --report: its id, input, offset, line and the game it repeats."""
    game: int
    source: str
    offset: int
    line: int
    repeats: int


class Dedup:
    """The state of one run's --dedup: the keys of the games kept so far."""

    def __init__(self, mode: str):
        if mode not in MODES:
            raise ValueError(f"--dedup: {mode!r} is not one of {', '.join(MODES)}")
        self.mode = mode
        self.keys = _core.DedupKeys()

    def __reduce__(self):  # a fresh key set where unpickled
        return (Dedup, (self.mode,))

    def decide(self, batch, indices: Sequence[int]) -> Tuple[List[int], List[Duplicate]]:
        """Of the batch's games ``indices`` (in order), those that repeat no earlier game, and
        the duplicates dropped."""
        if not indices:
            return [], []
        a_name, b_name = MODES[self.mode]
        a, b, hashed = batch.column(a_name), batch.column(b_name), batch.column("hashed")
        pick = list(indices)
        if len(pick) == batch.n_games and batch.ids is None:  # the common case: the batch's columns as they are
            ids = array("q", range(batch.first_game, batch.first_game + batch.n_games))
            keys = batch.raw[a_name], batch.raw[b_name], batch.raw["hashed"]
        else:
            ids = array("q", [batch.game_id(g) for g in pick])
            keys = (array("q", [a[g] for g in pick]).tobytes(), array("q", [b[g] for g in pick]).tobytes(),
                    bytes(hashed[g] for g in pick))
        first = memoryview(self.keys.add(*keys, ids.tobytes())).cast("q")
        kept, dropped = [], []
        offsets, lines = batch.column("offset"), batch.column("line")
        for k, g in enumerate(pick):
            if first[k] < 0:
                kept.append(g)
            else:
                dropped.append(Duplicate(ids[k], batch.source, offsets[g], lines[g], first[k]))
        return kept, dropped


def report_record(dup: Duplicate, mode: str) -> dict:
    """The --report line of a dropped duplicate."""
    return {"game": dup.game, "file": dup.source, "offset": dup.offset, "line": dup.line, "status": "duplicate",
            "duplicate_of": dup.repeats, "dedup": mode, "errors": [], "fixes": [], "notes": []}
