#include <string.h>

#include "san.h"

static const char *const ERROR_NAMES[SAN_ERROR_COUNT] = {
    "ok", "invalid_san", "illegal_move", "ambiguous_move", "invalid_promotion", "null_move", "drop",
};
static const char *const NOTE_NAMES[NOTE_COUNT] = {
    "castling_with_zeros", "long_algebraic", "uci_notation", "promotion_without_equals",
    "over_disambiguation", "missing_check_marker", "wrong_check_marker", "en_passant_suffix",
    "missing_capture_marker", "lowercase_promotion", "wrong_capture_marker",
};

const char *san_error_name(int kind) { return kind >= 0 && kind < SAN_ERROR_COUNT ? ERROR_NAMES[kind] : "unknown"; }
const char *san_note_name(int bit) { return bit >= 0 && bit < NOTE_COUNT ? NOTE_NAMES[bit] : "unknown"; }

static inline bool is_file(char c) { return c >= 'a' && c <= 'h'; }
static inline bool is_rank(char c) { return c >= '1' && c <= '8'; }
/* By table: the switch it was mispredicted on most moves (the first byte of a move is a file
 * letter or a piece letter as good as at random). */
const uint8_t SAN_PIECE_OF_LETTER[256] = {['P'] = PAWN, ['N'] = KNIGHT, ['B'] = BISHOP,
                                          ['R'] = ROOK, ['Q'] = QUEEN,  ['K'] = KING};
static inline int piece_of_letter(char c) { return SAN_PIECE_OF_LETTER[(unsigned char)c]; }

static bool text_is(const char *s, size_t n, const char *word)
{
    return strlen(word) == n && memcmp(s, word, n) == 0;
}

/* Whether c is a byte strip_suffixes may remove: ' ' ! # + ? or the '.' ending "e.p." (all in
 * 0x20-0x3f, one bit each). Most moves end in a rank digit, and skip the loop at once. */
static inline bool may_end_suffix(char c)
{
    enum { BITS = 1u << (' ' - 0x20) | 1u << ('!' - 0x20) | 1u << ('#' - 0x20) | 1u << ('+' - 0x20) |
                  1u << ('.' - 0x20) | 1u << ('?' - 0x20) };
    unsigned d = (unsigned char)c - 0x20u;
    return d < 32 && ((BITS >> d) & 1);
}

/* Strips annotation glyphs, check markers and "e.p." from the end, recording what was there. */
static size_t strip_suffixes(const char *s, size_t n, SanMove *out)
{
    for (;;) {
        if (n == 0 || !may_end_suffix(s[n - 1]))
            return n;
        if (n >= 4 && memcmp(s + n - 4, "e.p.", 4) == 0) {
            out->notes |= NOTE_EN_PASSANT_SUFFIX;
            n -= 4;
        } else if (n && (s[n - 1] == '!' || s[n - 1] == '?' || s[n - 1] == ' ')) {
            n--;
        } else if (n && s[n - 1] == '#') {
            out->check = 2;
            n--;
        } else if (n && s[n - 1] == '+') {
            out->check = (n >= 2 && s[n - 2] == '+') ? 2 : (out->check ? out->check : 1);
            n -= (n >= 2 && s[n - 2] == '+') ? 2 : 1;
        } else {
            return n;
        }
    }
}

/* The shapes most moves have -- e4, Nf3, exd5, Nxd5 -- read straight into *out (which holds the
 * defaults), with what the general parser below would make of them. False for anything else. */
static inline bool parse_common(const char *s, size_t n, SanMove *out)
{
    if (n < 2 || n > 4 || !is_file(s[n - 2]) || !is_rank(s[n - 1]))
        return false;
    int piece = piece_of_letter(s[0]);
    if (n == 2) {
        out->piece = PAWN;
    } else if (n == 3 && piece > PAWN) {
        out->piece = (uint8_t)piece;
    } else if (n == 4 && s[1] == 'x' && piece > PAWN) {
        out->piece = (uint8_t)piece;
        out->capture = 1;
    } else if (n == 4 && s[1] == 'x' && is_file(s[0])) {
        out->piece = PAWN;
        out->capture = 1;
        out->from_file = (int8_t)(s[0] - 'a');
    } else {
        return false;
    }
    out->to = (uint8_t)SQ(s[n - 2] - 'a', s[n - 1] - '1');
    return true;
}

