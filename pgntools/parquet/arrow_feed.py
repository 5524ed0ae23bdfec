"""The Parquet encoders fed by Arrow: each leaf column of a part file takes its values from the
Arrow table tables/build.py makes of a batch (the table to_arrow hands out), through the
arrays' buffers (no Python object a row). One batch → Arrow path for every tabular output; the
encoders (pgntools/_c/parquet_encode.c) are the same as for the batch columns, so a part file is
the same byte for byte whichever feeds it (tests/test_parquet_file.py).

A leaf's feed is chosen by its column's Arrow type: fixed-width values (with their validity
bitmap), booleans, strings, dictionaries (indices into the encoder's fixed names), a list of
fixed values (nags), a map of strings (tags), a list of structs (errors, fixes)."""
from __future__ import annotations

from typing import Callable, List

import pyarrow as pa
import pyarrow.compute as pc

from pgntools.tables.arrays import scalar
from pgntools.tables.schema import Column

# Arrow value types as the encoders' names of them (part_file.PHYSICAL's, for the batch columns)
_SOURCES = {pa.int8(): "u8", pa.uint8(): "u8", pa.int16(): "i16", pa.uint16(): "u16", pa.int32(): "i32",
            pa.date32(): "i32", pa.int64(): "i64", pa.uint64(): "bits64", pa.float64(): "bits64"}
Feed = Callable[[object, pa.Array], None]  # (encoder, the column's array)


def _bytes(buffer, start: int = 0, end: int = None):
    """An Arrow buffer as the unsigned bytes the encoders take (pyarrow's are signed chars)."""
    if buffer is None:
        return None
    view = memoryview(buffer).cast("B")
    return view[start:end]


def _fixed(source: str, factor: int = 1) -> Feed:
    def feed(enc, array: pa.Array):
        if factor != 1:  # (timestamp[s] as Parquet's milliseconds)
            array = pc.multiply(array.view(pa.int64()), scalar(factor, pa.int64()))
        validity, values = array.buffers()[:2]
        enc.add_arrow_fixed(_bytes(values), source, _bytes(validity) if array.null_count else None,
                            array.offset, len(array))
    return feed


def _bools(enc, array: pa.Array):
    enc.add_arrow_bools(_bytes(array.buffers()[1]), array.offset, len(array))


def _strings(enc, array: pa.Array):
    validity, offsets, data = array.buffers()
    enc.add_arrow_strings(_bytes(offsets), _bytes(data), _bytes(validity) if array.null_count else None,
                          array.offset, len(array))


def _codes(enc, array: pa.DictionaryArray):
    indices = array.indices
    validity, values = indices.buffers()[:2]
    enc.add_arrow_codes(_bytes(values), _bytes(validity) if indices.null_count else None, indices.offset,
                        len(indices))


def _list_offsets(array) -> memoryview:
    """A list (or map) array's int32 offsets of its rows (the end too): the entries' starts."""
    return _bytes(array.buffers()[1], 4 * array.offset, 4 * (array.offset + len(array) + 1))


def _entry_strings(strings: pa.Array):
    """(offsets, data) of a list's string entries, indexed as the list's offsets index them."""
    assert strings.offset == 0, "a sliced child array"
    _, offsets, data = strings.buffers()
    return _bytes(offsets), _bytes(data)


def _list_of_fixed(source: str, empty_def: int) -> Feed:
    def feed(enc, array: pa.ListArray):
        values = array.values
        assert values.offset == 0, "a sliced child array"
        enc.add_lists(_list_offsets(array), empty_def, values=_bytes(values.buffers()[1]), source=source)
    return feed


def _map_part(part: str) -> Feed:
    def feed(enc, array: pa.MapArray):
        enc.add_lists(_list_offsets(array), 1, strings=_entry_strings(getattr(array, part)))
    return feed


def _struct_child(index: int, child_type: pa.DataType) -> Feed:
    """A leaf of a list of structs: child ``index`` of the structs (its null plies: 0 in the values)."""
    def feed(enc, array: pa.ListArray):
        structs = array.values
        assert structs.offset == 0, "a sliced child array"
        child = structs.field(index)
        if pa.types.is_string(child_type):
            enc.add_lists(_list_offsets(array), 1, strings=_entry_strings(child))
        else:
            enc.add_lists(_list_offsets(array), 1, values=_bytes(child.buffers()[1]), source=_SOURCES[child_type],
                          zero_is_null=True)
    return feed


def leaf_feeds(column: Column, field, arrow_type: pa.DataType) -> List[Feed]:
    """The feeds of a column's leaves (as many as its Parquet field, part_file.Field, has), from
    its Arrow type."""
    if pa.types.is_dictionary(arrow_type):
        feeds = [_codes]
    elif pa.types.is_map(arrow_type):
        feeds = [_map_part("keys"), _map_part("items")]
    elif pa.types.is_list(arrow_type) and pa.types.is_struct(arrow_type.value_type):
        feeds = [_struct_child(i, f.type) for i, f in enumerate(arrow_type.value_type)]
    elif pa.types.is_list(arrow_type):
        feeds = [_list_of_fixed(_SOURCES[arrow_type.value_type], 0)]
    elif pa.types.is_boolean(arrow_type):
        feeds = [_bools]
    elif pa.types.is_string(arrow_type):
        feeds = [_strings]
    elif pa.types.is_timestamp(arrow_type):
        feeds = [_fixed("i64", {"s": 1000, "ms": 1}[arrow_type.unit])]
    else:
        feeds = [_fixed(_SOURCES[arrow_type])]
    if len(feeds) != len(field.leaves):
        raise ValueError(f"column {column.name!r}: {len(field.leaves)} Parquet leaves, {len(feeds)} Arrow feeds")
    return feeds
