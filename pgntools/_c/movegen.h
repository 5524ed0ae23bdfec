/* Legal moves (FIDE 3: a move may not leave the own king attacked): generation filtered by piece
 * type and square masks, the narrowed searches SAN resolution uses (only the pieces that may go to
 * one square), and the game-end status (checkmate, stalemate). */
#ifndef PGNT_MOVEGEN_H
#define PGNT_MOVEGEN_H

#include "position.h"

typedef struct {
    move_t moves[256];
    int n;
} MoveList;

/* Filter bits for pos_gen_legal: one bit per piece type (1 << type), plus castling. */
#define GEN_ALL_PIECES 0x7E
#define GEN_CASTLING 0x80
#define GEN_DROPS 0x100 /* crazyhouse's drops (to_mask: their squares) */
#define GEN_ALL (GEN_ALL_PIECES | GEN_CASTLING | GEN_DROPS)

/* Legal moves whose piece type is in `gen` (GEN_* bits), origin in from_mask, target in to_mask.
 * Castling (GEN_CASTLING) is matched against to_mask by the rook's square. */
void pos_gen_legal(const Position *p, MoveList *ml, int gen, bb_t from_mask, bb_t to_mask);
bool pos_has_legal_move(const Position *p);
/* The legal castling moves with the rook on rsq: their count, the last in *out. */
int pos_gen_castling_to(const Position *p, int rsq, move_t *out);
/* Whether the king on ksq (not in check) may castle with the rook on rsq = castle[turn][side]
 * (FIDE 3.8.2: the squares between empty, no square the king crosses or lands on attacked). */
bool pos_castling_legal(const Position *p, int ksq, int side, int rsq);
uint64_t pos_perft(const Position *p, int depth);

/* The check status in a variant: a move that wins or loses by the variant's own rule is marked
 * as checkmate (2), as python-chess writes its SAN ('#'), check or not. */
int pos_variant_check_status(const Position *p);

/* The squares of our pieces of type `piece` with a legal move to `to` (promoting to `promo`, 0
 * for none), from the whole legal move list: the variants whose legal moves are not chess's. */
__attribute__((cold)) bb_t pos_legal_origins(const Position *p, int piece, int to, int promo);

/* 0 no check, 1 check, 2 checkmate (FIDE 5.1.1): the suffix SAN writes. */
static inline int pos_check_status(const Position *p)
{
    if (__builtin_expect(p->variant != VARIANT_STANDARD, 0))
        return pos_variant_check_status(p);
    if (!pos_in_check(p))
        return 0;
    return pos_has_legal_move(p) ? 1 : 2;
}
bool pos_is_checkmate(const Position *p);
bool pos_is_stalemate(const Position *p); /* FIDE 5.2.1: no legal move, not in check */

/* ---------------------------------------------------------------- narrowed searches
 * SAN names a piece type and a target (and sometimes an origin): the legal moves it may mean are
 * found among the few pieces of that type that reach the target, not in the whole move list.
 * Inline: san_resolve asks one of them for every move of a game. */

/* Whether moving our piece from `from` to `to` uncovers an enemy slider's line to our king on ksq
 * (the piece is pinned and leaves the pin line). */
static inline bool pos_uncovers_king(const Position *p, int ksq, int from, int to, bb_t occ)
{
    bb_t line = BB_LINE[ksq][from];
    line = line & BB(to) ? 0 : line; /* (staying on the line uncovers nothing) */
    bb_t straight = BB_ROOK_PSEUDO[ksq] & BB(from) ? ~0ULL : 0;
    bb_t sliders = ((p->by_type[ROOK] & straight) | (p->by_type[BISHOP] & ~straight) | p->by_type[QUEEN]) &
                   p->by_color[p->turn ^ 1] & line;
    if (!sliders)
        return false;
    return (bb_attacks_along(ksq, from, occ ^ BB(from)) & sliders) != 0;
}