/* Every form san_parse knows, from the text without its suffixes (n > 0). Kept out of line, so
 * that san_parse's common path is a small function. */
static __attribute__((noinline)) int parse_general(const char *s, size_t n, SanMove *out)
{
    char c0 = s[0];
    if (c0 == '-' || c0 == 'Z' || c0 == '0' || c0 == '@' || c0 == 'O') { /* the rare forms, by first byte */
        if (text_is(s, n, "--") || text_is(s, n, "Z0") || text_is(s, n, "0000") || text_is(s, n, "@@@@"))
            return SAN_NULL_MOVE;
        if (text_is(s, n, "O-O") || text_is(s, n, "0-0") || text_is(s, n, "O-O-O") || text_is(s, n, "0-0-0")) {
            out->kind = n == 3 ? SAN_KIND_CASTLE_KING : SAN_KIND_CASTLE_QUEEN;
            out->piece = KING;
            if (c0 == '0')
                out->notes |= NOTE_CASTLING_WITH_ZEROS;
            return SAN_OK;
        }
    }
    if (n >= 3 && (c0 == '@' || s[1] == '@')) /* a drop: P@e4, @e4 */
        return (n == 3 || (n == 4 && piece_of_letter(c0))) && s[n - 3] == '@' && is_file(s[n - 2]) && is_rank(s[n - 1])
                   ? SAN_DROP
                   : SAN_INVALID;

    size_t i = 0;
    out->piece = PAWN;
    if (piece_of_letter(s[0]) > PAWN) {
        out->piece = (uint8_t)piece_of_letter(s[0]);
        i = 1;
    }
    int ff = -1, fr = -1;
    bool dash = false;
    if (i < n && is_file(s[i]))
        ff = s[i++] - 'a';
    if (i < n && is_rank(s[i]))
        fr = s[i++] - '1';
    if (i < n && (s[i] == 'x' || s[i] == ':')) {
        out->capture = 1;
        i++;
    } else if (i < n && s[i] == '-') {
        dash = true;
        i++;
    }
    if (i + 1 < n && is_file(s[i]) && is_rank(s[i + 1])) {
        out->to = (uint8_t)SQ(s[i] - 'a', s[i + 1] - '1');
        i += 2;
    } else if (ff >= 0 && fr >= 0 && !out->capture && !dash) {
        out->to = (uint8_t)SQ(ff, fr); /* what we read as the origin was the destination */
        ff = fr = -1;
    } else {
        return SAN_INVALID;
    }
    out->from_file = (int8_t)ff;
    out->from_rank = (int8_t)fr;

    bool full_origin = ff >= 0 && fr >= 0;
    if (dash || (out->piece == PAWN && full_origin))
        out->notes |= NOTE_LONG_ALGEBRAIC;
    if (out->piece == PAWN && ((fr >= 0 && ff < 0) || (out->capture && ff < 0)))
        return SAN_INVALID;

    if (i < n) { /* promotion */
        bool equals = s[i] == '=';
        if (equals)
            i++;
        if (i + 1 != n)
            return SAN_INVALID;
        char c = s[i];
        bool lower = c >= 'a' && c <= 'z';
        int promo = piece_of_letter(lower ? (char)(c - 32) : c);
        if (!promo)
            return SAN_INVALID;
        out->promo = (uint8_t)promo;
        if (lower && !equals && full_origin) {
            out->notes = (uint16_t)((out->notes & ~NOTE_LONG_ALGEBRAIC) | NOTE_UCI_NOTATION);
        } else {
            if (lower)
                out->notes |= NOTE_LOWERCASE_PROMOTION;
            if (!equals)
                out->notes |= NOTE_PROMOTION_WITHOUT_EQUALS;
        }
    }
    return SAN_OK;
}

