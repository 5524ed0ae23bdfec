/* Zobrist keys from a fixed splitmix64 sequence: stable across runs and platforms. */
#include "position.h"

uint64_t ZOBRIST_PIECE[16][64], ZOBRIST_CASTLE[64], ZOBRIST_EP[8], ZOBRIST_TURN;

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
    uint64_t state = 0x70676e746f6f6c73ULL; /* "pgntools" */
    for (int pc = 0; pc < 16; pc++)
        for (int sq = 0; sq < 64; sq++)
            ZOBRIST_PIECE[pc][sq] = splitmix64(&state);
    for (int sq = 0; sq < 64; sq++)
        ZOBRIST_CASTLE[sq] = splitmix64(&state);
    for (int f = 0; f < 8; f++)
        ZOBRIST_EP[f] = splitmix64(&state);
    ZOBRIST_TURN = splitmix64(&state);
    done = true;
}
