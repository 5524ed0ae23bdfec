# Benchmark and test helpers of pgntools._core (included by _core.pyx).

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


def polyglot_random():
    """The 781 Polyglot random numbers as the C core holds them (tests check each one)."""
    return [POLYGLOT_RANDOM[i] for i in range(POLYGLOT_RANDOM_COUNT)]


cdef bint _same_state(const PosState *a, const PosState *b):
    return (a.turn == b.turn and a.ep == b.ep and a.ep_hashed == b.ep_hashed and a.chess960 == b.chess960 and
            memcmp(a.castle, b.castle, 4) == 0 and a.halfmove == b.halfmove and a.fullmove == b.fullmove and
            a.hash == b.hash and a.checkers == b.checkers)


cdef bint _same_position(const Position *a, const Position *b):
    return (memcmp(a.by_type, b.by_type, sizeof(a.by_type)) == 0 and
            memcmp(a.by_color, b.by_color, sizeof(a.by_color)) == 0 and memcmp(a.board, b.board, 64) == 0 and
            a.turn == b.turn and a.ep == b.ep and a.ep_hashed == b.ep_hashed and a.chess960 == b.chess960 and
            memcmp(a.castle, b.castle, 4) == 0 and a.halfmove == b.halfmove and a.fullmove == b.fullmove and
            a.hash == b.hash and a.checkers == b.checkers)


