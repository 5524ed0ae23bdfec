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
/* The piece a SAN letter names (PGN standard 8.2.3.2: P N B R Q K; a pawn's is never written in
 * SAN): a table, as the first byte of a move is a file or a piece letter as good as at random. */
const uint8_t SAN_PIECE_OF_LETTER[256] = {['P'] = PAWN, ['N'] = KNIGHT, ['B'] = BISHOP,
                                          ['R'] = ROOK, ['Q'] = QUEEN,  ['K'] = KING};
static inline int piece_of_letter(char c) { return SAN_PIECE_OF_LETTER[(unsigned char)c]; }

static int resolve_drop(const Position *p, const SanMove *sm, move_t *out);

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

/* Every form san_parse knows, from the text without its suffixes (n > 0). */
static int parse_forms(const char *s, size_t n, SanMove *out)
{
    char c0 = s[0];
    if (c0 == '-' || c0 == 'Z' || c0 == '0' || c0 == '@' || c0 == 'O') { /* the rare forms, by first byte */
        if (text_is(s, n, "--") || text_is(s, n, "Z0") || text_is(s, n, "0000") || text_is(s, n, "@@@@")) {
            out->kind = SAN_KIND_NULL; /* (a pass gives no check: a marker after it is not read) */
            out->check = 0;
            out->san_len = 0;
            return SAN_NULL_MOVE;
        }
        if (text_is(s, n, "O-O") || text_is(s, n, "0-0") || text_is(s, n, "O-O-O") || text_is(s, n, "0-0-0")) {
            out->kind = n == 3 ? SAN_KIND_CASTLE_KING : SAN_KIND_CASTLE_QUEEN;
            out->piece = KING;
            if (c0 == '0')
                out->notes |= NOTE_CASTLING_WITH_ZEROS;
            return SAN_OK;
        }
    }
    if (n >= 3 && (c0 == '@' || s[1] == '@')) { /* a drop: P@e4, @e4 */
        if (!((n == 3 || (n == 4 && piece_of_letter(c0) && piece_of_letter(c0) != KING)) && s[n - 3] == '@' &&
              is_file(s[n - 2]) && is_rank(s[n - 1])))
            return SAN_INVALID;
        out->kind = SAN_KIND_DROP;
        out->piece = (uint8_t)(n == 3 ? PAWN : piece_of_letter(c0));
        out->to = (uint8_t)SQ(s[n - 2] - 'a', s[n - 1] - '1');
        if (n == 4 && c0 == 'P') /* (SAN writes a pawn's drop @e4, python-chess's form) */
            out->san_len = 0;
        return SAN_DROP;
    }

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
        if (s[i] == ':') /* (the capture is written 'x' in SAN) */
            out->san_len = 0;
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

int san_parse_general(const char *s, size_t n, SanMove *out)
{
    memset(out, 0, sizeof *out);
    out->from_file = out->from_rank = -1;
    n = strip_suffixes(s, n, out);
    if (n == 0)
        return SAN_INVALID;
    out->san_len = n <= 8 ? (uint8_t)n : 0; /* (parse_forms clears it for a spelling SAN does not use) */
    return parse_forms(s, n, out);
}

int san_castle(const Position *p, int side, move_t *out)
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

/* The forms that name no piece or a special move: castling, a null move, coordinate notation
 * (e2e4, g1f3: the board names the piece), a king move written as castling (e1g1). Returns -1
 * when sm is an ordinary move to resolve, else SAN_OK / an error kind. */
static int resolve_special(const Position *p, SanMove *sm, move_t *out)
{
    if (sm->kind == SAN_KIND_DROP)
        return resolve_drop(p, sm, out);
    if (sm->kind == SAN_KIND_NULL) { /* a pass: not out of check, and not where no move exists */
        if (pos_in_check(p) || !pos_has_legal_move(p))
            return SAN_ILLEGAL;
        *out = MOVE_NULL;
        return SAN_OK;
    }
    if (sm->kind != SAN_KIND_MOVE)
        return san_castle(p, sm->kind == SAN_KIND_CASTLE_KING ? 0 : 1, out);
    if (sm->from_file < 0 || sm->from_rank < 0 || (sm->piece != PAWN && sm->piece != KING))
        return -1;
    int from = SQ(sm->from_file, sm->from_rank);
    if (sm->piece == PAWN) { /* (a pawn's letter is never written: a full origin is coordinate notation) */
        uint8_t pc = p->board[from];
        if (!pc || PIECE_COLOR(pc) != p->turn)
            return SAN_ILLEGAL;
        sm->piece = PIECE_TYPE(pc);
    }
    if (sm->piece == KING) {
        int side = castle_side_of_king_move(p, from, sm->to);
        if (side >= 0)
            return san_castle(p, side, out);
    }
    return -1;
}

/* A promotion chess does not allow: antichess's to a king (its move: mv_king_promotion), else
 * SAN_INVALID_PROMOTION. */
static int promote_to_king(const Position *p, SanMove *sm, bool last_rank, move_t *out)
{
    if (p->variant != VARIANT_ANTICHESS || sm->piece != PAWN || sm->promo != KING || !last_rank)
        return SAN_INVALID_PROMOTION;
    int rc = san_find(p, sm, out);
    if (rc == SAN_OK)
        *out = mv_king_promotion(mv_from(*out), mv_to(*out));
    return rc;
}

int san_resolve(const Position *p, SanMove *sm, move_t *out)
{
    if (p->variant != VARIANT_STANDARD && pos_variant_end(p)) /* (the replay's mainline stops at the end first) */
        return SAN_ILLEGAL;
    if ((sm->kind != SAN_KIND_MOVE) | ((sm->from_file & sm->from_rank) >= 0)) { /* (both written: >= 0) */
        int rc = resolve_special(p, sm, out);
        if (rc >= 0)
            return rc;
    }
    /* a pawn reaching its last rank promotes, to a knight, bishop, rook or queen (FIDE 3.7e) */
    bool last_rank = RANK_OF(sm->to) == (p->turn == WHITE ? 7 : 0);
    if (sm->piece == PAWN ? last_rank != (sm->promo != 0) || sm->promo == KING || sm->promo == PAWN : sm->promo != 0)
        return promote_to_king(p, sm, last_rank, out);
    return san_find(p, sm, out);
}

int san_read_general(const Position *p, const char *text, size_t len, SanMove *sm, move_t *out)
{
    int rc = san_parse_general(text, len, sm);
    return rc == SAN_OK || (rc == SAN_DROP && p->variant == VARIANT_CRAZYHOUSE) ? san_resolve(p, sm, out) : rc;
}

/* A drop (crazyhouse): the piece is in the mover's pocket and the drop among the legal moves. */
static int resolve_drop(const Position *p, const SanMove *sm, move_t *out)
{
    if (p->variant != VARIANT_CRAZYHOUSE) /* (a drop in chess stays an error) */
        return SAN_DROP;
    MoveList ml;
    pos_gen_legal(p, &ml, GEN_DROPS, 0, BB(sm->to));
    move_t m = mv_make_drop(sm->piece, sm->to);
    for (int i = 0; i < ml.n; i++)
        if (ml.moves[i] == m) {
            *out = m;
            return SAN_OK;
        }
    return SAN_ILLEGAL;
}

int san_to_move(const Position *p, const char *text, size_t len, move_t *out, uint16_t *notes)
{
    SanMove sm = {0};
    int rc = p->variant != VARIANT_STANDARD && pos_variant_end(p) ? SAN_ILLEGAL : san_read(p, text, len, &sm, out);
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
    if (m == MOVE_NULL) { /* (no standard form; what PGN tools write) */
        memcpy(o, "--", 2);
        o += 2;
    } else if (mv_is_drop(m)) { /* N@f3; a pawn's @f3 (python-chess's SAN) */
        if (mv_drop_piece(m) != PAWN)
            *o++ = PIECE_LETTERS[mv_drop_piece(m)];
        *o++ = '@';
        o = put_square(o, to);
    } else if (type == MT_CASTLE) {
        bool king_side = castle_side_of(p, p->turn, to) == 0;
        memcpy(o, king_side ? "O-O" : "O-O-O", king_side ? 3 : 5);
        o += king_side ? 3 : 5;
    } else {
        bool capture = p->board[to] || mv_is_en_passant(m);
        if (piece == PAWN) {
            if (capture) {
                *o++ = (char)('a' + FILE_OF(from));
                *o++ = 'x';
            }
            o = put_square(o, to);
            if (mv_promo(m)) {
                *o++ = '=';
                *o++ = PIECE_LETTERS[mv_promo(m)];
            }
        } else {
            bool file = false, rank = false;
            *o++ = PIECE_LETTERS[piece];
            if (find_origin && piece != KING)
                san_disambiguation(from, (p->variant == VARIANT_STANDARD ? pos_piece_origins(p, piece, to)
                                                                         : pos_legal_origins(p, piece, to, 0)) & ~BB(from),
                                   &file, &rank);
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

size_t san_format_resolved(const Position *p, move_t m, bool origin_written, char *out)
{
    /* Written without an origin and resolved: the move is the only one of its piece to its
     * square (san_find found no legal rival), so SAN needs no file or rank either. */
    return format_base(p, m, out, origin_written);
}

size_t san_format(const Position *p, move_t m, char *out)
{
    size_t n = san_format_base(p, m, out);
    Position after = *p;
    pos_make(&after, m);
    int status = pos_check_status(&after); /* (a variant's end is marked '#' too) */
    if (status) {
        out[n++] = status == 2 ? '#' : '+';
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
    if (mv_is_drop(m)) /* N@f3, P@e4 */
        return uci_format_drop(mv_drop_piece(m), to, out);
    if (mv_type(m) == MT_CASTLE && !p->chess960)
        to = castle_king_target(p->turn, castle_side_of(p, p->turn, to));
    return uci_format_squares(mv_from(m), to, mv_promo(m), out);
}

size_t uci_format_drop(int piece, int to, char *out)
{
    out[0] = PIECE_LETTERS[piece];
    out[1] = '@';
    put_square(out + 2, to);
    out[4] = 0;
    return 4;
}

int uci_to_move(const Position *p, const char *s, size_t n, move_t *out)
{
    if (text_is(s, n, "0000"))
        return SAN_NULL_MOVE;
    if (n == 4 && s[1] == '@') { /* a drop, N@f3 */
        SanMove sm;
        int rc = san_parse_general(s, n, &sm);
        return rc == SAN_DROP ? resolve_drop(p, &sm, out) : SAN_INVALID;
    }
    if ((n != 4 && n != 5) || !is_file(s[0]) || !is_rank(s[1]) || !is_file(s[2]) || !is_rank(s[3]))
        return SAN_INVALID;
    int from = SQ(s[0] - 'a', s[1] - '1'), to = SQ(s[2] - 'a', s[3] - '1');
    int promo = 0;
    if (n == 5 && !(promo = piece_of_letter(s[4] >= 'a' ? (char)(s[4] - 32) : s[4])))
        return SAN_INVALID;
    if (PIECE_TYPE(p->board[from]) == KING) {
        int side = castle_side_of_king_move(p, from, to);
        if (side >= 0 && !promo)
            return san_castle(p, side, out);
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
