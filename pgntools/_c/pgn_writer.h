/* The PGN standard's export format: tag section in order, movetext wrapped under 80 columns. */
#ifndef PGNT_PGN_WRITER_H
#define PGNT_PGN_WRITER_H

#include "buffers.h"

#define PGN_MAX_LINE 79

/* Movetext emitter: units (a move, a number, a comment word, a NAG) are separated by one space
 * and wrapped; '(' sticks to the next unit, ')' and '}' to the previous one. */
typedef struct {
    ByteVec *out;
    ByteVec unit;   /* the unit being built, written when the next one starts */
    int col;
    int open_parens; /* '(' waiting for the next unit */
    bool failed;
} Emitter;

void em_init(Emitter *e, ByteVec *out);
void em_free(Emitter *e);
void em_reset(Emitter *e, ByteVec *out);
void em_unit(Emitter *e, const char *s, size_t n);     /* starts a new unit */
void em_append(Emitter *e, const char *s, size_t n);   /* extends the current unit */
void em_move_number(Emitter *e, uint32_t fullmove, bool black);
void em_comment(Emitter *e, const char *s, size_t n, bool latin1);
void em_nag(Emitter *e, int nag);
void em_open_variation(Emitter *e);
void em_close_variation(Emitter *e);
void em_finish(Emitter *e);                             /* writes the last unit */

/* Appends text, transcoding Windows-1252 (Latin-1) to UTF-8 when asked. */
bool bytes_add_text(ByteVec *v, const char *s, size_t n, bool latin1);
/* Appends a tag value with \ and " escaped. */
bool bytes_add_escaped(ByteVec *v, const char *s, size_t n);

/* A tag the writer adds to the game's own (validate --classify's ECO and Opening): kept out when
 * the game has a tag of that name, unless `replace` (then it takes the place of the game's). */
typedef struct {
    const char *name, *value;
    size_t name_len, value_len;
    bool replace;
} PgnTag;

/* Appends a whole game in the export format: its tag section, then the movetext. `extra`: tags
 * to add, sorted by name (n_extra of them; not in the reduced format). */
bool pgn_write_game(ByteVec *out, const StrCol *names, const StrCol *values, size_t first, size_t count,
                    const char *result, bool add_setup, bool reduced, const ByteVec *movetext,
                    const PgnTag *extra, size_t n_extra);

#endif