int san_parse(const char *s, size_t n, SanMove *out)
{
    memset(out, 0, sizeof *out);
    out->from_file = out->from_rank = -1;
    n = strip_suffixes(s, n, out);
    if (n == 0)
        return SAN_INVALID;
    if (parse_common(s, n, out))
        return SAN_OK;
    return parse_general(s, n, out);
}

/* The pieces of `sliders` (each on a line through `to`) with nothing between them and `to`: the
 * sliders whose attack sets hold `to`, without computing the attack sets (there are few). */
static inline bb_t unblocked(bb_t sliders, int to, bb_t occ)
{
    bb_t seen = 0;
    while (sliders) {
        int from = bb_pop(&sliders);
        if (!(BB_BETWEEN[from][to] & occ))
            seen |= BB(from);
    }
    return seen;
}

/* Of `origins` (squares of knights, bishops, rooks or queens: `piece`), those from which the
 * piece reaches `to` on the board `occ`. */
static inline bb_t reaching(int piece, bb_t origins, int to, bb_t occ)
{
    origins &= BB_PIECE_PSEUDO[piece][to];
    return piece == KNIGHT ? origins : unblocked(origins, to, occ);
}

static bool leaves_pin(const Position *p, int ksq, int from, int to);

/* Which disambiguation canonical SAN needs for moving `piece` from `from` to `to` (a legal move).
 * The rivals are the other pieces of that type that can legally go to `to`: those that reach it,
 * less the pinned ones. No check evasion test is needed: in check, `to` blocks or takes the one
 * checker (the move is legal), and leaves_pin is then exact (see resolve_fast). */
static void needed_disambiguation(const Position *p, int piece, int from, int to, bool *file, bool *rank)
{
    *file = *rank = false;
    if (piece == PAWN || piece == KING)
        return;
    bb_t rivals = reaching(piece, pos_pieces(p, p->turn, piece) & ~BB(from), to, pos_occ(p));
    int ksq = pos_king(p, p->turn);
    if (!rivals || ksq == NO_SQ)
        return;
    bool any = false, same_file = false, same_rank = false;
    while (rivals) {
        int o = bb_pop(&rivals);
        if (leaves_pin(p, ksq, o, to))
            continue;
        any = true;
        same_file |= FILE_OF(o) == FILE_OF(from);
        same_rank |= RANK_OF(o) == RANK_OF(from);
    }
    if (!any)
        return;
    if (!same_file)
        *file = true;
    else if (!same_rank)
        *rank = true;
    else
        *file = *rank = true;
}

static int resolve_castle(const Position *p, int side, move_t *out)
{
    int us = p->turn, ksq = pos_king(p, us), rsq = p->castle[us][side];
    move_t m;
    if (ksq == NO_SQ || rsq == NO_SQ || pos_gen_castling_to(p, rsq, &m) != 1)
        return SAN_ILLEGAL;
    *out = m;
    return SAN_OK;
}

/* A king move written with its origin may be castling: e1g1 / Ke1-g1, or king takes own rook. */
static int castle_side_of_king_move(const Position *p, int from, int to)
{
    int us = p->turn;
    if (from != pos_king(p, us))
        return -1;
    for (int side = 0; side < 2; side++)
        if (p->castle[us][side] == to)
            return side;
    if (!p->chess960 && RANK_OF(from) == RANK_OF(to) && FILE_OF(from) == 4 && (FILE_OF(to) == 6 || FILE_OF(to) == 2))
        return FILE_OF(to) == 6 ? 0 : 1;
    return -1;
}

/* Whether moving our piece from `from` to `to` would uncover a slider attack on our king
 * (the piece is pinned and leaves the pin line). */
