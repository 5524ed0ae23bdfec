/* The replay of a game: its start position, the movetext tokens (moves, comments, NAGs,
 * variations) against the rules core, the automatic ends and the result checks.
 *
 * A move's way, one for every move (mainline, variation, null move):
 *   san_read (san_parse: the text's shape; san_resolve: the one legal move, the notes) -> pos_make_undo
 *   -> after_move: the ply, check and mate, the notes, the automatic ends; then the recorders the
 *   game's options chose in replay_start (move rows, PGN, keys, counters, openings, targets). */
#ifndef PGNT_REPLAY_H
#define PGNT_REPLAY_H

#include "game_reader.h"
#include "san.h"

/* The start position (standard, FEN tag, Variant) and the recorders; first_move_token locates
 * its errors. */
void replay_start(GameReader *r, Game *g, const Token *first_move_token);
/* with the VARIANT_* in classify_variant's answer; STARTS_WITH_CASTLING: Giveaway, antichess's rules
 * from chess's start with its castling rights (python-chess's GiveawayBoard; Lichess's Antichess has none) */
enum { PLAYED_AS_CHESS960 = 16, STARTS_WITH_CASTLING = 32 };
/* The Variant tag's rules (VARIANT_*, | PLAYED_AS_CHESS960 for Chess960), in the spellings of
 * Lichess, python-chess and other tools (case aside); -1 for a variant not played here. */
int classify_variant(const char *v, size_t n);
void replay_comment(GameReader *r, Game *g, const Token *t);
/* Whether replay_comment has anything to do under these options: comments feed the move table
 * (and its clock rows), the counters' has_clock / has_eval and the PGN written. validate reads
 * none of them, and its reader makes no call per comment. */
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

/* ---------------------------------------------------------------- a move
 * Inline: most tokens of a game are moves, and the movetext loop (game.c) calls replay_move for
 * each with the reader, the game and the token in registers. */

/* Every move token replay_move does not make (replay.c): "e.p." written apart, text that is no
 * move, a move of a game not (or no longer) replayed, a move after the game's end, a null move, a
 * move that is illegal or ambiguous there. */
void replay_move_otherwise(GameReader *r, Game *g, const Token *t);
void add_move_notes(GameReader *r, Game *g, uint16_t notes, int ply, const Token *t);
void decide_mainline_end(Game *g, const GameReader *r, const Position *p, bool maybe_dead, bool seen);
void decide_variation_end(Level *L, bool material_changed, int status);
/* A variant's own end (a king on the hill, a third check) after a mainline move: the outcome. */
void decide_variant_end(Game *g, const Position *p, int ply);

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

/* The position p after a mainline move joins the history, and decides the automatic ends (FIDE
 * 9.6: fivefold repetition, 75 moves, a dead position). Most plies change nothing there: a
 * position not seen since the last capture or pawn move, the clock under 100, a pawn, rook or
 * queen on the board, and no end yet. */
static inline void track_mainline_end(GameReader *r, Game *g, const Position *p, bool material_changed)
{
    bool seen = note_history(r, p);
    /* (a dead position needs a capture or promotion first, and no pawn, rook or queen left) */
    bool maybe_dead = material_changed & !(p->by_type[PAWN] | p->by_type[ROOK] | p->by_type[QUEEN]);
    if (seen | maybe_dead | (p->halfmove >= 100) | (g->outcome != 0))
        decide_mainline_end(g, r, p, maybe_dead, seen);
}

/* The recorders of the move just made (after_move), out of line: most runs record nothing. */
void record_move(GameReader *r, Game *g, const Recorders *rec, const PlayedMove *pm);

/* What follows every move made (L: its level, the position after it and its undo record; sm: its
 * text as parsed and resolved): the ply, the check status and the notes, the end of a mainline
 * (checkmate, the automatic ends) or of a variation, then the recorders the options chose for the
 * level (rec). san: the move's SAN without its check marker (room for it), when they read it. */
static inline __attribute__((always_inline)) void after_move(GameReader *r, Game *g, Level *L, const Token *t,
                                                             const SanMove *sm, const Recorders *rec,
                                                             bool mainline, char *san, size_t san_len)
{
    move_t m = L->undo.move;
    int type = mv_type(m); /* (MOVE_NULL is of the castling type: it neither takes nor promotes) */
    bool took = (L->undo.captured != 0) | (type == MT_EN_PASSANT);
    bool material_changed = took | (type == MT_PROMOTION);
    int ply = L->ply + 1;
    L->has_move = true;
    L->ply = ply;
    int status = pos_check_status(&L->pos);
    uint16_t notes = sm->notes | san_check_notes(sm->check, status);
    if (notes) /* most moves need none */
        add_move_notes(r, g, notes, ply, t);
    if (mainline) {
        g->ply = ply;
        if (status == 2) {
            g->outcome = OUTCOME_CHECKMATE;
            g->outcome_ply = ply;
        }
        if (__builtin_expect(L->pos.variant != VARIANT_STANDARD, 0)) /* (a variant's end before checkmate) */
            decide_variant_end(g, &L->pos, ply);
        track_mainline_end(r, g, &L->pos, material_changed);
        if (ply == 1) /* (stats' first moves: squares and piece) */
            g->first_move = m == MOVE_NULL ? 0xFFFF
                                           : (uint16_t)(mv_from(m) | mv_to(m) << 6 | PIECE_TYPE(L->pos.board[mv_to(m)]) << 12);
    } else if (material_changed | (L->pos.halfmove >= 150)) {
        decide_variation_end(L, material_changed, status);
    }
    if (rec->n) {
        PlayedMove pm = {t, L, m, ply, status, took, material_changed, san, san_len};
        record_move(r, g, rec, &pm);
    }
}

/* A move resolved to m in L's position (mainline: L is the mainline's): its SAN when a recorder
 * reads it (from the position before the move), made, and followed up. */
static inline __attribute__((always_inline)) void play_move(GameReader *r, Game *g, Level *L, const Token *t,
                                                            const SanMove *sm, move_t m, bool mainline)
{
    char san[16];
    size_t san_len = 0;
    const Recorders *rec = &g->recorders[!mainline];
    if (rec->san)
        san_len = san_of_resolved(&L->pos, m, sm, r->sc.buf + t->a, t->a + 8 <= r->sc.len, san);
    pos_make_undo(&L->pos, m, &L->undo);
    after_move(r, g, L, t, sm, rec, mainline, san, san_len);
}

/* A move token. The common shapes (san_shape) of a mainline being replayed and not ended are found
 * (san_find), made and followed up here; every other token (variations too) is
 * replay_move_otherwise's, through san_parse and san_resolve (which end in the same san_find) and
 * the same play_move. */
static inline void replay_move(GameReader *r, Game *g, const Token *t)
{
    Level *M = &r->levels.data[0];
    SanMove sm;
    move_t m;
    if (g->playing && !g->depth && !g->outcome && san_shape(r->sc.buf + t->a, t->alen, &sm) &&
        (sm.kind == SAN_KIND_MOVE ? san_find(&M->pos, &sm, &m) : san_castle(&M->pos, sm.kind == SAN_KIND_CASTLE_QUEEN, &m)) ==
            SAN_OK) {
        g->has_content = g->move_syntax = true;
        play_move(r, g, M, t, &sm, m, true);
        return;
    }
    replay_move_otherwise(r, g, t);
}

#endif
