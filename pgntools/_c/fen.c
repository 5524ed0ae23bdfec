#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "buffers.h"
#include "fen.h"
#include "variant_crazyhouse.h"

static const char *const PROBLEM_NAMES[FEN_PROBLEM_COUNT] = {
    "malformed", "missing_white_king", "missing_black_king", "too_many_kings", "pawn_on_back_rank",
    "opposite_check", "bad_castling_rights", "bad_en_passant", "impossible_check", "too_many_pieces",
};

const char *fen_problem_name(int bit_index)
{
    return bit_index >= 0 && bit_index < FEN_PROBLEM_COUNT ? PROBLEM_NAMES[bit_index] : "unknown";
}

/* Adds a description to a problem's text (why may be NULL: fen_parse wants the bits only). */
static void explain(FenWhy *why, int problem, const char *format, ...)
{
    if (!why)
        return;
    char *text = why->text[__builtin_ctz((unsigned)problem)];
    size_t used = strlen(text), cap = sizeof why->text[0];
    if (used && used + 2 < cap) {
        memcpy(text + used, "; ", 3);
        used += 2;
    }
    va_list args;
    va_start(args, format);
    vsnprintf(text + used, cap - used, format, args);
    va_end(args);
}

static const char *const COLOR_NAMES[2] = {"white", "black"};

static int piece_type_of(char c)
{
    const char *s = strchr("pnbrqk", c | 0x20);
    return (c && s) ? (int)(s - "pnbrqk") + PAWN : NO_TYPE;
}

/* Splits text into at most 7 space-separated fields. */
static int split_fields(const char *text, size_t len, const char *start[7], size_t flen[7])
{
    int n = 0;
    size_t i = 0;
    while (i < len) {
        while (i < len && (text[i] == ' ' || text[i] == '\t'))
            i++;
        if (i >= len)
            break;
        if (n == 7)
            return 8;
        start[n] = text + i;
        while (i < len && text[i] != ' ' && text[i] != '\t')
            i++;
        flen[n] = (size_t)(text + i - start[n]);
        n++;
    }
    return n;
}

/* The squares a rank of the placement field describes (for the message). */
static int rank_squares(const char *s, size_t n)
{
    int squares = 0;
    for (size_t i = 0; i < n && s[i] != '/'; i++)
        squares += s[i] >= '1' && s[i] <= '9' ? s[i] - '0' : 1;
    return squares;
}

static bool parse_board(Position *p, const char *s, size_t n, FenWhy *why)
{
    int rank = 7, file = 0;
    size_t rank_start = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '/') {
            if (file != 8) {
                explain(why, FEN_MALFORMED, "placement: rank %d has %d squares", rank + 1, file);
                return false;
            }
            if (rank == 0) {
                explain(why, FEN_MALFORMED, "placement: more than 8 ranks");
                return false;
            }
            rank--;
            file = 0;
            rank_start = i + 1;
        } else if (c == '~' && p->variant == VARIANT_CRAZYHOUSE && file > 0 && i > rank_start &&
                   piece_type_of(s[i - 1])) { /* crazyhouse: the piece before was a pawn */
            p->zh.promoted |= BB(SQ(file - 1, rank));
        } else if (c >= '1' && c <= '8') {
            file += c - '0';
            if (file > 8) {
                explain(why, FEN_MALFORMED, "placement: rank %d has %d squares", rank + 1,
                        rank_squares(s + rank_start, n - rank_start));
                return false;
            }
        } else {
            int type = piece_type_of(c);
            if (c == '9') {
                explain(why, FEN_MALFORMED, "placement: rank %d has %d squares", rank + 1,
                        rank_squares(s + rank_start, n - rank_start));
                return false;
            }
            if (!type) {
                explain(why, FEN_MALFORMED, "placement: '%c' on rank %d is neither a piece nor a count of empty squares (1-8)",
                        c, rank + 1);
                return false;
            }
            if (file > 7) {
                explain(why, FEN_MALFORMED, "placement: rank %d has %d squares", rank + 1,
                        rank_squares(s + rank_start, n - rank_start));
                return false;
            }
            pos_put(p, SQ(file, rank), (c >= 'a') ? BLACK : WHITE, type);
            file++;
        }
    }
    if (rank != 0) {
        explain(why, FEN_MALFORMED, "placement: %d ranks, not 8", 8 - rank);
        return false;
    }
    if (file != 8) {
        explain(why, FEN_MALFORMED, "placement: rank 1 has %d squares", file);
        return false;
    }
    return true;
}

