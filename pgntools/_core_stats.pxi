# pgntools stats' aggregates (_c/stats.h): one C pass over a batch's columns, straight from the
# reader's buffers (a BatchColumns) or from a selection's bytes; read out as Python lists and
# dicts when the run ends (a worker's part), merged back in the parent.

# The value counts, in the order of stats.h's SV_ enum.
STATS_VALUES = ["eco", "opening", "eco_tag", "opening_tag", "first_moves", "termination", "time_controls",
                "events", "players", "months", "years_only"]
STATS_ARRAYS = [stats_array_name(i).decode() for i in range(SA_COUNT)]
STATS_CLOCK_EDGES = [stats_clock_edge(i) for i in range(STATS_CLOCK_BINS)]  # each clock bin's low edge (seconds)
STATS_MAX_MOVES = STATS_MAX_MOVE
assert len(STATS_VALUES) == SV_COUNT


cdef const char *_bytes_of(object value, list keep, size_t *n):
    """A bytes-like column's pointer and length (kept alive in ``keep``)."""
    if type(value) is not bytes:
        value = bytes(value)
    keep.append(value)
    n[0] = len(<bytes>value)
    return <const char *>(<bytes>value)


cdef const void *_numbers_of(object raw, str name, list keep, size_t item, size_t *count):
    cdef size_t n
    cdef const char *p = _bytes_of(raw[name], keep, &n)
    count[0] = n // item
    return p if n else NULL


cdef StatsStrings _strings_of(object raw, str name, list keep):
    cdef StatsStrings out
    cdef size_t n
    offsets, data = raw[name]
    out.offsets = <const int32_t *>_bytes_of(offsets, keep, &n)
    out.data = _bytes_of(data, keep, &n)
    return out


cdef StatsStrings _batch_strings(Batch *b, str name):
    cdef StatsStrings out
    cdef size_t n
    cdef int i = _STRING_IDS[name]
    out.offsets = batch_str_offsets(b, i, &n)
    out.data = batch_str_data(b, i, &n)
    return out


cdef const void *_batch_numbers(Batch *b, str name, size_t item, size_t *count):
    cdef size_t nbytes
    cdef const void *p = batch_col_data(b, _COLUMN_IDS[name], &nbytes)
    count[0] = nbytes // item
    return p if nbytes else NULL


STATS_CLOCK_FAMILIES = 8  # stats.h: the time controls whose clocks are kept apart (the last: 'other')


