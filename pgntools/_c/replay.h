/* The replay of a game: its start position, the movetext tokens (moves, comments, NAGs,
 * variations) against the rules core, the automatic ends and the result checks. */
#ifndef PGNT_REPLAY_H
#define PGNT_REPLAY_H

#include "game_reader.h"
#include "game_hash.h"
#include "san.h"

/* The start position (standard, FEN tag, Variant); first_move_token locates its errors. */
void replay_start(GameReader *r, Game *g, const Token *first_move_token);
void replay_comment(GameReader *r, Game *g, const Token *t);
/* Whether replay_comment has anything to do under these options: comments feed the move table
 * (and its clock rows), the counters' has_clock / has_eval and the PGN written. validate reads
 * none of them, and its reader makes no call per comment (one a ply on a Lichess export). */
static inline bool replay_reads_comments(const GameOptions *o)
{
    return o->moves || o->clock_rows || o->counters || o->pgn;
}
void replay_nag(GameReader *r, Game *g, const Token *t);
void replay_open_variation(GameReader *r, Game *g, const Token *t);
void replay_close_variation(GameReader *r, Game *g, const Token *t);
/* At the game's end: closes the last move row, then the automatic end the final position
 * reached, the result checks and the draw claims. */
void replay_finish(GameReader *r, Game *g);

/* ---------------------------------------------------------------- replay_move
 * Inline here: its lean front, most moves of validate and to-fen, runs inside the movetext loop
 * (game.c, read_movetext), which keeps the reader, the game and the token in registers (a call
 * with its own prologue a ply cost ~20 instructions). The rest is replay.c's: */
void replay_move_general(GameReader *r, Game *g, const Token *t, bool tried);
void add_move_notes(GameReader *r, Game *g, uint16_t notes, int ply, const Token *t);
void decide_mainline_end(Game *g, const GameReader *r, const Position *p, bool maybe_dead, bool seen);
void lean_move_extras(GameReader *r, Game *g, const Position *p, bool took);

/* The mainline position p joins the history (its hash, for repetitions). Returns whether its hash
 * may have occurred since the last move that reset the half-move clock (the window
 * pos_repetition_count looks at): false for most positions, whose repetition count is then 1
 * without looking back. By the latest index of a position whose hash has the same low bits
 * (history_last): one in the window or none; never a miss, and no table to empty when the clock
 * is 0 (an index before the window is out of it). */
static inline bool note_history(GameReader *r, const Position *p)
{
    VEC_PUSH_OR_FAIL(r->history, p->hash, r->batch.failed);
    uint32_t n = (uint32_t)r->history.len, *last = &r->history_last[p->hash & (HISTORY_SLOTS - 1)];
    bool seen = *last + p->halfmove >= n; /* (the latest index >= p's index - halfmove) */
    *last = n;
    return seen;
}

/* The position p after a mainline move joins the history, and decides the automatic ends. Most
 * plies change nothing there: a position not seen since the last capture or pawn move, the
 * clock under 100, no possibly dead position and no end yet (derived_start set max_repetitions
 * to 1 before the first move: a count of 1 raises nothing). */
static inline void track_mainline_end(GameReader *r, Game *g, const Position *p, bool material_changed)
{
    bool seen = note_history(r, p);
    /* (bitwise: whether a move took is as good as random; with a pawn, rook or queen left, the
     * common case, no dead position is looked for) */
    bool maybe_dead = material_changed & !(p->by_type[PAWN] | p->by_type[ROOK] | p->by_type[QUEEN]);
    if (seen | maybe_dead | (p->halfmove >= 100) | (g->outcome != 0))
        decide_mainline_end(g, r, p, maybe_dead, seen);
}

/* A mainline move the one-pass path made (g->lean: nothing records the move itself; or the PGN
 * alone, pgn_mainline_move): what
 * replay_move's general path does after such a move, without the tests that cannot hold here
 * (a null move, en passant, a promotion, a variation, SAN text, move rows, PGN). */
static inline __attribute__((always_inline)) int lean_mainline_move(GameReader *r, Game *g, Level *L, const Token *t,
                                                                    move_t m, uint16_t notes, int check)
{
    bool took = L->undo.captured != 0; /* (a plain move: no en passant, no promotion) */
    int ply = g->ply + 1; /* (the mainline level's ply is the game's) */
    L->has_move = true;
    L->ply = g->ply = ply;
    int status = pos_check_status(&L->pos);
    notes |= san_check_notes(check, status);
    if (notes) /* most moves need none */
        add_move_notes(r, g, notes, ply, t);
    if (g->lean_extras) { /* the mainline key and the counters here; the rest is rare */
        if (r->opt.movetext_hash)
            gh_move(g->mainline_key, m);
        if (r->opt.counters)
            derived_count(&g->derived, &L->pos, m, took, status);
        if (r->opt.openings || r->opt.positions || r->opt.materials)
            lean_move_extras(r, g, &L->pos, took);
    }
    if (status == 2) {
        g->outcome = OUTCOME_CHECKMATE;
        g->outcome_ply = ply;
    }
    track_mainline_end(r, g, &L->pos, took);
    if (ply == 1)
        g->first_move = (uint16_t)(mv_from(m) | mv_to(m) << 6 | PIECE_TYPE(L->pos.board[mv_to(m)]) << 12);
    g->pending_ply = ply;
    return status; /* (pos_check_status's: 0, 1 check, 2 checkmate) */
}

/* A move token. Most moves of validate and to-fen are a mainline move of a game nothing records,
 * made in one pass (san_play_inline) and followed up by lean_mainline_move; the general path
 * takes the rest ("e.p." written apart, and every text the one pass declines, among them). */
static inline void replay_move(GameReader *r, Game *g, const Token *t)
{
    bool tried = g->lean && !g->depth && !g->outcome; /* (g->lean: the replay runs too) */
    if (tried) {
        Level *M = &r->levels.data[0];
        uint16_t notes;
        int check;
        move_t m = san_play_inline(&M->pos, r->sc.buf + t->a, t->alen, &M->undo, &notes, &check);
        if (m != MOVE_NONE) {
            g->has_content = g->move_syntax = true; /* (a move the one pass made is a move to san_parse) */
            lean_mainline_move(r, g, M, t, m, notes, check);
            return;
        }
    }
    replay_move_general(r, g, t, tried);
}

#endif
