# Seams of pgntools._core (included by _core.pyx): likely game starts, for cutting a stream into
# the chunks of a parallel run without the scanner (pgntools.runner.chunks; _c/seams.h).

def find_seam(const unsigned char[::1] buf, Py_ssize_t pos):
    """The offset in ``buf`` of the first likely game start at or after ``pos`` (seams.h says
    which), -1 when there is none."""
    cdef Py_ssize_t n = buf.shape[0]
    if pos < 0 or pos >= n:
        return -1
    cdef int64_t seam
    with nogil:
        seam = seam_find(<const char *>&buf[0], <size_t>n, <size_t>pos)
    return seam
