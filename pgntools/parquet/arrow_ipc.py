"""An Arrow schema (pgntools.tables.schema's declarations) as the IPC message pyarrow's
``Schema.serialize()`` gives, without pyarrow: Parquet footers carry it (key ARROW:schema) so
that readers restore the exact Arrow types (dictionaries, uint8, int16). Importing pyarrow for
this took ~30 ms of every export's start-up.

The message is a FlatBuffer (Arrow's format/Message.fbs and Schema.fbs), written here front to
back: each table's vtable just before it, its children after it (FlatBuffer offsets point
forward), every value aligned to its size. Tests read the bytes back with pyarrow.
"""
from __future__ import annotations

import struct
from typing import Callable, List, Optional, Sequence, Tuple

from pgntools.tables.schema import Column

# Schema.fbs: the Type union's members, FloatingPoint precisions; Message.fbs: header kinds, version
INT, FLOATING_POINT, UTF8, BOOL, DATE, LIST, STRUCT, TIMESTAMP, MAP = 2, 3, 5, 6, 8, 12, 13, 10, 17
DOUBLE = 2
DAY = 0  # DateUnit (MILLISECOND, 1, is the default: written)
TIME_UNITS = {"s": 0, "ms": 1, "us": 2, "ns": 3}
SCHEMA_HEADER, METADATA_V5 = 1, 4
INTEGERS = {"int8": (8, True), "int16": (16, True), "int32": (32, True), "int64": (64, True),
            "uint8": (8, False), "uint16": (16, False), "uint32": (32, False), "uint64": (64, False)}

# A table's slot: None (absent), (struct format, value) for a scalar, or (OFFSET, write) where
# write() appends the child (string, vector or table) and returns where it starts.
OFFSET = "offset"
Slot = Optional[Tuple[str, object]]


class _Buffer:
    def __init__(self):
        self.data = bytearray(4)  # the root table's offset, set by finish()

    def pad(self, align: int, before: int = 0):
        """Pads so that a value ``before`` bytes further on is aligned to ``align``."""
        self.data += bytes(-(len(self.data) + before) % align)

    def string(self, text: str) -> int:
        encoded = text.encode()
        self.pad(4)
        start = len(self.data)
        self.data += struct.pack("<I", len(encoded)) + encoded + b"\0"
        return start

    def vector(self, writers: Sequence[Callable[[], int]]) -> int:
        """A vector of offsets to the children the writers append."""
        self.pad(4)
        start = len(self.data)
        self.data += struct.pack("<I", len(writers)) + bytes(4 * len(writers))
        for k, write in enumerate(writers):
            self._point(start + 4 + 4 * k, write())
        return start

    def table(self, slots: Sequence[Slot]) -> int:
        present = [(i, s) for i, s in enumerate(slots) if s is not None]
        size = {i: 4 if s[0] == OFFSET else struct.calcsize("<" + s[0]) for i, s in present}
        order = sorted(present, key=lambda item: -size[item[0]])  # widest first: no padding between
        wide = any(size[i] == 8 for i, _ in present)
        vtable_size = 4 + 2 * len(slots)
        self.pad(2)
        vtable = len(self.data)
        self.data += bytes(vtable_size)
        self.pad(8 if wide else 4, before=4 if wide else 0)  # the 8-byte values start after the soffset
        start = len(self.data)
        fields, at = {}, 4
        for i, _ in order:
            fields[i] = at
            at += size[i]
        struct.pack_into("<HH", self.data, vtable, vtable_size, at)
        for i, _ in present:
            struct.pack_into("<H", self.data, vtable + 4 + 2 * i, fields[i])
        self.data += struct.pack("<i", start - vtable) + bytes(at - 4)
        for i, (kind, value) in order:
            if kind != OFFSET:
                struct.pack_into("<" + kind, self.data, start + fields[i], value)
        for i, (kind, value) in order:
            if kind == OFFSET:
                self._point(start + fields[i], value())
        return start

    def _point(self, at: int, target: int):
        struct.pack_into("<I", self.data, at, target - at)

    def finish(self, root: int) -> bytes:
        self._point(0, root)
        self.pad(8)
        return bytes(self.data)


