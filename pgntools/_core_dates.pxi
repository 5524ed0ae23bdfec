# The typed date columns of pgntools._core (included by _core.pyx): a batch's date tags read as
# numbers (pgntools/_c/pgn_date.h), in Arrow's layout (pgntools.tables.dates makes the arrays).

DATE_PARTS = ("date", "year", "month", "utc_datetime")
_DATE_WIDTHS = (4, 2, 1, 8)


cdef inline bint _tag_text(const int32_t *slots, const int32_t *offsets, const char *data, size_t n_values,
                           size_t g, const char **s, size_t *n) noexcept nogil:
    """The text of the tag whose slots these are, for game g (false: the game has no such tag)."""
    cdef int32_t slot = slots[g]
    if slot <= 0 or <size_t>slot > n_values:
        return False
    s[0] = data + offsets[slot - 1]
    n[0] = <size_t>(offsets[slot] - offsets[slot - 1])
    return True


def tag_date_column(str part, const unsigned char[:] slots, const unsigned char[:] offsets,
                    const unsigned char[:] data, size_t n_games, int first, int second, int64_t scale=1):
    """One typed date column of ``n_games`` games as (values, validity bitmap, null count), in
    Arrow's layout: part "date" (int32 days since 1970-01-01 of the tag ``first``: null unless a
    calendar day), "year" (int16) and "month" (uint8) (of tag ``first``, else of tag ``second``
    when the first has no known year), "utc_datetime" (int64 seconds since 1970-01-01 of the date
    tag ``first`` and the time tag ``second``, times ``scale``: null unless both are known; 1000
    gives Parquet's milliseconds). ``slots``: the batch's
    tag_slots (tag column by tag column, n_games each); ``offsets``, ``data``: its tag values."""
    cdef int kind = DATE_PARTS.index(part)
    if <size_t>slots.shape[0] < 4 * n_games * (max(first, second) + 1):
        raise ValueError("tag_date_column: fewer tag slots than games (the reader did not fill them)")
    cdef size_t width = _DATE_WIDTHS[kind]
    values = bytearray(width * n_games)
    valid = bytearray((n_games + 7) // 8)
    cdef unsigned char[::1] out = values
    cdef unsigned char[::1] bits = valid
    cdef const int32_t *s1 = <const int32_t *>&slots[0] + <size_t>first * n_games if n_games else NULL
    cdef const int32_t *s2 = <const int32_t *>&slots[0] + <size_t>second * n_games if n_games else NULL
    cdef const int32_t *o = <const int32_t *>&offsets[0] if offsets.shape[0] else NULL
    cdef const char *d = <const char *>&data[0] if data.shape[0] else NULL
    cdef size_t n_values = offsets.shape[0] // 4 - 1 if offsets.shape[0] else 0
    cdef size_t g, n, nulls = 0
    cdef const char *s
    cdef const char *t1  # the game's first and second tag's text (NULL: it lacks the tag)
    cdef const char *t2
    cdef size_t n1, n2
    cdef PgnDate date
    cdef int32_t seconds
    cdef bint known
    cdef int64_t instant
    with nogil:
        for g in range(n_games):
            known = False
            n1 = n2 = 0
            t1 = s if _tag_text(s1, o, d, n_values, g, &s, &n1) else NULL
            if t1 == NULL or not pgn_date_read(t1, n1, &date):
                date.year = date.month = date.day = 0
            if kind == 0:
                known = pgn_date_is_day(date)
                if known:
                    (<int32_t *>&out[0])[g] = pgn_days_from_civil(date)
            elif kind == 1 or kind == 2:
                t2 = s if _tag_text(s2, o, d, n_values, g, &s, &n2) else NULL
                date = pgn_year_date(t1, n1, t2, n2)
                known = date.year != 0 if kind == 1 else date.year != 0 and date.month != 0
                if known and kind == 1:
                    (<int16_t *>&out[0])[g] = <int16_t>date.year
                elif known:
                    out[g] = <uint8_t>date.month
            else:
                known = pgn_date_is_day(date) and _tag_text(s2, o, d, n_values, g, &s, &n) \
                    and pgn_time_read(s, n, &seconds)
                if known:
                    instant = (<int64_t>pgn_days_from_civil(date) * 86400 + seconds) * scale
                    (<int64_t *>&out[0])[g] = instant
            if known:
                bits[g >> 3] |= <uint8_t>(1 << (g & 7))
            else:
                nulls += 1
    return bytes(values), bytes(valid), nulls
