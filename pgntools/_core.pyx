# cython: language_level=3
"""The one compiled module: a thin boundary over the C core in pgntools/_c.

Users import ``pgntools``, never this module. Board is for scripts, tests and debugging (one
Python call per move); the batch reader below it is what the commands use.
"""
from libc.stdlib cimport malloc, realloc, free
from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t

from pgntools.errors import InvalidFenError, move_error

STANDARD_START_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"

_EN_PASSANT_MODES = {"legal": 0, "fen": FEN_EP_ALWAYS}


cdef list _note_names(uint16_t notes):
    return [san_note_name(i).decode() for i in range(NOTE_COUNT) if notes & (1 << i)]


cdef class Board:
    """A position with its move history (for repetitions). ``Board()`` is the start position."""

    cdef Position pos
    cdef uint64_t *history
    cdef int history_len
    cdef int history_cap
    cdef public list last_notes

    def __cinit__(self):
        self.history_cap = 64
        self.history = <uint64_t *>malloc(self.history_cap * sizeof(uint64_t))
        if self.history == NULL:
            raise MemoryError()
        self.history_len = 0
        self.last_notes = []

    def __dealloc__(self):
        free(self.history)

    def __init__(self):
        pos_init_start(&self.pos)
        self._reset_history()

    cdef _reset_history(self):
        self.history_len = 0
        self._remember()

    cdef _remember(self):
        if self.history_len == self.history_cap:
            self.history_cap *= 2
            self.history = <uint64_t *>realloc(self.history, self.history_cap * sizeof(uint64_t))
            if self.history == NULL:
                raise MemoryError()
        self.history[self.history_len] = self.pos.hash
        self.history_len += 1

    @classmethod
    def from_fen(cls, str fen, *, bint chess960=False):
        """A board from FEN (6 fields, or 4 with clocks defaulting to 0 and 1); X-FEN and
        Shredder-FEN castling with ``chess960=True``. Raises InvalidFenError listing every problem."""
        cdef Board board = cls.__new__(cls)
        data = fen.encode()
        cdef int problems = fen_parse(&board.pos, data, len(data), chess960)
        if problems:
            raise InvalidFenError(fen, [fen_problem_name(i).decode() for i in range(FEN_PROBLEM_COUNT)
                                        if problems & (1 << i)])
        board._reset_history()
        return board

    def copy(self):
        cdef Board other = Board.__new__(Board)
        other.pos = self.pos
        for i in range(self.history_len):
            other._remember_hash(self.history[i])
        other.last_notes = list(self.last_notes)
        return other

    cdef _remember_hash(self, uint64_t h):
        cdef uint64_t saved = self.pos.hash
        self.pos.hash = h
        self._remember()
        self.pos.hash = saved

    def fen(self, *, en_passant="legal", bint shredder=False):
        """FEN of the position. ``en_passant="legal"`` writes the square only when a legal
        capture exists (python-chess, Lichess); ``"fen"`` after every double step."""
        cdef char buf[128]
        if en_passant not in _EN_PASSANT_MODES:
            raise ValueError(f"en_passant must be 'legal' or 'fen', not {en_passant!r}")
        cdef int options = _EN_PASSANT_MODES[en_passant] | (FEN_SHREDDER if shredder else 0)
        cdef size_t n = fen_format(&self.pos, buf, options)
        return buf[:n].decode()

    @property
    def turn(self):
        return "b" if self.pos.turn else "w"

    @property
    def halfmove_clock(self):
        return self.pos.halfmove

    @property
    def fullmove_number(self):
        return self.pos.fullmove

    @property
    def chess960(self):
        return bool(self.pos.chess960)

    def legal_moves(self):
        """Every legal move, as UCI strings."""
        cdef MoveList ml
        cdef char buf[8]
        pos_gen_legal(&self.pos, &ml, GEN_ALL, <bb_t>-1, <bb_t>-1)
        return [buf[:uci_format(&self.pos, ml.moves[i], buf)].decode() for i in range(ml.n)]

    cdef _push(self, move_t m):
        pos_make(&self.pos, m)
        self._remember()

    def push_san(self, str san):
        """Play a move given in SAN (or the long-algebraic/UCI forms real files contain);
        returns its UCI. ``last_notes`` lists the normalisations the text needed."""
        data = san.encode("utf-8", "replace")
        cdef SanMove sm
        cdef move_t m = 0
        cdef int rc = san_parse(data, len(data), &sm)
        if rc == SAN_OK:
            rc = san_resolve(&self.pos, &sm, &m)
        if rc != SAN_OK:
            kind = san_error_name(rc).decode()
            raise move_error(kind, san, f"{kind.replace('_', ' ')}: {san!r} in {self.fen()}")
        uci = self._uci(m)
        self._push(m)
        self.last_notes = _note_names(sm.notes | san_check_notes(sm.check, pos_check_status(&self.pos)))
        return uci

    def push_uci(self, str uci):
        """Play a move given in UCI (standard castling as e1g1; Chess960 as king takes rook)."""
        data = uci.encode("utf-8", "replace")
        cdef move_t m = 0
        cdef int rc = uci_to_move(&self.pos, data, len(data), &m)
        if rc != SAN_OK:
            kind = san_error_name(rc).decode()
            raise move_error(kind, uci, f"{kind.replace('_', ' ')}: {uci!r} in {self.fen()}")
        self._push(m)
        self.last_notes = []

    cdef str _uci(self, move_t m):
        cdef char buf[8]
        return buf[:uci_format(&self.pos, m, buf)].decode()

    def san(self, str uci):
        """Canonical SAN (minimal disambiguation, + or #) of a legal move given in UCI."""
        data = uci.encode("utf-8", "replace")
        cdef move_t m = 0
        cdef char buf[16]
        cdef int rc = uci_to_move(&self.pos, data, len(data), &m)
        if rc != SAN_OK:
            kind = san_error_name(rc).decode()
            raise move_error(kind, uci, f"{kind.replace('_', ' ')}: {uci!r} in {self.fen()}")
        return buf[:san_format(&self.pos, m, buf)].decode()

    def perft(self, int depth):
        """Leaf nodes of the legal move tree to `depth` (bulk-counted at the last ply)."""
        cdef uint64_t n
        with nogil:
            n = pos_perft(&self.pos, depth)
        return n

    def is_check(self):
        return pos_in_check(&self.pos)

    def is_checkmate(self):
        return pos_is_checkmate(&self.pos)

    def is_stalemate(self):
        return pos_is_stalemate(&self.pos)

    def is_insufficient_material(self):
        return pos_is_insufficient_material(&self.pos)

    def repetition_count(self):
        """How often the current position has occurred (same side to move, same rights)."""
        return pos_repetition_count(self.history, self.history_len, self.pos.halfmove)

    def is_fivefold_repetition(self):
        return self.repetition_count() >= 5

    def can_claim_threefold_repetition(self):
        return self.repetition_count() >= 3

    def is_seventyfive_moves(self):
        return self.pos.halfmove >= 150 and not pos_is_checkmate(&self.pos)

    def can_claim_fifty_moves(self):
        return self.pos.halfmove >= 100

    def outcome(self):
        """The automatic end the position has reached (FIDE 9.6 and checkmate/stalemate), or None."""
        if pos_is_checkmate(&self.pos):
            return "checkmate"
        if pos_is_stalemate(&self.pos):
            return "stalemate"
        if pos_is_insufficient_material(&self.pos):
            return "insufficient_material"
        if self.pos.halfmove >= 150:
            return "seventyfive_moves"
        if self.is_fivefold_repetition():
            return "fivefold_repetition"
        return None

    def __repr__(self):
        return f"Board({self.fen()!r})"

    def __eq__(self, other):
        return isinstance(other, Board) and self.fen(en_passant="fen") == other.fen(en_passant="fen")