def ipc_schema(columns: Sequence[Column]) -> bytes:
    """The encapsulated IPC message of the schema: 0xFFFFFFFF, the metadata size, the FlatBuffer
    (padded to 8 bytes), no body."""
    buf = _Buffer()
    dictionary_ids = iter(range(1 << 30))
    fields = [_field(buf, c.name, c.type, c.nullable, dictionary_ids) for c in columns]
    schema = lambda: buf.table([None, (OFFSET, lambda: buf.vector(fields))])  # endianness: little (default)
    message = buf.table([("h", METADATA_V5), ("B", SCHEMA_HEADER), (OFFSET, schema), ("q", 0)])
    flatbuffer = buf.finish(message)
    return struct.pack("<Ii", 0xFFFFFFFF, len(flatbuffer)) + flatbuffer


def _field(buf: _Buffer, name: str, declared, nullable: bool, dictionary_ids) -> Callable[[], int]:
    """A writer of one Field table (and its children)."""
    dictionary = None
    if isinstance(declared, tuple) and declared[0] == "dictionary":
        bits, signed = INTEGERS[declared[1]]
        dictionary_id = next(dictionary_ids)
        dictionary = lambda: buf.table([("q", dictionary_id), (OFFSET, lambda: _int(buf, bits, signed)), ("?", False)])
        declared = declared[2]  # the field's type is the dictionary's value type
    type_id, type_table, children = _type(buf, declared, dictionary_ids)
    slots: List[Slot] = [(OFFSET, lambda: buf.string(name)), ("?", nullable), ("B", type_id), (OFFSET, type_table),
                         (OFFSET, dictionary) if dictionary else None, (OFFSET, lambda: buf.vector(children))]
    return lambda: buf.table(slots)


def _int(buf: _Buffer, bits: int, signed: bool) -> int:
    return buf.table([("i", bits), ("?", signed)])


def _type(buf: _Buffer, declared, dictionary_ids):
    """(Type union member, writer of its table, writers of the child fields)."""
    if isinstance(declared, str):
        if declared in INTEGERS:
            return INT, lambda: _int(buf, *INTEGERS[declared]), []
        if declared == "float64":
            return FLOATING_POINT, lambda: buf.table([("h", DOUBLE)]), []
        if declared == "date32":
            return DATE, lambda: buf.table([("h", DAY)]), []
        simple = {"string": UTF8, "bool": BOOL}[declared]
        return simple, lambda: buf.table([]), []
    kind = declared[0]
    if kind == "list":
        return LIST, lambda: buf.table([]), [_field(buf, "item", declared[1], True, dictionary_ids)]
    if kind == "struct":
        return STRUCT, lambda: buf.table([]), [_field(buf, n, t, True, dictionary_ids) for n, t in declared[1]]
    if kind == "timestamp":
        unit, zone = TIME_UNITS[declared[1]], declared[2]
        return TIMESTAMP, lambda: buf.table([("h", unit), (OFFSET, lambda: buf.string(zone))]), []
    if kind == "map":
        entries = ("struct", (("key", declared[1]), ("value", declared[2])))
        entry_field = _map_entries(buf, entries, dictionary_ids)
        return MAP, lambda: buf.table([("?", False)]), [entry_field]
    raise ValueError(f"unknown column type {declared!r}")


def _map_entries(buf: _Buffer, entries, dictionary_ids) -> Callable[[], int]:
    """A map's one child: the non-null struct "entries" of a non-null key and a nullable value."""
    (key_name, key_type), (value_name, value_type) = entries[1]
    children = [_field(buf, key_name, key_type, False, dictionary_ids),
                _field(buf, value_name, value_type, True, dictionary_ids)]
    slots: List[Slot] = [(OFFSET, lambda: buf.string("entries")), ("?", False), ("B", STRUCT),
                         (OFFSET, lambda: buf.table([])), None, (OFFSET, lambda: buf.vector(children))]
    return lambda: buf.table(slots)
