# Benchmark and test helpers of pgntools._core (included by _core.pyx).

def replay_movetext(bytes data):
    """Benchmark helper: replays one game per line of space-separated SAN; returns the plies."""
    cdef const char *p = data
    cdef size_t n = len(data), i = 0, start
    cdef Position pos
    cdef move_t m = 0
    cdef uint16_t notes
    cdef long plies = 0
    cdef bint line_start = True
    with nogil:
        while i < n:
            if line_start:
                pos_init_start(&pos)
                line_start = False
            if p[i] == b'\n':
                line_start = True
                i += 1
                continue
            if p[i] == b' ':
                i += 1
                continue
            start = i
            while i < n and p[i] != b' ' and p[i] != b'\n':
                i += 1
            if san_to_move(&pos, p + start, i - start, &m, &notes) != SAN_OK:
                break
            pos_make(&pos, m)
            plies += 1
    if i < n:
        raise ValueError(f"cannot replay move at byte {start}")
    return plies


def rle_hybrid(values, int width):
    """The RLE/bit-packed hybrid encoding of `values` (for tests)."""
    cdef size_t n = len(values), i
    cdef uint32_t *v = <uint32_t *>malloc((n + 1) * sizeof(uint32_t))
    cdef ByteVec out
    memset(&out, 0, sizeof(out))
    if v == NULL:
        raise MemoryError()
    for i in range(n):
        v[i] = values[i]
    ok = pq_hybrid(v, n, width, &out)
    free(v)
    try:
        if not ok:
            raise MemoryError()
        return PyBytes_FromStringAndSize(out.data, out.len) if out.len else b""
    finally:
        free(out.data)


def polyglot_random():
    """The 781 Polyglot random numbers as the C core holds them (tests check each one)."""
    return [POLYGLOT_RANDOM[i] for i in range(POLYGLOT_RANDOM_COUNT)]
