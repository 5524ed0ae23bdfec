"""Parquet part files of export's `games` and `moves` tables (and the positions dataset's), the
one Parquet writer of the tabular outputs.

The C encoders (`_core.ColumnEncoder`, pgntools/_c/parquet_encode.c) take each batch's rows as
the Arrow table tables/build.py makes of it, the table to_arrow hands out (``add_table``;
parquet/arrow_feed.py feeds each leaf from the arrays' buffers: the one batch → Arrow path), or
straight from the batch's columns (``add``: `_core.BatchFeeder`, every batch-column leaf in one C
call; the same bytes, and 30 % less CPU than add_table on a 1 GB Lichess-like export:
benchmarks/RESULTS.md, 2026-12-06), and turn each row group into pages with their headers (`_core.encode_row_group`, one call a row
group; compressed by zstandard for zstd, the default, or pyarrow's codecs for snappy and gzip);
this module ends the file with the footer. Headers and footer are in the Thrift compact protocol
(thrift.py; `_core.thrift_struct` compiled) as the Parquet format specifies
(github.com/apache/parquet-format: parquet.thrift). The footer carries the Arrow
schema (key ``ARROW:schema``, serialized by arrow_ipc.py as pyarrow does), so pyarrow, Polars and Dask read back the
exact Arrow types (uint8 squares, dictionary pieces); DuckDB and Spark read the Parquet types.
The Parquet schema is the one pyarrow writes for the same Arrow schema (tests compare them).

Why not pyarrow's writer: on a 1 GB Lichess-like input pyarrow.parquet.ParquetWriter took 2.5
times the CPU of these encoders and 280 MB of RSS against 48 (benchmarks/RESULTS.md, 2026-12-05:
the writer itself, not the Arrow tables, is the cost).
"""
from __future__ import annotations

import base64
import functools
import io
import os
import struct
from array import array
from itertools import accumulate
from typing import Callable, List, NamedTuple, Optional, Sequence, Tuple

from pgntools import __version__
from pgntools._core import COLUMN_FORMATS, BatchColumns, BatchFeeder, ColumnEncoder, encode_row_group
from pgntools._core import thrift_struct  # (thrift.py's, compiled: the footers)
from pgntools.parquet.arrow_ipc import ipc_schema
from pgntools.reader import ERROR_KINDS, TAG_COLUMNS, GameBatch
from pgntools.tables import schema
from pgntools.tables.schema import Built, Codes, Column, Fixed, Flag, Strings, Tag, TagDate

# ---------------------------------------------------------------- Parquet enums (parquet.thrift)

BOOLEAN, INT32, INT64, DOUBLE, BYTE_ARRAY = 0, 1, 2, 5, 6
REQUIRED, OPTIONAL, REPEATED = 0, 1, 2
PLAIN, RLE, RLE_DICTIONARY = 0, 3, 8
DATA_PAGE, DICTIONARY_PAGE = 0, 2
CODECS = {"none": 0, "snappy": 1, "gzip": 2, "zstd": 6}
MAX_STATISTICS_STRING = 256  # longer min/max strings are left out of the footer (as pyarrow's limit does)
UTF8, MAP, LIST, DATE, TIMESTAMP_MILLIS, UINT_8, UINT_16, UINT_64, INT_16 = 0, 1, 3, 6, 9, 11, 12, 14, 16  # converted types


def _int_type(bits: int, signed: bool):
    return [(10, "struct", [(1, "i8", bits), (2, "bool", signed)])]  # LogicalType.INTEGER


STRING_TYPE = [(1, "struct", [])]  # LogicalType.STRING
MAP_TYPE = [(2, "struct", [])]     # LogicalType.MAP
LIST_TYPE = [(3, "struct", [])]    # LogicalType.LIST
DATE_TYPE = [(6, "struct", [])]    # LogicalType.DATE
# LogicalType.TIMESTAMP: isAdjustedToUTC, unit MILLIS (Parquet has no seconds: pyarrow stores
# timestamp[s] as milliseconds too)
UTC_MILLIS_TYPE = [(8, "struct", [(1, "bool", True), (2, "struct", [(1, "struct", [])])])]
_ANNOTATIONS = {  # logical type name: (converted type, LogicalType)
    "string": (UTF8, STRING_TYPE), "uint8": (UINT_8, _int_type(8, False)),
    "int16": (INT_16, _int_type(16, True)), "uint16": (UINT_16, _int_type(16, False)), "list": (LIST, LIST_TYPE),
    "map": (MAP, MAP_TYPE), "uint64": (UINT_64, _int_type(64, False)), "date32": (DATE, DATE_TYPE),
    "timestamp": (TIMESTAMP_MILLIS, UTC_MILLIS_TYPE),
}


