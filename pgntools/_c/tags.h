/* The tag section of a game: tag rows, the tag columns, the Result/FEN/SetUp/Variant tags. */
#ifndef PGNT_TAGS_H
#define PGNT_TAGS_H

#include "game_reader.h"

/* Whether this game already has a tag of that name. */
bool tags_has(GameReader *r, const Game *g, const char *name, size_t n);
/* Records a tag token; `duplicate`: tags_has said the game has that name already. */
void tags_read(GameReader *r, Game *g, const Token *t, bool duplicate);
/* The value of a tag token: as read, or for a tag line without one ([Round]) the value it is
 * read as (the roster's "?", see tags.c); *len its length. */
const char *tags_value(const GameReader *r, const Token *t, size_t *len);
/* Whether a repeated tag (`duplicate`) begins the next game (see tags.c). */
bool tags_start_next_game(GameReader *r, const Token *t, bool duplicate, bool after_gap);

#endif