cdef int _play_text(char *text, int shape, int to):
    """Text `shape` of the common shapes to square `to`; its length. 0: e4; 1-10: Nf3..Kf3,
    Nxf3..Kxf3; 11-18: axf3..hxf3; 19-178: N, B, R, Q, K with an origin file or rank, bare or x."""
    cdef const char *letters = b"NBRQK"
    cdef const char *origins = b"abcdefgh12345678"
    cdef int n, k
    if shape == 0:
        n = 2
    elif shape <= 10:
        k = (shape - 1) % 5
        n = 3 if shape <= 5 else 4
        text[0] = letters[k]
        text[1] = b"x"
    elif shape <= 18:
        n = 4
        text[0] = <char>(97 + shape - 11)
        text[1] = b"x"
    else:
        k = shape - 19
        text[0] = letters[k // 32]
        text[1] = origins[k % 16]
        text[2] = b"x"
        n = 5 if k % 32 >= 16 else 4
    text[n - 2] = <char>(97 + to % 8)
    text[n - 1] = <char>(49 + to // 8)
    return n


cdef bint _same_san_move(const SanMove *a, const SanMove *b):
    return (a.kind == b.kind and a.piece == b.piece and a.from_file == b.from_file and a.from_rank == b.from_rank
            and a.to == b.to and a.promo == b.promo and a.capture == b.capture and a.check == b.check
            and a.san_len == b.san_len and a.notes == b.notes)


cdef int _expected(const Position *pos, const SanMove *sm, move_t *out):
    """What the text means by the whole legal move list (pos_gen_legal, no narrowing): SAN_OK with
    the one move, SAN_ILLEGAL or SAN_AMBIGUOUS."""
    cdef MoveList ml
    cdef int i, count = 0, frm, side
    cdef move_t m
    pos_gen_legal(pos, &ml, GEN_ALL, <bb_t>-1, <bb_t>-1)
    for i in range(ml.n):
        m = ml.moves[i]
        frm = m & 63
        if sm.kind != SAN_KIND_MOVE:  # castling: the king takes its rook on that side
            side = 0 if sm.kind == SAN_KIND_CASTLE_KING else 1
            if mv_type(m) != MT_CASTLE or pos.castle[pos.turn][side] != (m >> 6) & 63:
                continue
        else:
            if mv_type(m) == MT_CASTLE or (m >> 6) & 63 != sm.to or pos.board[frm] & 7 != sm.piece:
                continue
            if sm.from_file >= 0 and frm % 8 != sm.from_file or sm.from_rank >= 0 and frm // 8 != sm.from_rank:
                continue
            if sm.piece == 1 and sm.from_file < 0 and frm % 8 != sm.to % 8:  # a pawn without an origin pushes
                continue
        count += 1
        out[0] = m
    return SAN_OK if count == 1 else SAN_ILLEGAL if count == 0 else SAN_AMBIGUOUS


cdef int _check_play_text(const Position *pos, char *text, int n, long *made) except -1:
    """One text at pos through the one move path: san_read (the common shapes' front) must agree
    with san_read_general (the general parser, then san_resolve) in every field; its answer must be
    the whole legal move list's; the move made must leave the incremental state (hash, checkers,
    en passant) a recomputation gives, and pos_unmake must restore the position to the bit; a text
    that is SAN with no note must be san_format_base's SAN."""
    cdef Position after, fresh
    cdef Undo u
    cdef SanMove fast, general
    cdef move_t m = 0, g = 0, want = 0
    cdef char san[16]
    cdef int rc = san_read(pos, text, n, &fast, &m)
    cdef int rg = san_read_general(pos, text, n, &general, &g)
    label = text[:n].decode()
    if rc != rg or (rc == SAN_OK and m != g) or not _same_san_move(&fast, &general):
        raise AssertionError(f"{label}: the shape front says {rc} {m} notes {fast.notes}, the general parser {rg} {g} "
                             f"notes {general.notes}")
    if rc == SAN_INVALID_PROMOTION and general.piece == 1 and (general.to < 8 or general.to >= 56):
        return 0  # a pawn to its last rank without a piece (or to its first rank)
    if rc != SAN_OK and rc != SAN_ILLEGAL and rc != SAN_AMBIGUOUS:
        raise AssertionError(f"{label}: {rc} for a text of a common shape")
    if _expected(pos, &general, &want) != rc or (rc == SAN_OK and want != m):
        raise AssertionError(f"{label}: san_read says {rc} {m}, the legal moves {want}")
    if rc != SAN_OK:
        return 0
    made[0] += 1
    if fast.notes == 0 and fast.san_len:
        if san_format_base(pos, m, san) != fast.san_len or memcmp(san, text, fast.san_len) != 0:
            raise AssertionError(f"{label}: taken as SAN, but SAN is {san.decode()}")
    after = pos[0]
    pos_make_undo(&after, m, &u)
    fresh = after
    pos_rehash(&fresh)
    if not _same_position(&after, &fresh):
        raise AssertionError(f"{label}: the state kept while making it differs from a recomputation")
    pos_unmake(&after, &u)
    if not _same_position(&after, pos):
        raise AssertionError(f"{label}: pos_unmake does not restore the position")
    return 0


cdef long _check_play_node(const Position *pos, int depth, int shapes, long *made) except -1:
    """Every text of the common shapes at pos: to every square, and O-O, O-O-O (each bare, with +
    and with #)."""
    cdef char text[8]
    cdef int to, shape, n, suffix
    cdef long texts = 0
    cdef Position slow
    cdef MoveList ml
    cdef int i
    for to in range(65):  # 64: castling
        for shape in range(shapes * 3 if to < 64 else 6):  # each bare, with + and with #
            if to < 64:
                suffix = shape // shapes
                n = _play_text(text, shape % shapes, to)
            else:
                suffix = shape // 2
                n = 3 if shape % 2 == 0 else 5
                memcpy(text, b"O-O-O", n)
            if suffix:
                text[n] = b"+" if suffix == 1 else b"#"
                n += 1
            texts += 1
            _check_play_text(pos, text, n, made)
    if depth > 1:
        pos_gen_legal(pos, &ml, GEN_ALL, <bb_t>-1, <bb_t>-1)
        for i in range(ml.n):
            slow = pos[0]
            pos_make(&slow, ml.moves[i])
            texts += _check_play_node(&slow, depth - 1, shapes, made)
    return texts


def check_move_path(str fen, int depth, bint chess960=False, bint origins=False, bint castling_only=False,
                    variant="standard"):
    """Test helper: at every node of fen's move tree to `depth` (1: the position alone), every text
    of the common shapes (e4, Nf3, Nxf3, exf3 to every square; with `origins` also Nbf3, N1xf3, ...;
    O-O and O-O-O, alone with `castling_only`; each bare, with + and with #) goes through the one
    move path and is checked as _check_play_text says; `variant`: fen read as that variant's
    (variant_code). Returns (texts tried, moves made)."""
    cdef Position pos
    cdef long made = 0
    data = fen.encode()
    if fen_parse_variant(&pos, data, len(data), chess960, variant_code(variant), NULL) != 0:
        raise ValueError(f"bad FEN {fen!r}")
    texts = _check_play_node(&pos, depth, 0 if castling_only else 179 if origins else 19, &made)
    return texts, made