def schema_element(name: str, physical: Optional[int], repetition: int, annotation: Optional[str] = None,
                   children: Optional[int] = None) -> bytes:
    converted, logical = _ANNOTATIONS[annotation] if annotation else (None, None)
    return thrift_struct([(1, "i32", physical), (3, "i32", repetition), (4, "binary", name),
                          (5, "i32", children), (6, "i32", converted), (10, "struct", logical)])


# ---------------------------------------------------------------- columns


class Leaf(NamedTuple):
    """One leaf column of the file: where it is in the schema, its type, its encoder, and how a
    batch feeds it."""
    path: Tuple[str, ...]
    physical: int
    encoder: Callable[[bool], ColumnEncoder]  # given the field's nullability
    feed: Callable[[ColumnEncoder, GameBatch], None]
    statistics: bool = False  # null count and min/max in the footer, for engines to skip row groups


class Field(NamedTuple):
    """An Arrow field of the table as Parquet schema elements (given the field's nullability)
    and leaf columns (a nested field has several)."""
    name: str
    elements: Callable[[bool], List[bytes]]
    leaves: List[Leaf]


def flat(name: str, physical: int, annotation: Optional[str], encoder: Callable[[int], ColumnEncoder],
         feed) -> Field:
    """A field of one value a row; encoder(max_def) makes its encoder (max_def 1: nullable).
    Integer fields and dictionary-encoded strings get statistics (the encoders know their range:
    engines skip row groups by date, event, white_elo, ply...)."""
    # (not uint64: the encoders' min/max are signed, which would mislead an engine's pruning)
    statistics = (physical in (INT32, INT64) and annotation != "uint64") or encoder is _dict_strings
    return Field(name, lambda nullable: [schema_element(name, physical, OPTIONAL if nullable else REQUIRED, annotation)],
                 [Leaf((name,), physical, lambda nullable: encoder(int(nullable)), feed, statistics)])


def nested(max_def: int, max_rep: int, kind: str, **options):
    """The encoder of a leaf inside a list or map (its levels are fixed by the schema)."""
    return lambda nullable: ColumnEncoder(kind, max_def=max_def, max_rep=max_rep, **options)


def _dict(width: int = 4):
    return lambda max_def: ColumnEncoder("dict_fixed", max_def=max_def, value_width=width)


def _plain(width: int):
    return lambda max_def: ColumnEncoder("plain_fixed", max_def=max_def, value_width=width)


def _dict_strings(max_def: int) -> ColumnEncoder:
    return ColumnEncoder("dict_string", max_def=max_def)


def _plain_strings(max_def: int) -> ColumnEncoder:
    return ColumnEncoder("plain_string", max_def=max_def)


def _named(names):
    """Strings from codes into a fixed list of names."""
    return lambda max_def: ColumnEncoder("dict_string", max_def=max_def, names=names)


def _bools(max_def: int) -> ColumnEncoder:
    return ColumnEncoder("plain_bool", max_def=max_def)


def _feed(kind: str, column: Optional[str], feed, **options):
    """A leaf's feed (encoder, batch), marked with what _core.BatchFeeder does the same with
    in C from a batch's own buffers: (kind, batch column, options)."""
    feed.op = (kind, column, options)
    return feed


def _fixed(column: str, source: str, has_bit: int = 0, has_column: str = "has"):
    if has_bit:
        return _feed("fixed", column, lambda enc, batch: enc.add_fixed(batch.raw[column], source, batch.raw[has_column],
                                                                       has_bit), source=source, has=has_column, bit=has_bit)
    return _feed("fixed", column, lambda enc, batch: enc.add_fixed(batch.raw[column], source), source=source)


def _filled(feed, column: Column):
    """``feed``, refusing a batch whose column the reader did not fill (not asked for)."""
    def checked(enc, batch: GameBatch):
        if batch.n_games and not batch.raw[column.source.column]:
            raise ValueError(schema.not_filled(column))
        feed(enc, batch)
    return checked


