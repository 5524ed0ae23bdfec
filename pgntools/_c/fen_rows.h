/* to-fen's rows of one batch (game_id, ply, san, fen; schema.POSITION_COLUMNS): the final
 * position of each game, or the start and the position after each mainline ply (only the plies
 * asked for), of the games kept (replayed; not invalid unless asked). Two passes: the sizes, so
 * the caller allocates each column once, then the columns themselves. */
#ifndef PGNT_FEN_ROWS_H
#define PGNT_FEN_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A string column of the batch: offsets (count + 1 of them), data */
typedef struct {
    const int32_t *offsets;
    const char *data;
} FenStrings;

typedef struct {
    size_t n_games, n_moves;
    const uint8_t *status, *replayed;   /* per game */
    const int32_t *ply_count, *move_start;
    const int16_t *ply;                 /* per move */
    FenStrings san, fen;                /* per move (fen only when every ply was recorded) */
    FenStrings start_fen, final_fen;    /* per game (each only when recorded) */
    const int64_t *ids;                 /* the games' ids (a selection's view), or NULL: first_game + g */
    int64_t first_game;
    bool every_ply;                     /* false: the final positions */
    const int32_t *plies;               /* ascending; with n_plies 0, every ply ... */
    size_t n_plies;
    int32_t first_ply, last_ply;        /* ... of [first, last] (last -1: to the game's end) */
    bool include_invalid;
    uint8_t invalid_status;
} FenRowsInput;

typedef struct {
    size_t rows, san_bytes, fen_bytes;
} FenRowsSize;

FenRowsSize fen_rows_size(const FenRowsInput *in);

/* Fills game_id[rows], ply[rows], san/fen offsets[rows + 1] and data (sizes from fen_rows_size). */
void fen_rows_fill(const FenRowsInput *in, int64_t *game_id, int16_t *ply, int32_t *san_offsets, char *san_data,
                   int32_t *fen_offsets, char *fen_data);

#endif