/* Any uint32: every move number pos_make can reach (it stops at UINT32_MAX) reads back. */
static bool parse_uint(const char *s, size_t n, uint32_t *out)
{
    uint64_t v = 0;
    if (n == 0 || n > 10)
        return false;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    if (v > UINT32_MAX)
        return false;
    *out = (uint32_t)v;
    return true;
}

/* The outermost rook of `color` on its back rank on one side of the king, or NO_SQ. */
static int outer_rook(const Position *p, int color, int side)
{
    int ksq = pos_king(p, color), back = color == WHITE ? 0 : 7;
    if (ksq == NO_SQ || RANK_OF(ksq) != back)
        return NO_SQ;
    bb_t rooks = pos_pieces(p, color, ROOK) & (RANK_1 << (8 * back));
    for (int f = side == 0 ? 7 : 0; side == 0 ? f > FILE_OF(ksq) : f < FILE_OF(ksq); f += side == 0 ? -1 : 1)
        if (rooks & BB(SQ(f, back)))
            return SQ(f, back);
    return NO_SQ;
}

static bool parse_castling(Position *p, const char *s, size_t n, bool chess960, FenWhy *why)
{
    if (n == 1 && s[0] == '-')
        return true;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        int color = (c >= 'a' && c <= 'z') ? BLACK : WHITE, lower = c | 0x20;
        int back = color == WHITE ? 0 : 7, ksq = pos_king(p, color), rsq;
        const char *who = COLOR_NAMES[color];
        if (lower != 'k' && lower != 'q' && !(lower >= 'a' && lower <= 'h')) {
            explain(why, FEN_BAD_CASTLING_RIGHTS, "castling: '%c' is not a castling right", c);
            return false;
        }
        if (ksq == NO_SQ || RANK_OF(ksq) != back) {
            explain(why, FEN_BAD_CASTLING_RIGHTS, "castling: '%c' but no %s king on its first rank", c, who);
            return false;
        }
        if (lower == 'k' || lower == 'q') {
            rsq = outer_rook(p, color, lower == 'k' ? 0 : 1);
            if (rsq == NO_SQ) {
                explain(why, FEN_BAD_CASTLING_RIGHTS, "castling: '%c' but no %s rook on the %s side of its king", c,
                        who, lower == 'k' ? "king's" : "queen's");
                return false;
            }
        } else {
            rsq = SQ(lower - 'a', back);
            if (p->board[rsq] != PIECE(color, ROOK) || rsq == ksq) {
                explain(why, FEN_BAD_CASTLING_RIGHTS, "castling: '%c' but no %s rook on %c%d", c, who, lower,
                        back + 1);
                return false;
            }
        }
        int side = FILE_OF(rsq) > FILE_OF(ksq) ? 0 : 1;
        if (!chess960 && FILE_OF(ksq) != 4) {
            explain(why, FEN_BAD_CASTLING_RIGHTS, "castling: '%c' but the %s king is not on e%d (not Chess960)", c,
                    who, back + 1);
            return false;
        }
        if (!chess960 && FILE_OF(rsq) != (side == 0 ? 7 : 0)) {
            explain(why, FEN_BAD_CASTLING_RIGHTS, "castling: '%c' but no %s rook on %c%d (not Chess960)", c, who,
                    side == 0 ? 'h' : 'a', back + 1);
            return false;
        }
        if (p->castle[color][side] != NO_SQ) { /* the same right twice */
            explain(why, FEN_BAD_CASTLING_RIGHTS, "castling: the %s %s-side right twice", who,
                    side == 0 ? "king" : "queen");
            return false;
        }
        p->castle[color][side] = (uint8_t)rsq;
    }
    return true;
}

