/* A tag filter: a conjunction of simple clauses on the tags with a column of their own
 * (WhiteElo >= 2400, Event starts with "Rated Blitz", ...), decided when a game's tags are read,
 * before its moves are replayed: a game that fails it is not replayed (the scanner still reads
 * it and it is still recorded, so games keep their numbers). The full --where expression is
 * evaluated afterwards; the filter only has to be a necessary condition of it. An absent tag, or
 * one whose value is "?", "-" or empty (or, compared as a number, not a whole number), fails
 * every clause: under SQL's three-valued logic such a clause is never true. */
#ifndef PGNTOOLS_TAG_FILTER_H
#define PGNTOOLS_TAG_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { TF_LT, TF_LE, TF_EQ, TF_NE, TF_GT, TF_GE, TF_PREFIX, TF_NOT_NULL };

typedef struct {
    int tag;           /* the tag column (game_tag_column_name) */
    int op;            /* TF_* */
    bool number;       /* compare as a whole number (digits only, at most 9) with `value` */
    double value;
    const char *text;  /* else compare the bytes with these (UTF-8) */
    size_t len;
} TagClause;

typedef struct {
    size_t n;
    const TagClause *clauses;
} TagFilter;

/* Whether every clause holds; `slots[i]` is 1 + the row of tag column i's value in `offsets` /
 * `data` (0: the game has no such tag). */
bool tag_filter_pass(const TagFilter *f, const int32_t *slots, const int32_t *offsets, const char *data);

#endif
