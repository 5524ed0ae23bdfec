/* A batch of game records as columns (struct of arrays), built in C and handed to Python
 * whole: numeric columns are plain arrays, string columns are Arrow-layout (offsets + data).
 * Games, tags, moves, errors and notes are separate tables linked by per-game start indexes. */
#ifndef PGNT_BATCH_H
#define PGNT_BATCH_H

#include "buffers.h"

/* X(id, C type, Python struct format, name) */
#define BATCH_COLUMNS(X)                                                                          \
    /* one row per game */                                                                        \
    X(G_OFFSET, int64_t, "q", "offset")              /* stream offset of the game's first byte */ \
    X(G_LENGTH, int64_t, "q", "length")              /* bytes up to the end of its last token */  \
    X(G_LINE, int64_t, "q", "line")                  /* 1-based line of its first byte */         \
    X(G_TAG_START, int32_t, "i", "tag_start")        /* first row in the tag table */             \
    X(G_MOVE_START, int32_t, "i", "move_start")      /* first row in the move table */            \
    X(G_ERROR_START, int32_t, "i", "error_start")                                                  \
    X(G_NOTE_START, int32_t, "i", "note_start")                                                    \
    X(G_PLY_COUNT, int32_t, "i", "ply_count")        /* mainline plies replayed */                \
    X(G_STATUS, uint8_t, "B", "status")              /* STATUS_* */                               \
    X(G_RESULT, uint8_t, "B", "result")              /* RESULT_*: the checked value */            \
    X(G_RESULT_TAG, uint8_t, "B", "result_tag")      /* RESULT_* as read (NONE: no tag) */        \
    X(G_RESULT_MARKER, uint8_t, "B", "result_marker") /* RESULT_* as read (NONE: missing) */      \
    X(G_OUTCOME, uint8_t, "B", "outcome")            /* OUTCOME_*: automatic end reached */       \
    X(G_OUTCOME_PLY, int32_t, "i", "outcome_ply")    /* the ply at which it was reached */        \
    X(G_FIXES, uint8_t, "B", "fixes")                /* FIX_* bits */                             \
    X(G_CHESS960, uint8_t, "B", "chess960")                                                        \
    X(G_VARIANT, uint8_t, "B", "variant")            /* VARIANT_* (chess.h) */                    \
    X(G_REPLAYED, uint8_t, "B", "replayed")          /* the start position was valid: replayed */ \
    X(G_AUTOMATIC_END, uint8_t, "B", "automatic_end") /* OUTCOME_*: the first automatic draw the */ \
                                                     /* mainline reached (0: none), played on or not */ \
    X(G_AUTOMATIC_END_PLY, int32_t, "i", "automatic_end_ply")                                     \
    X(G_FIX_START, int32_t, "i", "fix_start")        /* first row in the fix table */             \
    X(G_TAG_SLOTS, int32_t, "i", "tag_slots")  /* when asked, TAG_COLUMN_COUNT per game: 1 + the */ \
                                               /* tag's batch row, 0 when the game lacks it */    \
                                               /* (handed to Python tag by tag: _core.pyx) */     \
    X(G_HASHED, uint8_t, "B", "hashed")    /* 1: the mainline was replayed to its end: the keys */ \
                                           /* below hold (game_hash.h), else they are 0 */        \
    X(G_MOVETEXT_HASH, int64_t, "q", "movetext_hash")   /* the mainline key, lane 0 (its bits) */ \
    X(G_MOVETEXT_HASH2, int64_t, "q", "movetext_hash2") /* and lane 1 */                         \
    X(G_POSITION_HASH, int64_t, "q", "position_hash")   /* the final position's key, lane 0 */   \
    X(G_POSITION_HASH2, int64_t, "q", "position_hash2") /* and lane 1 */                         \
    /* one row per tag, when asked (tag_columns) */                                               \
    X(T_IN_MAP, uint8_t, "B", "tag_in_map")          /* 1: no column of its own (export's map) */ \
    /* one row per mainline ply */                                                                \
    X(M_PLY, int16_t, "h", "ply")                    /* 1-based ply in its game */                \
    X(M_FROM, uint8_t, "B", "from_square")                                                         \
    X(M_TO, uint8_t, "B", "to_square")                                                             \
    X(M_PIECE, uint8_t, "B", "piece")                /* PAWN..KING */                             \
    X(M_CAPTURED, uint8_t, "B", "captured")          /* 0 or PAWN..QUEEN */                       \
    X(M_PROMOTION, uint8_t, "B", "promotion")        /* 0 or KNIGHT..QUEEN */                     \
    X(M_FLAGS, uint8_t, "B", "flags")                /* MF_* bits */                              \
    X(M_HALFMOVE, uint16_t, "H", "halfmove_clock")   /* after the move */                         \
    X(M_HAS, uint8_t, "B", "has")                    /* HAS_* bits: which values below are set */ \
    X(M_CLOCK, double, "d", "clock")                 /* seconds, from [%clk] */                   \
    X(M_EMT, double, "d", "emt")                     /* seconds, from [%emt] */                   \
    X(M_EVAL_CP, int32_t, "i", "eval_cp")            /* centipawns, from [%eval] */               \
    X(M_EVAL_MATE, int16_t, "h", "eval_mate")        /* mate in n (signed), from [%eval #n] */    \
    X(M_NAG_START, int32_t, "i", "nag_start")        /* first row in the NAG list */              \
    X(N_NAG, uint8_t, "B", "nag")                    /* NAG values, by move */                    \
    /* one row per error */                                                                       \
    X(E_KIND, uint8_t, "B", "error_kind")                                                          \
    X(E_PLY, int32_t, "i", "error_ply")              /* 1-based, 0 when not tied to a move */     \
    X(E_OFFSET, int64_t, "q", "error_offset")                                                      \
    X(E_LINE, int64_t, "q", "error_line")                                                          \
    X(E_COLUMN, int64_t, "q", "error_column")                                                      \
    X(E_DETAIL, int32_t, "i", "error_detail")        /* kind-specific: FEN problem bits, ... */   \
    /* one row per (game, note kind) */                                                           \
    X(O_KIND, uint8_t, "B", "note_kind")                                                           \
    X(O_PLY, int32_t, "i", "note_ply")               /* first ply where it occurred */            \
    X(O_COUNT, int32_t, "i", "note_count")                                                         \
    /* one row per fix other than the result's (G_FIXES bits): a repaired tag, a cut game, ... */ \
    X(F_KIND, uint8_t, "B", "fix_kind")              /* FIXK_* (game.h) */                        \
    X(F_PLY, int32_t, "i", "fix_ply")                                                             \
    /* one row per game: the opening (openings.h) */                                              \
    X(G_OPENING, uint8_t, "B", "opening_state")      /* OPENING_* bits (0: not classified) */     \
    X(G_OPENING_PLY, int16_t, "h", "opening_ply")    /* the ply of the named position */          \
    X(G_FINAL_KEY, uint64_t, "Q", "final_key")       /* the final position's Polyglot key */       \
    /* one row per game: fields derived while it is read (mainline_facts.h) */                           \
    X(G_SPEED, uint8_t, "B", "speed")                /* SPEED_* of the TimeControl tag (0: null) */ \
    X(G_DERIVED, uint8_t, "B", "derived")            /* DERIVED_* bits: clocks, evals, reached */ \
    X(G_CAPTURES, uint8_t, "B", "captures")          /* mainline captures (en passant too) */     \
    X(G_CHECKS, int32_t, "i", "checks")              /* mainline moves giving check (mate too) */ \
    X(G_UNDERPROMOTIONS, uint8_t, "B", "underpromotions")                                           \
    X(G_MAX_HALFMOVE_CLOCK, uint16_t, "H", "max_halfmove_clock") /* the start position's too */    \
    X(G_MAX_REPETITIONS, uint16_t, "H", "max_repetitions") /* most occurrences of one position */ \
    /* one row per mainline ply, when asked (keys_every_ply): the position after the move */     \
    X(M_KEY, uint64_t, "Q", "key")                   /* its Polyglot key (pos_key) */            \
    /* the positions dataset (positions_dataset.h): per game its first row (always), then one row a */ \
    /* position, when asked; the planes only with planes */                                       \
    X(G_POSITION_START, int32_t, "i", "position_start")                                           \
    X(P_PLY, int16_t, "h", "position_ply")           /* plies played to reach the position */     \
    X(P_KEY, uint64_t, "Q", "position_key")          /* its Polyglot key */                       \
    X(P_HAS, uint8_t, "B", "position_has")           /* PH_* bits: which values are set */        \
    X(P_RESULT, double, "d", "position_result")      /* 1, 0.5, 0: the side to move's score */    \
    X(P_WHITE_ELO, int32_t, "i", "position_white_elo")                                            \
    X(P_BLACK_ELO, int32_t, "i", "position_black_elo")                                            \
    X(P_SPEED, uint8_t, "B", "position_speed")       /* SPEED_* (0: null) */                      \
    X(P_CLOCK, double, "d", "position_clock")        /* the mover's clock, seconds */             \
    X(P_EVAL_CP, int32_t, "i", "position_eval_cp")                                                \
    X(P_EVAL_MATE, int16_t, "h", "position_eval_mate")                                            \
    X(P_WHITE_PAWNS, uint64_t, "Q", "position_white_pawns") /* bitboards: a1 = bit 0 */           \
    X(P_WHITE_KNIGHTS, uint64_t, "Q", "position_white_knights")                                   \
    X(P_WHITE_BISHOPS, uint64_t, "Q", "position_white_bishops")                                   \
    X(P_WHITE_ROOKS, uint64_t, "Q", "position_white_rooks")                                       \
    X(P_WHITE_QUEENS, uint64_t, "Q", "position_white_queens")                                     \
    X(P_WHITE_KINGS, uint64_t, "Q", "position_white_kings")                                       \
    X(P_BLACK_PAWNS, uint64_t, "Q", "position_black_pawns")                                       \
    X(P_BLACK_KNIGHTS, uint64_t, "Q", "position_black_knights")                                   \
    X(P_BLACK_BISHOPS, uint64_t, "Q", "position_black_bishops")                                   \
    X(P_BLACK_ROOKS, uint64_t, "Q", "position_black_rooks")                                       \
    X(P_BLACK_QUEENS, uint64_t, "Q", "position_black_queens")                                     \
    X(P_BLACK_KINGS, uint64_t, "Q", "position_black_kings")                                       \
    X(P_TURN, uint8_t, "B", "position_turn")         /* 1: White to move */                       \
    X(P_CASTLING, uint8_t, "B", "position_castling") /* bits: K 1, Q 2, k 4, q 8 */               \
    X(P_EP_FILE, uint8_t, "B", "position_ep_file")   /* 0..7 when PH_EP_FILE */                 \
    /* one row per game: the mainline's first move (pgntools stats' first moves, stats.c) */    \
    X(G_FIRST_MOVE, uint16_t, "H", "first_move")     /* from | to << 6 | piece << 12; 0: none, */ \
                                                     /* 0xFFFF: a null move */                     \
    X(G_CLOCK_START, int32_t, "i", "clock_start")    /* first row in the clock table */           \
    /* one row per mainline [%clk], when asked (clock_rows: stats' clock usage, no move table) */ \
    X(K_PLY, int16_t, "h", "clock_ply")              /* the ply of the move it follows */         \
    X(K_CLOCK, double, "d", "clock_seconds")                                                      \
    /* one row per game, when a tag filter decided (tag_filter.h) */                              \
    X(G_GAME_NUMBER, int64_t, "q", "game_number") /* the game's number in the stream (the games */ \
                                                  /* the filter drops leave gaps) */

