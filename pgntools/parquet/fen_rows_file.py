"""to-fen --format parquet: the positions table (schema.POSITION_COLUMNS: game_id, ply, san, fen)
as one Parquet file, by the project's own writer (part_file.py) from the rows the C core
makes of each batch (_core.fen_rows, pgntools/_c/fen_rows.c): one row group a batch, no pyarrow.

In a parallel run each worker encodes and compresses its chunk's row groups (in memory) and
hands their pages and footer entries back; the parent appends them in chunk order, so the file
holds the same rows, in the same groups, as a run in one thread."""
from __future__ import annotations

from typing import List, NamedTuple, Optional, Sequence, Tuple

from pgntools import _core
from pgntools.reader import STATUS_INVALID, GameBatch
from pgntools.tables import schema
from pgntools.parquet.part_file import (BYTE_ARRAY, INT32, INT64, ParquetPartFile, RowGroup, _dict, _dict_strings,
                                         _fixed, _plain_strings, _strings, flat)

# The table's fields, in POSITION_COLUMNS' order: game ids and plies repeat (dictionary pages),
# as do moves; positions mostly do not (plain, as export's fen column)
FIELDS = [flat("game_id", INT64, None, _dict(8), _fixed("game_id", "i64")),
          flat("ply", INT32, "int16", _dict(4), _fixed("ply", "i16")),
          flat("san", BYTE_ARRAY, "string", _dict_strings, _strings("san")),
          flat("fen", BYTE_ARRAY, "string", _plain_strings, _strings("fen"))]


class FenRows(NamedTuple):
    """One batch's rows, as the encoders take a batch's columns (``raw``)."""
    n_rows: int
    raw: dict


def fen_rows(batch: GameBatch, per_ply: bool, plies: Optional[Sequence[int]], include_invalid: bool,
             window: Tuple[int, int] = (0, -1)) -> FenRows:
    """The rows of to-fen's table formats (pgntools/tables/fen_rows.py's, made in C); with
    ``per_ply``, of the plies [first, last] of ``window`` (last -1: to the game's end)."""
    n, game_id, ply, san, fen = _core.fen_rows(batch.raw, batch.ids, batch.first_game, per_ply,
                                               sorted(set(plies)) if plies else None, include_invalid, STATUS_INVALID,
                                               window)
    return FenRows(n, {"game_id": game_id, "ply": ply, "san": san, "fen": fen})


class FenRowsFile(ParquetPartFile):
    """The positions table's file on an opened output: ``add(rows)`` writes a row group."""

    def __init__(self, file, compression: str = "zstd"):
        super().__init__(file, "positions", schema.POSITION_COLUMNS, compression, fields=FIELDS)

    def add(self, rows: FenRows):
        if not rows.n_rows:
            return
        for leaf, encoder in zip(self.leaves, self.encoders):
            leaf.feed(encoder, rows)
        self.group_rows += rows.n_rows
        self.end_row_group()

    def pages(self, written: bytes) -> Tuple[bytes, List[RowGroup]]:
        """A worker's part (``written``: its output's bytes): the pages after the magic bytes and
        the row groups' entries, for the parent's add_row_groups."""
        return written[4:], list(self.row_groups)
