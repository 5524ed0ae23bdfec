/* Crazyhouse: the pockets a capture fills and a drop empties, the promoted pieces' marks, the
 * legal drops. Only position.h's inline parts are used here: position.c and movegen.c call it. */
#include "variant_crazyhouse.h"

void zh_before_make(Position *p, move_t m)
{
    int us = p->turn, from = mv_from(m), to = mv_to(m);
    Pockets *zh = &p->zh;
    if (mv_is_drop(m)) {
        zh->pocket[us][mv_drop_piece(m)]--;
        return;
    }
    if (mv_type(m) == MT_CASTLE) /* (castling and the null move take nothing; a king and rook are no promoted pieces) */
        return;
    int taken_sq = mv_type(m) == MT_EN_PASSANT ? to ^ 8 : to;
    uint8_t taken = p->board[taken_sq];
    if (taken) /* a promoted piece goes back to the pocket as a pawn */
        zh->pocket[us][zh->promoted & BB(taken_sq) ? PAWN : PIECE_TYPE(taken)]++;
    bool promoted = (zh->promoted & BB(from)) || mv_type(m) == MT_PROMOTION;
    zh->promoted &= ~(BB(from) | BB(to));
    if (promoted)
        zh->promoted |= BB(to);
}

void zh_gen_drops(const Position *p, MoveList *ml, bb_t to_mask)
{
    int us = p->turn;
    bb_t targets = ~pos_occ(p) & to_mask, checkers = p->checkers;
    if (checkers) { /* a drop answers one check only by blocking a slider's line */
        int ksq = pos_king(p, us);
        if ((checkers & (checkers - 1)) || ksq == NO_SQ)
            return;
        targets &= BB_BETWEEN[ksq][bb_lsb(checkers)];
    }
    for (int piece = PAWN; piece <= QUEEN; piece++) {
        if (!p->zh.pocket[us][piece])
            continue;
        for (bb_t t = piece == PAWN ? targets & ~(RANK_1 | RANK_8) : targets; t;)
            ml->moves[ml->n++] = mv_make_drop(piece, bb_pop(&t));
    }
}

bool zh_insufficient_material(const Position *p)
{
    int held = 0;
    for (int c = 0; c < 2; c++)
        for (int piece = PAWN; piece <= QUEEN; piece++) {
            held += p->zh.pocket[c][piece];
            if (p->zh.pocket[c][piece] && (piece == PAWN || piece == ROOK || piece == QUEEN))
                return false;
        }
    return bb_count(pos_occ(p)) + held <= 3 && !p->zh.promoted &&
           !(p->by_type[PAWN] | p->by_type[ROOK] | p->by_type[QUEEN]);
}

size_t zh_format_pockets(const Position *p, char *out)
{
    size_t n = 0;
    for (int c = 0; c < 2; c++)
        for (int piece = QUEEN; piece >= PAWN; piece--)
            for (int k = 0; k < p->zh.pocket[c][piece]; k++)
                out[n++] = (char)(PIECE_LETTERS[piece] + (c == BLACK ? 32 : 0));
    out[n] = 0;
    return n;
}
