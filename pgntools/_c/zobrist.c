/* Zobrist keys: the Polyglot book format's published numbers (polyglot_random.c) laid out by our
 * piece codes and castling sides, so that a position's key is its Polyglot key (pos_key). */
#include "polyglot_random.h"
#include "position.h"

uint64_t ZOBRIST_PIECE[16][64], ZOBRIST_CASTLE[2][2], ZOBRIST_EP[8], ZOBRIST_TURN;
uint64_t ZOBRIST_CHECKS[2][16];

/* splitmix64: the three-check keys, which Polyglot has none of (any fixed random numbers do) */
static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

void zobrist_init(void)
{
    static bool done = false;
    if (done)
        return;
    for (int color = WHITE; color <= BLACK; color++)
        for (int type = PAWN; type <= KING; type++) {
            int kind = 2 * (type - PAWN) + (color == WHITE); /* Polyglot: black pawn 0, white pawn 1, ... */
            for (int sq = 0; sq < 64; sq++)
                ZOBRIST_PIECE[PIECE(color, type)][sq] = POLYGLOT_RANDOM[64 * kind + sq];
        }
    /* by side, not by rook square: a Chess960 right is its side's key (as python-chess hashes it) */
    for (int color = WHITE; color <= BLACK; color++)
        for (int side = 0; side < 2; side++)
            ZOBRIST_CASTLE[color][side] = POLYGLOT_RANDOM[POLYGLOT_CASTLE + 2 * color + side];
    for (int f = 0; f < 8; f++)
        ZOBRIST_EP[f] = POLYGLOT_RANDOM[POLYGLOT_EP + f];
    ZOBRIST_TURN = POLYGLOT_RANDOM[POLYGLOT_TURN];
    uint64_t state = 3;
    for (int color = WHITE; color <= BLACK; color++)
        for (int left = 0; left < 16; left++)
            ZOBRIST_CHECKS[color][left] = splitmix64(&state);
    done = true;
}
