# The Parquet column encoder of pgntools._core (included by _core.pyx): one leaf column of a row
# group, fed with batch columns (pgntools/_c/parquet_encode.h; the file: pgntools.parquet.part_file).

_PQ_KINDS = {"dict_fixed": PQ_DICT_FIXED, "dict_string": PQ_DICT_STRING, "plain_fixed": PQ_PLAIN_FIXED,
             "plain_string": PQ_PLAIN_STRING, "plain_bool": PQ_PLAIN_BOOL}
_PQ_SOURCES = {"u8": PQ_U8, "i16": PQ_I16, "u16": PQ_U16, "i32": PQ_I32, "i64": PQ_I64, "bits64": PQ_BITS64,
               "code": PQ_CODE}
_PQ_WIDTHS = {"u8": 1, "i16": 2, "u16": 2, "i32": 4, "i64": 8, "bits64": 8, "code": 1}


cdef inline const uint8_t *_bytes_ptr(const unsigned char[:] view):
    if view is None or view.shape[0] == 0:
        return NULL
    return <const uint8_t *>&view[0]


cdef size_t _count(const unsigned char[:] view, size_t width, const unsigned char[:] has) except? 0:
    cdef size_t n = view.shape[0] // width
    if has is not None and <size_t>has.shape[0] != n:
        raise ValueError("has: one byte per value")
    return n


cdef bytearray _validity_bytes(const unsigned char[:] validity, size_t offset, size_t n):
    """An Arrow validity bitmap's rows offset .. offset + n - 1 as a byte a row (1: a value), the
    form the encoders read (the batches' has columns); None for no bitmap (no null)."""
    if validity is None:
        return None
    if <size_t>validity.shape[0] * 8 < offset + n:
        raise ValueError("a validity bitmap shorter than the rows")
    cdef bytearray out = bytearray(n)
    cdef uint8_t *h = <uint8_t *>(<char *>out) if n else NULL
    cdef const uint8_t *bitmap = _bytes_ptr(validity)
    cdef size_t i
    with nogil:
        for i in range(n):
            h[i] = (bitmap[(offset + i) >> 3] >> ((offset + i) & 7)) & 1
    return out


