"""The positions dataset (issue 19): one row per sampled mainline position a move was played
from, with the move, the game's result from the side to move's view, ratings, speed, clock,
evaluation and opening (and with ``planes`` the bitboards), for analysis and model training.

The rows are made in C at each game's end (pgntools/_c/positions_dataset.c), sampled there by the
seed and the game's id alone, so any --jobs and a Dask cluster give the same rows. Python sees
a batch at a time: ``--unique-positions`` keeps the first row of each Polyglot key in input order
(the C key set of --dedup), and ``pgntools.positions()`` (pgntools.arrow_tables) hands the rows
out as Arrow record batches.

Which positions, in order: those of valid or fixed games (an invalid game's moves stop at its
error and its result is not to be trusted) within ``min_ply``..``max_ply``, at most
``sample_plies`` of each game, of the games ``where`` selects; then, with ``unique``, the first
row of each key.
"""
from __future__ import annotations

from array import array
from collections.abc import Mapping
from typing import NamedTuple, Optional

from pgntools import _core
from pgntools.reader import GameBatch
from pgntools.selection import CHILD_TABLES

ROW_START = "position_start"
NUMERIC, STRINGS = CHILD_TABLES[ROW_START]
# --unique-positions' memory (README): the key set's 16-byte slots (at least 65,536: 1 MiB) are
# 3/8 to 3/4 full, 21 to 43 bytes a distinct position, 64 for the moment its table doubles (the
# old and the new side by side). Nothing else grows with the input.


class PositionRows(NamedTuple):
    """What the dataset takes of each game: at most ``sample_plies`` positions (None: every one)
    of the plies ``min_ply``..``max_ply`` (None: no bound), chosen by ``seed``; with ``planes`` the
    bitboard columns; with ``unique`` only the first row of each position (Polyglot key)."""

    sample_plies: Optional[int] = None
    min_ply: int = 0
    max_ply: Optional[int] = None
    seed: int = 0
    planes: bool = False
    unique: bool = False

    def checked(self) -> "PositionRows":
        """These settings, or a ValueError saying which cannot hold."""
        if self.sample_plies is not None and self.sample_plies < 1:
            raise ValueError(f"sample_plies must be at least 1 (or None: every position), not {self.sample_plies}")
        if self.min_ply < 0:
            raise ValueError(f"min_ply must be 0 or more, not {self.min_ply}")
        if self.max_ply is not None and self.max_ply < self.min_ply:
            raise ValueError(f"max_ply ({self.max_ply}) is below min_ply ({self.min_ply}): no position could be taken")
        return self

    @property
    def reader_option(self) -> tuple:
        """ReaderOptions.position_rows: what the C reader is told."""
        return (self.sample_plies or 0, self.min_ply, self.max_ply, self.seed, self.planes)

    def needs(self, en_passant: str = "legal") -> dict:
        """What the rows need from the reader (a Sink's needs): the move rows they are made from,
        the rating tags, the opening classification."""
        return {"moves": True, "tag_columns": True, "tag_values": True, "openings": True, "numbered": True,
                "en_passant": en_passant, "position_rows": self.reader_option}


class _Overlay(Mapping):
    """A batch's columns with some replaced (the rows --unique-positions keeps)."""

    def __init__(self, base, replaced: dict):
        self.base, self.replaced = base, replaced

    def __getitem__(self, name):
        return self.replaced[name] if name in self.replaced else self.base[name]

    def __contains__(self, name):
        return name in self.replaced or name in self.base

    def __iter__(self):
        return iter(self.base.keys())

    def __len__(self):
        return len(self.base.keys())


def row_count(batch: GameBatch) -> int:
    return len(batch.raw["position_ply"]) // 2


def row_game_ids(batch: GameBatch) -> bytes:
    """The game id of each row (int64), from the per-game row starts (one C loop)."""
    ids = None if batch.ids is None else array("q", batch.ids).tobytes()
    return _core.row_game_ids(batch.raw[ROW_START], row_count(batch), batch.first_game, ids)


def keep_rows(batch: GameBatch, keep: bytes) -> GameBatch:
    """The batch with only the dataset rows where ``keep`` (one byte a row) is not 0."""
    raw = batch.raw
    replaced = {ROW_START: _core.kept_starts(raw[ROW_START], keep)}
    for name in NUMERIC:
        replaced[name] = _core.kept_rows(raw[name], memoryview(b"").cast(_core.COLUMN_FORMATS[name]).itemsize, keep)
    for name in STRINGS:
        replaced[name] = _core.kept_strings(*raw[name], keep)
    view = GameBatch(_Overlay(raw, replaced), batch.source, batch.first_game)
    view.ids, view.games_read = batch.ids, batch.games_read
    return view


class UniqueRows:
    """--unique-positions: the state of one run, the keys of the rows kept so far. ``keep(batch)``
    is the batch with the rows whose key an earlier row had dropped (in input order)."""

    def __init__(self):
        self.keys = _core.PositionKeys()

    def keep(self, batch: GameBatch) -> GameBatch:
        if not row_count(batch):
            return batch
        first = self.keys.first_seen(batch.raw["position_key"], row_game_ids(batch))
        return batch if first.count(0) == 0 else keep_rows(batch, first)

    @property
    def nbytes(self) -> int:
        return self.keys.nbytes