static bool leaves_pin(const Position *p, int ksq, int from, int to)
{
    /* The line and its sliders selected without branches (whether `from` is aligned with the
     * king is as good as random); then mostly no enemy slider on it, nothing to look along. */
    bb_t line = BB_LINE[ksq][from];
    line = line & BB(to) ? 0 : line;
    bb_t straight = BB_ROOK_PSEUDO[ksq] & BB(from) ? ~0ULL : 0;
    bb_t sliders = ((p->by_type[ROOK] & straight) | (p->by_type[BISHOP] & ~straight) | p->by_type[QUEEN]) &
                   p->by_color[p->turn ^ 1] & line;
    if (!sliders)
        return false;
    return (bb_attacks_along(ksq, from, pos_occ(p) ^ BB(from)) & sliders) != 0;
}

/* A king move (not castling) as generation decides it: legal when the target is not attacked
 * once the king has left its square. -1 when the king cannot step there at all. */
static int resolve_king(const Position *p, bb_t from_mask, int to, move_t *out)
{
    int ksq = pos_king(p, p->turn);
    if (ksq == NO_SQ || !(BB(ksq) & from_mask) || !(BB_KING[ksq] & BB(to)))
        return -1;
    if (pos_attacked_by(p, to, p->turn ^ 1, pos_occ(p) ^ BB(ksq)))
        return SAN_ILLEGAL;
    *out = mv_make(ksq, to, MT_NORMAL, 0);
    return SAN_OK;
}

/* The common case without generating moves: no en passant, at most one checker (whose line the
 * move must block or whose square it must take). Returns SAN_OK, SAN_ILLEGAL or SAN_AMBIGUOUS, or
 * -1 to ask for full generation. */
static int resolve_fast(const Position *p, int piece, bb_t from_mask, int to, int promo, move_t *out)
{
    int us = p->turn;
    bb_t occ = pos_occ(p), ours = p->by_color[us];
    if ((ours & BB(to)) || (piece == PAWN && to == p->ep))
        return -1;
    if (piece == KING)
        return resolve_king(p, from_mask, to, out);
    /* No pawn moves to its own first rank; the square behind it would be off the board
     * (a shift by 64 or more, undefined), so let generation say illegal. */
    if (piece == PAWN && RANK_OF(to) == (us == WHITE ? 0 : 7))
        return -1;
    bb_t candidates = pos_pieces(p, us, piece) & from_mask;
    if (piece == PAWN) {
        int back = us == WHITE ? -8 : 8;
        if (p->board[to]) {
            candidates &= BB_PAWN_ATTACKS[us ^ 1][to];
        } else if (!(occ & BB(to + back)) && RANK_OF(to) == (us == WHITE ? 3 : 4)) {
            candidates &= BB(to + 2 * back);
        } else {
            candidates &= BB(to + back);
        }
    } else {
        candidates = reaching(piece, candidates, to, occ);
    }
    if (!candidates)
        return -1; /* let generation decide (and say illegal) */
    int ksq = pos_king(p, us), count = 0;
    if (pos_in_check(p)) {
        /* Only a move onto the checker or between it and the king can be legal. leaves_pin
         * still finds pins: a slider it sees that is no pinner is the checker, and the move then
         * stays on that line. Double check: the king alone moves; generation says so. */
        bb_t checkers = p->checkers;
        if ((checkers & (checkers - 1)) || ksq == NO_SQ || !(BB(to) & (BB_BETWEEN[ksq][bb_lsb(checkers)] | checkers)))
            return -1;
    }
    move_t found = MOVE_NONE;
    while (candidates) {
        int from = bb_pop(&candidates);
        if (leaves_pin(p, ksq, from, to))
            continue;
        found = mv_make(from, to, promo ? MT_PROMOTION : MT_NORMAL, promo);
        count++;
    }
    if (count == 0)
        return SAN_ILLEGAL;
    if (count > 1)
        return SAN_AMBIGUOUS;
    *out = found;
    return SAN_OK;
}

