#include <string.h>

#include "batch.h"
#include "game.h"
#include "result.h"

const char *result_string(int result)
{
    static const char *const names[] = {"", "1-0", "0-1", "1/2-1/2", "*"};
    return result >= 0 && result <= RESULT_UNKNOWN ? names[result] : "*";
}

int result_parse(const char *s, size_t n)
{
    for (int r = RESULT_WHITE; r <= RESULT_DRAW; r++)
        if (strlen(result_string(r)) == n && memcmp(s, result_string(r), n) == 0)
            return r;
    return RESULT_UNKNOWN;
}

int result_of_outcome(int outcome, int side_to_move)
{
    if (outcome == OUTCOME_CHECKMATE || outcome == OUTCOME_VARIANT_LOSS)
        return side_to_move == WHITE ? RESULT_BLACK : RESULT_WHITE;
    if (outcome == OUTCOME_VARIANT_WIN)
        return side_to_move == WHITE ? RESULT_WHITE : RESULT_BLACK;
    return outcome ? RESULT_DRAW : RESULT_NONE;
}

static bool decided(int result) { return result == RESULT_WHITE || result == RESULT_BLACK || result == RESULT_DRAW; }

void result_check(int tag, int marker, int by_position, bool fix, bool already_invalid, ResultCheck *out)
{
    memset(out, 0, sizeof *out);
    out->detail = tag | marker << 4 | by_position << 8;
    if (already_invalid) {
        out->result = decided(tag) ? tag : decided(marker) ? marker : RESULT_UNKNOWN;
        return;
    }
    bool needs_fix;
    if (by_position) {
        out->result = by_position;
        bool contradiction = (decided(tag) && tag != by_position) || (decided(marker) && marker != by_position);
        if (contradiction && !fix) {
            out->error = ERR_RESULT_CONTRADICTS_POSITION;
            return;
        }
    } else {
        if (decided(tag) && decided(marker) && tag != marker) { /* nothing decides between them */
            out->result = tag;
            out->error = ERR_RESULT_MISMATCH;
            return;
        }
        out->result = decided(tag) ? tag : decided(marker) ? marker : RESULT_UNKNOWN;
    }
    needs_fix = (tag != RESULT_NONE && tag != out->result) || marker != out->result;
    if (needs_fix && !fix) {
        out->error = ERR_RESULT_MISMATCH;
        return;
    }
    if (tag != RESULT_NONE && tag != out->result)
        out->fixes |= FIX_RESULT_TAG;
    if (marker != out->result)
        out->fixes |= FIX_RESULT_MARKER;
    out->missing_tag = tag == RESULT_NONE;
}