#define BATCH_STRINGS(X)                                      \
    X(S_TAG_NAME, "tag_name")                                 \
    X(S_TAG_VALUE, "tag_value")                               \
    X(S_SAN, "san")                                           \
    X(S_UCI, "uci")                                           \
    X(S_COMMENT, "comment")      /* per move, when asked */    \
    X(S_FEN, "fen")              /* per move, when asked */    \
    X(S_START_FEN, "start_fen")  /* per game: the start position (the FEN tag when invalid) */                \
    X(S_FINAL_FEN, "final_fen")  /* per game, when asked */    \
    X(S_PGN, "pgn")              /* per game, when asked */    \
    X(S_RAW, "raw")              /* invalid games' input bytes, when asked */ \
    X(S_ERROR_TOKEN, "error_token")                           \
    X(S_NOTE_TOKEN, "note_token")                             \
    X(S_FIX_FIELD, "fix_field")  /* per fix: the tag, FEN field or rule it concerns */ \
    X(S_FIX_FROM, "fix_from")    /* per fix: the text as read */                       \
    X(S_FIX_TO, "fix_to")        /* per fix: what was made of it */ \
    X(S_OPENING_ECO, "opening_eco")   /* per game: the table's ECO code ("" when none) */ \
    X(S_OPENING_NAME, "opening_name") /* per game: the table's name ("" when none) */ \
    X(S_P_FEN, "position_fen")        /* per dataset position (positions_dataset.h) */    \
    X(S_P_UCI, "position_uci")        /* the move played from it */                   \
    X(S_P_SAN, "position_san")                                                        \
    X(S_P_ECO, "position_eco")        /* the game's opening_eco ("" when none) */