cdef class ColumnEncoder:
    """One Parquet leaf column of the row group being built, fed with batch columns and read out
    as uncompressed page bodies (pgntools/_c/parquet_encode.h; the file is
    pgntools.parquet.part_file). Strings come as (int32 offsets, data) pairs, as batches hold them.

    kind: dict_fixed | dict_string | plain_fixed | plain_string | plain_bool. `names`: the fixed
    dictionary of a dict_string column fed with codes."""

    cdef PqColumn col
    cdef bint ready

    def __cinit__(self, str kind, *, int max_def=0, int max_rep=0, int value_width=4, names=()):
        if not pq_init(&self.col, _PQ_KINDS[kind], max_def, max_rep, value_width):
            raise MemoryError()
        self.ready = True
        encoded = [name.encode() for name in names]
        cdef const char **arr = <const char **>malloc((len(encoded) + 1) * sizeof(char *))
        if arr == NULL:
            raise MemoryError()
        for i, name in enumerate(encoded):
            arr[i] = name
        ok = pq_fix_dictionary(&self.col, arr, len(encoded))
        free(arr)
        if not ok:
            raise MemoryError()

    def __dealloc__(self):
        if self.ready:
            pq_free(&self.col)

    @property
    def rows(self):
        return self.col.rows

    @property
    def nbytes(self):
        """Bytes the row group so far holds."""
        return pq_buffered_bytes(&self.col)

    def add_fixed(self, const unsigned char[:] values, str source, const unsigned char[:] has=None, int bit=0):
        cdef PqSource src = _PQ_SOURCES[source]
        cdef size_t n = _count(values, _PQ_WIDTHS[source], has)
        cdef const uint8_t *v = _bytes_ptr(values)
        cdef const uint8_t *h = _bytes_ptr(has)
        with nogil:
            pq_add_fixed(&self.col, v, src, n, h, bit)

    # ---- Arrow arrays, from their buffers (pgntools.parquet.arrow_feed): the batch → Arrow
    # path's tables (tables/build.py) encoded by the same encoders.

    def add_arrow_fixed(self, const unsigned char[:] values, str source, const unsigned char[:] validity,
                        size_t offset, size_t n):
        """``n`` values of an Arrow array of fixed-width values from its buffers: its values
        (type ``source``) and validity bitmap (None: no null), from row ``offset`` on."""
        cdef PqSource src = _PQ_SOURCES[source]
        cdef size_t width = _PQ_WIDTHS[source]
        if <size_t>values.shape[0] < (offset + n) * width:
            raise ValueError("add_arrow_fixed: fewer values than rows")
        cdef bytearray has = _validity_bytes(validity, offset, n)
        cdef const uint8_t *v = _bytes_ptr(values)
        cdef const uint8_t *h = <const uint8_t *>(<char *>has) if has is not None and n else NULL
        with nogil:
            pq_add_fixed(&self.col, v + offset * width if v != NULL else NULL, src, n, h, 1)

    def add_arrow_bools(self, const unsigned char[:] values, size_t offset, size_t n):
        """``n`` booleans of an Arrow array without nulls (its values bitmap), from row ``offset`` on."""
        cdef bytearray flags = _validity_bytes(values, offset, n)
        cdef const uint8_t *f = <const uint8_t *>(<char *>flags) if n else NULL
        with nogil:
            pq_add_flag_bits(&self.col, f, n, 1)

    def add_arrow_strings(self, const unsigned char[:] offsets, const unsigned char[:] data,
                          const unsigned char[:] validity, size_t offset, size_t n):
        """``n`` strings of an Arrow string array (int32 offsets, data, validity bitmap or None)
        from row ``offset`` on."""
        if <size_t>offsets.shape[0] < 4 * (offset + n + 1):
            raise ValueError("add_arrow_strings: fewer offsets than rows")
        cdef bytearray has = _validity_bytes(validity, offset, n)
        cdef const int32_t *o = <const int32_t *>_bytes_ptr(offsets) + offset
        cdef const char *d = <const char *>_bytes_ptr(data)
        cdef const uint8_t *h = <const uint8_t *>(<char *>has) if has is not None and n else NULL
        with nogil:
            pq_add_strings(&self.col, o, d, n, h, 1)

    def add_arrow_codes(self, const unsigned char[:] indices, const unsigned char[:] validity, size_t offset,
                        size_t n):
        """``n`` rows of an Arrow dictionary array of int8 indices into this encoder's fixed
        dictionary (the same names in the same order), from row ``offset`` on; null rows by the
        validity bitmap (None: none)."""
        if <size_t>indices.shape[0] < offset + n:
            raise ValueError("add_arrow_codes: fewer indices than rows")
        cdef bytearray has = _validity_bytes(validity, offset, n)
        cdef bytearray codes = bytearray(n)
        cdef uint8_t *c = <uint8_t *>(<char *>codes) if n else NULL
        cdef const uint8_t *x = _bytes_ptr(indices)
        cdef const uint8_t *h = <const uint8_t *>(<char *>has) if has is not None and n else NULL
        cdef size_t i
        with nogil:
            for i in range(n):  # (code k + 1 is entry k; code 0 is null)
                c[i] = 0 if h != NULL and not h[i] else <uint8_t>(x[offset + i] + 1)
            pq_add_codes(&self.col, c, n, 1)

    def add_sequence(self, int64_t first, size_t n):
        with nogil:
            pq_add_sequence(&self.col, first, n)

    def add_game_ids(self, const unsigned char[:] starts, size_t n_rows, int64_t first_game):
        cdef const int32_t *s = <const int32_t *>_bytes_ptr(starts)
        cdef size_t n_games = starts.shape[0] // 4
        with nogil:
            pq_add_game_ids(&self.col, s, n_games, n_rows, first_game)

    def add_strings(self, const unsigned char[:] offsets, const unsigned char[:] data,
                    const unsigned char[:] has=None, int bit=0):
        cdef size_t n = _count(offsets, 4, None) - 1
        if has is not None and <size_t>has.shape[0] != n:
            raise ValueError("has: one byte per value")
        cdef const int32_t *o = <const int32_t *>_bytes_ptr(offsets)
        cdef const char *d = <const char *>_bytes_ptr(data)
        cdef const uint8_t *h = _bytes_ptr(has)
        with nogil:
            pq_add_strings(&self.col, o, d, n, h, bit)

    def add_repeated_string(self, bytes text, size_t n):
        pq_add_repeated_string(&self.col, text, len(text), n)

    def add_slotted(self, const unsigned char[:] slots, const unsigned char[:] offsets, const unsigned char[:] data,
                    bint as_int=False):
        """Row i: string slots[i] - 1 of (offsets, data), null for slot 0; as_int: its value
        when it is 1 to 9 digits, else null."""
        cdef const int32_t *s = <const int32_t *>_bytes_ptr(slots)
        cdef const int32_t *o = <const int32_t *>_bytes_ptr(offsets)
        cdef const char *d = <const char *>_bytes_ptr(data)
        cdef size_t n = slots.shape[0] // 4
        with nogil:
            pq_add_slotted(&self.col, s, 1, n, o, d, as_int)

    def add_codes(self, const unsigned char[:] codes, int base=1):
        """Codes into the fixed dictionary: code < base is null, code k is entry k - base."""
        cdef const uint8_t *c = _bytes_ptr(codes)
        with nogil:
            pq_add_codes(&self.col, c, codes.shape[0], base)

    def add_flag_bits(self, const unsigned char[:] flags, int bit):
        cdef const uint8_t *f = _bytes_ptr(flags)
        with nogil:
            pq_add_flag_bits(&self.col, f, flags.shape[0], bit)

    def add_lists(self, const unsigned char[:] starts, int empty_def, *, const unsigned char[:] values=None,
                  str source="u8", strings=None, bint zero_is_null=False, const unsigned char[:] keep=None):
        """Rows of lists: row i has entries starts[i] .. starts[i + 1] - 1 (int32 starts, one per
        row plus the end) of `values` (fixed, of type `source`) or `strings` ((offsets, data)),
        leaving out those whose `keep` byte is 0. empty_def: the level of an empty list."""
        cdef PqEntries e
        memset(&e, 0, sizeof(e))
        cdef const unsigned char[:] offsets
        cdef const unsigned char[:] data
        cdef size_t n_entries = (<const int32_t *>_bytes_ptr(starts))[starts.shape[0] // 4 - 1] if starts.shape[0] else 0
        if strings is not None:
            offsets, data = strings
            if <size_t>offsets.shape[0] < 4 * (n_entries + 1):
                raise ValueError("strings: fewer than the entries")
            e.offsets = <const int32_t *>_bytes_ptr(offsets)
            e.data = <const char *>_bytes_ptr(data)
        elif values is None or <size_t>values.shape[0] < n_entries * _PQ_WIDTHS[source]:
            raise ValueError("values: fewer than the entries")
        e.source = _PQ_SOURCES[source]
        e.values = _bytes_ptr(values)
        e.zero_is_null = zero_is_null
        if keep is not None and <size_t>keep.shape[0] < n_entries:
            raise ValueError("keep: fewer than the entries")
        e.keep = _bytes_ptr(keep)
        cdef const int32_t *s = <const int32_t *>_bytes_ptr(starts)
        cdef size_t n_rows = starts.shape[0] // 4 - 1 if starts.shape[0] else 0
        with nogil:
            pq_add_lists(&self.col, s, n_rows, empty_def, &e)

    def finish_group(self):
        """(dictionary page or None, data page, rows, values, nulls, dictionary size, min, max) of
        the row group so far (min and max: ints, or the strings' bytes for a dict_string column
        without a fixed dictionary); the encoder starts the next row group."""
        cdef ByteVec out
        cdef size_t low, high
        cdef uint32_t n_low, n_high
        memset(&out, 0, sizeof(out))
        with nogil:
            ok = pq_data_page(&self.col, &out)
        try:
            if not ok:
                raise MemoryError()
            data = PyBytes_FromStringAndSize(out.data, out.len) if out.len else b""
        finally:
            free(out.data)
        cdef const ByteVec *d = pq_dictionary_page(&self.col)
        dictionary = None if d == NULL else (PyBytes_FromStringAndSize(d.data, d.len) if d.len else b"")
        c = self.col
        smallest, largest = c.min, c.max
        if pq_string_range(&self.col, &low, &high):
            memcpy(&n_low, d.data + low, 4)
            memcpy(&n_high, d.data + high, 4)
            smallest = PyBytes_FromStringAndSize(d.data + low + 4, n_low)
            largest = PyBytes_FromStringAndSize(d.data + high + 4, n_high)
        result = (dictionary, data, c.rows, c.values, c.nulls, c.dict_count, smallest, largest)
        pq_reset(&self.col)
        return result


cdef int _put_page(ByteVec *out, bint dictionary, const char *body, size_t n, uint32_t count, int encoding,
                   object compress, size_t *sizes) except -1:
    """One page appended to out: its header, then its body, compressed by `compress` (None:
    stored as it is; an empty body always is); sizes[0] += header + body, sizes[1] += header +
    the stored bytes."""
    cdef size_t header
    cdef const char *stored = body
    cdef size_t stored_len = n
    cdef bytes packed
    if compress is not None and n:
        view = PyMemoryView_FromMemory(<char *>body, n, PyBUF_READ)  # no copy of the body
        try:
            packed = compress(view)
        finally:
            view.release()
        stored, stored_len = packed, len(packed)
    if not pq_put_page(out, dictionary, n, stored, stored_len, count, encoding, &header):
        raise MemoryError()
    sizes[0] += header + n
    sizes[1] += header + stored_len
    return 0


def encode_row_group(list encoders, compress):
    """The pages of a row group in one call (pgntools.parquet.part_file): for each encoder (a
    ColumnEncoder, in leaf order) its dictionary page (dictionary kinds) and its data page, each
    after its header; compressed by ``compress`` (None: stored as they are). Returns (the pages
    as bytes, per encoder (dictionary page offset or None, data page offset, uncompressed and
    compressed sizes with the headers, values, nulls, min, max)), offsets counted from the
    start of the pages; min and max as finish_group gives them. The encoders start the next
    row group."""
    cdef ByteVec out, body
    cdef ColumnEncoder enc
    cdef size_t sizes[2]
    cdef size_t low, high
    cdef uint32_t n_low, n_high
    cdef const ByteVec *d
    cdef bint ok
    memset(&out, 0, sizeof(out))
    memset(&body, 0, sizeof(body))
    results = []
    try:
        for enc in encoders:
            body.len = 0
            with nogil:
                ok = pq_data_page(&enc.col, &body)
            if not ok:
                raise MemoryError()
            sizes[0] = sizes[1] = 0
            d = pq_dictionary_page(&enc.col)
            dictionary_offset = None
            if d != NULL:
                dictionary_offset = out.len
                _put_page(&out, True, d.data, d.len, enc.col.dict_count, 0, compress, sizes)
            data_offset = out.len
            _put_page(&out, False, body.data, body.len, <uint32_t>enc.col.values, 8 if d != NULL else 0, compress,
                      sizes)  # (8: RLE_DICTIONARY, 0: PLAIN)
            smallest, largest = enc.col.min, enc.col.max
            if pq_string_range(&enc.col, &low, &high):
                memcpy(&n_low, d.data + low, 4)
                memcpy(&n_high, d.data + high, 4)
                smallest = PyBytes_FromStringAndSize(d.data + low + 4, n_low)
                largest = PyBytes_FromStringAndSize(d.data + high + 4, n_high)
            results.append((dictionary_offset, data_offset, sizes[0], sizes[1], enc.col.values, enc.col.nulls,
                            smallest, largest))
            pq_reset(&enc.col)
        pages = PyBytes_FromStringAndSize(out.data, out.len) if out.len else b""
    finally:
        free(out.data)
        free(body.data)
    return pages, results


# ---------------------------------------------------------------- a batch's columns fed in one call

cdef enum _FeedKind:
    FEED_FIXED, FEED_STRINGS, FEED_CODES, FEED_FLAG, FEED_TAG, FEED_SEQUENCE, FEED_GAME_IDS, FEED_LIST_VALUES, \
    FEED_LIST_STRINGS

cdef struct _Feed:
    _FeedKind kind
    PqColumn *col
    int column        # the batch column (numeric, or strings for FEED_STRINGS / FEED_LIST_STRINGS)
    int has_column    # -1: none
    int aux_column    # FEED_GAME_IDS: the rows' column; lists: the starts column; -1: none
    int keep_column   # FEED_LIST_STRINGS: the keep column, or -1
    PqSource source
    int width         # bytes a value (FEED_FIXED), a row (FEED_GAME_IDS) or an entry (lists)
    int bit           # has_bit, or the flag's bit
    int base          # FEED_CODES
    int tag           # FEED_TAG: the tag column's index
    bint as_int
    bint zero_is_null # lists of fixed values: 0 is null
    int empty_def


cdef const uint8_t *_col(const Batch *b, int column, size_t *nbytes) noexcept nogil:
    if column < 0:
        nbytes[0] = 0
        return NULL
    return <const uint8_t *>batch_col_data(b, column, nbytes)


cdef bint _run_feed(const _Feed *f, const Batch *b, int64_t first_game) noexcept nogil:
    """One leaf fed from the batch's own buffers; false when out of memory."""
    cdef size_t n, nh, count, total
    cdef bint numeric = f.kind != FEED_STRINGS and f.kind != FEED_LIST_STRINGS and f.kind != FEED_TAG
    cdef const uint8_t *v = _col(b, f.column if numeric else -1, &n)
    cdef const uint8_t *h = _col(b, f.has_column, &nh)
    cdef const int32_t *offsets
    cdef const char *data
    cdef int32_t *starts
    cdef PqEntries e
    if f.kind == FEED_FIXED:
        pq_add_fixed(f.col, v, f.source, n // f.width, h, f.bit)
    elif f.kind == FEED_STRINGS:
        offsets = batch_str_offsets(b, f.column, &count)
        data = batch_str_data(b, f.column, &n)
        pq_add_strings(f.col, offsets, data, count - 1 if count else 0, h, f.bit)
    elif f.kind == FEED_CODES:
        pq_add_codes(f.col, v, n, f.base)
    elif f.kind == FEED_FLAG:
        pq_add_flag_bits(f.col, v, n, f.bit)
    elif f.kind == FEED_TAG:  # the batch's tag_slots: TAG_COLUMN_COUNT per game
        offsets = batch_str_offsets(b, f.column, &count)
        data = batch_str_data(b, f.column, &n)
        v = _col(b, G_TAG_SLOTS, &nh)
        if nh:
            pq_add_slotted(f.col, (<const int32_t *>v) + f.tag, TAG_COLUMN_COUNT, b.n_games, offsets, data, f.as_int)
    elif f.kind == FEED_SEQUENCE:
        pq_add_sequence(f.col, first_game, b.n_games)
    elif f.kind == FEED_GAME_IDS:
        _col(b, f.aux_column, &nh)
        pq_add_game_ids(f.col, <const int32_t *>v, n // 4, nh // f.width, first_game)
    else:  # lists: row i's entries from starts[i] to the next row's start (or the end)
        memset(&e, 0, sizeof(e))
        if f.kind == FEED_LIST_VALUES:
            e.source = f.source
            e.values = v
            e.zero_is_null = f.zero_is_null
            total = n // f.width
        else:
            e.offsets = batch_str_offsets(b, f.column, &count)
            e.data = batch_str_data(b, f.column, &n)
            e.keep = _col(b, f.keep_column, &nh)
            total = count - 1 if count else 0
        v = _col(b, f.aux_column, &n)
        starts = <int32_t *>malloc(n + sizeof(int32_t))
        if starts == NULL:
            return False
        if n:
            memcpy(starts, v, n)
        starts[n // 4] = <int32_t>total
        pq_add_lists(f.col, starts, n // 4, f.empty_def, &e)
        free(starts)
    return not f.col.failed


cdef class BatchFeeder:
    """The leaves of a part file that come straight from batch columns, fed from a batch's own C
    buffers (a BatchColumns: no column copied) in one call, without the GIL. ``feeds``: per
    encoder, (kind, column, options) as pgntools.parquet.part_file declares them."""

    cdef _Feed *feeds
    cdef Py_ssize_t n
    cdef list encoders  # kept alive: the feeds point into them

    def __cinit__(self, list encoders, list feeds):
        self.encoders = list(encoders)
        self.n = len(feeds)
        self.feeds = <_Feed *>calloc(max(self.n, 1), sizeof(_Feed))
        if self.feeds == NULL:
            raise MemoryError()
        cdef _Feed *f
        cdef ColumnEncoder enc
        kinds = {"fixed": FEED_FIXED, "strings": FEED_STRINGS, "codes": FEED_CODES, "flag": FEED_FLAG,
                 "tag": FEED_TAG, "sequence": FEED_SEQUENCE, "game_ids": FEED_GAME_IDS,
                 "list_values": FEED_LIST_VALUES, "list_strings": FEED_LIST_STRINGS}
        for i, (enc, (kind, column, options)) in enumerate(zip(encoders, feeds)):
            f = &self.feeds[i]
            f.kind = kinds[kind]
            f.col = &enc.col
            f.column = _STRING_IDS[column] if kind in ("strings", "tag", "list_strings") else (
                _COLUMN_IDS[column] if column else -1)
            f.has_column = _COLUMN_IDS[options["has"]] if options.get("has") else -1
            f.aux_column = _COLUMN_IDS[options["aux"]] if options.get("aux") else -1
            f.keep_column = _COLUMN_IDS[options["keep"]] if options.get("keep") else -1
            source = options.get("source", "u8")
            f.source = _PQ_SOURCES[source]
            f.width = options.get("width", _PQ_WIDTHS[source])
            f.bit = options.get("bit", 0)
            f.base = options.get("base", 0)
            f.tag = options.get("tag", 0)
            f.as_int = options.get("as_int", False)
            f.empty_def = options.get("empty_def", 0)
            f.zero_is_null = options.get("zero_is_null", False)

    def __dealloc__(self):
        free(self.feeds)

    def add(self, BatchColumns batch, int64_t first_game):
        """Feeds every leaf from the batch; ``first_game``: the id of its first game."""
        cdef const Batch *b = &batch.store.s.b
        cdef Py_ssize_t i
        cdef bint ok = True
        with nogil:
            for i in range(self.n):
                ok = _run_feed(&self.feeds[i], b, first_game) and ok
        if not ok:
            raise MemoryError()


# ---------------------------------------------------------------- Thrift compact structs (footers)

cdef dict _THRIFT_CODES = {"i8": 3, "i32": 5, "i64": 6, "binary": 8, "list": 9, "struct": 12}


cdef inline void _thrift_varint(bytearray out, uint64_t n):
    while n > 0x7F:
        out.append(<unsigned char>((n & 0x7F) | 0x80))
        n >>= 7
    out.append(<unsigned char>n)


cdef inline uint64_t _thrift_zigzag(int64_t n):
    return (<uint64_t>n << 1) ^ <uint64_t>(n >> 63)


cdef void _thrift_value(bytearray out, str kind, value) except *:
    cdef int code
    if kind == "i32" or kind == "i64":
        _thrift_varint(out, _thrift_zigzag(value))
    elif kind == "binary":
        data = value.encode() if isinstance(value, str) else value
        _thrift_varint(out, len(data))
        out += data
    elif kind == "struct":  # its fields, or already encoded
        if isinstance(value, bytes):
            out += value
        else:
            _thrift_fields(out, value)
    elif kind == "i8":
        out.append(<unsigned char>(<int>value & 0xFF))
    else:  # list: (element kind, items)
        element, items = value
        code = _THRIFT_CODES[element]
        if len(items) < 15:
            out.append(<unsigned char>(len(items) << 4 | code))
        else:
            out.append(<unsigned char>(0xF0 | code))
            _thrift_varint(out, len(items))
        for item in items:
            _thrift_value(out, element, item)


cdef void _thrift_fields(bytearray out, fields) except *:
    cdef int last = 0, field_id, code
    for field_id, kind, value in fields:
        if value is None:
            continue
        code = (1 if value else 2) if kind == "bool" else _THRIFT_CODES[kind]
        if 0 < field_id - last <= 15:
            out.append(<unsigned char>((field_id - last) << 4 | code))
        else:
            out.append(<unsigned char>code)
            _thrift_varint(out, _thrift_zigzag(field_id))
        last = field_id
        if kind != "bool":
            _thrift_value(out, kind, value)
    out.append(0)


def thrift_struct(fields) -> bytes:
    """pgntools.parquet.thrift.thrift_struct compiled (the same bytes; the footers' ~1,000 column
    chunk entries a part file are encoded with it)."""
    out = bytearray()
    _thrift_fields(out, fields)
    return bytes(out)