int san_resolve(const Position *p, SanMove *sm, move_t *out)
{
    int us = p->turn;
    if (sm->kind != SAN_KIND_MOVE)
        return resolve_castle(p, sm->kind == SAN_KIND_CASTLE_KING ? 0 : 1, out);

    int to = sm->to, piece = sm->piece;
    if (piece == PAWN && sm->from_file >= 0 && sm->from_rank >= 0) {
        /* Coordinate notation (e2e4, g1f3) names no piece: the board does. */
        uint8_t pc = p->board[SQ(sm->from_file, sm->from_rank)];
        if (!pc || PIECE_COLOR(pc) != us)
            return SAN_ILLEGAL;
        piece = sm->piece = PIECE_TYPE(pc);
    }
    if (piece == KING && sm->from_file >= 0 && sm->from_rank >= 0) {
        int side = castle_side_of_king_move(p, SQ(sm->from_file, sm->from_rank), to);
        if (side >= 0)
            return resolve_castle(p, side, out);
    }
    if (piece == PAWN) {
        int last = us == WHITE ? 7 : 0;
        if (RANK_OF(to) == last ? (!sm->promo || sm->promo == KING || sm->promo == PAWN) : sm->promo != 0)
            return SAN_INVALID_PROMOTION;
    } else if (sm->promo) {
        return SAN_INVALID_PROMOTION;
    }

    bb_t from_mask = ~0ULL;
    if (sm->from_file >= 0)
        from_mask &= FILE_A << sm->from_file;
    else if (piece == PAWN)
        from_mask &= FILE_A << FILE_OF(to); /* a pawn move without origin file is a push */
    if (sm->from_rank >= 0)
        from_mask &= RANK_1 << (8 * sm->from_rank);

    move_t found = MOVE_NONE;
    int rc = resolve_fast(p, piece, from_mask, to, sm->promo, &found);
    if (rc < 0) {
        MoveList ml;
        int count = 0;
        pos_gen_legal(p, &ml, 1 << piece, from_mask, BB(to));
        for (int i = 0; i < ml.n; i++) {
            move_t m = ml.moves[i];
            if (mv_type(m) == MT_CASTLE || mv_promo(m) != sm->promo)
                continue;
            found = m;
            count++;
        }
        rc = count == 0 ? SAN_ILLEGAL : count > 1 ? SAN_AMBIGUOUS : SAN_OK;
    }
    if (rc != SAN_OK)
        return rc;
    *out = found;

    int from = mv_from(found);
    /* (bitwise, not short-circuit: each of these is as good as random, their answer rarely) */
    bool is_capture = (p->board[to] != 0) | (mv_type(found) == MT_EN_PASSANT);
    bool written_long = sm->notes & (NOTE_LONG_ALGEBRAIC | NOTE_UCI_NOTATION);
    bool capture_written = sm->capture;
    if (is_capture != capture_written && !(is_capture & written_long))
        sm->notes |= is_capture ? NOTE_MISSING_CAPTURE_MARKER : NOTE_WRONG_CAPTURE_MARKER;
    if ((piece != PAWN) & !written_long & ((sm->from_file & sm->from_rank) >= 0)) { /* an origin written */
        bool need_file, need_rank;
        needed_disambiguation(p, piece, from, to, &need_file, &need_rank);
        if ((sm->from_file >= 0 && !need_file) || (sm->from_rank >= 0 && !need_rank))
            sm->notes |= NOTE_OVER_DISAMBIGUATION;
    }
    return SAN_OK;
}

int san_to_move(const Position *p, const char *text, size_t len, move_t *out, uint16_t *notes)
{
    SanMove sm;
    int rc = san_parse(text, len, &sm);
    if (rc == SAN_OK)
        rc = san_resolve(p, &sm, out);
    if (notes)
        *notes = sm.notes;
    return rc;
}

static char *put_square(char *o, int sq)
{
    *o++ = (char)('a' + FILE_OF(sq));
    *o++ = (char)('1' + RANK_OF(sq));
    return o;
}

/* The SAN of a legal move without its check marker; `find_origin`: whether to look for the
 * rivals that make it need a file or rank (false only when it is known to need neither). */
