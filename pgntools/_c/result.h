/* Game results: the termination marker, the Result tag and the final position must agree. */
#ifndef PGNT_RESULT_H
#define PGNT_RESULT_H

#include "chess.h"
#include "tokenizer.h" /* RESULT_* */

enum { FIX_RESULT_TAG = 1, FIX_RESULT_MARKER = 2 };

typedef struct {
    int result;       /* the one right value (RESULT_*) */
    uint8_t fixes;    /* FIX_* applied to reach it */
    int error;        /* 0, or ERR_RESULT_MISMATCH / ERR_RESULT_CONTRADICTS_POSITION (game.h) */
    int32_t detail;   /* tag | marker << 4 | by_position << 8, for the message */
    bool missing_tag; /* no Result tag: filled in, noted */
} ResultCheck;

const char *result_string(int result); /* "", "1-0", "0-1", "1/2-1/2", "*" */
int result_parse(const char *s, size_t n); /* a tag value; anything else is RESULT_UNKNOWN */
/* What the final position decides: the mating side wins; any other automatic end is a draw. */
int result_of_outcome(int outcome, int side_to_move);
/* Checks tag, marker (RESULT_NONE when absent) and the position's verdict (RESULT_NONE when it
 * decides nothing). A game that is already invalid keeps what was read. */
void result_check(int tag, int marker, int by_position, bool fix, bool already_invalid, ResultCheck *out);

#endif
