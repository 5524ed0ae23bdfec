/* The positions dataset's rows (export --positions, pgntools.positions): of each valid or fixed
 * game, the mainline positions a move was played from (within --min-ply/--max-ply; at most
 * --sample-plies of them, chosen by the seed and the game's id alone), each with the move, the
 * game's result from the side to move's view, ratings, speed, the mover's clock, the position's
 * evaluation, the opening and, when asked, its bitboards. A row is made at the game's end, when
 * all of that is known: the replay keeps a copy of each mainline position until then. */
#ifndef PGNT_POSITIONS_DATASET_H
#define PGNT_POSITIONS_DATASET_H

#include <stdbool.h>
#include <stdint.h>

typedef struct {
    int sample_plies;     /* at most this many rows a game (0: every eligible position) */
    int min_ply, max_ply; /* the rows' plies (plies played to reach the position); max_ply < 0: none */
    uint64_t seed;        /* --seed: which plies a sample takes, with the game's id */
    bool planes;          /* the twelve bitboards, side to move, castling rights, en-passant file */
} PositionRowOptions;

/* Bits of the P_HAS column: which of a row's values are set (the others are null). */
enum {
    PH_RESULT = 1,
    PH_WHITE_ELO = 2,
    PH_BLACK_ELO = 4,
    PH_CLOCK = 8,
    PH_EVAL_CP = 16,
    PH_EVAL_MATE = 32,
    PH_EP_FILE = 64,
    PH_ECO = 128,
};

/* The random number a sample of game `game_id` starts from (SplitMix64, as --sample mixes ids). */
uint64_t positions_dataset_mix(uint64_t game_id, uint64_t seed);

#endif