# ---------------------------------------------------------------- the batch reader

from libc.string cimport memcpy, memmove, memset
from libc.stdint cimport int32_t, int64_t
from cpython.bytes cimport PyBytes_FromStringAndSize

ERROR_KINDS = [game_error_name(i).decode() for i in range(ERR_COUNT)]
NOTE_KINDS = [game_note_name(i).decode() for i in range(NOTE_KIND_COUNT)]
RESULTS = [result_string(i).decode() for i in range(5)]
FEN_PROBLEMS = [fen_problem_name(i).decode() for i in range(FEN_PROBLEM_COUNT)]
TAG_COLUMNS = [game_tag_column_name(i).decode() for i in range(TAG_COLUMN_COUNT)]
COLUMN_FORMATS = {batch_column_name(i).decode(): batch_column_format(i).decode() for i in range(BATCH_NCOLS)}
cdef dict _COLUMN_IDS = {name: i for i, name in enumerate(COLUMN_FORMATS)}
cdef dict _STRING_IDS = {batch_string_name(i).decode(): i for i in range(BATCH_NSTRS)}
cdef list _BATCH_KEYS = ["n_games", "first_game", *_COLUMN_IDS, *_STRING_IDS]
cdef Py_ssize_t MAX_SPARE_BATCHES = 2  # emptied buffers a reader keeps for its next batches


