/* Opening classification: the positions the Lichess chess-openings table names (ECO code and
 * name), in a hash table built once from the table's move lines, looked up after each of a
 * game's first OPENING_MAX_PLY mainline plies. Matched by position (EPD without counters: the
 * en-passant square only when a capture is legal), so transpositions are found; keyed by a hash
 * of our own over the bitboards (not the Zobrist key, whose numbers may change) and verified
 * against the whole position, so a collision cannot name the wrong opening. */
#ifndef PGNT_OPENINGS_H
#define PGNT_OPENINGS_H

#include "position.h"

enum { OPENING_MAX_PLY = 40 }; /* the table's own advice: the deepest named position in 40 plies */

/* Per-game opening state (the batch's `opening` column): bit OPENING_NAMED is the has bit of the
 * opening columns. 0: not classified (not asked). */
enum { OPENING_NAMED = 1, OPENING_UNNAMED = 2, OPENING_CUSTOM_START = 4 };

/* What validate -o does with the ECO and Opening tags. */
enum { OPENING_TAGS_NONE, OPENING_TAGS_MISSING, OPENING_TAGS_OVERWRITE };

typedef struct OpeningTable OpeningTable;

/* The first member of an OpeningTable: a bit per key of the table (bit key >> 47), asked inline
 * after every ply; most plies of a game (out of the book) end here, in 16 KB. */
enum { OPENING_FILTER_BITS = 1 << 17 };
typedef struct {
    uint64_t bits[OPENING_FILTER_BITS / 64];
} OpeningFilter;

/* The key of a position: the colours' squares, the pawns and the side to move (the rest of the
 * position is compared on a match; positions of the table that differ only there are few). */
static inline uint64_t openings_key(const Position *p)
{
    uint64_t h = (p->by_color[WHITE] ^ 0x6f70656e696e6773ULL) * 0x9E3779B97F4A7C15ULL;
    h = (h ^ (h >> 31) ^ p->by_color[BLACK]) * 0xBF58476D1CE4E5B9ULL;
    h = (h ^ (h >> 29) ^ p->by_type[PAWN]) * 0x94D049BB133111EBULL;
    return h ^ (h >> 32) ^ (uint64_t)p->turn;
}

/* False when the table surely names no position of this key. */
static inline bool openings_may_name(const OpeningTable *t, uint64_t key)
{
    const OpeningFilter *f = (const OpeningFilter *)(const void *)t;
    return f->bits[key >> 53] >> ((key >> 47) & 63) & 1;
}

/* The table from TSV text (lines "eco<TAB>name<TAB>pgn"; lines starting "eco<TAB>" are headers):
 * each line's moves replayed from the standard start, its final position entered. NULL on a bad
 * line or no memory, with the reason in err. */
OpeningTable *openings_build(const char *text, size_t len, char *err, size_t err_len);
void openings_free(OpeningTable *t);
size_t openings_count(const OpeningTable *t);
/* The row naming position p (of key openings_key(p)), or -1. */
int openings_find(const OpeningTable *t, const Position *p, uint64_t key);
/* Whether p is the standard start position (castling rights and all; the counters aside). */
bool openings_is_start(const Position *p);
void openings_row(const OpeningTable *t, int row, const char **eco, size_t *eco_len, const char **name,
                  size_t *name_len);

#endif
