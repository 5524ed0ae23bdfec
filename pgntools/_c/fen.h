/* FEN parsing with validation that reports every problem at once, and FEN formatting. */
#ifndef PGNT_FEN_H
#define PGNT_FEN_H

#include "position.h"

enum {
    FEN_MALFORMED = 1 << 0,
    FEN_MISSING_WHITE_KING = 1 << 1,
    FEN_MISSING_BLACK_KING = 1 << 2,
    FEN_TOO_MANY_KINGS = 1 << 3,
    FEN_PAWN_ON_BACK_RANK = 1 << 4,
    FEN_OPPOSITE_CHECK = 1 << 5,
    FEN_BAD_CASTLING_RIGHTS = 1 << 6,
    FEN_BAD_EN_PASSANT = 1 << 7,
    FEN_IMPOSSIBLE_CHECK = 1 << 8,
    FEN_TOO_MANY_PIECES = 1 << 9,
    FEN_PROBLEM_COUNT = 10
};

/* Output options for fen_format. */
enum {
    FEN_EP_ALWAYS = 1 << 0, /* en-passant square after every double step (the standard's form) */
    FEN_SHREDDER = 1 << 1,  /* castling as rook files (HAha) instead of X-FEN (KQkq) */
};

#define FEN_MAX 192 /* (three-check: 4 bytes more; crazyhouse: '~' marks, up to 60 pieces in pockets) */

/* Parses `len` bytes of `text` into p. Returns 0 or a set of FEN_* problem bits; on problems
 * the position holds whatever could be read. */
int fen_parse(Position *p, const char *text, size_t len, bool chess960);

/* What was wrong, per problem bit (index = bit number), in words that name the field:
 * "placement: rank 8 has 9 squares", "castling: 'K' but no white rook on h1". Empty for the
 * bits not set. */
typedef struct {
    char text[FEN_PROBLEM_COUNT][128];
} FenWhy;

/* fen_parse, and when why is not NULL the reasons too (for messages; fen_parse is the fast path). */
int fen_parse_why(Position *p, const char *text, size_t len, bool chess960, FenWhy *why);
/* The same for a position of a variant (VARIANT_*): its FEN form (three-check: "3+3" after the
 * en-passant field, or Lichess's "+0+0" at the end). */
int fen_parse_variant(Position *p, const char *text, size_t len, bool chess960, int variant, FenWhy *why);
const char *fen_problem_name(int bit_index);
/* Writes a NUL-terminated FEN into out (at least FEN_MAX bytes); returns its length. */
size_t fen_format(const Position *p, char *out, int options);

#endif
