#include "batch.h"

#include "chess.h"  /* PAWN..KING */
#include "result.h" /* FIX_* */

#define AS_SIZE(id, T, fmt, name) sizeof(T),
#define AS_FORMAT(id, T, fmt, name) fmt,
#define AS_NAME(id, T, fmt, name) name,
#define AS_STRING_NAME(id, name) name,

static const size_t ITEM_SIZES[BATCH_NCOLS] = {BATCH_COLUMNS(AS_SIZE)};
static const char *const FORMATS[BATCH_NCOLS] = {BATCH_COLUMNS(AS_FORMAT)};
static const char *const NAMES[BATCH_NCOLS] = {BATCH_COLUMNS(AS_NAME)};
static const char *const STRING_NAMES[BATCH_NSTRS] = {BATCH_STRINGS(AS_STRING_NAME)};

const char *batch_column_name(int id) { return NAMES[id]; }
const char *batch_column_format(int id) { return FORMATS[id]; }
const char *batch_string_name(int id) { return STRING_NAMES[id]; }

static const BatchName STATUS_NAMES[] = {{STATUS_VALID, "valid"}, {STATUS_FIXED, "fixed"}, {STATUS_INVALID, "invalid"},
                                              {STATUS_TRUNCATED, "truncated"}};
static const BatchName OUTCOME_NAMES[] = {
    {OUTCOME_CHECKMATE, "checkmate"}, {OUTCOME_STALEMATE, "stalemate"}, {OUTCOME_INSUFFICIENT, "insufficient_material"},
    {OUTCOME_SEVENTYFIVE, "seventyfive_moves"}, {OUTCOME_FIVEFOLD, "fivefold_repetition"},
    {OUTCOME_VARIANT_WIN, "variant_win"}, {OUTCOME_VARIANT_LOSS, "variant_loss"}, {OUTCOME_VARIANT_DRAW, "variant_draw"}};
static const BatchName PIECE_NAMES[] = {{PAWN, "pawn"}, {KNIGHT, "knight"}, {BISHOP, "bishop"},
                                        {ROOK, "rook"}, {QUEEN, "queen"}, {KING, "king"}};
static const BatchName MOVE_FLAG_NAMES[] = {{MF_CAPTURE, "capture"}, {MF_CHECK, "check"}, {MF_MATE, "mate"},
                                            {MF_CASTLE, "castle"}, {MF_EN_PASSANT, "en_passant"}, {MF_NULL, "null"},
                                            {MF_DROP, "drop"}};
static const BatchName HAS_NAMES[] = {{HAS_CLOCK, "clock"}, {HAS_EMT, "emt"}, {HAS_EVAL_CP, "eval_cp"},
                                      {HAS_EVAL_MATE, "eval_mate"}, {HAS_COMMENT, "comment"}};
static const BatchName VARIANT_BATCH_NAMES[] = {
    {VARIANT_STANDARD, "standard"}, {VARIANT_KING_OF_THE_HILL, "kingofthehill"}, {VARIANT_THREE_CHECK, "3check"},
    {VARIANT_RACING_KINGS, "racingkings"}, {VARIANT_HORDE, "horde"}, {VARIANT_ANTICHESS, "antichess"},
    {VARIANT_ATOMIC, "atomic"}, {VARIANT_CRAZYHOUSE, "crazyhouse"}};
_Static_assert(sizeof VARIANT_BATCH_NAMES / sizeof *VARIANT_BATCH_NAMES == VARIANT_COUNT, "a name for each variant");
static const BatchName FIX_NAMES[] = {{FIX_RESULT_TAG, "result_tag"}, {FIX_RESULT_MARKER, "result_marker"}};

#define NAME_SET(a) {a, sizeof a / sizeof a[0]}
static const struct {
    const BatchName *names;
    size_t count;
} NAME_SETS[NAMES_COUNT] = {NAME_SET(STATUS_NAMES), NAME_SET(OUTCOME_NAMES), NAME_SET(PIECE_NAMES),
                            NAME_SET(MOVE_FLAG_NAMES), NAME_SET(HAS_NAMES), NAME_SET(FIX_NAMES),
                            NAME_SET(VARIANT_BATCH_NAMES)};

