# A batch view's columns (pgntools.selection.take_games): the rows of the kept games gathered in C,
# a loop per column, never a Python int per game or row. Ranges are int64 pairs [a, b) of rows.

def game_runs(const unsigned char[:] indices):
    """The runs of consecutive games of ``indices`` (int64, ascending) as ranges (int64 pairs)."""
    cdef size_t n = indices.shape[0] // 8, i, k = 0
    out = bytearray(16 * n)
    cdef unsigned char[:] o = out
    cdef const int64_t *g
    cdef int64_t *r
    if n:
        g = <const int64_t *>&indices[0]
        r = <int64_t *>&o[0]
        with nogil:
            for i in range(n):
                if k and r[2 * k - 1] == g[i]:
                    r[2 * k - 1] = g[i] + 1
                else:
                    r[2 * k] = g[i]
                    r[2 * k + 1] = g[i] + 1
                    k += 1
    return bytes(out[:16 * k])


def take_table(const unsigned char[:] starts, int64_t total, const unsigned char[:] runs):
    """A child table of the kept parent rows: ``starts`` (int32, a parent row's first child row;
    the last parent's rows end at ``total``), ``runs`` the kept parent rows (ranges). Returns the
    kept parents' new starts (int32), the child rows they keep (ranges, adjacent ones joined), and
    each run's row shift (int64: new row - old row)."""
    cdef size_t n_parents = starts.shape[0] // 4, n_runs = runs.shape[0] // 16, i, k = 0, kept = 0
    cdef const int32_t *s = <const int32_t *>&starts[0] if n_parents else NULL
    cdef const int64_t *r = <const int64_t *>&runs[0] if n_runs else NULL
    cdef int64_t a, b, first, last, at = 0, j
    for i in range(n_runs):
        if r[2 * i] < 0 or r[2 * i + 1] > <int64_t>n_parents or r[2 * i] > r[2 * i + 1]:
            raise ValueError("take_table: a run out of range")
        kept += r[2 * i + 1] - r[2 * i]
    new_starts = bytearray(4 * kept)
    ranges = bytearray(16 * n_runs)
    shifts = bytearray(8 * n_runs)
    cdef unsigned char[:] ns = new_starts, rg = ranges, sh = shifts
    cdef int32_t *out_starts = <int32_t *>&ns[0] if kept else NULL
    cdef int64_t *out_ranges = <int64_t *>&rg[0] if n_runs else NULL
    cdef int64_t *out_shifts = <int64_t *>&sh[0] if n_runs else NULL
    cdef size_t m = 0
    with nogil:
        for i in range(n_runs):
            a, b = r[2 * i], r[2 * i + 1]
            if a == b:
                out_shifts[i] = 0
                continue
            first = s[a]
            last = s[b] if b < <int64_t>n_parents else total
            out_shifts[i] = at - first
            for j in range(a, b):
                out_starts[m] = <int32_t>(s[j] + at - first)
                m += 1
            if k and out_ranges[2 * k - 1] == first:
                out_ranges[2 * k - 1] = last
            elif last > first:
                out_ranges[2 * k] = first
                out_ranges[2 * k + 1] = last
                k += 1
            at += last - first
    return bytes(new_starts), bytes(ranges[:16 * k]), bytes(shifts)


def take_rows(const unsigned char[:] data, size_t width, const unsigned char[:] ranges):
    """The rows of each range of a numeric column (``width`` bytes a row), concatenated."""
    cdef size_t n = ranges.shape[0] // 16, i, total = 0, at = 0, rows = data.shape[0] // width if width else 0
    cdef const int64_t *r = <const int64_t *>&ranges[0] if n else NULL
    for i in range(n):
        if r[2 * i] < 0 or r[2 * i + 1] > <int64_t>rows or r[2 * i] > r[2 * i + 1]:
            raise ValueError("take_rows: a range out of range")
        total += (r[2 * i + 1] - r[2 * i]) * width
    out = bytearray(total)
    cdef unsigned char[:] o = out
    if total:
        with nogil:
            for i in range(n):
                memcpy(&o[at], &data[r[2 * i] * width], (r[2 * i + 1] - r[2 * i]) * width)
                at += (r[2 * i + 1] - r[2 * i]) * width
    return bytes(out)


def take_strings(const unsigned char[:] offsets, const unsigned char[:] data, const unsigned char[:] ranges):
    """The strings of each range of a string column (Arrow layout: int32 offsets, one more than
    the rows, and the bytes), as a new column (offsets from 0, bytes)."""
    cdef size_t n = ranges.shape[0] // 16, i, rows = offsets.shape[0] // 4 - 1 if offsets.shape[0] >= 4 else 0
    cdef const int64_t *r = <const int64_t *>&ranges[0] if n else NULL
    cdef const int32_t *off = <const int32_t *>&offsets[0] if offsets.shape[0] >= 4 else NULL
    cdef size_t kept = 0, length = 0
    cdef int64_t j, at = 0, base
    for i in range(n):
        if r[2 * i] < 0 or r[2 * i + 1] > <int64_t>rows or r[2 * i] > r[2 * i + 1]:
            raise ValueError("take_strings: a range out of range")
        kept += r[2 * i + 1] - r[2 * i]
        length += off[r[2 * i + 1]] - off[r[2 * i]]
    new_offsets = bytearray(4 * (kept + 1))
    new_data = bytearray(length)
    cdef unsigned char[:] no = new_offsets, nd = new_data
    cdef int32_t *o = <int32_t *>&no[0]
    cdef size_t m = 1
    with nogil:
        o[0] = 0
        for i in range(n):
            base = off[r[2 * i]]
            for j in range(r[2 * i], r[2 * i + 1]):
                o[m] = <int32_t>(off[j + 1] - base + at)
                m += 1
            if off[r[2 * i + 1]] > base:
                memcpy(&nd[at], &data[base], off[r[2 * i + 1]] - base)
            at += off[r[2 * i + 1]] - base
    return bytes(new_offsets), bytes(new_data)


def take_slots(const unsigned char[:] slots, size_t n_games, const unsigned char[:] runs,
               const unsigned char[:] shifts):
    """tag_slots (int32, tag by tag: runs of ``n_games`` values, each 1 + a tag row or 0) of the
    kept games (``runs``), each row moved by its run's shift (take_table's, int64)."""
    cdef size_t n_runs = runs.shape[0] // 16, i, t, tags = slots.shape[0] // 4 // n_games if n_games else 0
    cdef const int64_t *r = <const int64_t *>&runs[0] if n_runs else NULL
    cdef const int64_t *sh = <const int64_t *>&shifts[0] if n_runs else NULL
    cdef const int32_t *s = <const int32_t *>&slots[0] if tags else NULL
    cdef size_t kept = 0, m = 0
    cdef int64_t g
    if <size_t>shifts.shape[0] != 8 * n_runs:
        raise ValueError("take_slots: one shift a run")
    for i in range(n_runs):
        if r[2 * i] < 0 or r[2 * i + 1] > <int64_t>n_games or r[2 * i] > r[2 * i + 1]:
            raise ValueError("take_slots: a run out of range")
        kept += r[2 * i + 1] - r[2 * i]
    out = bytearray(4 * kept * tags)
    cdef unsigned char[:] ob = out
    cdef int32_t *o = <int32_t *>&ob[0] if kept and tags else NULL
    if kept and tags:
        with nogil:
            for t in range(tags):
                for i in range(n_runs):
                    for g in range(r[2 * i], r[2 * i + 1]):
                        o[m] = <int32_t>(s[t * n_games + g] + sh[i]) if s[t * n_games + g] else 0
                        m += 1
    return bytes(out)
