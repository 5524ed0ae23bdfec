/* The replay of a game: its start position, the movetext tokens (moves, comments, NAGs,
 * variations) against the rules core, the automatic ends and the result checks. */
#ifndef PGNT_REPLAY_H
#define PGNT_REPLAY_H

#include "game_reader.h"

/* The start position (standard, FEN tag, Variant); first_move_token locates its errors. */
void replay_start(GameReader *r, Game *g, const Token *first_move_token);
void replay_move(GameReader *r, Game *g, const Token *t);
void replay_comment(GameReader *r, Game *g, const Token *t);
/* Whether replay_comment has anything to do under these options: comments feed the move table
 * (and its clock rows), the counters' has_clock / has_eval and the PGN written. validate reads
 * none of them, and its reader makes no call per comment (one a ply on a Lichess export). */
static inline bool replay_reads_comments(const GameOptions *o)
{
    return o->moves || o->clock_rows || o->counters || o->pgn;
}
void replay_nag(GameReader *r, Game *g, const Token *t);
void replay_open_variation(GameReader *r, Game *g, const Token *t);
void replay_close_variation(GameReader *r, Game *g, const Token *t);
/* At the game's end: closes the last move row, then the automatic end the final position
 * reached, the result checks and the draw claims. */
void replay_finish(GameReader *r, Game *g);

#endif
