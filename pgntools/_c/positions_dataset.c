/* The positions dataset's rows (positions_dataset.h): made at a game's end from the copies of its
 * mainline positions the replay kept (GameReader.ply_positions) and the game's move rows. */
#include <string.h>

#include "fen.h"
#include "game_reader.h"
#include "positions_dataset.h"
#include "san.h"

enum { TAG_WHITE_ELO = 7, TAG_BLACK_ELO = 8 }; /* their places in tags.c's TAG_COLUMN_NAMES */

static uint64_t splitmix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

uint64_t positions_dataset_mix(uint64_t game_id, uint64_t seed)
{
    return splitmix(game_id + (seed + 1) * 0x9E3779B97F4A7C15ULL);
}

/* The value of a tag with a column of its own when it is 1 to 9 ASCII digits (as the games
 * table's white_elo reads it), else -1. */
static int32_t tag_int(const GameReader *r, const Game *g, int tag)
{
    if (!r->opt.tag_columns || !g->tag_slot[tag])
        return -1;
    const StrCol *values = &r->batch.strs[S_TAG_VALUE];
    int32_t row = g->tag_slot[tag] - 1, a = values->offsets.data[row], z = values->offsets.data[row + 1];
    if (z - a < 1 || z - a > 9)
        return -1;
    int32_t v = 0;
    for (int32_t i = a; i < z; i++) {
        char c = values->data.data[i];
        if (c < '0' || c > '9')
            return -1;
        v = v * 10 + (c - '0');
    }
    return v;
}

static void push_string_row(Batch *b, int to, int from, size_t row)
{
    const StrCol *src = &b->strs[from];
    int32_t a = src->offsets.data[row], z = src->offsets.data[row + 1];
    if (!strcol_push(&b->strs[to], src->data.data + a, (size_t)(z - a)))
        b->failed = true;
}

/* What every row of the game shares. */
typedef struct {
    size_t moves;     /* the game's first row in the move table */
    uint8_t has;      /* PH_WHITE_ELO, PH_BLACK_ELO, PH_ECO */
    int32_t elo[2];
    int result;       /* RESULT_* */
    const char *eco;
    size_t eco_len;
} GameRows;

static void push_row(GameReader *r, Game *g, const GameRows *gr, int ply)
{
    Batch *b = &r->batch;
    const Position *p = &r->ply_positions.data[ply];
    size_t move = gr->moves + (size_t)ply; /* the move played from the position */
    uint8_t has = gr->has;
    double result = 0;
    if (gr->result == RESULT_DRAW || gr->result == RESULT_WHITE || gr->result == RESULT_BLACK) {
        has |= PH_RESULT;
        result = gr->result == RESULT_DRAW ? 0.5 : (gr->result == RESULT_WHITE) == (p->turn == WHITE) ? 1.0 : 0.0;
    }
    double clock = 0; /* the mover's clock: the [%clk] after their previous move (two plies back) */
    if (ply >= 2 && (COL_AT(b, M_HAS, uint8_t, move - 2) & HAS_CLOCK)) {
        has |= PH_CLOCK;
        clock = COL_AT(b, M_CLOCK, double, move - 2);
    }
    int32_t eval_cp = 0; /* the position's evaluation: the [%eval] after the move that reached it */
    int16_t eval_mate = 0;
    if (ply >= 1) {
        uint8_t move_has = COL_AT(b, M_HAS, uint8_t, move - 1);
        if (move_has & HAS_EVAL_CP) {
            has |= PH_EVAL_CP;
            eval_cp = COL_AT(b, M_EVAL_CP, int32_t, move - 1);
        }
        if (move_has & HAS_EVAL_MATE) {
            has |= PH_EVAL_MATE;
            eval_mate = COL_AT(b, M_EVAL_MATE, int16_t, move - 1);
        }
    }
    COL_PUSH(b, P_PLY, int16_t, ply);
    COL_PUSH(b, P_KEY, uint64_t, pos_key(p));
    COL_PUSH(b, P_RESULT, double, result);
    COL_PUSH(b, P_WHITE_ELO, int32_t, gr->elo[WHITE]);
    COL_PUSH(b, P_BLACK_ELO, int32_t, gr->elo[BLACK]);
    COL_PUSH(b, P_SPEED, uint8_t, g->speed);
    COL_PUSH(b, P_CLOCK, double, clock);
    COL_PUSH(b, P_EVAL_CP, int32_t, eval_cp);
    COL_PUSH(b, P_EVAL_MATE, int16_t, eval_mate);
    if (r->opt.position_rows->planes) {
        static const int PLANES[12] = {P_WHITE_PAWNS, P_WHITE_KNIGHTS, P_WHITE_BISHOPS, P_WHITE_ROOKS, P_WHITE_QUEENS,
                                       P_WHITE_KINGS, P_BLACK_PAWNS, P_BLACK_KNIGHTS, P_BLACK_BISHOPS, P_BLACK_ROOKS,
                                       P_BLACK_QUEENS, P_BLACK_KINGS};
        for (int color = WHITE; color <= BLACK; color++)
            for (int type = PAWN; type <= KING; type++)
                COL_PUSH(b, PLANES[6 * color + type - PAWN], uint64_t, pos_pieces(p, color, type));
        uint8_t castling = 0; /* bits: White king side 1, queen side 2, Black king side 4, queen side 8 */
        for (int color = WHITE; color <= BLACK; color++)
            for (int side = 0; side < 2; side++)
                if (p->castle[color][side] != NO_SQ)
                    castling |= (uint8_t)(1 << (2 * color + side));
        COL_PUSH(b, P_TURN, uint8_t, p->turn == WHITE);
        COL_PUSH(b, P_CASTLING, uint8_t, castling);
        bool ep = p->ep != NO_SQ && p->ep_hashed; /* a legal en-passant capture (the FEN's rule) */
        COL_PUSH(b, P_EP_FILE, uint8_t, ep ? FILE_OF(p->ep) : 0);
        if (ep)
            has |= PH_EP_FILE;
    }
    COL_PUSH(b, P_HAS, uint8_t, has);
    char fen[FEN_MAX];
    if (!strcol_push(&b->strs[S_P_FEN], fen, fen_format(p, fen, r->opt.fen_options)) ||
        !strcol_push(&b->strs[S_P_ECO], gr->eco, gr->eco_len))
        b->failed = true;
    push_string_row(b, S_P_UCI, S_UCI, move);
    push_string_row(b, S_P_SAN, S_SAN, move);
}

