"""The games table's typed date columns (schema.TagDate): the Date tag as an Arrow date32, the
year and month whenever known, UTCDate and UTCTime as a timestamp[s, UTC]. Read in C from the
batch's tag values (pgntools/_c/pgn_date.h: a PGN date is YYYY.MM.DD with ?? for an unknown
part, PGN standard 8.1.1.3), straight into Arrow's layout (values and a validity bitmap); the
same buffers make to_arrow's, the Dask partitions' and --where's arrays and feed export's
Parquet encoder (parquet/part_file.py)."""
from __future__ import annotations

from typing import Tuple

from pgntools._core import tag_date_column
from pgntools.reader import TAG_COLUMNS, GameBatch
from pgntools.tables.schema import Column, TagDate


def date_buffers(batch: GameBatch, column: Column, scale: int = 1) -> Tuple[bytes, bytes, int]:
    """A TagDate column of the batch's games in Arrow's layout: (values, validity bitmap, null
    count); instants times ``scale``. A ValueError when the run did not ask the reader for the
    tag columns."""
    source: TagDate = column.source
    first, second = (TAG_COLUMNS.index(tag) for tag in (source.tags * 2)[:2])
    offsets, data = batch.buffer("tag_value")
    n = batch.n_games
    slots = batch.buffer("tag_slots")
    if n and len(slots) < 4 * n * len(TAG_COLUMNS):
        raise ValueError(f"games column {column.name!r}: the reader did not fill the tag columns "
                         f"(the run did not ask for tag_columns)")
    return tag_date_column(source.part, slots, offsets, data, n, first, second, scale)


def date_array(batch: GameBatch, column: Column):
    """A TagDate column of the batch's games as an Arrow array of its declared type."""
    import pyarrow as pa

    from pgntools.tables.schema import arrow_type

    values, valid, nulls = date_buffers(batch, column)
    return pa.Array.from_buffers(arrow_type(column.type), batch.n_games,
                                 [pa.py_buffer(valid) if nulls else None, pa.py_buffer(values)], null_count=nulls)
