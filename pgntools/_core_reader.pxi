# The batch reader of pgntools._core (included by _core.pyx): the C game reader's batches as
# Python buffers, one batch at a time, and the names of the C core's enums.

from pgntools.options import ReaderOptions  # the reader's options and defaults (mapped onto GameOptions)

ERROR_KINDS = [game_error_name(i).decode() for i in range(ERR_COUNT)]
NOTE_KINDS = [game_note_name(i).decode() for i in range(NOTE_KIND_COUNT)]
FIX_KINDS = [game_fix_name(i).decode() for i in range(FIX_KIND_COUNT)]
cdef dict _AUTOMATIC_END_MODES = {"note": AUTO_END_NOTE, "enforce": AUTO_END_ENFORCE, "truncate": AUTO_END_TRUNCATE}
RESULTS = [result_string(i).decode() for i in range(5)]
FEN_PROBLEMS = [fen_problem_name(i).decode() for i in range(FEN_PROBLEM_COUNT)]
TAG_COLUMNS = [game_tag_column_name(i).decode() for i in range(TAG_COLUMN_COUNT)]
INTEGER_TAGS = [TAG_COLUMNS[i] for i in range(TAG_COLUMN_COUNT) if game_tag_column_is_integer(i)]
TEXT_IN_MAP_TAGS = [TAG_COLUMNS[i] for i in range(TAG_COLUMN_COUNT) if game_tag_text_in_map(i)]
COLUMN_FORMATS = {batch_column_name(i).decode(): batch_column_format(i).decode() for i in range(BATCH_NCOLS)}
cdef dict _COLUMN_IDS = {name: i for i, name in enumerate(COLUMN_FORMATS)}


cdef dict _batch_names(int which):
    """{name: value} of one of batch.h's name sets."""
    cdef size_t count, i
    cdef const BatchName *names = batch_names(which, &count)
    out = {}
    for i in range(count):
        out[names[i].name.decode()] = names[i].value
    return out


STATUS_CODES = _batch_names(NAMES_STATUS)      # the status column: {"valid": 0, "fixed": 1, "invalid": 2}
OUTCOME_CODES = _batch_names(NAMES_OUTCOME)    # the outcome column (0: none)
PIECE_CODES = _batch_names(NAMES_PIECE)        # piece, captured, promotion (0: none)
MOVE_FLAGS = _batch_names(NAMES_MOVE_FLAG)     # bits of the flags column
HAS_BITS = _batch_names(NAMES_HAS)             # bits of the has column: which move values are set
FIX_BITS = _batch_names(NAMES_FIX)             # bits of the fixes column
VARIANT_CODES = _batch_names(NAMES_VARIANT)    # the variant column's codes: {"standard": 0, ...}
VARIANT_NAMES = {code: name for name, code in VARIANT_CODES.items()}
SPEEDS = [speed_name(i).decode() for i in range(SPEED_COUNT)]  # the speed column's codes ("": null)
# The tag filter's codes (tag_filter.h): its operations, how a leaf reads a value, truth sets.
TAG_FILTER_CODES = {
    "LT": TF_LT, "LE": TF_LE, "EQ": TF_EQ, "NE": TF_NE, "GT": TF_GT, "GE": TF_GE, "IN": TF_IN, "LIKE": TF_LIKE,
    "ILIKE": TF_ILIKE, "IS_NULL": TF_IS_NULL, "NOT_NULL": TF_NOT_NULL, "SPEED": TF_SPEED, "CONST": TF_CONST,
    "UNKNOWN": TF_UNKNOWN, "NOT": TF_NOT, "AND": TF_AND, "OR": TF_OR, "STRING": TV_STRING,
    "DATE_STRING": TV_DATE_STRING, "NUMBER": TV_NUMBER, "DATE": TV_DATE,
    "YEAR": TV_YEAR, "MONTH": TV_MONTH, "FALSE": TRUTH_FALSE, "NULL": TRUTH_NULL,
    "TRUE": TRUTH_TRUE, "ANY": TRUTH_ANY}
