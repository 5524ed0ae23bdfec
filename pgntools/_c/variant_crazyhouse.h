/* Crazyhouse (Lichess's rules, as python-chess plays them): a piece taken goes to the taker's
 * pocket, a promoted piece as the pawn it was; on a move a side may drop a piece of its pocket on
 * an empty square instead (a pawn not on the first or last rank); a drop may block a check and
 * give mate. */
#ifndef PGNT_VARIANT_CRAZYHOUSE_H
#define PGNT_VARIANT_CRAZYHOUSE_H

#include "movegen.h"

/* Before the move m is made: the pockets and the promoted pieces as it changes them (a piece taken
 * to the mover's pocket, a drop out of it; a promoted piece's mark moves with it). */
void zh_before_make(Position *p, move_t m);
/* The legal drops to squares of to_mask, appended to ml (the side to move in at most one check). */
void zh_gen_drops(const Position *p, MoveList *ml, bb_t to_mask);
/* Whether neither side could ever mate (python-chess's rule: at most three pieces on the board and
 * in the pockets together, none a pawn, rook, queen or promoted piece). */
bool zh_insufficient_material(const Position *p);
/* The pockets as FEN writes them ("QNqnp": White's then Black's, king to pawn), NUL-terminated. */
size_t zh_format_pockets(const Position *p, char *out);

#endif
