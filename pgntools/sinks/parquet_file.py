"""Parquet files of export's `moves` table, written from the reader's batch columns.

The C encoders (`_core.ColumnEncoder`, pgntools/_c/parquet_encode.c) turn each row group's
columns into page bodies; this module compresses them (pyarrow's codecs), frames them with page
headers and ends the file with the footer, both in the Thrift compact protocol as the Parquet
format specifies (github.com/apache/parquet-format: parquet.thrift). The footer carries the Arrow
schema (key ``ARROW:schema``, as pyarrow writes it), so pyarrow, Polars and Dask read back the exact
Arrow types (uint8 squares, dictionary pieces); DuckDB and Spark read the Parquet types.

Why not pyarrow's writer: building Arrow tables of the moves and encoding them took 0.5 s of the
0.76 s an export of the 30,000 master games took; this path takes ~0.1 s (benchmarks/RESULTS.md).
The `games` table (maps, lists of structs) stays with pyarrow.
"""
from __future__ import annotations

import base64
import struct
from typing import Callable, List, NamedTuple, Optional

import pyarrow as pa

from pgntools import __version__
from pgntools._core import ColumnEncoder
from pgntools.reader import PIECES, GameBatch

# ---------------------------------------------------------------- Thrift compact protocol

_TYPE_CODES = {"i8": 3, "i32": 5, "i64": 6, "binary": 8, "list": 9, "struct": 12}


def _varint(n: int) -> bytes:
    out = bytearray()
    while n > 0x7F:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _zigzag(n: int) -> int:
    return (n << 1) ^ (n >> 63)


def _value(kind: str, value) -> bytes:
    if kind == "i8":
        return struct.pack("<b", value)
    if kind in ("i32", "i64"):
        return _varint(_zigzag(value))
    if kind == "binary":
        data = value.encode() if isinstance(value, str) else value
        return _varint(len(data)) + data
    if kind == "struct":  # its fields, or already encoded
        return value if isinstance(value, bytes) else thrift_struct(value)
    element, items = value  # list
    code = _TYPE_CODES[element]
    header = bytes([len(items) << 4 | code]) if len(items) < 15 else bytes([0xF0 | code]) + _varint(len(items))
    return header + b"".join(_value(element, item) for item in items)


def thrift_struct(fields) -> bytes:
    """A struct from (field id, kind, value) in id order; kind: bool, i8, i32, i64, binary,
    struct (value: its fields), list (value: (element kind, items)). None values are left out."""
    out = bytearray()
    last = 0
    for field_id, kind, value in fields:
        if value is None:
            continue
        code = (1 if value else 2) if kind == "bool" else _TYPE_CODES[kind]
        if 0 < field_id - last <= 15:
            out.append((field_id - last) << 4 | code)
        else:
            out.append(code)
            out += _varint(_zigzag(field_id))
        last = field_id
        if kind != "bool":
            out += _value(kind, value)
    out.append(0)
    return bytes(out)


# ---------------------------------------------------------------- Parquet enums (parquet.thrift)

BOOLEAN, INT32, INT64, DOUBLE, BYTE_ARRAY = 0, 1, 2, 5, 6
REQUIRED, OPTIONAL, REPEATED = 0, 1, 2
PLAIN, RLE, RLE_DICTIONARY = 0, 3, 8
DATA_PAGE, DICTIONARY_PAGE = 0, 2
CODECS = {"none": 0, "snappy": 1, "gzip": 2, "zstd": 6}
UTF8, LIST, UINT_8, UINT_16, INT_16 = 0, 3, 11, 12, 16  # converted types, for older readers


def _int_type(bits: int, signed: bool):
    return [(10, "struct", [(1, "i8", bits), (2, "bool", signed)])]  # LogicalType.INTEGER


STRING_TYPE = [(1, "struct", [])]  # LogicalType.STRING
LIST_TYPE = [(3, "struct", [])]    # LogicalType.LIST
_ANNOTATIONS = {  # logical type name: (converted type, LogicalType)
    "string": (UTF8, STRING_TYPE), "uint8": (UINT_8, _int_type(8, False)),
    "int16": (INT_16, _int_type(16, True)), "uint16": (UINT_16, _int_type(16, False)), "list": (LIST, LIST_TYPE),
}


def schema_element(name: str, physical: Optional[int], repetition: int, annotation: Optional[str] = None,
                   children: Optional[int] = None) -> bytes:
    converted, logical = _ANNOTATIONS[annotation] if annotation else (None, None)
    return thrift_struct([(1, "i32", physical), (3, "i32", repetition), (4, "binary", name),
                          (5, "i32", children), (6, "i32", converted), (10, "struct", logical)])


# ---------------------------------------------------------------- the moves columns


class MoveColumn(NamedTuple):
    name: str
    encoder: Callable[[], ColumnEncoder]
    physical: int
    annotation: Optional[str]
    feed: Callable[[ColumnEncoder, GameBatch], None]
    statistics: bool = False  # min/max in the footer: the keys queries prune row groups on


