/* Racing Kings, Horde and Antichess (Lichess's rules, as python-chess plays them) in the position
 * layer: their start positions, the side effects of a move, their game ends and their insufficient
 * material. Bitboards and position.h's inline functions only (position.c calls these); their legal
 * moves are variant_moves.c's.
 *   Racing Kings: no move may give check (either side); a king on rank 8 wins, but when White's
 *     gets there first Black has one move to reach it too, and then it is a draw.
 *   Horde: White has pawns (and what they promote to) and no king; its pawns on rank 1 may step
 *     two squares; the side left without pieces loses.
 *   Antichess (Lichess; python-chess's Giveaway rules): captures are compulsory; no check, the
 *     king is an ordinary piece (taken, and promoted to); the side to move wins when it has no
 *     pieces left or no legal move. */
#ifndef PGNT_VARIANT_RULES_H
#define PGNT_VARIANT_RULES_H

#include "position.h"

/* Whether the side to move plays other moves than chess's (variant_moves.c): Racing Kings,
 * Antichess, and the Horde's White, which has no king to keep safe. */
static inline bool variant_moves_differ(const Position *p)
{
    return p->variant == VARIANT_RACING_KINGS || p->variant == VARIANT_ANTICHESS ||
           (p->variant == VARIANT_HORDE && !pos_pieces(p, p->turn, KING));
}

/* Whether the side to move need not keep a king safe: Antichess, a side without a king (Horde). */
static inline bool variant_no_king_safety(const Position *p)
{
    return p->variant == VARIANT_ANTICHESS || !pos_pieces(p, p->turn, KING);
}

/* p (its variant set) becomes the variant's start position, before rehashing: Racing Kings' and the
 * Horde's own placement, Antichess's standard one without castling. Other variants: unchanged. */
void variant_rules_start(Position *p);
/* The move by `us` just made (p->turn is the other side, p->checkers set): the Horde's first-rank
 * double step leaves no en-passant square; Antichess has no check. */
void variant_rules_after_make(Position *p, int us);
/* pos_variant_end for these three (VARIANT_END_*, for the side to move). */
int variant_rules_end(const Position *p);
/* pos_color_has_insufficient_material for these three. */
bool variant_rules_insufficient_material(const Position *p, int color);

/* Antichess: whether the side to move can take something (then it must), and whether it has any
 * move at all (pseudo-legal moves are legal there). */
bool antichess_can_capture(const Position *p);
bool antichess_has_move(const Position *p);

#endif
