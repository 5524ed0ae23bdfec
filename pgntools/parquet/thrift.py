"""The Thrift compact protocol, as much of it as Parquet's page headers and file footer need
(github.com/apache/thrift: doc/specs/thrift-compact-protocol.md): structs of bool, i8, i32, i64,
binary, struct and list fields, written from (field id, kind, value) triples.

This is the protocol as specified, kept readable; the writer uses its compiled twin,
``pgntools._core.thrift_struct`` (the same bytes, ~4x faster on the footers' column chunk
entries; tests/test_parquet_file.py compares the two).
"""
from __future__ import annotations

import struct

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
