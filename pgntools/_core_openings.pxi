# The opening table of pgntools._core (included by _core.pyx): built in C from the table's TSV
# lines, once per process (pgntools.openings.table()); readers that classify hold a reference.

OPENING_STATES = {"named": OPENING_NAMED, "unnamed": OPENING_UNNAMED, "custom_start": OPENING_CUSTOM_START}
MAX_OPENING_PLY = OPENING_MAX_PLY
cdef dict _OPENING_TAG_MODES = {"none": OPENING_TAGS_NONE, "missing": OPENING_TAGS_MISSING,
                                "overwrite": OPENING_TAGS_OVERWRITE}


cdef class OpeningTable:
    """The positions the table names, from TSV text (eco, name, pgn per line; header lines
    skipped): each line's moves replayed by the C core, its final position entered. A ValueError
    names a bad line."""

    cdef COpeningTable *table

    def __cinit__(self, bytes text):
        cdef char err[200]
        err[0] = 0
        self.table = openings_build(text, len(text), err, sizeof(err))
        if self.table == NULL:
            raise ValueError(f"opening table: {err.decode()}")

    def __dealloc__(self):
        openings_free(self.table)

    def __len__(self):
        return openings_count(self.table)

    def row(self, int i):
        """(eco, name) of row i."""
        cdef const char *eco
        cdef const char *name
        cdef size_t eco_len, name_len
        if not 0 <= i < <int>openings_count(self.table):
            raise IndexError(i)
        openings_row(self.table, i, &eco, &eco_len, &name, &name_len)
        return eco[:eco_len].decode(), name[:name_len].decode()

    def find(self, Board board):
        """The row naming the board's position (EPD without counters), or None."""
        cdef int row = openings_find(self.table, &board.pos, openings_key(&board.pos))
        return None if row < 0 else row
