/* Basic chess types shared by every part of the core: squares, pieces, bitboards, moves. */
#ifndef PGNT_CHESS_H
#define PGNT_CHESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint64_t bb_t;

enum { WHITE = 0, BLACK = 1 };
enum { NO_TYPE = 0, PAWN = 1, KNIGHT = 2, BISHOP = 3, ROOK = 4, QUEEN = 5, KING = 6 };

#define NO_SQ 64
#define SQ(file, rank) ((rank) * 8 + (file))
#define FILE_OF(sq) ((sq) & 7)
#define RANK_OF(sq) ((sq) >> 3)
#define BB(sq) (1ULL << (sq))

/* A piece code on the mailbox board: 0 empty, else type | color << 3. */
#define PIECE(color, type) ((uint8_t)((type) | ((color) << 3)))
#define PIECE_TYPE(pc) ((pc) & 7)
#define PIECE_COLOR(pc) ((pc) >> 3)

/* A move in 16 bits: from (0-5), to (6-11), promotion piece - KNIGHT (12-13), type (14-15).
 * Castling is stored as "king takes own rook" (to = the rook's square), which covers Chess960. */
typedef uint16_t move_t;
enum { MT_NORMAL = 0, MT_PROMOTION = 1, MT_EN_PASSANT = 2, MT_CASTLE = 3 };
#define MOVE_NONE ((move_t)0)
/* A null move (--, Z0: the side to move passes; only with --allow-null-moves): of the castling
 * type from a1 to a1, which no castling is, so that pos_make's rare path takes it. */
#define MOVE_NULL ((move_t)(MT_CASTLE << 14))

static inline move_t mv_make(int from, int to, int type, int promo)
{
    return (move_t)(from | (to << 6) | ((promo ? promo - KNIGHT : 0) << 12) | (type << 14));
}
static inline int mv_from(move_t m) { return m & 63; }
static inline int mv_to(move_t m) { return (m >> 6) & 63; }
static inline int mv_type(move_t m) { return m >> 14; }
/* Antichess's promotion to a king (the promotion field has room for N, B, R, Q only): the
 * en-passant type with a target on the last rank, where no en passant lands. */
static inline move_t mv_king_promotion(int from, int to) { return (move_t)(from | (to << 6) | (MT_EN_PASSANT << 14)); }
static inline bool mv_is_king_promotion(move_t m)
{
    return mv_type(m) == MT_EN_PASSANT && (unsigned)(((m >> 9) & 7) - 1) >= 6u; /* (the target's rank: 1 or 8) */
}
static inline bool mv_is_en_passant(move_t m) { return mv_type(m) == MT_EN_PASSANT && !mv_is_king_promotion(m); }
static inline int mv_promo(move_t m)
{
    return mv_type(m) == MT_PROMOTION ? ((m >> 12) & 3) + KNIGHT : mv_is_king_promotion(m) ? KING : 0;
}

/* A crazyhouse drop (N@f3): of the castling type, from the square of the 4th rank whose file is
 * the piece's type (b4 a pawn .. f4 a queen), which no castling moves from. */
static inline move_t mv_make_drop(int piece, int to) { return mv_make(SQ(piece, 3), to, MT_CASTLE, 0); }
static inline bool mv_is_drop(move_t m) { return mv_type(m) == MT_CASTLE && ((m >> 3) & 7) == 3; }
static inline int mv_drop_piece(move_t m) { return m & 7; }

static inline int bb_lsb(bb_t b) { return __builtin_ctzll(b); }
static inline int bb_msb(bb_t b) { return 63 - __builtin_clzll(b); }
static inline int bb_count(bb_t b) { return __builtin_popcountll(b); }
static inline int bb_pop(bb_t *b)
{
    int s = bb_lsb(*b);
    *b &= *b - 1;
    return s;
}

#define RANK_1 0xFFULL
#define RANK_8 (0xFFULL << 56)
#define FILE_A 0x0101010101010101ULL
#define DARK_SQUARES 0xAA55AA55AA55AA55ULL

extern const char PIECE_LETTERS[8]; /* " PNBRQK" */

/* The rules a game is played by (Chess960 is apart: a start position, not other rules). Each
 * variant is a few rules plugged into the one move path where they differ from chess: the
 * legality filter (movegen.c), the make's side effects (pos_variant_after_make) and the game's
 * end (pos_variant_outcome). VARIANT_STANDARD is 0: the check a ply costs is one test of a byte. */
enum {
    VARIANT_STANDARD = 0,
    VARIANT_KING_OF_THE_HILL,
    VARIANT_THREE_CHECK,
    VARIANT_RACING_KINGS, /* variant_rules.c, variant_moves.c */
    VARIANT_HORDE,
    VARIANT_ANTICHESS,
    VARIANT_ATOMIC,     /* captures explode (variant_atomic.c) */
    VARIANT_CRAZYHOUSE, /* pieces taken are dropped back (variant_crazyhouse.c) */
    VARIANT_COUNT
};


#endif
