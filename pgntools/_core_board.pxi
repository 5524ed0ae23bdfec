# The Board class of pgntools._core (included by _core.pyx: one extension module): a position
# with its move history, one Python call per move, for scripts, tests and debugging.

STANDARD_START_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
PERFT_MAX_DEPTH = 12  # the CLI's cap too: depth 12 from the start is ~6e16 nodes (hours)

_EN_PASSANT_MODES = {"legal": 0, "fen": FEN_EP_ALWAYS}
_PIECE_SYMBOLS = ".PNBRQK"
_SQUARE_NAMES = [f + r for r in "12345678" for f in "abcdefgh"]  # index: a1 = 0, b1 = 1, ..., h8 = 63
_SQUARE_INDEX = {name: i for i, name in enumerate(_SQUARE_NAMES)}


cdef list _note_names(uint16_t notes):
    return [san_note_name(i).decode() for i in range(NOTE_COUNT) if notes & (1 << i)]


def variant_code(variant):
    """The rules (a VARIANT_CODES value) a variant's name means: its name in VARIANT_CODES or any
    spelling of the PGN Variant tag ('King of the Hill', 'Three-check', 'Racing Kings', 'Giveaway', ...).
    ValueError for a variant pgntools does not play (Chess960 is Board's chess960=True)."""
    if isinstance(variant, int) and variant in VARIANT_NAMES:
        return variant
    if variant in VARIANT_CODES:
        return VARIANT_CODES[variant]
    data = str(variant).encode("utf-8", "replace")
    cdef int rules = classify_variant(data, len(data))
    if rules < 0 or rules & PLAYED_AS_CHESS960:
        known = ", ".join(sorted(VARIANT_CODES))
        raise ValueError(f"unsupported variant {variant!r}: pgntools plays {known} (Chess960: chess960=True)")
    return rules & ~STARTS_WITH_CASTLING


cdef bint _starts_with_castling(variant):
    """Giveaway: antichess's rules from chess's start, castling rights kept (as python-chess's
    GiveawayBoard; Lichess's Antichess starts without)."""
    if not isinstance(variant, str):
        return False
    data = variant.encode("utf-8", "replace")
    cdef int rules = classify_variant(data, len(data))
    return rules >= 0 and (rules & STARTS_WITH_CASTLING) != 0


cdef int _parse_fen(Position *pos, str fen, bint chess960, list names, list details, int variant=0) except -1:
    """Parses fen into pos; fills names and details (as InvalidFenError holds them) and
    returns the problem bits (0: valid)."""
    cdef FenWhy why
    data = fen.encode("utf-8", "replace")
    cdef int problems = fen_parse_variant(pos, data, len(data), chess960, variant, &why)
    cdef int i
    for i in range(FEN_PROBLEM_COUNT):
        if problems & (1 << i):
            names.append(fen_problem_name(i).decode())
            details.append((<char *>why.text[i]).decode("utf-8", "replace"))
    return problems


def explain_fen(str fen, bint chess960=False, variant="standard"):
    """(problem bits, ["<what is wrong> (<problem name>)", ...]) of a FEN; (0, []) when valid."""
    cdef Position pos
    names, details = [], []
    problems = _parse_fen(&pos, fen, chess960, names, details, variant_code(variant))
    return problems, [f"{d} ({p})" if d else p for p, d in zip(names, details)]


cdef int _square_index(square) except -1:
    if isinstance(square, str):
        index = _SQUARE_INDEX.get(square.lower(), -1)
    elif isinstance(square, int) and not isinstance(square, bool):
        index = square if 0 <= square < 64 else -1
    else:
        raise TypeError(f"square must be a name such as 'e4' or an index 0..63 (a1 = 0), not {type(square).__name__}")
    if index < 0:
        raise ValueError(f"{square!r} is not a square: a name a1..h8 or an index 0..63 (a1 = 0, h8 = 63)")
    return index


cdef str _uci_of(const Position *pos, move_t m):
    cdef char buf[8]
    return buf[:uci_format(pos, m, buf)].decode()


