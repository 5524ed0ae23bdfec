# The positions dataset (included by _core.pyx): --unique-positions' key set and the batch row
# filters it needs, each one C loop a column (pgntools.positions_dataset).

cdef class PositionKeys:
    """The Polyglot keys of the positions dataset's rows kept so far (--unique-positions), in the
    C key set of --dedup (_c/keyset.h: 16-byte slots, at most 3/4 full). ``first_seen(keys,
    ids)`` (uint64 keys and int64 game ids, bytes-like, one item a row) returns one byte a row:
    1 where the key is new (it is remembered), 0 where an earlier row had it."""

    cdef KeySet s

    def __dealloc__(self):
        keyset_free(&self.s)

    def first_seen(self, const unsigned char[:] keys, const unsigned char[:] ids):
        cdef size_t n = keys.shape[0] // 8, i
        if <size_t>keys.shape[0] != 8 * n or <size_t>ids.shape[0] != 8 * n:
            raise ValueError("PositionKeys.first_seen: 8 bytes a row in keys and ids")
        keep = bytearray(n)
        if not n:
            return bytes(keep)
        cdef unsigned char[:] out = keep
        cdef int64_t *zeros = <int64_t *>calloc(n, sizeof(int64_t))
        cdef int64_t *first = <int64_t *>malloc(n * sizeof(int64_t))
        cdef uint8_t *valid = <uint8_t *>malloc(n)
        cdef int rc = -1
        if zeros != NULL and first != NULL and valid != NULL:
            with nogil:
                memset(valid, 1, n)
                rc = keyset_add_many(&self.s, <const int64_t *>&keys[0], zeros, valid, <const int64_t *>&ids[0], n,
                                     first)
                for i in range(n):
                    out[i] = first[i] < 0
        free(zeros)
        free(first)
        free(valid)
        if rc:
            raise MemoryError(f"--unique-positions: no memory for {self.s.used + 1} keys")
        return bytes(keep)

    @property
    def count(self):
        """The distinct keys held."""
        return self.s.used

    @property
    def nbytes(self):
        """The bytes its table holds."""
        return keyset_bytes(&self.s)


def kept_rows(const unsigned char[:] data, size_t width, const unsigned char[:] keep):
    """The rows of a numeric batch column (``width`` bytes each) where ``keep`` is not 0."""
    cdef size_t n = keep.shape[0], i, o = 0
    if <size_t>data.shape[0] != width * n:
        if data.shape[0] == 0:
            return b""  # a column that was not recorded
        raise ValueError("kept_rows: one keep byte a row")
    out = bytearray(width * n)
    cdef unsigned char[:] dst = out
    if n:
        with nogil:
            for i in range(n):
                if keep[i]:
                    memcpy(&dst[o], &data[i * width], width)
                    o += width
    return bytes(out[:o])


def kept_strings(const unsigned char[:] offsets, const unsigned char[:] data, const unsigned char[:] keep):
    """The strings of a batch string column (int32 offsets, data) where ``keep`` is not 0: a new
    (offsets, data) pair."""
    cdef size_t n = keep.shape[0], i, o = 0, k = 0
    if <size_t>offsets.shape[0] != 4 * (n + 1):
        raise ValueError("kept_strings: one keep byte a string")
    cdef const int32_t *off = <const int32_t *>&offsets[0]
    new_offsets = bytearray(4 * (n + 1))
    new_data = bytearray(off[n] if n else 0)
    cdef unsigned char[:] nd = new_data
    cdef int32_t *no = <int32_t *><char *>new_offsets
    cdef int32_t a, z
    with nogil:
        for i in range(n):
            if keep[i]:
                a, z = off[i], off[i + 1]
                if z > a:
                    memcpy(&nd[o], &data[a], z - a)
                o += z - a
                k += 1
                no[k] = <int32_t>o
    return bytes(new_offsets[:4 * (k + 1)]), bytes(new_data[:o])


def kept_starts(const unsigned char[:] starts, const unsigned char[:] keep):
    """A per-game start column (int32) of a child table after its rows where ``keep`` is 0 were
    dropped: each game's first kept row."""
    cdef size_t n_games = starts.shape[0] // 4, n = keep.shape[0], g, row = 0, kept = 0
    cdef const int32_t *s = <const int32_t *>&starts[0] if n_games else NULL
    out = bytearray(4 * n_games)
    cdef int32_t *o = <int32_t *><char *>out
    with nogil:
        for g in range(n_games):
            while row < <size_t>s[g] and row < n:
                kept += keep[row] != 0
                row += 1
            o[g] = <int32_t>kept
    return bytes(out)


def row_game_ids(const unsigned char[:] starts, size_t n_rows, int64_t first_game, const unsigned char[:] ids=None):
    """The game id (int64 bytes) of each row of a child table, from its per-game start column:
    game g's id is first_game + g, or ids[g] (int64 bytes) for a batch view."""
    cdef size_t n_games = starts.shape[0] // 4, g, row = 0, end
    if ids is not None and <size_t>ids.shape[0] != 8 * n_games:
        raise ValueError("row_game_ids: one id a game")
    cdef const int32_t *s = <const int32_t *>&starts[0] if n_games else NULL
    cdef const int64_t *given = <const int64_t *>&ids[0] if ids is not None and n_games else NULL
    out = bytearray(8 * n_rows)
    cdef int64_t *o = <int64_t *><char *>out
    with nogil:
        for g in range(n_games):
            end = <size_t>s[g + 1] if g + 1 < n_games else n_rows
            while row < end and row < n_rows:
                o[row] = given[g] if given != NULL else first_game + <int64_t>g
                row += 1
    return bytes(out)
