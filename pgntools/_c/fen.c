#include <stdio.h>
#include <string.h>

#include "buffers.h"
#include "fen.h"

static const char *const PROBLEM_NAMES[FEN_PROBLEM_COUNT] = {
    "malformed", "missing_white_king", "missing_black_king", "too_many_kings", "pawn_on_back_rank",
    "opposite_check", "bad_castling_rights", "bad_en_passant", "impossible_check", "too_many_pieces",
};

const char *fen_problem_name(int bit_index)
{
    return bit_index >= 0 && bit_index < FEN_PROBLEM_COUNT ? PROBLEM_NAMES[bit_index] : "unknown";
}

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

static bool parse_board(Position *p, const char *s, size_t n)
{
    int rank = 7, file = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '/') {
            if (file != 8 || rank == 0)
                return false;
            rank--;
            file = 0;
        } else if (c >= '1' && c <= '8') {
            file += c - '0';
            if (file > 8)
                return false;
        } else {
            int type = piece_type_of(c);
            if (!type || file > 7)
                return false;
            pos_put(p, SQ(file, rank), (c >= 'a') ? BLACK : WHITE, type);
            file++;
        }
    }
    return rank == 0 && file == 8;
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

static bool parse_castling(Position *p, const char *s, size_t n, bool chess960)
{
    if (n == 1 && s[0] == '-')
        return true;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        int color = (c >= 'a' && c <= 'z') ? BLACK : WHITE, lower = c | 0x20;
        int back = color == WHITE ? 0 : 7, ksq = pos_king(p, color), rsq;
        if (ksq == NO_SQ || RANK_OF(ksq) != back)
            return false;
        if (lower == 'k' || lower == 'q') {
            rsq = outer_rook(p, color, lower == 'k' ? 0 : 1);
        } else if (lower >= 'a' && lower <= 'h') {
            rsq = SQ(lower - 'a', back);
        } else {
            return false;
        }
        if (rsq == NO_SQ || p->board[rsq] != PIECE(color, ROOK) || rsq == ksq)
            return false;
        int side = FILE_OF(rsq) > FILE_OF(ksq) ? 0 : 1;
        if (!chess960 && (FILE_OF(ksq) != 4 || FILE_OF(rsq) != (side == 0 ? 7 : 0)))
            return false;
        if (p->castle[color][side] != NO_SQ)
            return false; /* the same right twice */
        p->castle[color][side] = (uint8_t)rsq;
    }
    return true;
}

static bool parse_en_passant(Position *p, const char *s, size_t n)
{
    if (n == 1 && s[0] == '-')
        return true;
    if (n != 2 || s[0] < 'a' || s[0] > 'h' || s[1] < '1' || s[1] > '8')
        return false;
    int sq = SQ(s[0] - 'a', s[1] - '1');
    int us = p->turn, them = us ^ 1;
    int pawn_sq = us == WHITE ? sq - 8 : sq + 8, origin = us == WHITE ? sq + 8 : sq - 8;
    if (RANK_OF(sq) != (us == WHITE ? 5 : 2) || p->board[pawn_sq] != PIECE(them, PAWN) || p->board[sq] ||
        p->board[origin])
        return false;
    p->ep = (uint8_t)sq;
    return true;
}

int fen_parse(Position *p, const char *text, size_t len, bool chess960)
{
    const char *field[7];
    size_t flen[7];
    int problems = 0;

    pos_clear(p);
    p->chess960 = chess960;
    int n = split_fields(text, len, field, flen);
    if (n < 4 || n > 6 || !parse_board(p, field[0], flen[0]))
        return FEN_MALFORMED;
    if (flen[1] != 1 || (field[1][0] != 'w' && field[1][0] != 'b'))
        problems |= FEN_MALFORMED;
    p->turn = field[1][0] == 'b' ? BLACK : WHITE;
    if (n >= 5) {
        uint32_t half = 0, full = 1;
        if (!parse_uint(field[4], flen[4], &half) || half > 65535 ||
            (n == 6 && !parse_uint(field[5], flen[5], &full)))
            problems |= FEN_MALFORMED;
        p->halfmove = (uint16_t)half;
        p->fullmove = full ? full : 1;
    }

    for (int c = 0; c < 2; c++) {
        int kings = bb_count(pos_pieces(p, c, KING));
        if (kings == 0)
            problems |= c == WHITE ? FEN_MISSING_WHITE_KING : FEN_MISSING_BLACK_KING;
        if (kings > 1)
            problems |= FEN_TOO_MANY_KINGS;
        if (bb_count(p->by_color[c]) > 16 || bb_count(pos_pieces(p, c, PAWN)) > 8)
            problems |= FEN_TOO_MANY_PIECES;
    }
    if (p->by_type[PAWN] & (RANK_1 | RANK_8))
        problems |= FEN_PAWN_ON_BACK_RANK;
    if (!parse_castling(p, field[2], flen[2], chess960))
        problems |= FEN_BAD_CASTLING_RIGHTS;
    if (!parse_en_passant(p, field[3], flen[3]))
        problems |= FEN_BAD_EN_PASSANT;

    if (!(problems & (FEN_MISSING_WHITE_KING | FEN_MISSING_BLACK_KING | FEN_TOO_MANY_KINGS))) {
        int them = p->turn ^ 1, their_king = pos_king(p, them);
        if (pos_attackers(p, their_king, pos_occ(p)) & p->by_color[p->turn])
            problems |= FEN_OPPOSITE_CHECK;
        if (bb_count(pos_compute_checkers(p)) > 2)
            problems |= FEN_IMPOSSIBLE_CHECK;
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

size_t fen_format(const Position *p, char *out, int options)
{
    char *o = out;
    for (int rank = 7; rank >= 0; rank--) {
        int empty = 0;
        for (int file = 0; file < 8; file++) {
            uint8_t pc = p->board[SQ(file, rank)];
            if (!pc) {
                empty++;
                continue;
            }
            if (empty)
                *o++ = (char)('0' + empty);
            empty = 0;
            char letter = PIECE_LETTERS[PIECE_TYPE(pc)];
            *o++ = PIECE_COLOR(pc) == BLACK ? (char)(letter + 32) : letter;
        }
        if (empty)
            *o++ = (char)('0' + empty);
        if (rank)
            *o++ = '/';
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
    o += format_uint(o, p->halfmove);
    *o++ = ' ';
    o += format_uint(o, p->fullmove);
    *o = 0;
    return (size_t)(o - out);
}