def _fixed(column: str, source: str, has_bit: int = 0):
    if has_bit:
        return lambda enc, batch: enc.add_fixed(batch.raw[column], source, batch.raw["has"], has_bit)
    return lambda enc, batch: enc.add_fixed(batch.raw[column], source)


def _flag(bit: int):
    return lambda enc, batch: enc.add_flag_bits(batch.raw["flags"], bit)


def _piece(column: str):
    return lambda enc, batch: enc.add_codes(batch.raw[column])


def _dict(width: int = 4, optional: bool = False):
    return lambda: ColumnEncoder("dict_fixed", value_width=width, optional=optional)


def _pieces(optional: bool):
    return lambda: ColumnEncoder("dict_string", optional=optional, names=PIECES[1:])


def _nags(enc: ColumnEncoder, batch: GameBatch):
    values = batch.raw["nag"]
    enc.add_lists(batch.raw["nag_start"] + struct.pack("<i", len(values)), values)


def _game_ids(enc: ColumnEncoder, batch: GameBatch):
    enc.add_game_ids(batch.raw["move_start"], len(batch.raw["from_square"]), batch.first_game)


# The order and types of schema.MOVES (tests check the two agree).
MOVE_COLUMNS = [
    MoveColumn("game_id", _dict(8), INT64, None, _game_ids, statistics=True),
    MoveColumn("ply", _dict(), INT32, "int16", _fixed("ply", "i16"), statistics=True),
    MoveColumn("san", lambda: ColumnEncoder("dict_string"), BYTE_ARRAY, "string",
               lambda enc, batch: enc.add_strings(*batch.raw["san"])),
    MoveColumn("uci", lambda: ColumnEncoder("dict_string"), BYTE_ARRAY, "string",
               lambda enc, batch: enc.add_strings(*batch.raw["uci"])),
    MoveColumn("from_square", _dict(), INT32, "uint8", _fixed("from_square", "u8")),
    MoveColumn("to_square", _dict(), INT32, "uint8", _fixed("to_square", "u8")),
    MoveColumn("piece", _pieces(False), BYTE_ARRAY, "string", _piece("piece")),
    MoveColumn("captured", _pieces(True), BYTE_ARRAY, "string", _piece("captured")),
    MoveColumn("promotion", _pieces(True), BYTE_ARRAY, "string", _piece("promotion")),
    MoveColumn("is_capture", lambda: ColumnEncoder("plain_bool"), BOOLEAN, None, _flag(1)),
    MoveColumn("is_check", lambda: ColumnEncoder("plain_bool"), BOOLEAN, None, _flag(2)),
    MoveColumn("is_mate", lambda: ColumnEncoder("plain_bool"), BOOLEAN, None, _flag(4)),
    MoveColumn("is_castle", lambda: ColumnEncoder("plain_bool"), BOOLEAN, None, _flag(8)),
    MoveColumn("is_en_passant", lambda: ColumnEncoder("plain_bool"), BOOLEAN, None, _flag(16)),
    MoveColumn("halfmove_clock", _dict(), INT32, "uint16", _fixed("halfmove_clock", "u16")),
    MoveColumn("clock", _dict(8, optional=True), DOUBLE, None, _fixed("clock", "bits64", 1)),
    MoveColumn("emt", _dict(8, optional=True), DOUBLE, None, _fixed("emt", "bits64", 2)),
    MoveColumn("eval_cp", _dict(optional=True), INT32, None, _fixed("eval_cp", "i32", 4)),
    MoveColumn("eval_mate", _dict(optional=True), INT32, "int16", _fixed("eval_mate", "i16", 8)),
    MoveColumn("nags", lambda: ColumnEncoder("plain_list"), INT32, "uint8", _nags),
    MoveColumn("comment", lambda: ColumnEncoder("plain_string", optional=True), BYTE_ARRAY, "string",
               lambda enc, batch: enc.add_strings(*batch.raw["comment"], batch.raw["has"], 16)),
    MoveColumn("fen", lambda: ColumnEncoder("plain_string", optional=True), BYTE_ARRAY, "string",
               lambda enc, batch: enc.add_strings(*batch.raw["fen"])),
]
MOVE_COLUMNS_BY_NAME = {c.name: c for c in MOVE_COLUMNS}


def _schema_elements(column: MoveColumn, field: pa.Field) -> List[bytes]:
    if column.name == "nags":  # the standard three-level list: nags (LIST) / list / element
        return [schema_element("nags", None, REQUIRED, "list", children=1),
                schema_element("list", None, REPEATED, children=1),
                schema_element("element", column.physical, OPTIONAL, column.annotation)]
    return [schema_element(column.name, column.physical, OPTIONAL if field.nullable else REQUIRED, column.annotation)]


def _path(column: MoveColumn) -> List[str]:
    return ["nags", "list", "element"] if column.name == "nags" else [column.name]


# ---------------------------------------------------------------- the file


