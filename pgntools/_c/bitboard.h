/* Attack tables and sliding attacks (classical ray lookup with one bit scan per direction). */
#ifndef PGNT_BITBOARD_H
#define PGNT_BITBOARD_H

#include "chess.h"

extern bb_t BB_KNIGHT[64], BB_KING[64], BB_PAWN_ATTACKS[2][64];
extern bb_t BB_BETWEEN[64][64]; /* squares strictly between two aligned squares, else 0 */
extern bb_t BB_LINE[64][64];    /* the whole line through two aligned squares, else 0 */
extern bb_t BB_RAYS[8][64];
extern bb_t BB_BISHOP_PSEUDO[64], BB_ROOK_PSEUDO[64]; /* attacks on an empty board */
/* Attacks on an empty board by piece type (KNIGHT..QUEEN; 0 for none, PAWN and KING: pawns
 * attack by color, and a king never gives check, which is what this table serves). */
extern bb_t BB_PIECE_PSEUDO[8][64];

void bb_init(void); /* idempotent; every entry point calls it */

enum { DIR_N, DIR_E, DIR_NE, DIR_NW, DIR_S, DIR_W, DIR_SW, DIR_SE };

/* Sliding attacks by "obstruction difference" (chessprogramming wiki): per line through the
 * square, the nearest blockers below and above bound the attack set, branch-free. */
typedef struct {
    bb_t lower, upper, line; /* the line's squares below / above sq, and both */
} LineMask;

extern LineMask BB_LINE_MASKS[4][64]; /* file, rank, diagonal, anti-diagonal */

static inline bb_t bb_line_attacks(bb_t occ, const LineMask *m)
{
    bb_t lower = m->lower & occ, upper = m->upper & occ;
    bb_t below = ~0ULL << (63 - __builtin_clzll(lower | 1)); /* from the nearest blocker below, up */
    bb_t nearest_above = upper & (0 - upper);
    return m->line & ((nearest_above << 1) + below);
}

/* The attacks from `sq` along its one line through `other` (aligned with it, other != sq): what
 * a slider there sees on that line, half the work of rook or bishop attacks. */
static inline bb_t bb_attacks_along(int sq, int other, bb_t occ)
{
    int df = FILE_OF(other) - FILE_OF(sq), dr = RANK_OF(other) - RANK_OF(sq);
    int l = df == 0 ? 0 : dr == 0 ? 1 : df == dr ? 2 : 3; /* file, rank, diagonal, anti-diagonal */
    return bb_line_attacks(occ, &BB_LINE_MASKS[l][sq]);
}

static inline bb_t bb_rook_attacks(int sq, bb_t occ)
{
    return bb_line_attacks(occ, &BB_LINE_MASKS[0][sq]) | bb_line_attacks(occ, &BB_LINE_MASKS[1][sq]);
}

static inline bb_t bb_bishop_attacks(int sq, bb_t occ)
{
    return bb_line_attacks(occ, &BB_LINE_MASKS[2][sq]) | bb_line_attacks(occ, &BB_LINE_MASKS[3][sq]);
}

#endif