cdef class Board:
    """A position with its move history (for repetitions and ``pop``). ``Board()`` is the start
    position, ``Board(fen)`` (or ``Board.from_fen(fen)``) any other; ``chess960=True`` reads
    X-FEN and Shredder-FEN castling; ``variant=`` a variant's rules and FEN form ('kingofthehill',
    '3check', 'racingkings', 'horde', 'antichess', or a Variant tag's spelling: the start position is the variant's). ``str(board)`` is
    an 8x8 diagram, rank 8 first."""

    cdef Position pos
    cdef uint64_t *history   # the hash of every position so far, the current one last
    cdef Position *before    # before[i]: the position before move i
    cdef move_t *moves       # moves[i]: move i
    cdef int history_len     # positions so far: moves made + 1
    cdef int history_cap
    cdef public list last_notes

    def __cinit__(self, *args, **kwargs):
        self.history_cap = 64
        self.history = <uint64_t *>malloc(self.history_cap * sizeof(uint64_t))
        self.before = <Position *>malloc(self.history_cap * sizeof(Position))
        self.moves = <move_t *>malloc(self.history_cap * sizeof(move_t))
        if self.history == NULL or self.before == NULL or self.moves == NULL:
            raise MemoryError()
        self.history_len = 0
        self.last_notes = []

    def __dealloc__(self):
        free(self.history)
        free(self.before)
        free(self.moves)

    def __init__(self, fen=None, *, bint chess960=False, variant="standard"):
        cdef int rules = variant_code(variant)
        cdef uint8_t castle[4]
        if fen is None:
            pos_init_start(&self.pos)
            self.pos.chess960 = chess960
            memcpy(castle, self.pos.castle, sizeof(castle))
            pos_set_variant(&self.pos, rules)
            if _starts_with_castling(variant):
                memcpy(self.pos.castle, castle, sizeof(castle))
                pos_rehash(&self.pos)
        elif isinstance(fen, str):
            self._set_fen(fen, chess960, rules)
        else:
            raise TypeError(f"fen must be a str, not {type(fen).__name__}")
        self._reset_history()

    @classmethod
    def from_fen(cls, str fen, *, bint chess960=False, variant="standard"):
        """A board from FEN (6 fields, or 4 with clocks defaulting to 0 and 1); X-FEN and
        Shredder-FEN castling with ``chess960=True``. Raises InvalidFenError listing every
        problem, each with the field and what is wrong with it."""
        cdef Board board = cls.__new__(cls)
        board._set_fen(fen, chess960, variant_code(variant))
        board._reset_history()
        return board

    cdef _set_fen(self, str fen, bint chess960, int variant):
        names, details = [], []
        if _parse_fen(&self.pos, fen, chess960, names, details, variant):
            raise InvalidFenError(fen, names, details)

    cdef _reset_history(self):
        self.history_len = 0
        self._remember()

    cdef _grow(self):
        cdef int cap = self.history_cap * 2
        cdef uint64_t *history = <uint64_t *>realloc(self.history, cap * sizeof(uint64_t))
        if history == NULL:
            raise MemoryError()
        self.history = history
        cdef Position *before = <Position *>realloc(self.before, cap * sizeof(Position))
        if before == NULL:
            raise MemoryError()
        self.before = before
        cdef move_t *moves = <move_t *>realloc(self.moves, cap * sizeof(move_t))
        if moves == NULL:
            raise MemoryError()
        self.moves = moves
        self.history_cap = cap

    cdef _remember(self):
        if self.history_len == self.history_cap:
            self._grow()
        self.history[self.history_len] = self.pos.hash
        self.history_len += 1

    def copy(self):
        cdef Board other = Board.__new__(Board)
        while other.history_cap < self.history_len:
            other._grow()
        other.pos = self.pos
        memcpy(other.history, self.history, self.history_len * sizeof(uint64_t))
        memcpy(other.before, self.before, (self.history_len - 1) * sizeof(Position))
        memcpy(other.moves, self.moves, (self.history_len - 1) * sizeof(move_t))
        other.history_len = self.history_len
        other.last_notes = list(self.last_notes)
        return other

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

    @property
    def variant(self):
        """The rules: 'standard', 'kingofthehill', '3check', 'racingkings', 'horde', 'antichess', 'atomic',
        'crazyhouse' (VARIANT_CODES)."""
        return VARIANT_NAMES[self.pos.variant]

    @property
    def key(self):
        """The position's Polyglot key (uint64, as ``chess.polyglot.zobrist_hash`` computes it):
        the same number as export's ``key`` column and Polyglot opening books."""
        return pos_key(&self.pos)

    def piece_at(self, square):
        """The piece on ``square`` (a name such as 'e4' or an index 0..63, a1 = 0, h8 = 63) as
        its FEN letter: 'P', 'N', 'B', 'R', 'Q', 'K' for White, lower case for Black; None when
        the square is empty."""
        cdef uint8_t pc = self.pos.board[_square_index(square)]
        if not pc:
            return None
        letter = _PIECE_SYMBOLS[pc & 7]
        return letter.lower() if pc >> 3 else letter

    def legal_moves(self):
        """Every legal move, as UCI strings."""
        cdef MoveList ml
        cdef char buf[8]
        pos_gen_legal(&self.pos, &ml, GEN_ALL, <bb_t>-1, <bb_t>-1)
        return [buf[:uci_format(&self.pos, ml.moves[i], buf)].decode() for i in range(ml.n)]

    cdef _push(self, move_t m):
        if self.history_len == self.history_cap:
            self._grow()
        self.before[self.history_len - 1] = self.pos
        self.moves[self.history_len - 1] = m
        pos_make(&self.pos, m)
        self._remember()

    def pop(self):
        """Takes back the last move and returns it (UCI). IndexError when no move was made on
        this board (a board from a FEN starts with none)."""
        if self.history_len <= 1:
            raise IndexError("pop from a board with no moves made")
        self.history_len -= 1
        self.pos = self.before[self.history_len - 1]
        self.last_notes = []
        return _uci_of(&self.pos, self.moves[self.history_len - 1])

    @property
    def move_stack(self):
        """The moves made on this board (UCI), the first one first."""
        return [_uci_of(&self.before[i], self.moves[i]) for i in range(self.history_len - 1)]

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
        uci = _uci_of(&self.pos, m)
        self._push(m)
        self.last_notes = _note_names(sm.notes | san_check_notes(sm.check, pos_check_status(&self.pos)))
        return uci

    cdef move_t _uci_move(self, str uci) except? 0:
        data = uci.encode("utf-8", "replace")
        cdef move_t m = 0
        cdef int rc = uci_to_move(&self.pos, data, len(data), &m)
        if rc == SAN_INVALID:
            raise move_error("invalid_uci", uci, f"invalid UCI {uci!r}: not a move in UCI notation "
                                                 "(from and to squares, then a promotion letter: e2e4, e7e8q)")
        if rc != SAN_OK:
            kind = san_error_name(rc).decode()
            raise move_error(kind, uci, f"{kind.replace('_', ' ')}: {uci!r} in {self.fen()}")
        return m

    def push_uci(self, str uci):
        """Play a move given in UCI (standard castling as e1g1; Chess960 as king takes rook)."""
        self._push(self._uci_move(uci))
        self.last_notes = []

    def san(self, str uci):
        """Canonical SAN (minimal disambiguation, + or #) of a legal move given in UCI."""
        cdef move_t m = self._uci_move(uci)
        cdef char buf[16]
        return buf[:san_format(&self.pos, m, buf)].decode()

    def perft(self, int depth):
        """Leaf nodes of the legal move tree to `depth` (bulk-counted at the last ply); depth
        0..PERFT_MAX_DEPTH (12), else ValueError."""
        if not 0 <= depth <= PERFT_MAX_DEPTH:
            raise ValueError(f"perft depth must be 0..{PERFT_MAX_DEPTH}, not {depth}")
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
        """The automatic end the position has reached (FIDE 9.6 and checkmate/stalemate; a
        variant's own end first: variant_win or variant_loss of the side to move, variant_draw), or None."""
        cdef int end = pos_variant_end(&self.pos)
        if end:
            return ("variant_win", "variant_loss", "variant_draw")[end - VARIANT_END_WIN]
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

    def __str__(self):
        """An 8x8 diagram, rank 8 first, files a to h, '.' for an empty square."""
        cdef int rank, file
        cdef uint8_t pc
        rows = []
        for rank in range(7, -1, -1):
            row = []
            for file in range(8):
                pc = self.pos.board[rank * 8 + file]
                letter = _PIECE_SYMBOLS[pc & 7]
                row.append(letter.lower() if pc >> 3 else letter)
            rows.append(" ".join(row))
        return "\n".join(rows)

    def __repr__(self):
        if self.pos.chess960:
            return f"Board({self.fen()!r}, chess960=True)"
        return f"Board({self.fen()!r})"

    def __eq__(self, other):
        return isinstance(other, Board) and self.fen(en_passant="fen") == other.fen(en_passant="fen")