def _strings(column: str, has_bit: int = 0, has_column: str = "has"):
    if has_bit:
        return _feed("strings", column, lambda enc, batch: enc.add_strings(*batch.raw[column], batch.raw[has_column],
                                                                           has_bit), has=has_column, bit=has_bit)
    return _feed("strings", column, lambda enc, batch: enc.add_strings(*batch.raw[column]))


def _codes(column: str, base: int):
    return _feed("codes", column, lambda enc, batch: enc.add_codes(batch.raw[column], base), base=base)


def _flag(bit: int, column: str = "flags"):
    return _feed("flag", column, lambda enc, batch: enc.add_flag_bits(batch.raw[column], bit), bit=bit)


def _starts(batch: GameBatch, column: str, total: int) -> bytes:
    """A per-game start column with the end appended: the list offsets of a child table."""
    return batch.raw[column] + struct.pack("<i", total)


def _list_schema(name: str, physical: int, annotation: Optional[str]):
    """The standard three-level list: name (LIST) / list / element."""
    return lambda nullable: [schema_element(name, None, OPTIONAL if nullable else REQUIRED, "list", children=1),
                             schema_element("list", None, REPEATED, children=1),
                             schema_element("element", physical, OPTIONAL, annotation)]


def _game_ids(enc: ColumnEncoder, batch: GameBatch):
    if batch.ids is not None:  # a selection's view of some games: they keep the input's ids
        enc.add_fixed(array("q", batch.ids).tobytes(), "i64")
        return
    enc.add_sequence(batch.first_game, batch.n_games)


_feed("sequence", None, _game_ids)  # (BatchFeeder: batches that are no view only)


def _move_game_ids(enc: ColumnEncoder, batch: GameBatch):
    n_moves = len(batch.raw["from_square"])
    if batch.ids is not None:  # a view: each game's id, once per move of it
        starts = batch.column("move_start").tolist() + [n_moves]
        enc.add_fixed(b"".join(struct.pack("<q", game_id) * (starts[g + 1] - starts[g])
                               for g, game_id in enumerate(batch.ids)), "i64")
        return
    enc.add_game_ids(batch.raw["move_start"], n_moves, batch.first_game)


_feed("game_ids", "move_start", _move_game_ids, aux="from_square", width=1)


def _position_game_ids(enc: ColumnEncoder, batch: GameBatch):
    """The positions dataset's game_id: each game's id once per row of it (its position_start)."""
    n_rows = len(batch.raw["position_ply"]) // 2
    if batch.ids is not None:  # a view: each game's id, once per row of it (one C loop)
        from pgntools._core import row_game_ids

        enc.add_fixed(row_game_ids(batch.raw["position_start"], n_rows, 0, array("q", batch.ids).tobytes()), "i64")
        return
    enc.add_game_ids(batch.raw["position_start"], n_rows, batch.first_game)


_feed("game_ids", "position_start", _position_game_ids, aux="position_ply", width=2)


def _game_uids(enc: ColumnEncoder, batch: GameBatch):
    from pgntools.tables.game_uid import game_uids

    enc.add_fixed(game_uids(batch), "i64")


def _move_game_uids(enc: ColumnEncoder, batch: GameBatch):
    """Each game's uid once per move of it (one C loop)."""
    from pgntools._core import row_game_ids
    from pgntools.tables.game_uid import game_uids

    n_moves = len(batch.raw["from_square"])
    enc.add_fixed(row_game_ids(batch.raw["move_start"], n_moves, 0, game_uids(batch)), "i64")


def _nags(enc: ColumnEncoder, batch: GameBatch):
    values = batch.raw["nag"]
    enc.add_lists(_starts(batch, "nag_start", len(values)), 0, values=values, source="u8")


_feed("list_values", "nag", _nags, aux="nag_start", source="u8", empty_def=0)


def _tag(index: int, as_int: bool = False):
    def feed(enc: ColumnEncoder, batch: GameBatch):
        n = batch.n_games  # tag_slots come tag by tag (see _core)
        enc.add_slotted(memoryview(batch.raw["tag_slots"])[4 * n * index:4 * n * (index + 1)],
                        *batch.raw["tag_value"], as_int=as_int)
    return _feed("tag", "tag_value", feed, tag=index, as_int=as_int)