cdef class _BatchStore:
    """The C buffers of one batch."""
    cdef Batch b

    def __cinit__(self):
        if not batch_init(&self.b):
            raise MemoryError()

    def __dealloc__(self):
        batch_free(&self.b)


cdef object _batch_column(Batch *b, str name):
    """One column of a batch: bytes (tag_slots tag by tag), or (offsets, data) for strings."""
    cdef size_t nbytes, count
    cdef const char *data
    cdef const int32_t *offsets
    cdef int i
    if name in _COLUMN_IDS:
        i = _COLUMN_IDS[name]
        data = <const char *>batch_col_data(b, i, &nbytes)
        if i == G_TAG_SLOTS and nbytes:
            return _tag_by_tag(<const int32_t *>data, b.n_games)
        return PyBytes_FromStringAndSize(data, nbytes) if nbytes else b""
    i = _STRING_IDS[name]  # KeyError for a name that is no column
    offsets = batch_str_offsets(b, i, &count)
    data = batch_str_data(b, i, &nbytes)
    return (PyBytes_FromStringAndSize(<const char *>offsets, count * sizeof(int32_t)),
            PyBytes_FromStringAndSize(data, nbytes) if nbytes else b"")


cdef class BatchColumns:
    """One batch of games, a read-only mapping of its columns: numeric columns as bytes (see
    COLUMN_FORMATS), string columns as (offsets, data) bytes pairs in Arrow layout, tag_slots
    tag by tag (all games' first tag column, then the second...), plus ``n_games`` and
    ``first_game``.

    A column is copied out of the reader's buffers when first asked for, on the thread that asks:
    export's writer thread copies the move columns while the reader fills the next batch in other
    buffers (the copies were a seventh of the reading thread's time). Columns nobody asks for are
    never copied. The buffers go back to the reader when the batch is dropped."""

    cdef _BatchStore store
    cdef list spares  # the reader's emptied buffers
    cdef dict read    # the columns copied so far

    def __getitem__(self, str name):
        value = self.read.get(name)
        if value is None:
            value = _batch_column(&self.store.b, name)
            self.read[name] = value
        return value

    def get(self, name, default=None):
        return self[name] if name in self else default

    def __contains__(self, name):
        return name in self.read or name in _COLUMN_IDS or name in _STRING_IDS

    def keys(self):
        return list(_BATCH_KEYS)

    def __iter__(self):
        return iter(_BATCH_KEYS)

    def __len__(self):
        return len(_BATCH_KEYS)

    def values(self):
        return [self[k] for k in _BATCH_KEYS]

    def items(self):
        return [(k, self[k]) for k in _BATCH_KEYS]

    def __eq__(self, other):
        if isinstance(other, BatchColumns):
            other = dict(other.items())
        return dict(self.items()) == other

    def __dealloc__(self):
        if self.store is not None and self.spares is not None and len(self.spares) < MAX_SPARE_BATCHES:
            batch_clear(&self.store.b)
            self.spares.append(self.store)