static bool parse_en_passant(Position *p, const char *s, size_t n, FenWhy *why)
{
    if (n == 1 && s[0] == '-')
        return true;
    if (n != 2 || s[0] < 'a' || s[0] > 'h' || s[1] < '1' || s[1] > '8') {
        explain(why, FEN_BAD_EN_PASSANT, "en passant: '%.*s' is neither a square nor '-'", (int)(n > 12 ? 12 : n), s);
        return false;
    }
    int sq = SQ(s[0] - 'a', s[1] - '1');
    int us = p->turn, them = us ^ 1;
    int pawn_sq = us == WHITE ? sq - 8 : sq + 8, origin = us == WHITE ? sq + 8 : sq - 8;
    if (RANK_OF(sq) != (us == WHITE ? 5 : 2)) {
        explain(why, FEN_BAD_EN_PASSANT, "en passant: %.2s is not on the %s rank (%s to move)", s,
                us == WHITE ? "6th" : "3rd", COLOR_NAMES[us]);
        return false;
    }
    if (p->board[pawn_sq] != PIECE(them, PAWN)) {
        explain(why, FEN_BAD_EN_PASSANT, "en passant: %.2s but no %s pawn on %c%d", s, COLOR_NAMES[them], s[0],
                RANK_OF(pawn_sq) + 1);
        return false;
    }
    if (p->board[sq] || p->board[origin]) {
        explain(why, FEN_BAD_EN_PASSANT, "en passant: %.2s but %c%d is not empty", s, s[0],
                (p->board[sq] ? RANK_OF(sq) : RANK_OF(origin)) + 1);
        return false;
    }
    p->ep = (uint8_t)sq;
    return true;
}

/* A clock field: the halfmove clock (at most 65535) or the fullmove number. */
static bool parse_clock(const char *s, size_t n, uint32_t max, const char *name, uint32_t *out, FenWhy *why)
{
    if (!parse_uint(s, n, out) || *out > max) {
        explain(why, FEN_MALFORMED, "%s: '%.*s' is not a number from 0 to %lu", name, (int)(n > 12 ? 12 : n), s,
                (unsigned long)max);
        return false;
    }
    return true;
}

int fen_parse(Position *p, const char *text, size_t len, bool chess960) { return fen_parse_why(p, text, len, chess960, NULL); }

int fen_parse_why(Position *p, const char *text, size_t len, bool chess960, FenWhy *why)
{
    return fen_parse_variant(p, text, len, chess960, VARIANT_STANDARD, why);
}

/* A three-check counter written as "W+B" (`lichess`: "+W+B", the checks given, not those left)
 * into p->checks_left. */
static bool parse_checks(Position *p, const char *s, size_t n, bool lichess, FenWhy *why)
{
    size_t at = lichess;
    int left[2];
    for (int c = 0; c < 2; c++) {
        if (at >= n || s[at] < '0' || s[at] > '3' || (c == 0 && (at + 1 >= n || s[at + 1] != '+'))) {
            explain(why, FEN_MALFORMED, "checks: '%.*s' is not %s (each from 0 to 3)", (int)(n > 12 ? 12 : n), s,
                    lichess ? "+W+B, the checks each side gave" : "W+B, the checks each side has left to give");
            return false;
        }
        left[c] = lichess ? 3 - (s[at] - '0') : s[at] - '0';
        at += 2;
    }
    if (at != n + 1) {
        explain(why, FEN_MALFORMED, "checks: '%.*s' has more than two counters", (int)(n > 12 ? 12 : n), s);
        return false;
    }
    p->checks_left = (uint8_t)(left[WHITE] | left[BLACK] << 4);
    return true;
}

/* Crazyhouse's pockets: n letters of the pieces held (upper case White's, lower case Black's). */
static bool parse_pockets(Position *p, const char *s, size_t n, FenWhy *why)
{
    for (size_t i = 0; i < n; i++) {
        int type = piece_type_of(s[i]);
        if (s[i] == '-' && n == 1) /* (an empty pocket written '-') */
            break;
        if (!type || type == KING || p->zh.pocket[s[i] >= 'a'][type] == 64) {
            explain(why, FEN_MALFORMED, "pockets: '%c' is not a piece a pocket holds (P N B R Q, p n b r q)", s[i]);
            return false;
        }
        p->zh.pocket[s[i] >= 'a'][type]++;
    }
    return true;
}

/* Takes field i out of the n fields. */
static void drop_field(const char *field[7], size_t flen[7], int n, int i)
{
    for (int k = i; k + 1 < n; k++)
        field[k] = field[k + 1], flen[k] = flen[k + 1];
}

/* What the rules of Racing Kings, the Horde and Antichess (variant_rules.h) allow or forbid in a
 * placement, as python-chess's status tells: the problems left. */
