/* A tag filter: a conjunction of simple clauses on the tags with a column of their own
 * (WhiteElo >= 2400, Event starts with "Rated Blitz", ...) and on the speed the TimeControl tag
 * gives, decided when a game's tags are read, before its moves are replayed: a game that fails
 * it is neither replayed nor recorded, only counted (game.c: the scanner reads past it; the games
 * after it keep their numbers). The full --where expression is evaluated afterwards on the games
 * recorded; the filter only has to be a necessary condition of it. An absent tag, or one whose
 * value is "?", "-" or empty (or, compared as a number, not a whole number; as a date, no date),
 * fails every clause but TF_SPEED: under SQL's three-valued logic such a clause is never true. */
#ifndef PGNTOOLS_TAG_FILTER_H
#define PGNTOOLS_TAG_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* TF_SPEED: the game's speed code (SPEED_*, derived.h; 0 null) is one of the bits of `value`
 * (a mask: bit c for code c, bit 0 when the clause holds for a null speed); `tag` is unused. */
/* TF_DATE_*: a PGN date (YYYY.MM.DD, '?' for unknown digits of month or day) compared with the
 * day `text` (10 bytes) as an interval: the clause holds when it holds for every day the date can
 * be (an unknown year, or a value that is no date, is null). */
enum { TF_LT, TF_LE, TF_EQ, TF_NE, TF_GT, TF_GE, TF_PREFIX, TF_NOT_NULL, TF_SPEED,
       TF_DATE_LT, TF_DATE_LE, TF_DATE_EQ, TF_DATE_NE, TF_DATE_GT, TF_DATE_GE };

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
 * `data` (0: the game has no such tag); `speed` the game's SPEED_* code. */
bool tag_filter_pass(const TagFilter *f, const int32_t *slots, const int32_t *offsets, const char *data,
                     int speed);

#endif
