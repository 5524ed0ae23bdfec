/* A tag filter: a --where condition on a game's tags (or the part of one the reader can decide
 * there), decided when the game's tags are read, before its moves are replayed: a game for which
 * it cannot be true is neither replayed nor recorded, only counted (game.c: the scanner reads
 * past it; the games after it keep their numbers). pgntools.where.prefilter makes it.
 *
 * It is a small program in postfix order: leaves (a condition on one tag's value, on the speed
 * the TimeControl tag gives, a constant) and NOT / AND / OR over the values before, in SQL's
 * three-valued logic (an absent tag, or one whose value is "?", "-" or empty, is null; so is a
 * number that is not a whole number, a date of unknown year). Each value is the SET of truth
 * values the condition can have for the game (a TRUTH_* mask): a leaf the reader decides is one
 * of them; TF_UNKNOWN (a condition on the replay, or one not decided here) is all three. A game
 * passes when the whole condition can be TRUE: so a program without TF_UNKNOWN decides exactly
 * (a game passes when the condition is true), and one with it is a necessary condition (it only
 * drops games the condition drops; the condition is evaluated afterwards on the games kept). */
#ifndef PGNTOOLS_TAG_FILTER_H
#define PGNTOOLS_TAG_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { TRUTH_FALSE = 1, TRUTH_NULL = 2, TRUTH_TRUE = 4, TRUTH_ANY = 7 };

enum {
    /* leaves: a condition on the value of one tag (`tag`, or the tag named `name`), read as `kind` */
    TF_LT, TF_LE, TF_EQ, TF_NE, TF_GT, TF_GE, /* compared with `value` (TV_NUMBER) or `text` (a day for TV_DATE) */
    TF_IN,       /* one of n_items items: `numbers` (TV_NUMBER), else `text` cut at `item_ends`; both sorted */
    TF_LIKE,     /* matches the LIKE pattern `text`: % any text, _ one character, \ before %, _ or \ that one */
    TF_ILIKE,    /* the same, ignoring case as Arrow's RE2 does (the pattern is ASCII: k and s also match
                  * U+212A and U+017F, their only other case forms) */
    TF_IS_NULL, TF_NOT_NULL,
    TF_SPEED,    /* the game's speed code c (SPEED_*, speed.h; 0 null): true when bit c of true_mask is
                  * set, null when bit c of null_mask, else false; `tag` unused */
    TF_CONST,    /* the truth set `truth` */
    TF_UNKNOWN,  /* not decided here: any truth value */
    /* operators on the one (NOT) or two values before */
    TF_NOT, TF_AND, TF_OR,
    TF_OP_COUNT
};

/* How a leaf reads its tag's value (and when it is null). */
enum {
    TV_STRING,      /* the bytes (UTF-8); null: absent, empty, "?" or "-" */
    TV_DATE_STRING, /* the same, and null when it starts with "????" (a date column as a string) */
    TV_NUMBER,      /* a whole number of 1 to 9 digits, else null */
    TV_DATE,        /* a PGN date (YYYY.MM.DD, ?? for an unknown month or day) as the interval of the
                     * days it can be: a comparison is true when it holds for every day, false when
                     * for none, else null; no date or an unknown year is null */
    TV_YEAR,        /* the year of the date tag `tag`, else of the date tag `tag2` (pgn_year_date: the
                     * games table's year column), compared as a number; null when unknown */
    TV_MONTH,       /* the month of that date (the month column); null when it or the year is unknown */
    TV_KIND_COUNT
};

typedef struct {
    int op;                /* TF_* */
    int tag;               /* the tag column (game_tag_column_name), or -1: the tag named `name` */
    int tag2;              /* TV_YEAR, TV_MONTH: the second date tag's column */
    int kind;              /* TV_* */
    double value;          /* TV_NUMBER comparisons */
    uint32_t true_mask, null_mask; /* TF_SPEED */
    int truth;             /* TF_CONST */
    const char *text;      /* the string, day, LIKE pattern or (TF_IN) the items one after another */
    size_t len;
    const char *name;      /* tag == -1: the tag's name */
    size_t name_len;
    const int32_t *item_ends; /* TF_IN strings: where each item of `text` ends */
    const double *numbers;    /* TF_IN numbers */
    size_t n_items;
} TagClause;

typedef struct {
    size_t n;
    const TagClause *clauses; /* in postfix order: the last one's value is the condition's */
    uint8_t *stack;           /* room for the values (as many as the program's depth), the caller's */
} TagFilter;

/* One game's tags, as the batch holds them. */
typedef struct {
    const int32_t *slots;         /* slots[i]: 1 + the row of tag column i's value (0: no such tag) */
    const int32_t *value_offsets; /* the batch's tag values and names, row by row */
    const char *values;
    const int32_t *name_offsets;
    const char *names;
    size_t first, end;            /* the game's tag rows */
    int speed;                    /* its SPEED_* code */
} TagView;

/* Whether the condition can be true for the game (see above). */
bool tag_filter_pass(const TagFilter *f, const TagView *game);

/* Whether `pattern` (TF_LIKE's form) matches s; with fold, ASCII letters ignore case as TF_ILIKE. */
bool tag_like_match(const char *pattern, size_t plen, const char *s, size_t n, bool fold);

#endif
