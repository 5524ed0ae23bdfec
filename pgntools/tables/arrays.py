"""Arrow arrays from the C batch's buffers and from small Python values, without pyarrow's
Python-object conversion.

Why: `pa.array(...)` and `pa.scalar(...)` on Python objects (and compute calls given a Python
number) make pyarrow import pandas to check for pandas types: 0.13 s and 60 MB of RSS in a
process that never uses pandas. Everything here is built from buffers instead.
"""
from __future__ import annotations

import struct
from array import array
from itertools import accumulate
from typing import Iterable, Sequence

import pyarrow as pa

from pgntools.reader import GameBatch

_FORMATS = {pa.int8(): "b", pa.uint8(): "B", pa.int16(): "h", pa.uint16(): "H", pa.int32(): "i",
            pa.uint32(): "I", pa.int64(): "q", pa.uint64(): "Q", pa.float64(): "d"}


def numeric(batch: GameBatch, name: str, type_: pa.DataType) -> pa.Array:
    """A numeric column of the batch as ``type_`` (of its C type's width), zero-copy: exported
    by the C core when the batch was handed over (GameBatch.arrow), else over its copied bytes."""
    array = batch.arrow(name)
    if array is None:
        data = batch.raw[name]
        return pa.Array.from_buffers(type_, len(data) // type_.byte_width, [None, pa.py_buffer(data)])
    return array if array.type == type_ else array.view(type_)


def strings(batch: GameBatch, name: str) -> pa.Array:
    """A string column of the batch (Arrow layout already), zero-copy, as numeric's."""
    array = batch.arrow(name)
    if array is None:
        offsets, data = batch.raw[name]
        return pa.StringArray.from_buffers(max(len(offsets) // 4 - 1, 0), pa.py_buffer(offsets), pa.py_buffer(data))
    return array


def ints(values: Sequence[int], type_: pa.DataType) -> pa.Array:
    return pa.Array.from_buffers(type_, len(values), [None, pa.py_buffer(array(_FORMATS[type_], values))])


def scalar(value: int, type_: pa.DataType) -> pa.Scalar:
    return pa.Array.from_buffers(type_, 1, [None, pa.py_buffer(struct.pack(_FORMATS[type_], value))])[0]


def text(values: Iterable[str]) -> pa.StringArray:
    """A string array (no nulls) from Python strings."""
    encoded = [v.encode() for v in values]
    ends = array("i", [0])
    ends.extend(accumulate(len(e) for e in encoded))
    return pa.StringArray.from_buffers(len(encoded), pa.py_buffer(ends), pa.py_buffer(b"".join(encoded)))


def with_validity(values: pa.Array, valid: pa.Array) -> pa.Array:
    """`values` (without nulls) with nulls where the boolean array `valid` is false, reusing its
    bitmap as the validity buffer (both are fresh arrays, starting at bit 0, without nulls)."""
    return pa.Array.from_buffers(values.type, len(values), [valid.buffers()[1], *values.buffers()[1:]])