static int variant_placement(const Position *p, int variant, int problems, FenWhy *why)
{
    if (variant == VARIANT_ANTICHESS) /* any number of kings, none in check */
        return problems & ~(FEN_MISSING_WHITE_KING | FEN_MISSING_BLACK_KING | FEN_TOO_MANY_KINGS | FEN_OPPOSITE_CHECK);
    if (variant == VARIANT_HORDE) {
        if (pos_pieces(p, WHITE, KING)) {
            problems |= FEN_TOO_MANY_KINGS;
            explain(why, FEN_TOO_MANY_KINGS, "placement: a white king in the Horde");
        }
        problems &= ~FEN_MISSING_WHITE_KING;
        if (bb_count(p->by_color[WHITE]) <= 36 && bb_count(pos_pieces(p, BLACK, PAWN)) <= 8 &&
            bb_count(p->by_color[BLACK]) <= 16) /* (the horde: up to 36 pawns) */
            problems &= ~FEN_TOO_MANY_PIECES;
        if (!(p->by_type[PAWN] & RANK_8) && !(pos_pieces(p, BLACK, PAWN) & RANK_1)) /* (White's on rank 1 step on) */
            problems &= ~FEN_PAWN_ON_BACK_RANK;
        return problems;
    }
    if (variant == VARIANT_RACING_KINGS) {
        static const int most[7] = {0, 0, 2, 2, 2, 1, 1}; /* the start's pieces, no pawn */
        static const char *const PIECE_NAMES[7] = {"", "pawn", "knight", "bishop", "rook", "queen", "king"};
        for (int c = 0; c < 2; c++)
            for (int type = PAWN; type <= QUEEN; type++)
                if (bb_count(pos_pieces(p, c, type)) > most[type]) {
                    problems |= FEN_TOO_MANY_PIECES;
                    explain(why, FEN_TOO_MANY_PIECES, "placement: %s %ss in Racing Kings (at most %d)",
                            COLOR_NAMES[c], PIECE_NAMES[type], most[type]);
                }
    }
    return problems;
}