#define AS_ENUM(id, ...) id,
enum { BATCH_COLUMNS(AS_ENUM) BATCH_NCOLS };
enum { BATCH_STRINGS(AS_ENUM) BATCH_NSTRS };

typedef struct {
    void *data;
    size_t len, cap, item;
} Column;

typedef struct {
    Column cols[BATCH_NCOLS];
    StrCol strs[BATCH_NSTRS];
    size_t n_games;
    size_t move_room; /* every move column (M_PLY .. M_NAG_START) has room for this many rows */
    bool failed;      /* an allocation failed: the batch is unusable */
} Batch;

/* Lengths of every column at one moment: a game is rolled back to its mark when the buffer
 * ends inside it. */
typedef struct {
    size_t cols[BATCH_NCOLS];
    size_t strs[BATCH_NSTRS];
    size_t n_games;
} BatchMark;

enum { STATUS_VALID = 0, STATUS_FIXED = 1, STATUS_INVALID = 2, STATUS_TRUNCATED = 3 }; /* 3: --repair truncate */
enum { OUTCOME_NONE = 0, OUTCOME_CHECKMATE, OUTCOME_STALEMATE, OUTCOME_INSUFFICIENT, OUTCOME_SEVENTYFIVE, OUTCOME_FIVEFOLD,
       /* a variant's own end (position.h's VARIANT_END_*), for the side to move */
       OUTCOME_VARIANT_WIN, OUTCOME_VARIANT_LOSS, OUTCOME_VARIANT_DRAW, OUTCOME_COUNT };

