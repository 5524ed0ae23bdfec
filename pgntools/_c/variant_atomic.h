/* Atomic chess (Lichess's rules, as python-chess plays them): a capture explodes the capturing
 * piece, the piece taken and every piece but a pawn on the eight squares around the target; the
 * side whose king explodes loses. A king never captures; a move that explodes the own king is
 * illegal; kings may stand side by side, and a king beside the enemy king is in no check (no
 * capture can reach it without exploding both). */
#ifndef PGNT_VARIANT_ATOMIC_H
#define PGNT_VARIANT_ATOMIC_H

#include "movegen.h"

/* The end of an atomic game (VARIANT_END_*, for the side to move): the side whose king exploded has
 * lost (a position without kings, set up so, is played on). */
static inline int atomic_end(const Position *p)
{
    bb_t kings = p->by_type[KING];
    return !kings ? VARIANT_END_NONE : !(kings & p->by_color[p->turn]) ? VARIANT_END_LOSS
           : !(kings & p->by_color[p->turn ^ 1])                      ? VARIANT_END_WIN
                                                                       : VARIANT_END_NONE;
}

/* Whether m takes a piece (en passant too): the moves that explode. */
static inline bool atomic_is_capture(const Position *p, move_t m)
{
    int type = mv_type(m);
    return type == MT_EN_PASSANT || (type != MT_CASTLE && p->board[mv_to(m)] != 0);
}
/* Before a capture m is made: what pos_unmake needs to put the explosion back (u->mover, u->blast). */
void atomic_save_blast(const Position *p, move_t m, Undo *u);
/* After the capture m is made (the capturer on `to`): the explosion, its castling rights, the hash. */
void atomic_explode(Position *p, int to);
/* Puts back what the capture recorded in u exploded (u->state already restored). */
void atomic_restore_blast(Position *p, const Undo *u);
/* The enemy pieces giving check to the side to move: none when a king is missing or the kings
 * stand side by side. */
bb_t atomic_checkers(const Position *p);
/* Whether an en-passant capture on p->ep is legal. */
bool atomic_has_legal_ep(const Position *p);
/* pos_gen_legal's answer in atomic chess (the game not ended). */
void atomic_gen_legal(const Position *p, MoveList *ml, int gen, bb_t from_mask, bb_t to_mask);
/* pos_legal_origins in atomic chess: the squares of our pieces of type `piece` with a legal move
 * to `to` (promoting to `promo`, 0 for none), only the pieces that may reach it tried. */
bb_t atomic_legal_origins(const Position *p, int piece, int to, int promo);
/* Whether a legal move exists (the game not ended): the first one found ends the search. */
bool atomic_has_legal_move(const Position *p);
/* Whether `color` cannot win by any series of moves (python-chess's rule for atomic). */
bool atomic_insufficient_material(const Position *p, int color);

#endif