int fen_parse_variant(Position *p, const char *text, size_t len, bool chess960, int variant, FenWhy *why)
{
    const char *field[7];
    size_t flen[7];
    int problems = 0;

    if (why)
        memset(why, 0, sizeof *why);
    pos_clear(p);
    p->chess960 = chess960;
    p->variant = (uint8_t)variant;
    int n = split_fields(text, len, field, flen);
    if (variant == VARIANT_THREE_CHECK) { /* the counters: "3+3" after en passant, or Lichess's "+0+0" last */
        p->checks_left = 0x33;
        int at = n == 7 && field[6][0] == '+' ? 6 : n >= 5 && memchr(field[4], '+', flen[4]) ? 4 : -1;
        if (at >= 0) {
            if (!parse_checks(p, field[at], flen[at], at == 6, why))
                return FEN_MALFORMED;
            drop_field(field, flen, n--, at);
        }
    }
    if (n < 4 || n > 6) {
        if (n > 6)
            explain(why, FEN_MALFORMED, "fields: more than 6 (placement, side to move, castling, en passant, clocks)");
        else
            explain(why, FEN_MALFORMED, "fields: %d, not 6 (or 4 without the clocks)", n);
        return FEN_MALFORMED;
    }
    const char *pocket = memchr(field[0], '[', flen[0]);
    if (variant == VARIANT_CRAZYHOUSE) { /* the pockets: "[Qn]" after the placement, or a 9th rank "/Qn" */
        size_t at = flen[0];
        if (pocket && field[0][flen[0] - 1] == ']') {
            at = (size_t)(pocket - field[0]);
            if (!parse_pockets(p, pocket + 1, flen[0] - at - 2, why))
                return FEN_MALFORMED;
        } else if (!pocket) {
            int slashes = 0;
            for (size_t i = 0; i < flen[0] && slashes < 8; i++)
                if (field[0][i] == '/' && ++slashes == 8)
                    at = i;
            if (slashes == 8 && !parse_pockets(p, field[0] + at + 1, flen[0] - at - 1, why))
                return FEN_MALFORMED;
        } else {
            explain(why, FEN_MALFORMED, "pockets: '%.*s' does not end in ']'",
                    (int)(field[0] + flen[0] - pocket > 20 ? 20 : field[0] + flen[0] - pocket), pocket);
            return FEN_MALFORMED;
        }
        flen[0] = at;
        pocket = NULL;
    }
    if (pocket) { /* (crazyhouse's pockets, in a variant that has none) */
        explain(why, FEN_MALFORMED, "pockets: '%.*s' in a FEN of %s, which has no pockets",
                (int)(field[0] + flen[0] - pocket > 20 ? 20 : field[0] + flen[0] - pocket), pocket,
                variant == VARIANT_ATOMIC ? "atomic chess" : "this variant");
        return FEN_MALFORMED;
    }
    if (!parse_board(p, field[0], flen[0], why))
        return FEN_MALFORMED;
    if (flen[1] != 1 || (field[1][0] != 'w' && field[1][0] != 'b')) {
        explain(why, FEN_MALFORMED, "side to move: '%.*s' is neither 'w' nor 'b'", (int)(flen[1] > 12 ? 12 : flen[1]),
                field[1]);
        problems |= FEN_MALFORMED;
    }
    p->turn = field[1][0] == 'b' ? BLACK : WHITE;
    if (n >= 5) {
        uint32_t half = 0, full = 1;
        if (!parse_clock(field[4], flen[4], 65535, "halfmove clock", &half, why) ||
            (n == 6 && !parse_clock(field[5], flen[5], UINT32_MAX, "fullmove number", &full, why)))
            problems |= FEN_MALFORMED;
        p->halfmove = (uint16_t)half;
        p->fullmove = full ? full : 1;
    }

    /* atomic: a king that exploded ended the game; its position is still one to read */
    bool exploded = variant == VARIANT_ATOMIC && bb_count(p->by_type[KING]) == 1;
    for (int c = 0; c < 2; c++) {
        int kings = bb_count(pos_pieces(p, c, KING));
        if (kings == 0 && !exploded) {
            problems |= c == WHITE ? FEN_MISSING_WHITE_KING : FEN_MISSING_BLACK_KING;
            explain(why, c == WHITE ? FEN_MISSING_WHITE_KING : FEN_MISSING_BLACK_KING, "placement: no %s king",
                    COLOR_NAMES[c]);
        }
        if (kings > 1) {
            problems |= FEN_TOO_MANY_KINGS;
            explain(why, FEN_TOO_MANY_KINGS, "placement: %d %s kings", kings, COLOR_NAMES[c]);
        }
        int pieces = bb_count(p->by_color[c]), pawns = bb_count(pos_pieces(p, c, PAWN));
        if ((pieces > 16 || pawns > 8) && variant != VARIANT_CRAZYHOUSE) { /* (crazyhouse drops pieces taken) */
            problems |= FEN_TOO_MANY_PIECES;
            if (pieces > 16)
                explain(why, FEN_TOO_MANY_PIECES, "placement: %d %s pieces (at most 16)", pieces, COLOR_NAMES[c]);
            else
                explain(why, FEN_TOO_MANY_PIECES, "placement: %d %s pawns (at most 8)", pawns, COLOR_NAMES[c]);
        }
    }
    bb_t back_pawns = p->by_type[PAWN] & (RANK_1 | RANK_8);
    if (back_pawns) {
        problems |= FEN_PAWN_ON_BACK_RANK;
        int sq = bb_lsb(back_pawns);
        explain(why, FEN_PAWN_ON_BACK_RANK, "placement: a pawn on %c%d", 'a' + FILE_OF(sq), RANK_OF(sq) + 1);
    }
    if (variant != VARIANT_STANDARD)
        problems = variant_placement(p, variant, problems, why);
    if (!parse_castling(p, field[2], flen[2], chess960, why))
        problems |= FEN_BAD_CASTLING_RIGHTS;
    if (!parse_en_passant(p, field[3], flen[3], why))
        problems |= FEN_BAD_EN_PASSANT;

    if (!exploded && !(problems & (FEN_MISSING_WHITE_KING | FEN_MISSING_BLACK_KING | FEN_TOO_MANY_KINGS))) {
        int them = p->turn ^ 1, their_king = pos_king(p, them);
        bb_t beside = variant == VARIANT_ATOMIC && their_king != NO_SQ ? BB_KING[their_king] & p->by_type[KING]
                                                                      : 0; /* (atomic: no check there) */
        if (variant == VARIANT_ANTICHESS) {
            /* (no check) */
        } else if (their_king != NO_SQ && !beside &&
                   pos_attackers(p, their_king, pos_occ(p)) & p->by_color[p->turn] &
                       (variant == VARIANT_ATOMIC ? ~p->by_type[KING] : ~0ULL)) {
            problems |= FEN_OPPOSITE_CHECK;
            explain(why, FEN_OPPOSITE_CHECK, "%s is in check but it is %s's move", COLOR_NAMES[them],
                    COLOR_NAMES[p->turn]);
        }
        int checkers = bb_count(pos_compute_checkers(p));
        if (variant == VARIANT_RACING_KINGS && checkers) {
            problems |= FEN_IMPOSSIBLE_CHECK;
            explain(why, FEN_IMPOSSIBLE_CHECK, "%s is in check in Racing Kings (no move may give check)",
                    COLOR_NAMES[p->turn]);
        }
        bb_t goal = p->by_type[KING] & RANK_8;
        if (variant == VARIANT_RACING_KINGS && p->turn == BLACK && (goal & p->by_color[WHITE]) &&
            (goal & p->by_color[BLACK])) {
            problems |= FEN_IMPOSSIBLE_CHECK;
            explain(why, FEN_IMPOSSIBLE_CHECK, "both kings on rank 8 and Black to move: the race was over");
        }
        if (checkers > 2) {
            problems |= FEN_IMPOSSIBLE_CHECK;
            explain(why, FEN_IMPOSSIBLE_CHECK, "%s is in check from %d pieces (at most 2)", COLOR_NAMES[p->turn],
                    checkers);
        }
    }
    pos_rehash(p);
    return problems;
}