enum { MF_CAPTURE = 1, MF_CHECK = 2, MF_MATE = 4, MF_CASTLE = 8, MF_EN_PASSANT = 16, MF_NULL = 32, MF_DROP = 64 };
enum { HAS_CLOCK = 1, HAS_EMT = 2, HAS_EVAL_CP = 4, HAS_EVAL_MATE = 8, HAS_COMMENT = 16 };

/* The names of the codes and bits of the batch columns, for the Python side (its tables and
 * records name them from here): STATUS_*, OUTCOME_* (but NONE), the piece types, MF_*, HAS_*
 * and FIX_* (result.h). */
typedef struct {
    int value;
    const char *name;
} BatchName;
enum { NAMES_STATUS, NAMES_OUTCOME, NAMES_PIECE, NAMES_MOVE_FLAG, NAMES_HAS, NAMES_FIX, NAMES_VARIANT, NAMES_COUNT };
const BatchName *batch_names(int set, size_t *count);

bool batch_init(Batch *b);
/* Room for one more row in every move column (one check a row instead of one a column): the
 * row's pushes, and the annotations finish_pending pushes for it later, may use COL_PUT. */
bool batch_grow_move_columns(Batch *b);
static inline bool batch_reserve_move_row(Batch *b)
{
    return b->cols[M_PLY].len < b->move_room || batch_grow_move_columns(b);
}
void batch_free(Batch *b);
void batch_clear(Batch *b);
/* Takes the mark; returns the bytes the batch's columns hold (what handing it to Python copies). */
size_t batch_mark(const Batch *b, BatchMark *m);
void batch_rollback(Batch *b, const BatchMark *m);
const char *batch_column_name(int id);
const char *batch_column_format(int id);
const char *batch_string_name(int id);
/* Raw views for the Python boundary. */
const void *batch_col_data(const Batch *b, int id, size_t *nbytes);
const int32_t *batch_str_offsets(const Batch *b, int id, size_t *count);
const char *batch_str_data(const Batch *b, int id, size_t *nbytes);

static inline bool col_reserve(Column *c, size_t extra)
{
    return vec_reserve_raw(&c->data, &c->cap, c->len, extra, c->item);
}

/* Typed push: COL_PUSH(batch, id, type, value). Sets batch->failed on allocation failure. */
#define COL_PUSH(b, id, T, v)                                   \
    do {                                                        \
        Column *c_ = &(b)->cols[id];                            \
        if (col_reserve(c_, 1))                                 \
            ((T *)c_->data)[c_->len++] = (T)(v);                \
        else                                                    \
            (b)->failed = true;                                 \
    } while (0)
/* A push without the room check, where batch_reserve_move_row made room. */
#define COL_PUT(b, id, T, v) (((T *)(b)->cols[id].data)[(b)->cols[id].len++] = (T)(v))
#define COL_AT(b, id, T, i) (((T *)(b)->cols[id].data)[i])
#define COL_LEN(b, id) ((b)->cols[id].len)

#endif
