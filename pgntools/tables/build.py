"""Arrow tables from a GameBatch, column by column (no Python objects per move or tag), as
schema.py declares them: what the Dask API's partitions are (pgntools.dask), and what the tests
compare export's own Parquet files with."""
from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

import functools
from typing import Sequence, Tuple

from pgntools.reader import ERROR_KINDS, TAG_COLUMNS, GameBatch
from pgntools.tables import schema
from pgntools.tables.arrays import ints, numeric, scalar, strings, text, with_validity
from pgntools.tables.schema import Built, Codes, Column, Fixed, Flag, Strings, Tag, TagDate

ERROR_NAMES = text(ERROR_KINDS)
NO_STRING = pa.nulls(1, pa.string())
# the tags whose text has a column of its own (not in the map; Date's text is: its column is typed)
TAG_COLUMN_NAMES = text(t for t in TAG_COLUMNS if t not in schema.TEXT_IN_MAP)


def offsets(batch: GameBatch, start_column: str, total: int) -> pa.Array:
    """CSR offsets (n_games + 1) of a child table from its per-game start column."""
    return pa.concat_arrays([numeric(batch, start_column, pa.int32()), ints([total], pa.int32())])


def parents(offs: pa.Array, total: int) -> pa.Array:
    """For each child row, the batch-local index of its game."""
    return pa.ListArray.from_arrays(offs, pa.nulls(total, pa.int8())).value_parent_indices()


def game_ids(local: pa.Array, batch: GameBatch) -> pa.Array:
    """Batch-local game indexes as game_ids (input order over all inputs)."""
    if batch.ids is not None:  # a selection's view of some games: they keep the input's ids
        return pc.take(ints(batch.ids, pa.int64()), local)
    return pc.add(local.cast(pa.int64()), scalar(batch.first_game, pa.int64()))


def flag(bits: pa.Array, bit: int) -> pa.Array:
    return pc.not_equal(pc.bit_wise_and(bits, scalar(bit, bits.type)), scalar(0, bits.type))


def dictionary(codes: pa.Array, names: pa.Array) -> pa.DictionaryArray:
    """Codes 1..k as a dictionary over names[0..k-1]; code 0 is null."""
    indices = pc.subtract(codes.cast(pa.int8()), scalar(1, pa.int8()))
    return pa.DictionaryArray.from_arrays(with_validity(indices, codes.cast(pa.bool_())), names)


def masked(values: pa.Array, has: pa.Array, bit: int) -> pa.Array:
    return with_validity(values, flag(has, bit))


@functools.lru_cache(maxsize=None)
def _names(names: Tuple[str, ...]) -> pa.Array:
    return text(names)


@functools.lru_cache(maxsize=64)
def _schema(columns: Tuple[Column, ...]) -> pa.Schema:
    return schema.arrow_schema(columns)


class _Columns:
    """The arrays of one batch's table, each column's from its declared source; what several
    columns share (flags, has bits, the tag columns) is made once."""

    def __init__(self, batch: GameBatch, table: str):
        self.batch, self.table = batch, table
        self.shared: dict = {}

    def once(self, key, make):
        if key not in self.shared:
            self.shared[key] = make()
        return self.shared[key]

    def bits(self, column: str) -> pa.Array:
        return self.once(column, lambda: numeric(self.batch, column, pa.uint8()))

    def array(self, column: Column) -> pa.Array:
        source, batch = column.source, self.batch
        if isinstance(source, Fixed):
            values = numeric(batch, source.column, schema.arrow_type(column.type))
            if self.table == "games" and len(values) != batch.n_games:
                raise ValueError(schema.not_filled(column))
            return masked(values, self.bits(source.has_column), source.has) if source.has else values
        if isinstance(source, Strings):
            values = strings(batch, source.column)
            return masked(values, self.bits(source.has_column), source.has) if source.has else values
        if isinstance(source, Codes):
            codes, names = numeric(batch, source.column, pa.uint8()), _names(source.names)
            if source.base == 1:
                return dictionary(codes, names)
            if isinstance(column.type, tuple):  # a dictionary
                return pa.DictionaryArray.from_arrays(codes.cast(pa.int8()), names)
            return pc.take(names, codes)
        if isinstance(source, Flag):
            return flag(self.bits(source.column), source.bit)
        if isinstance(source, Tag):
            value = self.once("tags", lambda: tag_columns(batch, strings(batch, "tag_value")))[source.tag]
            return integers(value) if column.type == "int32" else value
        if isinstance(source, TagDate):
            from pgntools.tables.dates import date_array

            return date_array(batch, column)
        if isinstance(source, Built):
            return getattr(self, f"built_{source.what}")(column)
        raise ValueError(f"column {column.name!r} has no batch source")

    def built_game_ids(self, column: Column) -> pa.Array:
        if self.table == "games":
            return game_ids(pa.arange(0, self.batch.n_games), self.batch)
        if self.table == "position_rows":
            n_rows = len(self.batch.buffer("position_ply")) // 2
            return game_ids(parents(offsets(self.batch, "position_start", n_rows), n_rows), self.batch)
        n_moves = len(self.batch.buffer("from_square"))
        return game_ids(parents(offsets(self.batch, "move_start", n_moves), n_moves), self.batch)

    def built_game_uids(self, column: Column) -> pa.Array:
        from pgntools.tables.game_uid import game_uids

        n = self.batch.n_games
        uids = pa.Array.from_buffers(pa.int64(), n, [None, pa.py_buffer(game_uids(self.batch))])
        if self.table == "games":
            return uids
        n_moves = len(self.batch.raw["from_square"])
        return uids.take(parents(offsets(self.batch, "move_start", n_moves), n_moves))

    def built_source(self, column: Column) -> pa.Array:
        return pa.repeat(text([self.batch.source])[0], self.batch.n_games)

    def built_tags(self, column: Column) -> pa.Array:
        return tags_map(self.batch)

    def built_errors(self, column: Column) -> pa.Array:
        return errors_column(self.batch, column)

    def built_fixes(self, column: Column) -> pa.Array:
        return fixes_column(self.batch, column)

    def built_nags(self, column: Column) -> pa.Array:
        nag_values = numeric(self.batch, "nag", pa.uint8())
        return pa.ListArray.from_arrays(offsets(self.batch, "nag_start", len(nag_values)), nag_values)


