# The Board class of pgntools._core (included by _core.pyx: one extension module): a position
# with its move history, one Python call per move, for scripts, tests and debugging.

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