cdef class BatchReader:
    """Reads a binary stream in one reusable buffer and yields batches of game records.

    Each batch is a dict: numeric columns as bytes (see COLUMN_FORMATS), string columns as
    (offsets, data) bytes pairs in Arrow layout, plus ``n_games`` and ``first_game``. With
    ``detach``, a BatchColumns mapping of the same columns, copied when first asked for (for a
    consumer on another thread; the reader then fills other buffers, kept for reuse). When the
    stream raises, the games that ended before are handed out first, then the error is raised.
    ``tag_values=False`` leaves every tag value empty (the tag rows stay), unless ``pgn``.
    """

    cdef GameReader *reader
    cdef char *buf
    cdef size_t cap
    cdef size_t max_buffer
    cdef object stream
    cdef bint done
    cdef object stream_error  # raised after the games read before it were handed out
    cdef bint detach
    cdef list spares          # emptied batch buffers, back from dropped batches (with detach)

    def __cinit__(self, stream, *, bint replay=True, bint moves=False, bint comments=False,
                  bint fen_every_ply=False, bint final_fen=False, bint pgn=False, bint raw_invalid=False,
                  bint strict=False,
                  bint fix_results=True, bint strip_comments=False, bint strip_variations=False,
                  bint reduced=False, bint tag_columns=False, bint tag_values=True, str en_passant="legal",
                  bint shredder=False,
                  int batch_games=1024, size_t max_batch_bytes=1 << 20, size_t buffer_size=1 << 20,
                  size_t max_game_size=64 << 20,
                  int64_t base_offset=0, int64_t base_line=1, int64_t first_game=0, bint detach=False):
        cdef GameOptions opt
        memset(&opt, 0, sizeof(opt))  # options not set below keep the C defaults
        if en_passant not in _EN_PASSANT_MODES:
            raise ValueError(f"en_passant must be 'legal' or 'fen', not {en_passant!r}")
        opt.replay = replay
        opt.moves = moves
        opt.comments = comments
        opt.fen_every_ply = fen_every_ply
        opt.final_fen = final_fen
        opt.pgn = pgn
        opt.raw_invalid = raw_invalid
        opt.strict = strict
        opt.fix_results = fix_results
        opt.strip_comments = strip_comments
        opt.strip_variations = strip_variations
        opt.reduced = reduced
        opt.tag_columns = tag_columns
        opt.skip_tag_values = not tag_values
        opt.fen_options = _EN_PASSANT_MODES[en_passant] | (FEN_SHREDDER if shredder else 0)
        opt.max_games = batch_games
        opt.max_batch_bytes = max_batch_bytes  # a batch ends at batch_games games or this many bytes
        opt.max_errors = 16
        self.reader = gr_new(&opt)
        self.cap = max(buffer_size, 4096)
        self.max_buffer = max(max_game_size, self.cap)
        self.buf = <char *>malloc(self.cap)
        if self.reader == NULL or self.buf == NULL:
            raise MemoryError()
        cdef Scanner *sc = gr_scanner(self.reader)
        sc.buf = self.buf
        sc.len = 0
        sc.pos = 0
        sc.eof = False
        sc.base = base_offset  # a chunk cut from a larger stream keeps the stream's offsets,
        sc.line = base_line    # lines and game numbers (a chunk starts at a line start)
        sc.line_start_abs = base_offset
        gr_set_games_read(self.reader, first_game)
        self.stream = stream
        self.done = False
        self.detach = detach
        self.spares = []

    def __dealloc__(self):
        gr_free(self.reader)
        free(self.buf)

    def __iter__(self):
        return self

    def __next__(self):
        cdef int rc
        cdef Batch *batch = gr_batch(self.reader)
        if self.done:
            if self.stream_error is not None:
                error, self.stream_error = self.stream_error, None
                raise error
            raise StopIteration
        while True:
            with nogil:
                rc = gr_fill(self.reader)
            if rc == GR_NEED_MORE:
                try:
                    self._refill()
                except Exception as exc:
                    # The stream broke (corrupt compressed data, a read error). The batch holds
                    # every game that ended before it (the one cut by it was rolled back): hand
                    # them out first, and raise at the next call.
                    if batch.n_games == 0:
                        raise
                    self.done = True
                    self.stream_error = exc
                    return self._take_batch()
                continue
            if rc == GR_NO_MEMORY:
                raise MemoryError("out of memory while reading games")
            if rc == GR_END:
                self.done = True
                if batch.n_games == 0:
                    raise StopIteration
            return self._take_batch()

    cdef _refill(self):
        cdef Scanner *sc = gr_scanner(self.reader)
        cdef size_t keep = sc.pos, remaining = sc.len - sc.pos
        if keep:
            memmove(self.buf, self.buf + keep, remaining)
            sc.base += keep
            sc.pos = 0
            sc.len = remaining
        if remaining == self.cap and self.cap >= self.max_buffer:
            gr_skip_oversized(self.reader, self.max_buffer)  # an error for that game, not the stream
            return
        if remaining == self.cap:  # one game fills the buffer: grow it
            newcap = min(self.cap * 2, self.max_buffer)
            newbuf = <char *>realloc(self.buf, newcap)
            if newbuf == NULL:
                raise MemoryError()
            self.buf = newbuf
            self.cap = newcap
            sc.buf = self.buf
        cdef char[::1] view = <char[:self.cap]> self.buf
        n = self.stream.readinto(view[remaining:])
        if not n:
            sc.eof = True
        else:
            sc.len = remaining + n

    cdef object _take_batch(self):
        """The batch read so far: its columns copied, or with detach, handed over (the reader
        goes on in emptied buffers)."""
        if not self.detach:
            return self._copy_batch()
        cdef _BatchStore store = self.spares.pop() if self.spares else _BatchStore()
        gr_swap_batch(self.reader, &store.b)
        cdef BatchColumns batch = BatchColumns.__new__(BatchColumns)
        batch.store, batch.spares = store, self.spares
        cdef size_t n_games = store.b.n_games
        batch.read = {"n_games": n_games, "first_game": gr_games_read(self.reader) - <int64_t>n_games}
        return batch

    cdef dict _copy_batch(self):
        cdef Batch *b = gr_batch(self.reader)
        out = {"n_games": b.n_games, "first_game": gr_games_read(self.reader) - <int64_t>b.n_games}
        for name in _BATCH_KEYS[2:]:
            out[name] = _batch_column(b, name)
        batch_clear(b)
        return out


