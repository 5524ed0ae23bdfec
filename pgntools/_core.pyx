# cython: language_level=3
"""The one compiled module: a thin boundary over the C core in pgntools/_c.

Users import ``pgntools``, never this module. Board (_core_board.pxi) is for scripts, tests and
debugging (one Python call per move); the batch reader (_core_reader.pxi) is what the commands
use; _core_parquet.pxi encodes Parquet columns for export; _core_helpers.pxi holds benchmark and
test helpers; _core_openings.pxi the opening table (pgntools.openings loads it).
"""
from libc.stdlib cimport calloc, malloc, realloc, free
from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t, int16_t, int32_t, int64_t, uintptr_t
from libc.string cimport memcmp, memcpy, memmove, memset
from cpython.bytes cimport PyBytes_FromStringAndSize
from cpython.unicode cimport PyUnicode_DecodeUTF8
from cpython.memoryview cimport PyMemoryView_FromMemory
from cpython.buffer cimport PyBUF_READ, PyBuffer_FillInfo

from pgntools.errors import InvalidFenError, move_error

# The module is one compilation unit; its parts live in these files, in this order. The C
# declarations they use are in _core.pxd.
include "_core_board.pxi"
include "_core_openings.pxi"
include "_core_reader.pxi"
include "_core_parquet.pxi"
include "_core_helpers.pxi"
include "_core_keyset.pxi"
include "_core_take.pxi"
include "_core_raw.pxi"
include "_core_positions.pxi"
include "_core_stats.pxi"
include "_core_fen_rows.pxi"
include "_core_seams.pxi"
include "_core_book.pxi"
include "_core_dates.pxi"