DERIVED_BITS = {"has_clock": DERIVED_HAS_CLOCK, "has_eval": DERIVED_HAS_EVAL,  # bits of the derived column
                "reached_position": DERIVED_REACHED_POSITION, "reached_material": DERIVED_REACHED_MATERIAL}


# bits of the position_has column (the positions dataset: pgntools.positions_dataset)
POSITION_HAS_BITS = {"result": PH_RESULT, "white_elo": PH_WHITE_ELO, "black_elo": PH_BLACK_ELO, "clock": PH_CLOCK,
                     "eval_cp": PH_EVAL_CP, "eval_mate": PH_EVAL_MATE, "ep_file": PH_EP_FILE, "eco": PH_ECO}


def sample_mix(game_id: int, seed: int) -> int:
    """The number the positions dataset's sample of game `game_id` starts from (positions_dataset.c)."""
    return positions_dataset_mix(game_id & 0xFFFFFFFFFFFFFFFF, seed & 0xFFFFFFFFFFFFFFFF)


def speed_of(time_control: str) -> str:
    """The speed the reader gives a TimeControl value ("" when it reads none)."""
    text = time_control.encode()
    return SPEEDS[speed_of_time_control(text, len(text))]
cdef dict _STRING_IDS = {batch_string_name(i).decode(): i for i in range(BATCH_NSTRS)}
# (the batch's counts first: BATCH_COUNTS of them, then its columns)
cdef list _BATCH_KEYS = ["n_games", "first_game", "skipped_bytes", "filtered", "last_offset", "pgn_games",
                         *_COLUMN_IDS, *_STRING_IDS]
# numbers of the batch, not columns: skipped bytes, games filtered, last offset, games that show PGN (gr_pgn_games)
BATCH_COUNTS = tuple(_BATCH_KEYS[2:6])
# the PGN writer's shape options (ReaderOptions.pgn_shape) as pgn_writer.h's bits
cdef dict _PGN_SHAPES = {"strip_nags": PGN_STRIP_NAGS, "no_check_marks": PGN_NO_CHECK_MARKS,
                         "no_move_numbers": PGN_NO_MOVE_NUMBERS, "no_results": PGN_NO_RESULTS, "no_tags": PGN_NO_TAGS,
                         "add_plycount": PGN_ADD_PLYCOUNT, "add_hashcode": PGN_ADD_HASHCODE,
                         "fen_comments": PGN_FEN_COMMENTS, "key_comments": PGN_KEY_COMMENTS, "uci": PGN_UCI,
                         "lan": PGN_LAN}
PGN_SHAPES = tuple(_PGN_SHAPES)


cdef unsigned _pgn_shape_bits(tuple names) except? 0:
    cdef unsigned bits = 0
    for name in names:
        if name not in _PGN_SHAPES:
            raise ValueError(f"unknown PGN shape {name!r} (one of {', '.join(_PGN_SHAPES)})")
        bits |= _PGN_SHAPES[name]
    return bits


cdef Py_ssize_t MAX_SPARE_BATCHES = 2  # emptied buffers a reader keeps for its next batches


cdef class _BatchStore:
    """The C buffers of one batch, shared with the Arrow arrays made of them (batch_arrow.h).
    Once a column is exported without a copy (BatchColumns.view, BatchColumns.arrow), the store
    is ``exported``: never reused for another batch, its buffers freed with the last array or view."""
    cdef SharedBatch *s
    cdef bint exported

    def __cinit__(self):
        self.s = shared_batch_new()
        if self.s == NULL:
            raise MemoryError()

    def __dealloc__(self):
        shared_batch_release(self.s)