cdef bytes _tag_by_tag(const int32_t *slots, size_t n_games):
    """tag_slots (TAG_COLUMN_COUNT per game) reordered tag by tag."""
    out = PyBytes_FromStringAndSize(NULL, n_games * TAG_COLUMN_COUNT * sizeof(int32_t))
    cdef int32_t *o = <int32_t *><char *>out
    cdef size_t g, t
    for g in range(n_games):
        for t in range(<size_t>TAG_COLUMN_COUNT):
            o[t * n_games + g] = slots[g * TAG_COLUMN_COUNT + t]
    return out


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


# ---------------------------------------------------------------- Parquet columns (export)

_PQ_KINDS = {"dict_fixed": PQ_DICT_FIXED, "dict_string": PQ_DICT_STRING, "plain_fixed": PQ_PLAIN_FIXED,
             "plain_string": PQ_PLAIN_STRING, "plain_bool": PQ_PLAIN_BOOL}
_PQ_SOURCES = {"u8": PQ_U8, "i16": PQ_I16, "u16": PQ_U16, "i32": PQ_I32, "i64": PQ_I64, "bits64": PQ_BITS64,
               "code": PQ_CODE}
_PQ_WIDTHS = {"u8": 1, "i16": 2, "u16": 2, "i32": 4, "i64": 8, "bits64": 8, "code": 1}