def _tags_map(strings: str):
    """The tags without a column of their own, as a map's keys (names) or values."""
    def feed(enc: ColumnEncoder, batch: GameBatch):
        names = batch.raw["tag_name"]
        enc.add_lists(_starts(batch, "tag_start", len(names[0]) // 4 - 1), 1, strings=batch.raw[strings],
                      keep=batch.raw["tag_in_map"])
    return _feed("list_strings", strings, feed, aux="tag_start", keep="tag_in_map", empty_def=1)


def _error_starts(batch: GameBatch) -> bytes:
    return _starts(batch, "error_start", len(batch.raw["error_kind"]))


def _error_kinds(enc: ColumnEncoder, batch: GameBatch):
    enc.add_lists(_error_starts(batch), 1, values=batch.raw["error_kind"], source="code")


_feed("list_values", "error_kind", _error_kinds, aux="error_start", source="code", empty_def=1)


def _error_plies(enc: ColumnEncoder, batch: GameBatch):
    enc.add_lists(_error_starts(batch), 1, values=batch.raw["error_ply"], source="i32", zero_is_null=True)


_feed("list_values", "error_ply", _error_plies, aux="error_start", source="i32", empty_def=1, zero_is_null=True)


def _error_messages(enc: ColumnEncoder, batch: GameBatch):
    encoded = [m.encode() for m in batch.error_messages()]
    ends = array("i", [0])
    ends.extend(accumulate(len(e) for e in encoded))
    enc.add_lists(_error_starts(batch), 1, strings=(ends.tobytes(), b"".join(encoded)))


def _map_field(name: str) -> Field:
    def elements(nullable: bool) -> List[bytes]:
        return [schema_element(name, None, OPTIONAL if nullable else REQUIRED, "map", children=1),
                schema_element("key_value", None, REPEATED, children=2),
                schema_element("key", BYTE_ARRAY, REQUIRED, "string"),
                schema_element("value", BYTE_ARRAY, OPTIONAL, "string")]
    return Field(name, elements, [
        Leaf((name, "key_value", "key"), BYTE_ARRAY, nested(2, 1, "dict_string"), _tags_map("tag_name")),
        Leaf((name, "key_value", "value"), BYTE_ARRAY, nested(3, 1, "dict_string"), _tags_map("tag_value"))])


def _errors_field(name: str) -> Field:
    def elements(nullable: bool) -> List[bytes]:
        return [schema_element(name, None, OPTIONAL if nullable else REQUIRED, "list", children=1),
                schema_element("list", None, REPEATED, children=1),
                schema_element("element", None, OPTIONAL, children=3),
                schema_element("kind", BYTE_ARRAY, OPTIONAL, "string"),
                schema_element("ply", INT32, OPTIONAL),
                schema_element("message", BYTE_ARRAY, OPTIONAL, "string")]
    element = (name, "list", "element")
    return Field(name, elements, [
        Leaf((*element, "kind"), BYTE_ARRAY, nested(4, 1, "dict_string", names=ERROR_KINDS), _error_kinds),
        Leaf((*element, "ply"), INT32, nested(4, 1, "dict_fixed"), _error_plies),
        Leaf((*element, "message"), BYTE_ARRAY, nested(4, 1, "plain_string"), _error_messages)])


def _fixes_field(name: str) -> Field:
    from pgntools.tables.fix_rows import KINDS, fix_rows

    leaves = (("kind", BYTE_ARRAY, "string"), ("ply", INT32, None), ("field", BYTE_ARRAY, "string"),
              ("before", BYTE_ARRAY, "string"), ("after", BYTE_ARRAY, "string"))

    def elements(nullable: bool) -> List[bytes]:
        return [schema_element(name, None, OPTIONAL if nullable else REQUIRED, "list", children=1),
                schema_element("list", None, REPEATED, children=1),
                schema_element("element", None, OPTIONAL, children=len(leaves))] + \
            [schema_element(leaf, physical, OPTIONAL, annotation) for leaf, physical, annotation in leaves]

    def kinds(enc: ColumnEncoder, batch: GameBatch):
        rows = fix_rows(batch)
        enc.add_lists(rows.starts, 1, values=rows.kinds, source="code")

    def plies(enc: ColumnEncoder, batch: GameBatch):
        rows = fix_rows(batch)
        enc.add_lists(rows.starts, 1, values=rows.plies, source="i32", zero_is_null=True)

    def strings(which: str):
        def feed(enc: ColumnEncoder, batch: GameBatch):
            rows = fix_rows(batch)
            enc.add_lists(rows.starts, 1, strings=rows.strings(which))
        return feed

    element = (name, "list", "element")
    return Field(name, elements, [
        Leaf((*element, "kind"), BYTE_ARRAY, nested(4, 1, "dict_string", names=KINDS), kinds),
        Leaf((*element, "ply"), INT32, nested(4, 1, "dict_fixed"), plies),
        Leaf((*element, "field"), BYTE_ARRAY, nested(4, 1, "dict_string"), strings("fields")),
        Leaf((*element, "before"), BYTE_ARRAY, nested(4, 1, "plain_string"), strings("befores")),
        Leaf((*element, "after"), BYTE_ARRAY, nested(4, 1, "plain_string"), strings("afters"))])


# ---------------------------------------------------------------- fields from the declaration (tables/schema.py)

# A declared value type: its physical type, annotation, the encoders' name of its batch values,
# and their width in a dictionary or plain page.
PHYSICAL = {"int64": (INT64, None, "i64", 8), "int32": (INT32, None, "i32", 4), "int16": (INT32, "int16", "i16", 4),
            "uint16": (INT32, "uint16", "u16", 4), "uint8": (INT32, "uint8", "u8", 4),
            "uint64": (INT64, "uint64", "bits64", 8), "float64": (DOUBLE, None, "bits64", 8), "bool": (BOOLEAN, None, None, 0),
            "string": (BYTE_ARRAY, "string", None, 0)}

# The batch columns' struct formats (_core.COLUMN_FORMATS) that hold each numeric type
BATCH_FORMATS = {"uint64": "Q", "int64": "q", "int32": "i", "int16": "h", "uint16": "H", "uint8": "B", "float64": "d"}

# Built columns (schema.Built), by table and what: their fields
_BUILT = {
    ("games", "game_ids"): lambda name: flat(name, INT64, None, _plain(8), _game_ids),
    ("moves", "game_ids"): lambda name: flat(name, INT64, None, _dict(8), _move_game_ids),
    ("position_rows", "game_ids"): lambda name: flat(name, INT64, None, _dict(8), _position_game_ids),
    ("games", "game_uids"): lambda name: flat(name, INT64, None, _plain(8), _game_uids),
    ("moves", "game_uids"): lambda name: flat(name, INT64, None, _dict(8), _move_game_uids),
    ("games", "source"): lambda name: flat(
        name, BYTE_ARRAY, "string", _dict_strings,
        lambda enc, batch: enc.add_repeated_string(batch.source.encode(), batch.n_games)),
    ("games", "tags"): _map_field,
    ("games", "errors"): _errors_field,
    ("games", "fixes"): _fixes_field,
    ("moves", "nags"): lambda name: Field(name, _list_schema(name, INT32, "uint8"),
                                          [Leaf((name, "list", "element"), INT32, nested(2, 1, "plain_fixed"), _nags)]),
}


# Typed date columns (tables/dates.py): physical type, annotation, the encoders' name of the
# values, their width in a page, and the factor from Arrow's unit to Parquet's.
DATE_TYPES = {"date32": (INT32, "date32", "i32", 4, 1), "int16": (INT32, "int16", "i16", 4, 1),
               "uint8": (INT32, "uint8", "u8", 4, 1), ("timestamp", "s", "UTC"): (INT64, "timestamp", "i64", 8, 1000)}


def _date_feed(column: Column, source_name: str, factor: int):
    """The feed of a typed date column (tables/dates.py): its values and validity bitmap, in
    Arrow's layout, go to the encoder as they are (instants in Parquet's milliseconds)."""
    def feed(enc: ColumnEncoder, batch: GameBatch):
        from pgntools.tables.dates import date_buffers

        values, valid, nulls = date_buffers(batch, column, factor)
        enc.add_arrow_fixed(values, source_name, valid if nulls else None, 0, batch.n_games)
    return feed


@functools.lru_cache(maxsize=None)
def field(column: Column, table: str) -> Field:
    """The Parquet field of a declared column of `games` or `moves`."""
    source = column.source
    if isinstance(source, Built):
        return _BUILT[table, source.what](column.name)
    if isinstance(source, TagDate):
        physical, annotation, values, width, factor = DATE_TYPES[column.type]
        encoder = _plain(width) if factor != 1 else _dict(width)  # (instants are mostly unique)
        return flat(column.name, physical, annotation, encoder, _date_feed(column, values, factor))
    value_type = column.type[2] if isinstance(column.type, tuple) and column.type[0] == "dictionary" else column.type
    physical, annotation, values, width = PHYSICAL[value_type]
    if isinstance(source, Fixed):
        if BATCH_FORMATS.get(value_type) != COLUMN_FORMATS[source.column]:
            raise ValueError(f"column {column.name!r}: batch column {source.column!r} does not hold {value_type}")
        encoder, feed = _dict(width) if source.dictionary else _plain(width), _fixed(source.column, values, source.has, source.has_column)
        if table == "games" and source.column in schema.FILLED_BY:  # (a run that did not ask has it empty)
            feed = _filled(feed, column)
    elif isinstance(source, Strings):
        encoder, feed = _dict_strings if source.dictionary else _plain_strings, _strings(source.column, source.has, source.has_column)
    elif isinstance(source, Codes):
        encoder, feed = _named(source.names), _codes(source.column, source.base)
    elif isinstance(source, Flag):
        encoder, feed = _bools, _flag(source.bit, source.column)
    elif isinstance(source, Tag):
        as_int = physical == INT32
        encoder, feed = _dict() if as_int else _dict_strings, _tag(TAG_COLUMNS.index(source.tag), as_int)
    else:
        raise ValueError(f"column {column.name!r} of {table} has no batch source")
    return flat(column.name, physical, annotation, encoder, feed)


GAME_FIELDS = [field(c, "games") for c in schema.GAME_COLUMNS]
MOVE_FIELDS = [field(c, "moves") for c in schema.move_columns(True, True, True)]
POSITION_ROW_FIELDS = [field(c, "position_rows") for c in schema.position_row_columns(True)]


def table_rows(table: str, batch: GameBatch) -> int:
    """The rows a batch gives a table: its games, moves, or positions dataset rows."""
    if table == "games":
        return batch.n_games
    if table == "moves":
        return len(batch.raw["from_square"])
    return len(batch.raw["position_ply"]) // 2


# ---------------------------------------------------------------- the file


class ColumnChunk(NamedTuple):
    """A column chunk's footer entry, its offsets counted from the start of the file's pages (so
    another file can take the pages over: ParquetPartFile.add_row_groups)."""
    start: int                        # its first page
    data_offset: int
    dictionary_offset: Optional[int]
    metadata: list                    # ColumnMetaData's fields 1-7 (type, encodings, path, codec, counts, sizes)
    statistics: Optional[list]

    def encoded(self, shift: int) -> bytes:
        dictionary = self.dictionary_offset + shift if self.dictionary_offset is not None else None
        metadata = [*self.metadata, (9, "i64", self.data_offset + shift), (11, "i64", dictionary),
                    (12, "struct", self.statistics)]
        return thrift_struct([(2, "i64", self.start + shift), (3, "struct", metadata)])


class RowGroup(NamedTuple):
    """A row group's footer entry (picklable: a worker's groups go to the parent)."""
    chunks: List[ColumnChunk]
    uncompressed: int
    rows: int
    start: int
    size: int

    def encoded(self, shift: int = 0) -> bytes:
        return thrift_struct([(1, "list", ("struct", [chunk.encoded(shift) for chunk in self.chunks])),
                              (2, "i64", self.uncompressed), (3, "i64", self.rows), (5, "i64", self.start + shift),
                              (6, "i64", self.size)])


class ParquetPartFile:
    """One part file of `games`, `moves` or `position_rows` (table) with the given columns (a
    selection of schema.GAME_COLUMNS, schema.move_columns() or schema.position_row_columns(), in
    order): `add(batch)` as batches come,
    `end_row_group()` when a group is full, `close()` to write the footer."""

    def __init__(self, file, table: str, columns: Sequence[Column], compression: str,
                 fields: Optional[Sequence[Field]] = None):
        self.columns = list(columns)
        # (``fields``: a table of other rows than a batch's games or moves, e.g. to-fen's positions)
        self.fields = list(fields) if fields is not None else [field(column, table) for column in self.columns]
        self.leaves = [leaf for field in self.fields for leaf in field.leaves]
        self.encoders = [leaf.encoder(column.nullable)
                         for field, column in zip(self.fields, self.columns) for leaf in field.leaves]
        # the leaves fed from a batch's own buffers in one C call (BatchFeeder), and the others
        # (a table of other rows, ``fields`` given, has no batch columns: fed in Python)
        fast = [(encoder, leaf.feed.op) for leaf, encoder in zip(self.leaves, self.encoders)
                if fields is None and getattr(leaf.feed, "op", None)]
        self.feeder: Optional[BatchFeeder] = BatchFeeder(*map(list, zip(*fast))) if fast else None
        self.python_feeds = [(leaf, encoder) for leaf, encoder in zip(self.leaves, self.encoders)
                             if fields is not None or not getattr(leaf.feed, "op", None)]
        self.table = table
        self.arrow_feeds: Optional[list] = None  # add_table's, made at its first call
        self.codec = CODECS[compression]
        self.compress = _compressor(compression)
        # opened for writing (a local file, or an fsspec one), or a function that opens it: then
        # it is opened at the first write (a partition's file holds no descriptor until then)
        self._file = None if callable(file) else file
        self._open = file if callable(file) else None
        if self._file is not None:
            self._file.write(b"PAR1")
        self.offset = 4
        self.row_groups: List[RowGroup] = []
        self.rows = 0
        self.group_rows = 0

    @property
    def file(self):
        if self._file is None:
            self._file = self._open()
            self._file.write(b"PAR1")
        return self._file

    def add(self, batch: GameBatch):
        if self.feeder is not None and batch.ids is None and type(batch.raw) is BatchColumns:
            self.feeder.add(batch.raw, batch.first_game)  # (not a view: that has ids and copied columns)
            for leaf, encoder in self.python_feeds:
                leaf.feed(encoder, batch)
        else:
            for leaf, encoder in zip(self.leaves, self.encoders):
                leaf.feed(encoder, batch)
        self.group_rows += table_rows(self.table, batch)

    def add_table(self, table):
        """The rows of an Arrow table (or record batch) with this file's columns in order: the one
        tables/build.py makes of a batch, to_arrow's (parquet/arrow_feed.py feeds the encoders
        from its arrays' buffers; the file is the same byte for byte as ``add(batch)``'s)."""
        if self.arrow_feeds is None:
            from pgntools.parquet.arrow_feed import leaf_feeds

            if table.schema.names != [c.name for c in self.columns]:
                raise ValueError(f"add_table: columns {table.schema.names}, the file's {[c.name for c in self.columns]}")
            encoders = iter(self.encoders)
            self.arrow_feeds = [[(feed, next(encoders)) for feed in leaf_feeds(column, field, arrow_field.type)]
                                for column, field, arrow_field in zip(self.columns, self.fields, table.schema)]
        for i, feeds in enumerate(self.arrow_feeds):
            column = table.column(i)
            for array in getattr(column, "chunks", [column]):
                for feed, encoder in feeds:
                    feed(encoder, array)
        self.group_rows += table.num_rows

    @property
    def group_bytes(self) -> int:
        return sum(encoder.nbytes for encoder in self.encoders)

    def end_row_group(self):
        """Encodes, compresses and writes the row group: its pages in one C call (headers too),
        one write."""
        if not self.group_rows:
            return
        pages, encoded = encode_row_group(self.encoders, self.compress)
        start = self.offset
        chunks, uncompressed = [], 0
        for leaf, (dictionary, data, unpacked, packed, values, nulls, low, high) in zip(self.leaves, encoded):
            chunks.append(self._column_chunk(leaf, None if dictionary is None else start + dictionary, start + data,
                                             unpacked, packed, values, nulls, low, high))
            uncompressed += unpacked
        self.file.write(pages)
        self.offset += len(pages)
        self.row_groups.append(RowGroup(chunks, uncompressed, self.group_rows, start, self.offset - start))
        self.rows += self.group_rows
        self.group_rows = 0

    def add_row_groups(self, pages: bytes, groups: Sequence[RowGroup]):
        """Another file's row groups (a parallel run's worker's): its pages after the magic
        bytes (ParquetPartFile.pages), and their entries, written after the groups before."""
        shift = self.offset - 4  # (their offsets count from their own file's magic bytes)
        self.file.write(pages)
        self.offset += len(pages)
        self._shifted(groups, shift)

    def add_file_row_groups(self, source, length: int, groups: Sequence[RowGroup]):
        """The row groups of another part file (``source``, open for reading: a fragment of this
        part written by a worker), its ``length`` bytes of pages after the magic bytes copied
        over in blocks (the file's own footer left behind), their entries shifted."""
        shift = self.offset - 4
        self.file.flush()
        source.seek(4)
        left = length
        copied = False
        try:  # a local file to a local file: copied by the kernel (os.copy_file_range)
            src, dst = source.fileno(), self.file.fileno()
            while left:
                n = os.copy_file_range(src, dst, left, 4 + length - left)
                if not n:
                    break
                left -= n
            copied = True
        except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
            copied = False
        if not copied:
            if left != length:  # (a partial kernel copy: go on from there)
                source.seek(4 + length - left)
            while left:
                block = source.read(min(left, 1 << 20))
                if not block:
                    raise OSError(f"a part fragment is shorter than its pages ({length - left} of {length} bytes)")
                self.file.write(block)
                left -= len(block)
        else:
            self.file.seek(0, os.SEEK_END)
        self.offset += length
        self._shifted(groups, shift)

    def _shifted(self, groups: Sequence[RowGroup], shift: int):
        self.row_groups += [group._replace(chunks=[c._replace(start=c.start + shift, data_offset=c.data_offset + shift,
                                                              dictionary_offset=None if c.dictionary_offset is None
                                                              else c.dictionary_offset + shift) for c in group.chunks],
                                           start=group.start + shift) for group in groups]
        self.rows += sum(group.rows for group in groups)

    def _column_chunk(self, leaf: Leaf, dictionary_offset: Optional[int], data_offset: int, uncompressed: int,
                      compressed: int, values: int, nulls: int, low, high) -> ColumnChunk:
        value_encoding = RLE_DICTIONARY if dictionary_offset is not None else PLAIN
        encodings = sorted({PLAIN, RLE, value_encoding})
        statistics = None
        if leaf.statistics:
            statistics = [(3, "i64", nulls)]
            if values > nulls and leaf.physical != BYTE_ARRAY:
                pack = "<q" if leaf.physical == INT64 else "<i"
                low, high = struct.pack(pack, low), struct.pack(pack, high)
                statistics = [(1, "binary", high), (2, "binary", low), *statistics, (5, "binary", high), (6, "binary", low)]
            elif values > nulls and max(len(low), len(high)) <= MAX_STATISTICS_STRING:
                # strings: only the fields ordered byte-wise (the old ones were signed for some readers)
                statistics += [(5, "binary", high), (6, "binary", low)]
        metadata = [(1, "i32", leaf.physical), (2, "list", ("i32", encodings)),
                    (3, "list", ("binary", list(leaf.path))), (4, "i32", self.codec), (5, "i64", values),
                    (6, "i64", uncompressed), (7, "i64", compressed)]
        chunk_start = dictionary_offset if dictionary_offset is not None else data_offset
        return ColumnChunk(chunk_start, data_offset, dictionary_offset, metadata, statistics)

    def close(self):
        """Ends the last row group and writes the footer."""
        try:
            self.end_row_group()
            elements = [schema_element("schema", None, REQUIRED, children=len(self.fields))]
            for field, column in zip(self.fields, self.columns):
                elements += field.elements(column.nullable)
            arrow_schema = _arrow_schema_text(tuple(self.columns))
            footer = thrift_struct([
                (1, "i32", 2), (2, "list", ("struct", elements)), (3, "i64", self.rows),
                (4, "list", ("struct", [group.encoded() for group in self.row_groups])),
                (5, "list", ("struct", [[(1, "binary", "ARROW:schema"), (2, "binary", arrow_schema)]])),
                (6, "binary", f"pgntools version {__version__}"),
                (7, "list", ("struct", [[(1, "struct", [])]] * len(self.leaves))),  # TypeDefinedOrder
            ])
            self.pages_end = self.offset  # (where another file's copy of these pages ends)
            self.file.write(footer)
            self.file.write(struct.pack("<i", len(footer)) + b"PAR1")
        finally:
            self.file.close()

    def abort(self):
        if self._file is not None:
            self._file.close()


@functools.lru_cache(maxsize=16)
def _arrow_schema_text(columns: Tuple[Column, ...]) -> str:
    """The footer's ARROW:schema value: made once per column selection, not for every part file
    (~0.9 ms for the two tables; a parallel export writes two parts per 4 MiB chunk)."""
    return base64.b64encode(ipc_schema(columns)).decode()


def _compressor(compression: str) -> Optional[Callable[[bytes], bytes]]:
    """The page compressor (a buffer in, bytes out; None: pages are stored as they are)."""
    if compression == "none":
        return None
    if compression == "zstd":  # the default: zstandard's level 1 gives the bytes pyarrow's codec
        import zstandard       # gives, without importing pyarrow (both release the GIL)

        return zstandard.ZstdCompressor(level=1).compress
    import pyarrow as pa

    codec = pa.Codec(compression)
    return lambda body: codec.compress(body, asbytes=True)
