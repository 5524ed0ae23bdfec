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
    """Text `shape` of san_play_inline's shapes to square `to`; its length. 0: e4; 1-10: Nf3..Kf3,
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


cdef int _check_play_text(const Position *pos, char *text, int n, long *made) except -1:
    """One text at pos: san_play_inline against san_parse + san_resolve + pos_make_undo."""
    cdef int check = 0
    cdef Position fast, slow
    cdef Undo fu, su
    cdef SanMove sm
    cdef move_t fm, sm_move = 0
    cdef uint16_t notes = 0
    fast = pos[0]
    fm = san_play_inline(&fast, text, n, &fu, &notes, &check)
    if fm == 0:
        if not _same_position(&fast, pos):
            raise AssertionError(f"{text[:n].decode()}: not made, yet the position changed")
        return 0
    made[0] += 1
    slow = pos[0]
    if san_parse(text, n, &sm) != SAN_OK or san_resolve(&slow, &sm, &sm_move) != SAN_OK or sm_move != fm:
        raise AssertionError(f"{text[:n].decode()}: made {fm}, san_resolve says otherwise")
    if sm.notes != notes or sm.check != check:
        raise AssertionError(f"{text[:n].decode()}: notes {notes} check {check}, san_resolve's {sm.notes} {sm.check}")
    pos_make_undo(&slow, fm, &su)
    if not _same_position(&fast, &slow) or not _same_state(&fu.state, &su.state) or fu.move != su.move \
            or fu.captured != su.captured:
        raise AssertionError(f"{text[:n].decode()}: made otherwise than pos_make_undo")
    return 0


cdef long _check_play_node(const Position *pos, int depth, int shapes, long *made) except -1:
    """Every text of san_play_inline's shapes at pos against san_parse + san_resolve + pos_make_undo:
    to every square, and O-O, O-O-O (each bare, with + and with #)."""
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


def check_play_inline(str fen, int depth, bint chess960=False, bint origins=False, bint castling_only=False):
    """Test helper: at every node of fen's move tree to `depth` (1: the position alone), every text
    of the shapes san_play_inline reads (e4, Nf3, Nxf3, exf3 to every square; with `origins` also
    Nbf3, N1xf3, ...; O-O and O-O-O, alone with `castling_only`; each bare, with + and with #) is tried: a move it makes must be
    san_resolve's, with its notes, made exactly as pos_make_undo makes it; one it declines must
    leave the position as it was. Returns (texts tried, moves made)."""
    cdef Position pos
    cdef long made = 0
    data = fen.encode()
    if fen_parse(&pos, data, len(data), chess960) != 0:
        raise ValueError(f"bad FEN {fen!r}")
    texts = _check_play_node(&pos, depth, 0 if castling_only else 179 if origins else 19, &made)
    return texts, made
