/* Attack tables and sliding attacks (classical ray lookup with one bit scan per direction). */
#ifndef PGNT_BITBOARD_H
#define PGNT_BITBOARD_H

#include "chess.h"

extern bb_t BB_KNIGHT[64], BB_KING[64], BB_PAWN_ATTACKS[2][64];
extern bb_t BB_BETWEEN[64][64]; /* squares strictly between two aligned squares, else 0 */
extern bb_t BB_LINE[64][64];    /* the whole line through two aligned squares, else 0 */
extern bb_t BB_RAYS[8][64];
extern bb_t BB_BISHOP_PSEUDO[64], BB_ROOK_PSEUDO[64]; /* attacks on an empty board */

void bb_init(void); /* idempotent; every entry point calls it */

enum { DIR_N, DIR_E, DIR_NE, DIR_NW, DIR_S, DIR_W, DIR_SW, DIR_SE };

static inline bb_t bb_ray(int dir, int sq, bb_t occ)
{
    bb_t ray = BB_RAYS[dir][sq];
    bb_t blockers = ray & occ;
    if (blockers)
        ray ^= BB_RAYS[dir][dir < DIR_S ? bb_lsb(blockers) : bb_msb(blockers)];
    return ray;
}

static inline bb_t bb_rook_attacks(int sq, bb_t occ)
{
    return bb_ray(DIR_N, sq, occ) | bb_ray(DIR_E, sq, occ) | bb_ray(DIR_S, sq, occ) | bb_ray(DIR_W, sq, occ);
}

static inline bb_t bb_bishop_attacks(int sq, bb_t occ)
{
    return bb_ray(DIR_NE, sq, occ) | bb_ray(DIR_NW, sq, occ) | bb_ray(DIR_SE, sq, occ) | bb_ray(DIR_SW, sq, occ);
}

#endif