cdef class StoreView:
    """A read-only buffer over some bytes of a batch's store (no copy), keeping the store alive:
    what the C helpers that read a column in place take (tag_date_column). Arrow arrays come
    through the C Data Interface instead (BatchColumns.arrow)."""
    cdef _BatchStore store
    cdef const char *data
    cdef Py_ssize_t nbytes

    def __getbuffer__(self, Py_buffer *buffer, int flags):
        PyBuffer_FillInfo(buffer, self, <void *>self.data, self.nbytes, 1, flags)

    def __releasebuffer__(self, Py_buffer *buffer):
        pass

    def __len__(self):
        return self.nbytes


cdef object _store_view(_BatchStore store, const void *data, size_t nbytes):
    if not nbytes:
        return b""
    cdef StoreView view = StoreView.__new__(StoreView)
    view.store, view.data, view.nbytes = store, <const char *>data, <Py_ssize_t>nbytes
    store.exported = True
    return view


def live_batches():
    """The batches whose C buffers are not yet freed (held by a reader, a batch or an Arrow
    array exported from one): what tests count to see that dropped arrays free their batch."""
    return shared_batch_live()


cdef object _import_array(uintptr_t array, uintptr_t schema):
    """A pyarrow array from C Data Interface structs (moved: pyarrow owns them now; released
    by pyarrow even when the import fails). pyarrow is imported here, not with the module."""
    import pyarrow
    return pyarrow.Array._import_from_c(array, schema)


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
            value = _batch_column(&self.store.s.b, name)
            self.read[name] = value
        return value

    def get(self, name, default=None):
        return self[name] if name in self else default

    def view(self, str name):
        """Column ``name`` as __getitem__ gives it, but without a copy: buffers over the batch's
        own memory (a StoreView; strings an (offsets, data) pair of them), which then lives as
        long as any view of it. tag_slots (reordered) and a column already copied: as copied."""
        cdef size_t nbytes, count
        cdef const void *data
        cdef const int32_t *offsets
        cdef int i
        if name in self.read or name == "tag_slots":
            return self[name]
        if name in _COLUMN_IDS:
            data = batch_col_data(&self.store.s.b, _COLUMN_IDS[name], &nbytes)
            return _store_view(self.store, data, nbytes)
        i = _STRING_IDS[name]  # KeyError for a name that is no column
        offsets = batch_str_offsets(&self.store.s.b, i, &count)
        data = batch_str_data(&self.store.s.b, i, &nbytes)
        return (_store_view(self.store, offsets, count * sizeof(int32_t)), _store_view(self.store, data, nbytes))

    def arrow(self, str name):
        """Column ``name`` as a pyarrow array over the batch's own memory (the Arrow C Data
        Interface: the array holds the batch until pyarrow releases it). Numeric columns as their
        C type (COLUMN_FORMATS), string columns as utf8."""
        cdef ArrowSchema schema
        cdef ArrowArray array
        cdef bint ok
        if name in _COLUMN_IDS:
            ok = batch_export_column(self.store.s, _COLUMN_IDS[name], &schema, &array)
        else:
            ok = batch_export_strings(self.store.s, _STRING_IDS[name], &schema, &array)  # KeyError: no column
        if not ok:
            raise MemoryError()
        self.store.exported = True
        return _import_array(<uintptr_t>&array, <uintptr_t>&schema)

    def write_text(self, str name, file):
        """Writes the text of string column ``name`` (all its strings, e.g. every game's PGN) to
        ``file`` straight from the reader's buffer, not copied into bytes first: ``file.write``
        gets a memoryview (what it keeps it copies) that is released before this returns."""
        cdef size_t nbytes
        cdef const char *data
        if name in self.read:
            data_bytes = self.read[name][1]
            if data_bytes:
                file.write(data_bytes)
            return
        data = batch_str_data(&self.store.s.b, _STRING_IDS[name], &nbytes)
        if not nbytes:
            return
        view = PyMemoryView_FromMemory(<char *>data, <Py_ssize_t>nbytes, PyBUF_READ)
        try:
            file.write(view)
        finally:
            view.release()

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
        if (self.store is not None and not self.store.exported and self.spares is not None
                and len(self.spares) < MAX_SPARE_BATCHES):
            batch_clear(&self.store.s.b)
            self.spares.append(self.store)