static char *format_castling(const Position *p, char *o, int options)
{
    char *start = o;
    for (int c = 0; c < 2; c++) {
        for (int side = 0; side < 2; side++) {
            int rsq = p->castle[c][side];
            if (rsq == NO_SQ)
                continue;
            char letter;
            if ((options & FEN_SHREDDER) || (p->chess960 && rsq != outer_rook(p, c, side)))
                letter = (char)('a' + FILE_OF(rsq));
            else
                letter = side == 0 ? 'k' : 'q';
            *o++ = c == WHITE ? (char)(letter - 32) : letter;
        }
    }
    if (o == start)
        *o++ = '-';
    return o;
}

/* The FEN letter of each piece code (0: an empty square). */
static const char FEN_LETTERS[16] = {0, 'P', 'N', 'B', 'R', 'Q', 'K', 0, 0, 'p', 'n', 'b', 'r', 'q', 'k', 0};

size_t fen_format(const Position *p, char *out, int options)
{
    char *o = out;
    /* the placement piece by piece (the occupied squares of each rank), each written after the
     * run of empty squares before it: a loop over the 64 squares was a third of the positions
     * dataset's time (out has room for the digit written and skipped: FEN_MAX) */
    bb_t occupied = pos_occ(p), promoted = p->zh.promoted;
    for (int rank = 7; rank >= 0; rank--) {
        bb_t m = (occupied >> (8 * rank)) & 0xFF;
        int before = -1;
        while (m) {
            int file = bb_lsb(m);
            m &= m - 1;
            int gap = file - before - 1;
            o[0] = (char)('0' + gap);
            o += gap != 0;
            *o++ = FEN_LETTERS[p->board[SQ(file, rank)] & 15];
            if (__builtin_expect(promoted != 0, 0) && (promoted & BB(SQ(file, rank))))
                *o++ = '~'; /* (crazyhouse: a promoted piece) */
            before = file;
        }
        o[0] = (char)('0' + 7 - before);
        o += before != 7;
        if (rank)
            *o++ = '/';
    }
    if (p->variant == VARIANT_CRAZYHOUSE) { /* the pockets, as python-chess writes them */
        *o++ = '[';
        o += zh_format_pockets(p, o);
        *o++ = ']';
    }
    *o++ = ' ';
    *o++ = p->turn == WHITE ? 'w' : 'b';
    *o++ = ' ';
    o = format_castling(p, o, options);
    *o++ = ' ';
    bool show_ep = p->ep != NO_SQ && ((options & FEN_EP_ALWAYS) || p->ep_hashed);
    if (show_ep) {
        *o++ = (char)('a' + FILE_OF(p->ep));
        *o++ = (char)('1' + RANK_OF(p->ep));
    } else {
        *o++ = '-';
    }
    *o++ = ' ';
    if (p->variant == VARIANT_THREE_CHECK) { /* the checks left, as python-chess writes them */
        *o++ = (char)('0' + pos_checks_left(p, WHITE));
        *o++ = '+';
        *o++ = (char)('0' + pos_checks_left(p, BLACK));
        *o++ = ' ';
    }
    o += format_uint(o, p->halfmove);
    *o++ = ' ';
    o += format_uint(o, p->fullmove);
    *o = 0;
    return (size_t)(o - out);
}