static inline size_t format_base(const Position *p, move_t m, char *out, bool find_origin)
{
    char *o = out;
    int from = mv_from(m), to = mv_to(m), type = mv_type(m);
    int piece = PIECE_TYPE(p->board[from]);
    if (type == MT_CASTLE) {
        bool king_side = castle_side_of(p, p->turn, to) == 0;
        memcpy(o, king_side ? "O-O" : "O-O-O", king_side ? 3 : 5);
        o += king_side ? 3 : 5;
    } else {
        bool capture = p->board[to] || type == MT_EN_PASSANT;
        if (piece == PAWN) {
            if (capture) {
                *o++ = (char)('a' + FILE_OF(from));
                *o++ = 'x';
            }
            o = put_square(o, to);
            if (type == MT_PROMOTION) {
                *o++ = '=';
                *o++ = PIECE_LETTERS[mv_promo(m)];
            }
        } else {
            bool file = false, rank = false;
            *o++ = PIECE_LETTERS[piece];
            if (find_origin)
                needed_disambiguation(p, piece, from, to, &file, &rank);
            if (file)
                *o++ = (char)('a' + FILE_OF(from));
            if (rank)
                *o++ = (char)('1' + RANK_OF(from));
            if (capture)
                *o++ = 'x';
            o = put_square(o, to);
        }
    }
    *o = 0;
    return (size_t)(o - out);
}

size_t san_format_base(const Position *p, move_t m, char *out) { return format_base(p, m, out, true); }

size_t san_format_resolved(const Position *p, move_t m, const SanMove *sm, char *out)
{
    /* Written without an origin and resolved: the move is the only one of its piece to its
     * square (san_resolve found no legal rival), so canonical SAN needs no file or rank either;
     * the rival search, a fifth of writing a move's SAN, is left out. */
    return format_base(p, m, out, sm->kind != SAN_KIND_MOVE || sm->from_file >= 0 || sm->from_rank >= 0);
}

size_t san_format(const Position *p, move_t m, char *out)
{
    size_t n = san_format_base(p, m, out);
    Position after = *p;
    pos_make(&after, m);
    if (pos_in_check(&after)) {
        out[n++] = pos_has_legal_move(&after) ? '+' : '#';
        out[n] = 0;
    }
    return n;
}

size_t uci_format_squares(int from, int to, int promo, char *out)
{
    char *o = out;
    o = put_square(o, from);
    o = put_square(o, to);
    if (promo)
        *o++ = (char)(PIECE_LETTERS[promo] + 32);
    *o = 0;
    return (size_t)(o - out);
}

size_t uci_format(const Position *p, move_t m, char *out)
{
    int to = mv_to(m);
    if (mv_type(m) == MT_CASTLE && !p->chess960)
        to = castle_king_target(p->turn, castle_side_of(p, p->turn, to));
    return uci_format_squares(mv_from(m), to, mv_promo(m), out);
}

int uci_to_move(const Position *p, const char *s, size_t n, move_t *out)
{
    if (text_is(s, n, "0000"))
        return SAN_NULL_MOVE;
    if ((n != 4 && n != 5) || !is_file(s[0]) || !is_rank(s[1]) || !is_file(s[2]) || !is_rank(s[3]))
        return SAN_INVALID;
    int from = SQ(s[0] - 'a', s[1] - '1'), to = SQ(s[2] - 'a', s[3] - '1');
    int promo = 0;
    if (n == 5 && !(promo = piece_of_letter(s[4] >= 'a' ? (char)(s[4] - 32) : s[4])))
        return SAN_INVALID;
    if (PIECE_TYPE(p->board[from]) == KING) {
        int side = castle_side_of_king_move(p, from, to);
        if (side >= 0 && !promo)
            return resolve_castle(p, side, out);
    }
    MoveList ml;
    pos_gen_legal(p, &ml, GEN_ALL_PIECES, BB(from), BB(to));
    for (int i = 0; i < ml.n; i++) {
        if (mv_promo(ml.moves[i]) == promo) {
            *out = ml.moves[i];
            return SAN_OK;
        }
    }
    return SAN_ILLEGAL;
}
