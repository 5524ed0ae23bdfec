# `pgntools book`'s counts per (position, move) (_c/book_table.h; pgntools.sinks.book).

DEF BOOK_SLOT_BYTES = 24


cdef char _NO_BYTES[1]


cdef const char *_bytes_at(const unsigned char[:] data):
    """The first byte's address (an empty string column may have no buffer at all)."""
    if data.shape[0]:
        return <const char *>&data[0]
    return _NO_BYTES


cdef class BookCounts:
    """What `pgntools book` has counted: ``add_rows`` takes a batch's position rows, ``parts()``
    and ``add_parts()`` move a worker's counts to the parent, ``polyglot(min_count)`` is the book."""

    cdef BookTable t

    def __dealloc__(self):
        book_table_free(&self.t)

    def add_rows(self, const unsigned char[:] starts, const unsigned char[:] ply, const unsigned char[:] key,
                 const unsigned char[:] has, const unsigned char[:] result, const unsigned char[:] uci_offsets,
                 const unsigned char[:] uci, const unsigned char[:] san_offsets, const unsigned char[:] san):
        cdef size_t n_games = starts.shape[0] // 4, n_rows = ply.shape[0] // 2
        if not n_rows or not n_games:
            return
        if (<size_t>key.shape[0] != 8 * n_rows or <size_t>has.shape[0] != n_rows or <size_t>result.shape[0] != 8 * n_rows
                or <size_t>uci_offsets.shape[0] != 4 * (n_rows + 1) or <size_t>san_offsets.shape[0] != 4 * (n_rows + 1)):
            raise ValueError("BookCounts.add_rows: columns of different lengths")
        cdef int rc
        cdef const char *uci_data = _bytes_at(uci)
        cdef const char *san_data = _bytes_at(san)
        with nogil:
            rc = book_table_add_rows(&self.t, n_games, <const int32_t *>&starts[0], n_rows, <const int16_t *>&ply[0],
                                     <const uint64_t *>&key[0], &has[0], <const double *>&result[0],
                                     <const int32_t *>&uci_offsets[0], uci_data, <const int32_t *>&san_offsets[0],
                                     san_data)
        if rc:
            raise MemoryError(f"book: no memory for {self.t.used + 1} (position, move) pairs")

    def parts(self):
        """The counts as bytes (24 a pair), for another table's ``add_parts``."""
        out = bytearray(BOOK_SLOT_BYTES * self.t.used)
        cdef unsigned char[:] view = out
        if self.t.used:
            book_table_slots(&self.t, <BookSlot *>&view[0])
        return bytes(out)

    def add_parts(self, const unsigned char[:] parts):
        cdef size_t n = parts.shape[0] // BOOK_SLOT_BYTES
        cdef int rc = 0
        if n:
            with nogil:
                rc = book_table_add_slots(&self.t, <const BookSlot *>&parts[0], n)
        if rc:
            raise MemoryError(f"book: no memory for {self.t.used + 1} (position, move) pairs")

    def polyglot(self, uint32_t min_count=1):
        """The Polyglot file's bytes (pgntools.book: the rule)."""
        out = bytearray(16 * self.t.used)
        cdef unsigned char[:] view = out
        cdef size_t n = 0
        if self.t.used:
            with nogil:
                n = book_table_polyglot(&self.t, min_count, &view[0])
        if n == <size_t>-1:
            raise MemoryError("book: no memory to sort the entries")
        return bytes(out[:16 * n])

    @property
    def count(self):
        """The distinct (position, move) pairs counted."""
        return self.t.used