class MovesParquetFile:
    """One part file of `moves` with the columns of `arrow_schema` (a selection of schema.MOVES'
    fields, in order): `add(batch)` as batches come, `end_row_group()` when a group is full,
    `close()` to write the footer."""

    def __init__(self, path: str, arrow_schema: pa.Schema, compression: str):
        self.columns = [MOVE_COLUMNS_BY_NAME[name] for name in arrow_schema.names]
        self.encoders = [column.encoder() for column in self.columns]
        self.arrow_schema = arrow_schema
        self.codec = CODECS[compression]
        self.compressor = pa.Codec(compression) if compression != "none" else None
        self.file = open(path, "wb")
        self.file.write(b"PAR1")
        self.offset = 4
        self.row_groups: List[bytes] = []
        self.rows = 0
        self.group_rows = 0

    def add(self, batch: GameBatch):
        for column, encoder in zip(self.columns, self.encoders):
            column.feed(encoder, batch)
        self.group_rows += len(batch.raw["from_square"])

    def end_row_group(self):
        if not self.group_rows:
            return
        start, chunks, uncompressed = self.offset, [], 0
        for column, encoder in zip(self.columns, self.encoders):
            chunk, size = self._column_chunk(column, encoder)
            chunks.append(chunk)
            uncompressed += size
        self.row_groups.append(thrift_struct([
            (1, "list", ("struct", chunks)), (2, "i64", uncompressed), (3, "i64", self.group_rows),
            (5, "i64", start), (6, "i64", self.offset - start)]))
        self.rows += self.group_rows
        self.group_rows = 0

    def _page(self, header_fields, body: bytes):
        """Writes one page; returns (uncompressed, compressed) sizes with its header."""
        compressed = self.compressor.compress(body, asbytes=True) if self.compressor and body else body
        header = thrift_struct([(1, "i32", header_fields[0]), (2, "i32", len(body)), (3, "i32", len(compressed)),
                                *header_fields[1:]])
        self.file.write(header)
        self.file.write(compressed)
        self.offset += len(header) + len(compressed)
        return len(header) + len(body), len(header) + len(compressed)

    def _column_chunk(self, column: MoveColumn, encoder: ColumnEncoder):
        dictionary, data, rows, values, nulls, dict_count, low, high = encoder.finish_group()
        dictionary_offset = None
        uncompressed = compressed = 0
        if dictionary is not None:
            dictionary_offset = self.offset
            u, c = self._page([DICTIONARY_PAGE, (7, "struct", [(1, "i32", dict_count), (2, "i32", PLAIN)])],
                              dictionary)
            uncompressed, compressed = uncompressed + u, compressed + c
        data_offset = self.offset
        value_encoding = RLE_DICTIONARY if dictionary is not None else PLAIN
        u, c = self._page([DATA_PAGE, (5, "struct", [(1, "i32", values), (2, "i32", value_encoding),
                                                     (3, "i32", RLE), (4, "i32", RLE)])], data)
        uncompressed, compressed = uncompressed + u, compressed + c
        encodings = sorted({PLAIN, RLE, value_encoding})
        statistics = None
        if column.statistics and rows > nulls:
            pack = "<q" if column.physical == INT64 else "<i"
            low, high = struct.pack(pack, low), struct.pack(pack, high)
            statistics = [(1, "binary", high), (2, "binary", low), (3, "i64", nulls),
                          (5, "binary", high), (6, "binary", low)]
        metadata = [(1, "i32", column.physical), (2, "list", ("i32", encodings)),
                    (3, "list", ("binary", _path(column))), (4, "i32", self.codec), (5, "i64", values),
                    (6, "i64", uncompressed), (7, "i64", compressed),
                    (9, "i64", data_offset), (11, "i64", dictionary_offset), (12, "struct", statistics)]
        chunk_start = dictionary_offset if dictionary_offset is not None else data_offset
        return thrift_struct([(2, "i64", chunk_start), (3, "struct", metadata)]), uncompressed

    def close(self):
        """Ends the last row group and writes the footer."""
        try:
            self.end_row_group()
            elements = [schema_element("schema", None, REQUIRED, children=len(self.columns))]
            for column, field in zip(self.columns, self.arrow_schema):
                elements += _schema_elements(column, field)
            arrow_schema = base64.b64encode(self.arrow_schema.serialize().to_pybytes()).decode()
            footer = thrift_struct([
                (1, "i32", 2), (2, "list", ("struct", elements)), (3, "i64", self.rows),
                (4, "list", ("struct", self.row_groups)),
                (5, "list", ("struct", [[(1, "binary", "ARROW:schema"), (2, "binary", arrow_schema)]])),
                (6, "binary", f"pgntools version {__version__}"),
                (7, "list", ("struct", [[(1, "struct", [])]] * len(self.columns))),  # TypeDefinedOrder
            ])
            self.file.write(footer)
            self.file.write(struct.pack("<i", len(footer)) + b"PAR1")
        finally:
            self.file.close()

    def abort(self):
        self.file.close()
