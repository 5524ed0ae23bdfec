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
from typing import List, NamedTuple, Optional, Sequence, Tuple

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


# The ids the games of --dedup-against's file take in the key set: above any input's game id (a
# run reads fewer than 2**39 games), below the key set's largest id.
AGAINST_BASE = 1 << 39
KEEPS = ("first", "duplicates")


class Dedup:
    """The state of one run's --dedup: the keys of the games kept so far.

    ``keep``: "first" (the first game of each key is kept, its repeats dropped) or "duplicates"
    (the repeats are kept, and a game none repeats before it is left out: pgn-extract -U).
    ``against``: a PGN file whose games' keys are known before the input's (--dedup-against): a
    game of the input that one of them has is dropped; with ``within`` False, that is all (the
    input's own repeats stay)."""

    def __init__(self, mode: str, keep: str = "first", against: Optional[str] = None, within: bool = True):
        if mode not in MODES:
            raise ValueError(f"--dedup: {mode!r} is not one of {', '.join(MODES)}")
        if keep not in KEEPS:
            raise ValueError(f"--dedup-keep: {keep!r} is not one of {', '.join(KEEPS)}")
        self.mode, self.keep, self.against, self.within = mode, keep, against, within
        self.keys = _core.DedupKeys()
        self.loaded = against is None

    @property
    def needs(self):
        """What the reader computes for it: this mode's keys (as Sink.needs)."""
        return {KEY_OPTIONS[self.mode]: True}

    def __reduce__(self):  # a fresh key set where unpickled (--dedup-against's file read there when it decides)
        return (Dedup, (self.mode, self.keep, self.against, self.within))

    def load_against(self):
        """--dedup-against: the keys of the file's games, with ids from AGAINST_BASE (its game n:
        AGAINST_BASE + n), once, before the first game is decided."""
        if self.loaded:
            return
        from pgntools.options import ReaderOptions
        from pgntools.reader import iter_batches

        a_name, b_name = MODES[self.mode]
        options = ReaderOptions(**{KEY_OPTIONS[self.mode]: True})
        for batch in iter_batches([self.against], options=options):
            if batch.n_games:
                raw = batch.raw
                ids = _core.id_range(AGAINST_BASE + batch.first_game, batch.n_games)
                self.keys.add(raw[a_name], raw[b_name], raw["hashed"], ids)
        self.loaded = True

    def decide_keys(self, games: Candidates) -> Tuple[Sequence[int], List[Tuple[int, int]]]:
        """Of the candidate games (in order, after all those decided before), the positions of
        those kept, and (position, the id of the game it repeats) of each game dropped as a
        repeat; their keys are remembered."""
        if not games.ids:
            return [], []
        self.load_against()
        kept, dropped = self.keys.decide(games.a, games.b, games.hashed, games.ids)  # (in C: no loop a game here)
        if not self.within and dropped:  # --dedup-against alone: the input's own repeats stay
            stays = [p for p, repeats in dropped if repeats < AGAINST_BASE]
            if stays:
                kept = sorted([*kept, *stays])
                dropped = [d for d in dropped if d[1] >= AGAINST_BASE]
        if self.keep == "duplicates":  # the repeats are what is kept; the others are not selected
            return [p for p, _ in dropped], []
        return kept, dropped


def report_record(dup: Duplicate, mode: str) -> dict:
    """The --report line of a dropped duplicate."""
    record = {"game": dup.game, "file": dup.source, "offset": dup.offset, "line": dup.line, "status": "duplicate",
              "duplicate_of": dup.repeats, "dedup": mode, "errors": [], "fixes": [], "notes": []}
    if dup.repeats >= AGAINST_BASE:  # a game of --dedup-against's file: its number there
        record["duplicate_of"] = dup.repeats - AGAINST_BASE
        record["duplicate_in"] = "--dedup-against"
    return record
