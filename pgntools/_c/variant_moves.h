/* The legal moves of the variants whose moves are not chess's (variant_rules.h: Racing Kings,
 * Antichess, the Horde's White): pos_gen_legal's answer there, and the origins SAN resolution
 * looks for. Below movegen.c (which calls these): pseudo-legal moves made on a copy to test them. */
#ifndef PGNT_VARIANT_MOVES_H
#define PGNT_VARIANT_MOVES_H

#include "movegen.h"
#include "variant_rules.h"

/* pos_gen_legal where variant_moves_differ(p) (the game not ended by the variant's rule). */
void variant_gen_legal(const Position *p, MoveList *ml, int gen, bb_t from_mask, bb_t to_mask);

#endif