cdef class StatsAccumulator:
    """The aggregates of pgntools stats. ``add(raw)`` counts a batch (a BatchColumns or a
    selection's mapping of column bytes), ``part()`` gives them as plain lists and dicts,
    ``merge(part)`` adds another's."""

    cdef Stats s
    cdef bint ready

    def __cinit__(self, size_t capacity=4096):
        if not stats_init(&self.s, capacity):
            raise MemoryError()
        self.ready = True

    def __dealloc__(self):
        if self.ready:
            stats_free(&self.s)

    def add(self, raw):
        """Counts a batch; returns its (PGN bytes, valid, fixed, invalid, truncated)."""
        cdef StatsBatch b
        cdef size_t n
        cdef list keep = []
        cdef Batch *c
        memset(&b, 0, sizeof(b))
        b.n_games = raw["n_games"]
        if not b.n_games:
            return (0, 0, 0, 0, 0)
        if type(raw) is BatchColumns:  # the reader's own buffers: nothing copied
            c = &(<BatchColumns>raw).store.s.b
            b.status = <const uint8_t *>_batch_numbers(c, "status", 1, &n)
            b.result = <const uint8_t *>_batch_numbers(c, "result", 1, &n)
            b.outcome = <const uint8_t *>_batch_numbers(c, "outcome", 1, &n)
            b.automatic_end = <const uint8_t *>_batch_numbers(c, "automatic_end", 1, &n)
            b.fixes = <const uint8_t *>_batch_numbers(c, "fixes", 1, &n)
            b.speed = <const uint8_t *>_batch_numbers(c, "speed", 1, &n)
            b.variant = <const uint8_t *>_batch_numbers(c, "variant", 1, &n)
            b.opening_state = <const uint8_t *>_batch_numbers(c, "opening_state", 1, &n)
            b.ply_count = <const int32_t *>_batch_numbers(c, "ply_count", 4, &n)
            b.clock_start = <const int32_t *>_batch_numbers(c, "clock_start", 4, &n)
            b.first_move = <const uint16_t *>_batch_numbers(c, "first_move", 2, &n)
            b.length = <const int64_t *>_batch_numbers(c, "length", 8, &n)
            b.tag_slots = <const int32_t *>_batch_numbers(c, "tag_slots", 4, &n)
            b.tag_stride, b.game_stride = 1, TAG_COLUMN_COUNT  # TAG_COLUMN_COUNT a game
            b.tag_values = _batch_strings(c, "tag_value")
            b.start_fen = _batch_strings(c, "start_fen")
            b.opening_eco = _batch_strings(c, "opening_eco")
            b.opening_name = _batch_strings(c, "opening_name")
            b.clock_ply = <const int16_t *>_batch_numbers(c, "clock_ply", 2, &b.n_clocks)
            b.clock = <const double *>_batch_numbers(c, "clock_seconds", 8, &n)
            b.error_kind = <const uint8_t *>_batch_numbers(c, "error_kind", 1, &b.n_errors)
            b.note_kind = <const uint8_t *>_batch_numbers(c, "note_kind", 1, &b.n_notes)
            b.fix_kind = <const uint8_t *>_batch_numbers(c, "fix_kind", 1, &b.n_fixes)
        else:  # a mapping of bytes (tag_slots tag by tag)
            b.status = <const uint8_t *>_numbers_of(raw, "status", keep, 1, &n)
            b.result = <const uint8_t *>_numbers_of(raw, "result", keep, 1, &n)
            b.outcome = <const uint8_t *>_numbers_of(raw, "outcome", keep, 1, &n)
            b.automatic_end = <const uint8_t *>_numbers_of(raw, "automatic_end", keep, 1, &n)
            b.fixes = <const uint8_t *>_numbers_of(raw, "fixes", keep, 1, &n)
            b.speed = <const uint8_t *>_numbers_of(raw, "speed", keep, 1, &n)
            b.variant = <const uint8_t *>_numbers_of(raw, "variant", keep, 1, &n)
            b.opening_state = <const uint8_t *>_numbers_of(raw, "opening_state", keep, 1, &n)
            b.ply_count = <const int32_t *>_numbers_of(raw, "ply_count", keep, 4, &n)
            b.clock_start = <const int32_t *>_numbers_of(raw, "clock_start", keep, 4, &n)
            b.first_move = <const uint16_t *>_numbers_of(raw, "first_move", keep, 2, &n)
            b.length = <const int64_t *>_numbers_of(raw, "length", keep, 8, &n)
            b.tag_slots = <const int32_t *>_numbers_of(raw, "tag_slots", keep, 4, &n)
            b.tag_stride, b.game_stride = b.n_games, 1
            b.tag_values = _strings_of(raw, "tag_value", keep)
            b.start_fen = _strings_of(raw, "start_fen", keep)
            b.opening_eco = _strings_of(raw, "opening_eco", keep)
            b.opening_name = _strings_of(raw, "opening_name", keep)
            b.clock_ply = <const int16_t *>_numbers_of(raw, "clock_ply", keep, 2, &b.n_clocks)
            b.clock = <const double *>_numbers_of(raw, "clock_seconds", keep, 8, &n)
            b.error_kind = <const uint8_t *>_numbers_of(raw, "error_kind", keep, 1, &b.n_errors)
            b.note_kind = <const uint8_t *>_numbers_of(raw, "note_kind", keep, 1, &b.n_notes)
            b.fix_kind = <const uint8_t *>_numbers_of(raw, "fix_kind", keep, 1, &b.n_fixes)
        if b.opening_state == NULL or b.opening_eco.offsets == NULL:
            b.opening_state = NULL
        if not b.status or not b.result or not b.outcome or not b.automatic_end or not b.fixes \
                or not b.ply_count or not b.clock_start or not b.length or not b.start_fen.offsets:
            raise ValueError("stats: a batch without its per-game columns")
        if b.tag_slots == NULL or b.tag_values.offsets == NULL:
            b.tag_slots = NULL
        cdef bint ok
        cdef int64_t *totals = stats_array(&self.s, 0, &n)
        cdef int64_t *status = stats_array(&self.s, 1, &n)
        before = (totals[1], status[0], status[1], status[2], status[3])
        with nogil:
            ok = stats_add(&self.s, &b)
        if not ok:
            raise MemoryError("stats: no memory for the value counts")
        return (totals[1] - before[0], status[0] - before[1], status[1] - before[2], status[2] - before[3],
                status[3] - before[4])

    def part(self):
        """The aggregates: {array name: list of counts}, {value count name: (pairs, error, total)}
        (each value count pruned to its capacity first)."""
        cdef size_t n, k
        cdef int i
        cdef int64_t *a
        cdef StatsValues *v
        arrays = {}
        for i in range(SA_COUNT):
            a = stats_array(&self.s, i, &n)
            arrays[STATS_ARRAYS[i]] = [a[k] for k in range(n)]
        values = {}
        for i in range(SV_COUNT):
            v = stats_values(&self.s, i)
            if not stats_values_fold(v):
                raise MemoryError()
            pairs = []
            for k in range(v.n_slots):
                if v.slots[k].key != NULL:
                    pairs.append((PyUnicode_DecodeUTF8(v.slots[k].key, v.slots[k].len, "replace"), v.slots[k].count))
            values[STATS_VALUES[i]] = (pairs, v.error, v.total)
        # clock usage per time control: (name, games, the nonzero (cell, count) pairs) a family
        cdef int64_t *f
        families = []
        for i in range(self.s.n_families):
            f = stats_family_clocks(&self.s, i)
            families.append((self.s.family[i].decode("utf-8", "replace"), self.s.family_games[i],
                             [(k, f[k]) for k in range(STATS_FAMILY_CELLS) if f[k]]))
        arrays["clock_families"] = families
        return arrays, values

    def merge(self, part):
        """Adds another accumulator's part()."""
        cdef size_t n, k
        cdef int64_t *a
        cdef StatsValues *v
        cdef bytes key
        arrays, values = part
        for i, name in enumerate(STATS_ARRAYS):
            a = stats_array(&self.s, i, &n)
            counts = arrays[name]
            for k in range(n):
                a[k] += counts[k]
        cdef int slot
        cdef bytes family
        for name, games, cells in arrays.get("clock_families", ()):
            family = name.encode("utf-8")
            slot = stats_family_slot(&self.s, family, len(family))
            if slot < 0:
                raise MemoryError()
            self.s.family_games[slot] += games
            a = stats_family_clocks(&self.s, slot)
            for k, count in cells:
                a[k] += count
        for i, name in enumerate(STATS_VALUES):
            v = stats_values(&self.s, i)
            pairs, error, total = values[name]
            for value, count in pairs:
                key = value.encode("utf-8")
                if not stats_values_add(v, key, len(key), count):
                    raise MemoryError()
                total -= count
            v.total += total  # the values the part dropped (pruned) still count
            v.error += error
            if not stats_values_fold(v):
                raise MemoryError()
