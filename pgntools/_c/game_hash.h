/* The 128-bit keys of a game for --dedup and the movetext_hash column: of its mainline (the
 * start position and the moves as played, so Nf3 and Ng1f3 are one move, and comments, NAGs,
 * variations and move numbers do not count) and of its final position. Two independent 64-bit
 * lanes; movetext_hash is lane 0 of the mainline key. */
#ifndef PGNT_GAME_HASH_H
#define PGNT_GAME_HASH_H

#include "position.h"

/* SplitMix64's finaliser (a bijection): every input bit reaches every output bit. */
static inline uint64_t gh_mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}
/* A second finaliser (Moremur's constants), so that the lanes do not collide together. */
static inline uint64_t gh_mix2(uint64_t z)
{
    z = (z ^ (z >> 27)) * 0x3C79AC492BA7B653ULL;
    z = (z ^ (z >> 33)) * 0x1C69B3F74AC4AE35ULL;
    return z ^ (z >> 27);
}

/* The position as a key: pieces, side to move, castling rights, en passant when a legal capture
 * exists (what a repetition compares; not the clocks). Lane 0 from the Zobrist key, lane 1 from
 * the bitboards themselves. */
static inline void gh_position(const Position *p, uint64_t key[2])
{
    uint64_t h = 0x9E3779B97F4A7C15ULL;
    for (int t = PAWN; t <= KING; t++)
        h = gh_mix2(h ^ p->by_type[t]) + (uint64_t)t;
    h = gh_mix2(h ^ p->by_color[WHITE]);
    uint64_t state = (uint64_t)p->turn | (uint64_t)p->castle[0][0] << 8 | (uint64_t)p->castle[0][1] << 16 |
                     (uint64_t)p->castle[1][0] << 24 | (uint64_t)p->castle[1][1] << 32 |
                     (uint64_t)(p->ep_hashed ? p->ep : NO_SQ) << 40;
    key[0] = gh_mix(p->hash ^ 0x5DEECE66DULL);
    key[1] = gh_mix2(h ^ state);
}

/* The mainline key before the first move: the start position's, and whether it is Chess960. */
static inline void gh_start(const Position *p, bool chess960, uint64_t key[2])
{
    gh_position(p, key);
    key[0] = gh_mix(key[0] + (chess960 ? 0x960ULL : 1));
    key[1] = gh_mix2(key[1] + (chess960 ? 0x960ULL : 1));
}

/* One more mainline move (MOVE_NONE: a null move): a bijection of the key per lane, so two
 * mainlines that differ in one move never meet. */
static inline void gh_move(uint64_t key[2], move_t m)
{
    key[0] = gh_mix(key[0] ^ ((uint64_t)m + 0x100000001B3ULL));
    key[1] = gh_mix2(key[1] + ((uint64_t)m << 17) + 0x2545F4914F6CDD1DULL);
}

/* The finished key: the number of moves in too. */
static inline void gh_finish(uint64_t key[2], int plies)
{
    key[0] = gh_mix(key[0] ^ (uint64_t)plies);
    key[1] = gh_mix2(key[1] + (uint64_t)plies);
}

#endif
