"""`--dedup moves|position` (issue 18): drops a game whose key an earlier game of the run had, and
keeps the first. ``moves``: the start position with the mainline's moves as played (the
movetext_hash column's key); ``position``: the final position (pieces, side to move, castling,
en passant; not the clocks). Both are 128-bit keys computed by the replay (_c/game_hash.h); a
game without one (not replayed to its end) is never a duplicate and is not remembered.

The decision is made in input order, in one place: the run's selection stage in-process, the
parent of a parallel run (pgntools.runner.in_order: the workers send each chunk's keys, the parent decides
and sends back which games to write). Memory is the C key set's (_c/keyset.h: 16-byte slots, at
most 3/4 full), in that one place.
"""
from __future__ import annotations

from array import array
from typing import List, NamedTuple, Sequence, Tuple

from pgntools import _core

MODES = {"moves": ("movetext_hash", "movetext_hash2"), "position": ("position_hash", "position_hash2")}
# The reader option that fills each mode's key columns (ReaderOptions: not computed unless asked).
KEY_OPTIONS = {"moves": "movetext_hash", "position": "position_hash"}


class Duplicate(NamedTuple):
    """A game the dedup dropped, for --report: its id, input, offset, line and the game it repeats."""
    game: int
    source: str
    offset: int
    line: int
    repeats: int


class Candidates(NamedTuple):
    """Games for the in-order choice (pgntools.where.Choose.decide), in input order: their ids,
    and with --dedup their key lanes and whether each has a key (bytes: int64, int64, int64,
    uint8 per game; empty without --dedup). ~25 bytes a game, what a parallel run's worker
    sends the parent for its chunk."""

    ids: bytes
    a: bytes
    b: bytes
    hashed: bytes

    @staticmethod
    def joined(parts: Sequence["Candidates"]) -> "Candidates":
        return Candidates(*(b"".join(lane) for lane in zip(*parts))) if parts else Candidates(b"", b"", b"", b"")


def keys_of(batch, indices: Sequence[int], mode: str) -> Candidates:
    """The ids and ``mode`` keys of the batch's games ``indices`` (ascending)."""
    a_name, b_name = MODES[mode]
    raw = batch.raw
    if len(indices) == batch.n_games and batch.ids is None:  # the common case: the batch's columns as they are
        ids = _core.id_range(batch.first_game, batch.n_games)
        return Candidates(ids, raw[a_name], raw[b_name], raw["hashed"])
    from pgntools.selection import all_ids

    runs = _core.game_runs(array("q", indices).tobytes())  # the key columns of those games, gathered in C
    ids = _core.take_rows(all_ids(batch), 8, runs)
    return Candidates(ids, _core.take_rows(raw[a_name], 8, runs), _core.take_rows(raw[b_name], 8, runs),
                      _core.take_rows(raw["hashed"], 1, runs))


class Dedup:
    """The state of one run's --dedup: the keys of the games kept so far."""

    def __init__(self, mode: str):
        if mode not in MODES:
            raise ValueError(f"--dedup: {mode!r} is not one of {', '.join(MODES)}")
        self.mode = mode
        self.keys = _core.DedupKeys()

    @property
    def needs(self):
        """What the reader computes for it: this mode's keys (as Sink.needs)."""
        return {KEY_OPTIONS[self.mode]: True}

    def __reduce__(self):  # a fresh key set where unpickled
        return (Dedup, (self.mode,))

    def decide_keys(self, games: Candidates) -> Tuple[Sequence[int], List[Tuple[int, int]]]:
        """Of the candidate games (in order, after all those decided before), the positions of
        those that repeat no earlier game, and (position, the id of the game it repeats) of
        each other one; their keys are remembered."""
        if not games.ids:
            return [], []
        return self.keys.decide(games.a, games.b, games.hashed, games.ids)  # (in C: no loop a game here)


def report_record(dup: Duplicate, mode: str) -> dict:
    """The --report line of a dropped duplicate."""
    return {"game": dup.game, "file": dup.source, "offset": dup.offset, "line": dup.line, "status": "duplicate",
            "duplicate_of": dup.repeats, "dedup": mode, "errors": [], "fixes": [], "notes": []}