def table(batch: GameBatch, table_name: str, columns: Sequence[Column]) -> pa.Table:
    """The rows of `games` or `moves` (table_name) of one batch, with the given columns."""
    built = _Columns(batch, table_name)
    columns = tuple(columns)
    return pa.Table.from_arrays([built.array(c) for c in columns], schema=_schema(columns))


def moves_table(batch: GameBatch, with_comment: bool = False, with_fen: bool = False,
                with_key: bool = False) -> pa.Table:
    return table(batch, "moves", schema.move_columns(with_comment, with_fen, with_key))


def position_rows_table(batch: GameBatch, planes: bool = False) -> pa.Table:
    """The positions dataset's rows of one batch (pgntools.positions, export --positions)."""
    return table(batch, "position_rows", schema.position_row_columns(planes))


def games_table(batch: GameBatch) -> pa.Table:
    return table(batch, "games", schema.GAME_COLUMNS)


def tag_columns(batch: GameBatch, values: pa.Array) -> dict:
    """{tag: per-game string column} for TAG_COLUMNS, from the slots the C reader filled
    (1 + the tag's row in the batch, 0 when the game lacks it: row 0 of the lookup is a null),
    which come tag by tag: one `take` gives every tag column as a slice."""
    n = batch.n_games
    slots = numeric(batch, "tag_slots", pa.int32())
    lookup = pa.concat_arrays([NO_STRING, values])
    every_tag = pc.take(lookup, slots)
    return {tag: every_tag.slice(i * n, n) for i, tag in enumerate(TAG_COLUMNS)}


def integers(column: pa.Array) -> pa.Array:
    """A tag's values as int32: null unless a whole number (as the C encoder reads them)."""
    digits = pc.match_substring_regex(column, r"^[0-9]{1,9}$")
    return pc.if_else(digits, column, NO_STRING[0]).cast(pa.int32())


def tags_map(batch: GameBatch) -> pa.Array:
    """The tags without a column of their own text, per game, as a map."""
    names, values = strings(batch, "tag_name"), strings(batch, "tag_value")
    tag_offsets = offsets(batch, "tag_start", len(names))
    others = pc.invert(pc.is_in(names, value_set=TAG_COLUMN_NAMES))
    kept_before = pc.cumulative_sum(pa.concat_arrays([ints([0], pa.int32()), others.cast(pa.int32())]))
    other_offsets = pc.take(kept_before, tag_offsets).cast(pa.int32())
    return pa.MapArray.from_arrays(other_offsets, pc.filter(names, others), pc.filter(values, others))


def errors_column(batch: GameBatch, column: Column) -> pa.Array:
    """Errors per game as list<struct<kind, ply, message>>: the error table's rows, with the
    messages (a small Python loop over the errors only)."""
    kinds, plies = numeric(batch, "error_kind", pa.uint8()), numeric(batch, "error_ply", pa.int32())
    error_offsets = offsets(batch, "error_start", len(kinds))
    errors = pa.StructArray.from_arrays(
        [pc.take(ERROR_NAMES, kinds), with_validity(plies, plies.cast(pa.bool_())), text(batch.error_messages())],
        fields=list(schema.arrow_type(column.type).value_type))
    return pa.ListArray.from_arrays(error_offsets, errors)


def fixes_column(batch: GameBatch, column: Column) -> pa.Array:
    """Fixes per game as list<struct<kind, ply, field, before, after>> (pgntools.tables.fix_rows)."""
    from pgntools.tables.fix_rows import KINDS, fix_rows

    rows = fix_rows(batch)
    # (from buffers: pa.array of a memoryview converts value by value, and imports pandas)
    kinds = pa.Array.from_buffers(pa.uint8(), len(rows.kinds), [None, pa.py_buffer(rows.kinds)])
    plies = pa.Array.from_buffers(pa.int32(), len(rows.plies) // 4, [None, pa.py_buffer(rows.plies)])
    fixes = pa.StructArray.from_arrays(
        [pc.take(text(KINDS), kinds), with_validity(plies, plies.cast(pa.bool_())),
         text(rows.fields), text(rows.befores), text(rows.afters)],
        fields=list(schema.arrow_type(column.type).value_type))
    starts = pa.Array.from_buffers(pa.int32(), len(rows.starts) // 4, [None, pa.py_buffer(rows.starts)])
    return pa.ListArray.from_arrays(starts, fixes)
