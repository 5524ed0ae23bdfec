# --dedup's memory: the 128-bit keys seen, each with the first game's id (_c/keyset.h).

def id_range(int64_t first, Py_ssize_t n):
    """The game ids first, first + 1, ... (n of them) as int64 bytes: a batch's ids, made in C."""
    out = bytearray(8 * n)
    cdef int64_t[:] ids = memoryview(out).cast("q")
    cdef Py_ssize_t k
    for k in range(n):
        ids[k] = first + k
    return bytes(out)


cdef class DedupKeys:
    """The keys of the games kept so far. ``add(a, b, valid, ids)`` (int64 lanes, uint8 flags,
    int64 game ids: bytes-like, one item a game) returns, per game in order, the id of the game
    that brought its key first, or -1 (new, and now remembered; or not valid): bytes of int64."""

    cdef KeySet s

    def __dealloc__(self):
        keyset_free(&self.s)

    def add(self, const unsigned char[:] a, const unsigned char[:] b, const unsigned char[:] valid,
            const unsigned char[:] ids):
        cdef size_t n = valid.shape[0]
        if <size_t>a.shape[0] != 8 * n or <size_t>b.shape[0] != 8 * n or <size_t>ids.shape[0] != 8 * n:
            raise ValueError("KeySet.add: 8 bytes a game in a, b and ids, one in valid")
        first = bytearray(8 * n)
        cdef unsigned char[:] out = first
        cdef int rc = 0
        if n:
            with nogil:
                rc = keyset_add_many(&self.s, <const int64_t *>&a[0], <const int64_t *>&b[0], &valid[0],
                                     <const int64_t *>&ids[0], n, <int64_t *>&out[0])
        if rc:
            raise MemoryError(f"--dedup: no memory for {self.s.used + 1} keys, or a game id above {KEYSET_MAX_ID}")
        return bytes(first)

    def decide(self, a, b, valid, ids):
        """As ``add``, then the positions of the games that repeat no earlier one (``range(n)``
        when none does: no list a game) and (position, the id of the game it repeats) of each other."""
        first = self.add(a, b, valid, ids)
        cdef const int64_t[:] f = memoryview(first).cast("q")
        cdef Py_ssize_t n = f.shape[0], k, dups = 0
        for k in range(n):
            dups += f[k] >= 0
        if not dups:
            return range(n), []
        kept, dropped = [], []
        for k in range(n):
            if f[k] < 0:
                kept.append(k)
            else:
                dropped.append((k, f[k]))
        return kept, dropped

    @property
    def count(self):
        """The keys held (distinct games)."""
        return self.s.used

    @property
    def nbytes(self):
        """The bytes its table holds."""
        return keyset_bytes(&self.s)