void positions_dataset_finish(GameReader *r, Game *g, int status, const char *eco, size_t eco_len)
{
    Batch *b = &r->batch;
    COL_PUSH(b, G_POSITION_START, int32_t, COL_LEN(b, P_PLY));
    const PositionRowOptions *o = r->opt.position_rows;
    /* an invalid game's moves stop anywhere and its result is not to be trusted: no rows */
    if (!o || !r->opt.moves || status == STATUS_INVALID || !g->replaying)
        return;
    int n = (int)r->ply_positions.len - 1; /* positions a mainline move was played from (the last: the final one) */
    int lo = o->min_ply, hi = o->max_ply < 0 || o->max_ply > n - 1 ? n - 1 : o->max_ply;
    if (lo > hi || COL_LEN(b, M_PLY) != g->mark->cols[M_PLY] + (size_t)n)
        return;
    GameRows gr = {g->mark->cols[M_PLY], 0, {0, 0}, g->result, "", 0};
    gr.elo[WHITE] = tag_int(r, g, TAG_WHITE_ELO);
    gr.elo[BLACK] = tag_int(r, g, TAG_BLACK_ELO);
    gr.has = (uint8_t)((gr.elo[WHITE] >= 0 ? PH_WHITE_ELO : 0) | (gr.elo[BLACK] >= 0 ? PH_BLACK_ELO : 0));
    gr.elo[WHITE] = gr.elo[WHITE] < 0 ? 0 : gr.elo[WHITE];
    gr.elo[BLACK] = gr.elo[BLACK] < 0 ? 0 : gr.elo[BLACK];
    if (g->opening == OPENING_NAMED) {
        gr.has |= PH_ECO;
        gr.eco = eco, gr.eco_len = eco_len;
    }
    int eligible = hi - lo + 1;
    int want = o->sample_plies && o->sample_plies < eligible ? o->sample_plies : eligible;
    /* selection sampling (Knuth's algorithm S): each ply in turn, taken with the chance of the
     * rows still wanted among the plies left: `want` plies, in order, equally likely each */
    uint64_t state = positions_dataset_mix((uint64_t)r->games, o->seed);
    for (int i = 0, taken = 0; i < eligible && taken < want; i++) {
        if (want < eligible) {
            state += 0x9E3779B97F4A7C15ULL;
            if (splitmix(state) % (uint64_t)(eligible - i) >= (uint64_t)(want - taken))
                continue;
        }
        push_row(r, g, &gr, lo + i);
        taken++;
    }
}
