# The games as they were in the input (the raw column) written out one after the other, each
# followed by the blank line that ends it: filter's output, --rejects, --unselected. One pass in C
# over the reader's buffer into one bytes object (a Python slice, search and join a game cost
# ~20 % of a tag-only filter that keeps most games).

cdef extern from "string.h":
    const void *memchr(const void *s, int c, size_t n) nogil


cdef inline bint _has_crlf(const unsigned char *s, size_t n) nogil:
    cdef const unsigned char *end = s + n
    cdef const unsigned char *p
    while s < end:
        p = <const unsigned char *>memchr(s, b'\r', end - s)
        if p == NULL:
            return False
        if p + 1 < end and p[1] == b'\n':
            return True
        s = p + 1
    return False


def raw_games_text(const unsigned char[:] offsets, const unsigned char[:] data, const unsigned char[:] status,
                   keep=None, bint own_line_ends=True):
    """The raw column's games (``offsets``: int32, one more than the games; ``data``), those
    with a non-empty string and, with ``keep`` (bytes of status codes), one of those statuses,
    each followed by a blank line: CR LF CR LF for a game that holds a CR LF (with
    ``own_line_ends``), else LF LF. One bytes object."""
    cdef size_t n = offsets.shape[0] // 4 - 1 if offsets.shape[0] >= 8 else 0, i, total = 0, at = 0
    cdef const int32_t *off = <const int32_t *>&offsets[0] if n else NULL
    cdef bint wanted[256]
    cdef int k
    for k in range(256):
        wanted[k] = keep is None
    if keep is not None:
        for k in keep:
            wanted[k] = True
    if n and (status.shape[0] < n or <size_t>off[n] > <size_t>data.shape[0]):
        raise ValueError("raw_games_text: the columns do not match")
    ends = bytearray(n)  # per game: 0 not written, 2 LF LF, 4 CR LF CR LF
    cdef unsigned char[:] e = ends
    cdef const unsigned char *d = &data[0] if data.shape[0] else NULL
    with nogil:
        for i in range(n):
            if off[i + 1] > off[i] and wanted[status[i]]:
                e[i] = 4 if own_line_ends and _has_crlf(d + off[i], off[i + 1] - off[i]) else 2
                total += off[i + 1] - off[i] + e[i]
    out = PyBytes_FromStringAndSize(NULL, total)
    cdef char *o = out
    with nogil:
        for i in range(n):
            if e[i]:
                memcpy(o + at, d + off[i], off[i + 1] - off[i])
                at += off[i + 1] - off[i]
                if e[i] == 4:
                    memcpy(o + at, b"\r\n\r\n", 4)
                else:
                    memcpy(o + at, b"\n\n", 2)
                at += e[i]
    return out