/* Whether a move to `to` by a piece other than the king may answer the check the king on ksq is
 * in: it takes the one checker or steps between it and the king; in double check only the king
 * moves (FIDE 3.9). True when not in check. */
static inline bool pos_evades(const Position *p, int ksq, int to)
{
    bb_t checkers = p->checkers;
    if (!checkers)
        return true;
    return !(checkers & (checkers - 1)) && (BB(to) & (BB_BETWEEN[ksq][bb_lsb(checkers)] | checkers));
}

/* The squares of our pieces of type `piece` (KNIGHT..QUEEN) that may legally move to `to`. */
static inline bb_t pos_piece_origins(const Position *p, int piece, int to)
{
    int us = p->turn;
    bb_t ours = p->by_color[us], occ = pos_occ(p), king = ours & p->by_type[KING];
    if ((ours & BB(to)) || !king)
        return 0;
    /* those with nothing between them and `to` (a knight's step has no square between) */
    bb_t reach = 0;
    for (bb_t s = p->by_type[piece] & ours & BB_PIECE_PSEUDO[piece][to]; s;) {
        int from = bb_pop(&s);
        reach |= BB(from) & (0 - (bb_t)!(BB_BETWEEN[from][to] & occ));
    }
    int ksq = bb_lsb(king);
    if (!reach || !pos_evades(p, ksq, to))
        return 0;
    bb_t legal = 0;
    for (bb_t s = reach; s;) {
        int from = bb_pop(&s);
        if (!pos_uncovers_king(p, ksq, from, to, occ))
            legal |= BB(from);
    }
    return legal;
}

/* The squares (within from_mask) of our pawns that may legally move to `to`: a capture when an
 * enemy piece stands there or it is the en-passant square (FIDE 3.7d), else a step of one square,
 * or of two from the pawn's start rank over an empty square (3.7a-b). */
static inline bb_t pos_pawn_origins(const Position *p, int to, bb_t from_mask)
{
    int us = p->turn;
    bb_t ours = p->by_color[us], king = ours & p->by_type[KING];
    if ((ours & BB(to)) || !king || RANK_OF(to) == (us == WHITE ? 0 : 7)) /* (no pawn moves to its own first rank) */
        return 0;
    bb_t pawns = pos_pieces(p, us, PAWN) & from_mask, origins;
    int ksq = bb_lsb(king);
    if (to == p->ep) { /* the pawn taken is beside `to`: it may be the checker */
        bb_t legal = 0;
        for (bb_t s = pawns & BB_PAWN_ATTACKS[us ^ 1][to]; s;) {
            int from = bb_pop(&s);
            if (pos_ep_capture_legal(p, from))
                legal |= BB(from);
        }
        return p->checkers & (p->checkers - 1) ? 0 : legal;
    }
    if (p->board[to]) {
        origins = pawns & BB_PAWN_ATTACKS[us ^ 1][to];
    } else {
        int back = us == WHITE ? -8 : 8, one = to + back;
        if (pawns & BB(one))
            origins = BB(one);
        else if (!p->board[one] && RANK_OF(to) == (us == WHITE ? 3 : 4))
            origins = pawns & BB(one + back);
        else
            origins = 0;
    }
    if (!origins || !pos_evades(p, ksq, to))
        return 0;
    bb_t legal = 0, occ = pos_occ(p);
    for (bb_t s = origins; s;) {
        int from = bb_pop(&s);
        if (!pos_uncovers_king(p, ksq, from, to, occ))
            legal |= BB(from);
    }
    return legal;
}

/* Whether our king may step to `to` (not castling): `to` holds no piece of ours and no enemy piece
 * attacks it once the king has left its square. */
static inline bool pos_king_step_legal(const Position *p, int to)
{
    int us = p->turn, ksq = pos_king(p, us);
    return ksq != NO_SQ && (BB_KING[ksq] & BB(to)) && !(p->by_color[us] & BB(to)) &&
           !pos_attacked_by(p, to, us ^ 1, pos_occ(p) ^ BB(ksq));
}

#endif