cdef inline const uint8_t *_bytes_ptr(const unsigned char[:] view):
    if view is None or view.shape[0] == 0:
        return NULL
    return <const uint8_t *>&view[0]


cdef size_t _count(const unsigned char[:] view, size_t width, const unsigned char[:] has) except? 0:
    cdef size_t n = view.shape[0] // width
    if has is not None and <size_t>has.shape[0] != n:
        raise ValueError("has: one byte per value")
    return n


cdef class ColumnEncoder:
    """One Parquet leaf column of the row group being built, fed with batch columns and read out
    as uncompressed page bodies (pgntools/_c/parquet_encode.h; the file is
    pgntools.sinks.parquet_file). Strings come as (int32 offsets, data) pairs, as batches hold them.

    kind: dict_fixed | dict_string | plain_fixed | plain_string | plain_bool. `names`: the fixed
    dictionary of a dict_string column fed with codes."""

    cdef PqColumn col
    cdef bint ready

    def __cinit__(self, str kind, *, int max_def=0, int max_rep=0, int value_width=4, names=()):
        if not pq_init(&self.col, _PQ_KINDS[kind], max_def, max_rep, value_width):
            raise MemoryError()
        self.ready = True
        encoded = [name.encode() for name in names]
        cdef const char **arr = <const char **>malloc((len(encoded) + 1) * sizeof(char *))
        if arr == NULL:
            raise MemoryError()
        for i, name in enumerate(encoded):
            arr[i] = name
        ok = pq_fix_dictionary(&self.col, arr, len(encoded))
        free(arr)
        if not ok:
            raise MemoryError()

    def __dealloc__(self):
        if self.ready:
            pq_free(&self.col)

    @property
    def rows(self):
        return self.col.rows

    @property
    def nbytes(self):
        """Bytes the row group so far holds."""
        return pq_buffered_bytes(&self.col)

    def add_fixed(self, const unsigned char[:] values, str source, const unsigned char[:] has=None, int bit=0):
        cdef PqSource src = _PQ_SOURCES[source]
        cdef size_t n = _count(values, _PQ_WIDTHS[source], has)
        cdef const uint8_t *v = _bytes_ptr(values)
        cdef const uint8_t *h = _bytes_ptr(has)
        with nogil:
            pq_add_fixed(&self.col, v, src, n, h, bit)

    def add_sequence(self, int64_t first, size_t n):
        with nogil:
            pq_add_sequence(&self.col, first, n)

    def add_game_ids(self, const unsigned char[:] starts, size_t n_rows, int64_t first_game):
        cdef const int32_t *s = <const int32_t *>_bytes_ptr(starts)
        cdef size_t n_games = starts.shape[0] // 4
        with nogil:
            pq_add_game_ids(&self.col, s, n_games, n_rows, first_game)

    def add_strings(self, const unsigned char[:] offsets, const unsigned char[:] data,
                    const unsigned char[:] has=None, int bit=0):
        cdef size_t n = _count(offsets, 4, None) - 1
        if has is not None and <size_t>has.shape[0] != n:
            raise ValueError("has: one byte per value")
        cdef const int32_t *o = <const int32_t *>_bytes_ptr(offsets)
        cdef const char *d = <const char *>_bytes_ptr(data)
        cdef const uint8_t *h = _bytes_ptr(has)
        with nogil:
            pq_add_strings(&self.col, o, d, n, h, bit)

    def add_repeated_string(self, bytes text, size_t n):
        pq_add_repeated_string(&self.col, text, len(text), n)

    def add_slotted(self, const unsigned char[:] slots, const unsigned char[:] offsets, const unsigned char[:] data,
                    bint as_int=False):
        """Row i: string slots[i] - 1 of (offsets, data), null for slot 0; as_int: its value
        when it is 1 to 9 digits, else null."""
        cdef const int32_t *s = <const int32_t *>_bytes_ptr(slots)
        cdef const int32_t *o = <const int32_t *>_bytes_ptr(offsets)
        cdef const char *d = <const char *>_bytes_ptr(data)
        cdef size_t n = slots.shape[0] // 4
        with nogil:
            pq_add_slotted(&self.col, s, n, o, d, as_int)

    def add_codes(self, const unsigned char[:] codes, int base=1):
        """Codes into the fixed dictionary: code < base is null, code k is entry k - base."""
        cdef const uint8_t *c = _bytes_ptr(codes)
        with nogil:
            pq_add_codes(&self.col, c, codes.shape[0], base)

    def add_flag_bits(self, const unsigned char[:] flags, int bit):
        cdef const uint8_t *f = _bytes_ptr(flags)
        with nogil:
            pq_add_flag_bits(&self.col, f, flags.shape[0], bit)

    def add_lists(self, const unsigned char[:] starts, int empty_def, *, const unsigned char[:] values=None,
                  str source="u8", strings=None, bint zero_is_null=False, const unsigned char[:] keep=None):
        """Rows of lists: row i has entries starts[i] .. starts[i + 1] - 1 (int32 starts, one per
        row plus the end) of `values` (fixed, of type `source`) or `strings` ((offsets, data)),
        leaving out those whose `keep` byte is 0. empty_def: the level of an empty list."""
        cdef PqEntries e
        memset(&e, 0, sizeof(e))
        cdef const unsigned char[:] offsets
        cdef const unsigned char[:] data
        cdef size_t n_entries = (<const int32_t *>_bytes_ptr(starts))[starts.shape[0] // 4 - 1] if starts.shape[0] else 0
        if strings is not None:
            offsets, data = strings
            if <size_t>offsets.shape[0] < 4 * (n_entries + 1):
                raise ValueError("strings: fewer than the entries")
            e.offsets = <const int32_t *>_bytes_ptr(offsets)
            e.data = <const char *>_bytes_ptr(data)
        elif values is None or <size_t>values.shape[0] < n_entries * _PQ_WIDTHS[source]:
            raise ValueError("values: fewer than the entries")
        e.source = _PQ_SOURCES[source]
        e.values = _bytes_ptr(values)
        e.zero_is_null = zero_is_null
        if keep is not None and <size_t>keep.shape[0] < n_entries:
            raise ValueError("keep: fewer than the entries")
        e.keep = _bytes_ptr(keep)
        cdef const int32_t *s = <const int32_t *>_bytes_ptr(starts)
        cdef size_t n_rows = starts.shape[0] // 4 - 1 if starts.shape[0] else 0
        with nogil:
            pq_add_lists(&self.col, s, n_rows, empty_def, &e)

    def finish_group(self):
        """(dictionary page or None, data page, rows, values, nulls, dictionary size, min, max) of
        the row group so far (min and max: ints, or the strings' bytes for a dict_string column
        without a fixed dictionary); the encoder starts the next row group."""
        cdef ByteVec out
        cdef size_t low, high
        cdef uint32_t n_low, n_high
        memset(&out, 0, sizeof(out))
        with nogil:
            ok = pq_data_page(&self.col, &out)
        try:
            if not ok:
                raise MemoryError()
            data = PyBytes_FromStringAndSize(out.data, out.len) if out.len else b""
        finally:
            free(out.data)
        cdef const ByteVec *d = pq_dictionary_page(&self.col)
        dictionary = None if d == NULL else (PyBytes_FromStringAndSize(d.data, d.len) if d.len else b"")
        c = self.col
        smallest, largest = c.min, c.max
        if pq_string_range(&self.col, &low, &high):
            memcpy(&n_low, d.data + low, 4)
            memcpy(&n_high, d.data + high, 4)
            smallest = PyBytes_FromStringAndSize(d.data + low + 4, n_low)
            largest = PyBytes_FromStringAndSize(d.data + high + 4, n_high)
        result = (dictionary, data, c.rows, c.values, c.nulls, c.dict_count, smallest, largest)
        pq_reset(&self.col)
        return result


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