cdef class BatchReader:
    """Reads a binary stream in one reusable buffer and yields batches of game records.

    Each batch is a dict: numeric columns as bytes (see COLUMN_FORMATS), string columns as
    (offsets, data) bytes pairs in Arrow layout, plus ``n_games`` and ``first_game``. With
    ``detach``, a BatchColumns mapping of the same columns, copied when first asked for (for a
    consumer on another thread; the reader then fills other buffers, kept for reuse). When the
    stream raises, the games that ended before are handed out first, then the error is raised.
    ``tag_values=False`` leaves every tag value empty (the tag rows stay), unless ``pgn``.

    Its options: ``options`` (a pgntools.options.ReaderOptions, where each is declared with its
    default) with ``fields`` replaced, mapped here onto the C GameOptions (_c/game.h).
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
    cdef int64_t skipped_seen # skipped bytes handed out with the batches so far
    cdef int64_t pgn_seen     # games that show PGN handed out with the batches so far
    cdef TagFilter tag_filter # options.tag_filter in C (pgntools.where.prefilter makes it)
    cdef TagClause *clauses
    cdef list filter_texts    # the clauses' bytes, kept alive while the reader reads
    cdef int32_t *filter_ends # TF_IN's string items: where each ends (all clauses' one after another)
    cdef double *filter_numbers  # TF_IN's numbers (the same)
    cdef object openings      # the OpeningTable the reader classifies with (None: not classifying)
    cdef PositionTargets targets      # options.positions (--where-position) in C
    cdef MaterialSignatures materials # options.materials (--material) in C
    cdef PositionRowOptions position_rows  # options.position_rows (the positions dataset) in C
    cdef bytes fen_plies      # options.fen_plies as C ints (opt.fen_plies points into it)

    def __cinit__(self, stream, options=None, **fields):
        # the options and their defaults: pgntools.options.ReaderOptions (stated there, once)
        if options is None:
            options = ReaderOptions(**fields)  # a TypeError names an unknown option
        elif fields:
            options = options._replace(**fields)
        cdef GameOptions opt
        memset(&opt, 0, sizeof(opt))  # options not set below keep the C defaults
        if options.en_passant not in _EN_PASSANT_MODES:
            raise ValueError(f"en_passant must be 'legal' or 'fen', not {options.en_passant!r}")
        automatic_ends = options.automatic_ends
        if automatic_ends is None:  # --strict keeps play after an automatic draw an error
            automatic_ends = "enforce" if options.strict else "note"
        if automatic_ends not in _AUTOMATIC_END_MODES:
            raise ValueError(f"automatic_ends must be 'note', 'enforce' or 'truncate', not {automatic_ends!r}")
        if options.repair not in ("none", "truncate"):
            raise ValueError(f"repair must be 'none' or 'truncate', not {options.repair!r}")
        opt.automatic_ends = _AUTOMATIC_END_MODES[automatic_ends]
        opt.allow_null_moves = options.allow_null_moves
        opt.repair_truncate = options.repair == "truncate"
        opt.replay = options.replay
        opt.moves = options.moves
        opt.clock_rows = options.clock_rows
        opt.comments = options.comments
        opt.fen_every_ply = options.fen_every_ply
        if options.fen_plies:
            from array import array

            self.fen_plies = array("i", sorted(set(options.fen_plies))).tobytes()
            opt.fen_plies = <const int32_t *><const char *>self.fen_plies
            opt.n_fen_plies = len(self.fen_plies) // 4
        first, last = options.fen_ply_window  # (last: -1 for no limit; C: 0 is no limit, -1 none: game.h)
        opt.fen_first_ply, opt.fen_last_ply = first, 0 if last < 0 else -1 if last == 0 else last
        opt.keys_every_ply = options.keys_every_ply
        opt.final_fen = options.final_fen
        opt.movetext_hash = options.movetext_hash
        opt.position_hash = options.position_hash
        opt.counters = options.counters
        opt.pgn = options.pgn
        opt.raw_invalid = options.raw_invalid
        opt.raw_all = options.raw_all
        opt.strict = options.strict
        opt.fix_results = options.fix_results
        opt.strip_comments = options.strip_comments
        opt.strip_variations = options.strip_variations
        opt.reduced = options.reduced
        opt.pgn_shape = _pgn_shape_bits(options.pgn_shape)
        opt.line_length = -1 if options.line_length == 0 else options.line_length  # (C: 0 is its default, 79)
        drop, most = options.pgn_plies  # (most: -1 for no limit; C: 0 is no limit, -1 none: game.h)
        opt.drop_plies, opt.max_plies = drop, 0 if most < 0 else -1 if most == 0 else most
        opt.tag_columns = options.tag_columns
        opt.skip_tag_values = not options.tag_values
        if options.opening_tags not in _OPENING_TAG_MODES:
            raise ValueError(f"opening_tags must be 'none', 'missing' or 'overwrite', not {options.opening_tags!r}")
        opt.opening_tags = _OPENING_TAG_MODES[options.opening_tags]
        if options.openings or opt.opening_tags != OPENING_TAGS_NONE:
            from pgntools.openings import table

            self.openings = table()  # built once per process
            opt.openings = (<OpeningTable>self.openings).table
            if opt.opening_tags != OPENING_TAGS_NONE:  # the game's own tags are compared, or kept
                opt.skip_tag_values = False
        opt.fen_options = _EN_PASSANT_MODES[options.en_passant] | (FEN_SHREDDER if options.shredder else 0)
        opt.max_games = options.batch_games
        opt.max_batch_bytes = options.max_batch_bytes  # a batch ends at batch_games games or this many bytes
        opt.max_errors = 16
        cdef Py_ssize_t i
        if options.tag_filter:
            self._set_tag_filter(options.tag_filter)
            opt.tag_filter = &self.tag_filter
        if options.positions:
            self._set_targets(options.positions)
            opt.positions = &self.targets
        if options.materials:
            self._set_materials(options.materials)
            opt.materials = &self.materials
        if options.position_rows:  # (sample_plies, min_ply, max_ply, seed, planes): pgntools.positions_dataset
            sample_plies, min_ply, max_ply, seed, planes = options.position_rows
            if sample_plies < 0 or min_ply < 0 or (max_ply is not None and max_ply < min_ply):
                raise ValueError(f"position_rows: bad sampling {options.position_rows!r}")
            self.position_rows.sample_plies = sample_plies
            self.position_rows.min_ply = min(min_ply, 1 << 30)
            self.position_rows.max_ply = -1 if max_ply is None else min(max_ply, 1 << 30)
            self.position_rows.seed = seed & 0xFFFFFFFFFFFFFFFF
            self.position_rows.planes = planes
            opt.position_rows = &self.position_rows
        self.reader = gr_new(&opt)
        self.cap = max(<size_t>options.buffer_size, <size_t>4096)
        self.max_buffer = max(<size_t>options.max_game_size, self.cap)
        self.buf = <char *>malloc(self.cap)
        if self.reader == NULL or self.buf == NULL:
            raise MemoryError()
        cdef Scanner *sc = gr_scanner(self.reader)
        sc.buf = self.buf
        sc.len = 0
        sc.pos = 0
        sc.eof = False
        sc.base = options.base_offset  # a chunk cut from a larger stream keeps the stream's offsets,
        sc.line = options.base_line    # lines and game numbers (a chunk starts at a line start)
        sc.line_start_abs = options.base_offset
        gr_set_games_read(self.reader, options.first_game)
        self.stream = stream
        self.done = False
        self.detach = options.detach
        self.spares = []

    def __dealloc__(self):
        gr_free(self.reader)
        free(self.buf)
        free(self.clauses)
        free(self.tag_filter.stack)
        free(self.filter_ends)
        free(self.filter_numbers)
        free(<void *>self.targets.keys)
        free(<void *>self.targets.positions)
        free(<void *>self.materials.signatures)

    cdef _set_tag_filter(self, program):
        """options.tag_filter (pgntools.where.prefilter.Clause tuples, a postfix program) in C,
        checked: a program that does not leave one value is a bug (a ValueError)."""
        cdef Py_ssize_t i, j, n = len(program), items = 0, depth = 0, deepest = 0
        for clause in program:
            items += len(clause[9])
        self.filter_texts = []
        self.clauses = <TagClause *>calloc(n, sizeof(TagClause))
        self.tag_filter.stack = <uint8_t *>malloc(n + 1)
        self.filter_ends = <int32_t *>malloc((items + 1) * sizeof(int32_t))
        self.filter_numbers = <double *>malloc((items + 1) * sizeof(double))
        if self.clauses == NULL or self.tag_filter.stack == NULL or self.filter_ends == NULL or self.filter_numbers == NULL:
            raise MemoryError()
        cdef TagClause *k
        cdef Py_ssize_t used = 0
        cdef int32_t end
        for i, clause in enumerate(program):
            op, tag, kind, value, true_mask, null_mask, truth, text, name, in_items, tag2 = clause
            leaf = op < TF_NOT
            if not (0 <= op < TF_OP_COUNT and -1 <= tag < TAG_COLUMN_COUNT and 0 <= kind < TV_KIND_COUNT):
                raise ValueError(f"tag_filter: bad clause {clause!r}")
            if kind in (TV_YEAR, TV_MONTH) and not (0 <= tag < TAG_COLUMN_COUNT and 0 <= tag2 < TAG_COLUMN_COUNT):
                raise ValueError(f"tag_filter: a year or month clause reads two tag columns: {clause!r}")
            depth += 1 if leaf else 0 if op == TF_NOT else -1
            if depth < 1:
                raise ValueError(f"tag_filter: clause {i} ({clause!r}) has no value to work on")
            deepest = max(deepest, depth)
            k = &self.clauses[i]
            k.op, k.tag, k.tag2, k.kind, k.value, k.truth = op, tag, tag2, kind, value, truth
            k.true_mask, k.null_mask = true_mask, null_mask
            numeric = kind in (TV_NUMBER, TV_YEAR, TV_MONTH)
            texts = [bytes(t) for t in in_items] if op == TF_IN and not numeric else [bytes(text)]
            joined = b"".join(texts)
            self.filter_texts.append(joined)
            self.filter_texts.append(bytes(name))
            k.text, k.len = <const char *>joined, len(joined)
            k.name, k.name_len = <const char *>self.filter_texts[len(self.filter_texts) - 1], len(name)
            if op == TF_IN:
                k.n_items = len(in_items)
                k.item_ends, k.numbers = self.filter_ends + used, self.filter_numbers + used
                end = 0
                for j in range(len(in_items)):
                    if numeric:
                        self.filter_numbers[used + j] = in_items[j]
                    else:
                        end += len(texts[j])
                        self.filter_ends[used + j] = end
                used += len(in_items)
        if depth != 1:
            raise ValueError(f"tag_filter: the program leaves {depth} values, not one")
        self.tag_filter.n = n
        self.tag_filter.clauses = self.clauses

    cdef _set_targets(self, positions):
        """--where-position's (fen, chess960) pairs: parsed, sorted by key (checked before: a
        FEN that does not parse here is a bug)."""
        cdef Position pos
        cdef Py_ssize_t i, n = len(positions)
        cdef uint64_t *keys = <uint64_t *>malloc(n * sizeof(uint64_t))
        cdef Position *found = <Position *>malloc(n * sizeof(Position))
        self.targets.keys, self.targets.positions = keys, found
        if keys == NULL or found == NULL:
            raise MemoryError()
        parsed = []
        for fen, chess960 in positions:
            text = fen.encode()
            if fen_parse(&pos, text, len(text), chess960):
                raise ValueError(f"positions: not a legal position: {fen!r}")
            parsed.append((pos.hash, fen, chess960))
        parsed.sort()
        for i in range(n):
            text = parsed[i][1].encode()
            fen_parse(&found[i], text, len(text), parsed[i][2])
            keys[i] = found[i].hash
        self.targets.n = n

    cdef _set_materials(self, materials):
        """--material's signatures: ((white counts), (black counts), white_at_least, black_at_least),
        the counts of pawns, knights, bishops, rooks and queens."""
        cdef Py_ssize_t i, c, t, n = len(materials)
        cdef MaterialSignature *out = <MaterialSignature *>calloc(n, sizeof(MaterialSignature))
        self.materials.signatures = out
        if out == NULL:
            raise MemoryError()
        for i in range(n):
            counts = materials[i][0], materials[i][1]
            for c in range(2):
                out[i].at_least[c] = bool(materials[i][2 + c])
                for t in range(5):
                    out[i].count[c][t + 1] = counts[c][t]
        self.materials.n = n

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
                    if batch.n_games == 0 and gr_batch_filtered(self.reader) == 0:
                        raise
                    self.done = True
                    self.stream_error = exc
                    return self._take_batch()
                continue
            if rc == GR_NO_MEMORY:
                raise MemoryError("out of memory while reading games")
            if rc == GR_END:
                self.done = True
                if (batch.n_games == 0 and gr_skipped_bytes(self.reader) == self.skipped_seen and
                        gr_batch_filtered(self.reader) == 0):
                    raise StopIteration  # (skipped text or games filtered after the last batch come in an empty one)
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
        gr_swap_batch(self.reader, &store.s.b)
        cdef BatchColumns batch = BatchColumns.__new__(BatchColumns)
        batch.store, batch.spares = store, self.spares
        cdef size_t n_games = store.s.b.n_games
        batch.read = self._counts(n_games)
        return batch

    cdef dict _counts(self, size_t n_games):
        """The batch's counts (BATCH_COUNTS) and number of its first game: games the tag filter
        dropped are counted (``filtered``), and numbered between the others (``game_number``)."""
        cdef int64_t filtered = gr_take_filtered(self.reader)
        return {"n_games": n_games, "first_game": gr_games_read(self.reader) - <int64_t>n_games - filtered,
                "skipped_bytes": self._skipped(), "filtered": filtered, "last_offset": gr_last_offset(self.reader),
                "pgn_games": self._pgn_games()}

    cdef int64_t _pgn_games(self):
        """The games that show the input is PGN (gr_pgn_games) since the last batch."""
        cdef int64_t total = gr_pgn_games(self.reader)
        cdef int64_t new = total - self.pgn_seen
        self.pgn_seen = total
        return new

    cdef int64_t _skipped(self):
        """The bytes of non-game text skipped since the last batch."""
        cdef int64_t total = gr_skipped_bytes(self.reader)
        cdef int64_t new = total - self.skipped_seen
        self.skipped_seen = total
        return new

    cdef dict _copy_batch(self):
        cdef Batch *b = gr_batch(self.reader)
        out = self._counts(b.n_games)
        for name in _BATCH_KEYS[6:]:
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


def split_strings(const unsigned char[:] offsets, bytes data):
    """The strings of a batch string column (int32 offsets, UTF-8 data) as a list of str: one
    C loop, twice as fast as slicing in Python (read_games decodes every tag this way)."""
    cdef Py_ssize_t n = offsets.shape[0] // <Py_ssize_t>sizeof(int32_t) - 1, i
    if n <= 0:
        return []
    cdef const int32_t *o = <const int32_t *>&offsets[0]
    cdef const char *d = data
    out = [None] * n
    for i in range(n):
        out[i] = PyUnicode_DecodeUTF8(d + o[i], o[i + 1] - o[i], NULL)
    return out
