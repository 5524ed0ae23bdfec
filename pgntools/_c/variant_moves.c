/* The legal moves of Racing Kings, Antichess and the Horde's White (variant_rules.h says the rules):
 * the pseudo-legal moves (a piece's reach, pawns' steps and captures, castling's empty squares),
 * then each variant's test. */
#include "variant_moves.h"

static inline void add(MoveList *ml, move_t m) { ml->moves[ml->n++] = m; }

static void add_pawn_moves(MoveList *ml, int from, bb_t targets, bool king_promotions)
{
    while (targets) {
        int to = bb_pop(&targets);
        if (RANK_OF(to) == 0 || RANK_OF(to) == 7) {
            if (king_promotions) /* (Antichess: the king is a piece like the others) */
                add(ml, mv_king_promotion(from, to));
            for (int promo = QUEEN; promo >= KNIGHT; promo--)
                add(ml, mv_make(from, to, MT_PROMOTION, promo));
        } else {
            add(ml, mv_make(from, to, MT_NORMAL, 0));
        }
    }
}

/* The moves of the side to move that break no rule but leave the king attacked (FIDE 3.1-3.8 less
 * 3.9): a pawn steps two squares from its first two ranks (the Horde's pawns on rank 1 too);
 * castling needs only the squares between king and rook empty (attacked squares are the caller's). */
static void gen_pseudo(const Position *p, MoveList *ml, int gen, bb_t from_mask, bb_t to_mask, bool king_promotions)
{
    ml->n = 0;
    int us = p->turn, them = us ^ 1;
    bb_t occ = pos_occ(p), theirs = p->by_color[them], target = ~p->by_color[us] & to_mask;
    if (gen & (1 << PAWN)) {
        bb_t pawns = pos_pieces(p, us, PAWN) & from_mask & ~(us == WHITE ? RANK_8 : RANK_1);
        if (to_mask && !(to_mask & (to_mask - 1))) /* one target (SAN's search): the pawns that may reach it */
            pawns &= BB_PAWN_ATTACKS[them][bb_lsb(to_mask)] |
                     (us == WHITE ? (to_mask >> 8) | (to_mask >> 16) : (to_mask << 8) | (to_mask << 16));
        int forward = us == WHITE ? 8 : -8;
        while (pawns) {
            int from = bb_pop(&pawns), one = from + forward;
            bb_t moves = BB_PAWN_ATTACKS[us][from] & theirs;
            if (!(occ & BB(one))) {
                moves |= BB(one);
                bool start = us == WHITE ? RANK_OF(from) <= 1 : RANK_OF(from) >= 6;
                if (start && !(occ & BB(one + forward)))
                    moves |= BB(one + forward);
            }
            add_pawn_moves(ml, from, moves & to_mask, king_promotions);
        }
        if (p->ep != NO_SQ && (BB(p->ep) & to_mask))
            for (bb_t s = BB_PAWN_ATTACKS[them][p->ep] & pos_pieces(p, us, PAWN) & from_mask; s;)
                add(ml, mv_make(bb_pop(&s), p->ep, MT_EN_PASSANT, 0));
    }
    for (int type = KNIGHT; type <= KING; type++) {
        if (!(gen & (1 << type)))
            continue;
        for (bb_t s = pos_pieces(p, us, type) & from_mask; s;) {
            int from = bb_pop(&s);
            bb_t moves = type == KNIGHT ? BB_KNIGHT[from]
                         : type == KING ? BB_KING[from]
                                        : (type != ROOK ? bb_bishop_attacks(from, occ) : 0) |
                                              (type != BISHOP ? bb_rook_attacks(from, occ) : 0);
            for (moves &= target; moves;)
                add(ml, mv_make(from, bb_pop(&moves), MT_NORMAL, 0));
        }
    }
    int ksq = pos_king(p, us);
    if ((gen & GEN_CASTLING) && ksq != NO_SQ && (BB(ksq) & from_mask)) {
        for (int side = 0; side < 2; side++) {
            int rsq = p->castle[us][side];
            if (rsq == NO_SQ || !(BB(rsq) & to_mask))
                continue;
            int kt = castle_king_target(us, side), rt = castle_rook_target(us, side);
            if (!((BB_BETWEEN[ksq][kt] | BB(kt) | BB_BETWEEN[rsq][rt] | BB(rt)) & ~(BB(ksq) | BB(rsq)) & occ))
                add(ml, mv_make(ksq, rsq, MT_CASTLE, 0));
        }
    }
}

static inline bool is_capture(const Position *p, move_t m)
{
    return mv_type(m) != MT_CASTLE && (p->board[mv_to(m)] || mv_is_en_passant(m));
}

/* Racing Kings: a move neither leaves the own king attacked nor attacks the other king. */
static bool racing_kings_legal(const Position *p, move_t m)
{
    if (mv_type(m) == MT_CASTLE) /* (no castling: the kings start on the first rank, off e1) */
        return false;
    Position after = *p;
    pos_make(&after, m);
    int ksq = pos_king(&after, p->turn);
    return !after.checkers && (ksq == NO_SQ || !pos_attacked_by(&after, ksq, after.turn, pos_occ(&after)));
}

void variant_gen_legal(const Position *p, MoveList *ml, int gen, bb_t from_mask, bb_t to_mask)
{
    ml->n = 0;
    if (p->variant == VARIANT_ANTICHESS) {
        if (!p->by_color[WHITE] || !p->by_color[BLACK])
            return;
        if (antichess_can_capture(p)) { /* then only captures (castling never takes) */
            MoveList all;
            gen_pseudo(p, &all, gen & ~GEN_CASTLING, from_mask, to_mask, true);
            for (int i = 0; i < all.n; i++)
                if (is_capture(p, all.moves[i]))
                    add(ml, all.moves[i]);
        } else {
            gen_pseudo(p, ml, gen, from_mask, to_mask, true);
        }
    } else if (p->variant == VARIANT_RACING_KINGS) {
        MoveList all;
        gen_pseudo(p, &all, gen, from_mask, to_mask, false);
        for (int i = 0; i < all.n; i++)
            if (racing_kings_legal(p, all.moves[i]))
                add(ml, all.moves[i]);
    } else { /* the Horde's White: no king, every move is legal */
        gen_pseudo(p, ml, gen, from_mask, to_mask, false);
    }
}