const BatchName *batch_names(int set, size_t *count)
{
    if (set < 0 || set >= NAMES_COUNT) {
        *count = 0;
        return NULL;
    }
    *count = NAME_SETS[set].count;
    return NAME_SETS[set].names;
}

bool batch_init(Batch *b)
{
    memset(b, 0, sizeof *b);
    for (int i = 0; i < BATCH_NCOLS; i++)
        b->cols[i].item = ITEM_SIZES[i];
    for (int i = 0; i < BATCH_NSTRS; i++)
        if (!strcol_init(&b->strs[i]))
            return false;
    return true;
}

bool batch_grow_move_columns(Batch *b)
{
    size_t room = 2 * (b->cols[M_PLY].len + 1);
    for (int id = M_PLY; id <= M_NAG_START; id++)
        if (!col_reserve(&b->cols[id], room - b->cols[id].len))
            return false;
    b->move_room = room;
    return true;
}

void batch_free(Batch *b)
{
    b->move_room = 0;
    for (int i = 0; i < BATCH_NCOLS; i++) {
        free(b->cols[i].data);
        b->cols[i].data = NULL;
        b->cols[i].len = b->cols[i].cap = 0;
    }
    for (int i = 0; i < BATCH_NSTRS; i++)
        strcol_free(&b->strs[i]);
}

void batch_clear(Batch *b)
{
    for (int i = 0; i < BATCH_NCOLS; i++)
        b->cols[i].len = 0;
    for (int i = 0; i < BATCH_NSTRS; i++)
        strcol_clear(&b->strs[i]);
    b->n_games = 0;
    b->failed = false;
}

/* The per-game columns a run fills only when it reads them (GameOptions.movetext_hash,
 * position_hash, counters): batch_mark counts them as filled, so that a batch ends at the same
 * game whatever the run reads (outputs cut at batches, Parquet pages, stay byte for byte). */
static const int OPTIONAL_GAME_COLUMNS[] = {G_HASHED, G_MOVETEXT_HASH, G_MOVETEXT_HASH2, G_POSITION_HASH,
                                            G_POSITION_HASH2, G_CAPTURES, G_CHECKS, G_UNDERPROMOTIONS,
                                            G_MAX_HALFMOVE_CLOCK};

size_t batch_mark(const Batch *b, BatchMark *m)
{
    size_t total = 0; /* the size in the same pass: gr_fill takes a mark before every game */
    for (int i = 0; i < BATCH_NCOLS; i++) {
        m->cols[i] = b->cols[i].len;
        total += b->cols[i].len * ITEM_SIZES[i];
    }
    for (size_t k = 0; k < sizeof OPTIONAL_GAME_COLUMNS / sizeof OPTIONAL_GAME_COLUMNS[0]; k++) {
        int id = OPTIONAL_GAME_COLUMNS[k];
        if (b->cols[id].len < b->n_games)
            total += (b->n_games - b->cols[id].len) * ITEM_SIZES[id];
    }
    for (int i = 0; i < BATCH_NSTRS; i++) {
        m->strs[i] = strcol_count(&b->strs[i]);
        total += b->strs[i].data.len + b->strs[i].offsets.len * sizeof(int32_t);
    }
    m->n_games = b->n_games;
    return total;
}

void batch_rollback(Batch *b, const BatchMark *m)
{
    for (int i = 0; i < BATCH_NCOLS; i++)
        b->cols[i].len = m->cols[i];
    for (int i = 0; i < BATCH_NSTRS; i++)
        strcol_truncate(&b->strs[i], m->strs[i]);
    b->n_games = m->n_games;
}

const void *batch_col_data(const Batch *b, int id, size_t *nbytes)
{
    *nbytes = b->cols[id].len * b->cols[id].item;
    return b->cols[id].data;
}

const int32_t *batch_str_offsets(const Batch *b, int id, size_t *count)
{
    *count = b->strs[id].offsets.len;
    return b->strs[id].offsets.data;
}

const char *batch_str_data(const Batch *b, int id, size_t *nbytes)
{
    *nbytes = b->strs[id].data.len;
    return b->strs[id].data.data;
}
