/* Legal move generation with check and pin masks, filtered by piece type and square masks; the
 * game-end status; perft. */
#include "movegen.h"
#include "variant_moves.h"
#include "variant_atomic.h"
#include "variant_crazyhouse.h"

static inline void add(MoveList *ml, int from, int to, int type, int promo)
{
    ml->moves[ml->n++] = mv_make(from, to, type, promo);
}

static inline void add_pawn_moves(MoveList *ml, int from, bb_t targets)
{
    while (targets) {
        int to = bb_pop(&targets);
        if (RANK_OF(to) == 0 || RANK_OF(to) == 7) {
            for (int promo = QUEEN; promo >= KNIGHT; promo--)
                add(ml, from, to, MT_PROMOTION, promo);
        } else {
            add(ml, from, to, MT_NORMAL, 0);
        }
    }
}

/* Pieces of `color` pinned to their king by an enemy slider. */
static bb_t pinned_pieces(const Position *p, int color, int ksq)
{
    bb_t occ = pos_occ(p), them = p->by_color[color ^ 1], pinned = 0;
    bb_t snipers = ((BB_RAYS[DIR_N][ksq] | BB_RAYS[DIR_S][ksq] | BB_RAYS[DIR_E][ksq] | BB_RAYS[DIR_W][ksq]) &
                    (p->by_type[ROOK] | p->by_type[QUEEN]) & them) |
                   ((BB_RAYS[DIR_NE][ksq] | BB_RAYS[DIR_NW][ksq] | BB_RAYS[DIR_SE][ksq] | BB_RAYS[DIR_SW][ksq]) &
                    (p->by_type[BISHOP] | p->by_type[QUEEN]) & them);
    while (snipers) {
        int s = bb_pop(&snipers);
        bb_t between = BB_BETWEEN[ksq][s] & occ;
        if (between && !(between & (between - 1)) && (between & p->by_color[color]))
            pinned |= between;
    }
    return pinned;
}

#define attacked_by pos_attacked_by

/* Whether the king on ksq (not in check) may castle with the rook on rsq = castle[us][side]:
 * the squares both cross are empty, and none the king crosses or lands on is attacked. */
bool pos_castling_legal(const Position *p, int ksq, int side, int rsq)
{
    int us = p->turn;
    bb_t occ = pos_occ(p);
    int kt = castle_king_target(us, side), rt = castle_rook_target(us, side);
    bb_t must_be_empty = (BB_BETWEEN[ksq][kt] | BB(kt) | BB_BETWEEN[rsq][rt] | BB(rt)) & ~(BB(ksq) | BB(rsq));
    if (occ & must_be_empty)
        return false;
    bb_t without = occ ^ BB(ksq) ^ BB(rsq);
    bb_t path = BB_BETWEEN[ksq][kt] | BB(kt);
    while (path) {
        int s = bb_pop(&path);
        if (attacked_by(p, s, us ^ 1, without))
            return false;
    }
    /* Chess960: the rook may have shielded the king's target along the back rank. */
    return !attacked_by(p, kt, us ^ 1, without | BB(kt) | BB(rt));
}

static void gen_castling(const Position *p, MoveList *ml, int ksq, bb_t to_mask)
{
    for (int side = 0; side < 2; side++) {
        int rsq = p->castle[p->turn][side];
        if (rsq != NO_SQ && (BB(rsq) & to_mask) && pos_castling_legal(p, ksq, side, rsq))
            add(ml, ksq, rsq, MT_CASTLE, 0);
    }
}

int pos_gen_castling_to(const Position *p, int rsq, move_t *out)
{
    if (p->variant != VARIANT_STANDARD) { /* (a variant's castling rules: Antichess has no attacked squares) */
        MoveList ml;
        pos_gen_legal(p, &ml, GEN_CASTLING, ~0ULL, rsq == NO_SQ ? 0 : BB(rsq));
        if (ml.n)
            *out = ml.moves[ml.n - 1];
        return ml.n;
    }
    int ksq = pos_king(p, p->turn), count = 0;
    if (ksq == NO_SQ || p->checkers)
        return 0;
    for (int side = 0; side < 2; side++) {
        if (p->castle[p->turn][side] == rsq && rsq != NO_SQ && pos_castling_legal(p, ksq, side, rsq)) {
            *out = mv_make(ksq, rsq, MT_CASTLE, 0);
            count++;
        }
    }
    return count;
}

static void gen_en_passant(const Position *p, MoveList *ml, bb_t from_mask)
{
    int us = p->turn, ep = p->ep;
    bb_t candidates = BB_PAWN_ATTACKS[us ^ 1][ep] & pos_pieces(p, us, PAWN) & from_mask;
    while (candidates) {
        int from = bb_pop(&candidates);
        if (pos_ep_capture_legal(p, from))
            add(ml, from, ep, MT_EN_PASSANT, 0);
    }
}

static void gen_chess(const Position *p, MoveList *ml, int gen, bb_t from_mask, bb_t to_mask);

void pos_gen_legal(const Position *p, MoveList *ml, int gen, bb_t from_mask, bb_t to_mask)
{
    ml->n = 0;
    if (p->variant != VARIANT_STANDARD) {
        if (pos_variant_end(p)) /* (the game is over: no move) */
            return;
        if (variant_moves_differ(p)) { /* (Racing Kings, Antichess, the Horde's White) */
            variant_gen_legal(p, ml, gen, from_mask, to_mask);
            return;
        }
        if (p->variant == VARIANT_ATOMIC) { /* (other moves are legal there) */
            atomic_gen_legal(p, ml, gen, from_mask, to_mask);
            return;
        }
        if (p->variant == VARIANT_CRAZYHOUSE) { /* chess's moves and the drops */
            gen_chess(p, ml, gen, from_mask, to_mask);
            if (gen & GEN_DROPS)
                zh_gen_drops(p, ml, to_mask);
            return;
        }
    }
    gen_chess(p, ml, gen, from_mask, to_mask);
}

static void gen_chess(const Position *p, MoveList *ml, int gen, bb_t from_mask, bb_t to_mask)
{
    int us = p->turn, them = us ^ 1;
    int ksq = pos_king(p, us);
    if (ksq == NO_SQ)
        return;
    bb_t occ = pos_occ(p), ours = p->by_color[us];
    bb_t checkers = p->checkers;

    if ((gen & (1 << KING)) && (BB(ksq) & from_mask)) {
        bb_t targets = BB_KING[ksq] & ~ours & to_mask;
        bb_t without_king = occ ^ BB(ksq);
        while (targets) {
            int to = bb_pop(&targets);
            if (!attacked_by(p, to, them, without_king))
                add(ml, ksq, to, MT_NORMAL, 0);
        }
    }
    if (checkers & (checkers - 1))
        return; /* double check: only the king moves */
    if ((gen & GEN_CASTLING) && !checkers && (BB(ksq) & from_mask))
        gen_castling(p, ml, ksq, to_mask);

    bb_t target = ~ours & to_mask;
    if (checkers)
        target &= BB_BETWEEN[ksq][bb_lsb(checkers)] | checkers;
    bb_t pinned = pinned_pieces(p, us, ksq);

    if (gen & (1 << PAWN)) {
        /* A pawn on its last rank (only in an invalid FEN, whose en passant is still checked)
         * has no move, and its push square would be off the board (a shift by 64+). */
        bb_t pawns = pos_pieces(p, us, PAWN) & from_mask & ~(us == WHITE ? RANK_8 : RANK_1);
        int forward = us == WHITE ? 8 : -8;
        int start_rank = us == WHITE ? 1 : 6;
        while (pawns) {
            int from = bb_pop(&pawns);
            bb_t moves = BB_PAWN_ATTACKS[us][from] & p->by_color[them];
            int one = from + forward;
            if (!(occ & BB(one))) {
                moves |= BB(one);
                if (RANK_OF(from) == start_rank && !(occ & BB(one + forward)))
                    moves |= BB(one + forward);
            }
            moves &= target;
            if (pinned & BB(from))
                moves &= BB_LINE[ksq][from];
            add_pawn_moves(ml, from, moves);
        }
        if (p->ep != NO_SQ && (BB(p->ep) & to_mask))
            gen_en_passant(p, ml, from_mask);
    }
    for (int type = KNIGHT; type <= QUEEN; type++) {
        if (!(gen & (1 << type)))
            continue;
        bb_t pieces = pos_pieces(p, us, type) & from_mask;
        if (type == KNIGHT)
            pieces &= ~pinned; /* a pinned knight can never move */
        while (pieces) {
            int from = bb_pop(&pieces);
            bb_t moves;
            switch (type) {
            case KNIGHT: moves = BB_KNIGHT[from]; break;
            case BISHOP: moves = bb_bishop_attacks(from, occ); break;
            case ROOK: moves = bb_rook_attacks(from, occ); break;
            default: moves = bb_bishop_attacks(from, occ) | bb_rook_attacks(from, occ); break;
            }
            moves &= target;
            if (pinned & BB(from))
                moves &= BB_LINE[ksq][from];
            while (moves)
                add(ml, from, bb_pop(&moves), MT_NORMAL, 0);
        }
    }
}

bool pos_has_legal_move(const Position *p)
{
    if (p->variant == VARIANT_ATOMIC && !pos_variant_end(p))
        return atomic_has_legal_move(p);
    if (p->variant != VARIANT_STANDARD && (pos_variant_end(p) || variant_moves_differ(p))) {
        MoveList ml; /* (the end first: no move there) */
        pos_gen_legal(p, &ml, GEN_ALL, ~0ULL, ~0ULL);
        return ml.n > 0;
    }
    int ksq = pos_king(p, p->turn);
    if (ksq != NO_SQ) { /* a king step is the likeliest legal move, and the cheapest to test */
        bb_t targets = BB_KING[ksq] & ~p->by_color[p->turn], without_king = pos_occ(p) ^ BB(ksq);
        while (targets)
            if (!attacked_by(p, bb_pop(&targets), p->turn ^ 1, without_king))
                return true;
    }
    MoveList ml;
    pos_gen_legal(p, &ml, GEN_ALL, ~0ULL, ~0ULL); /* Chess960 castling can be the only legal move */
    return ml.n > 0;
}

int pos_variant_check_status(const Position *p)
{
    int end = pos_variant_end(p);
    if (end == VARIANT_END_WIN || end == VARIANT_END_LOSS)
        return 2;
    if (!pos_in_check(p))
        return 0;
    return pos_has_legal_move(p) ? 1 : 2;
}

bb_t pos_legal_origins(const Position *p, int piece, int to, int promo)
{
    if (p->variant == VARIANT_ATOMIC)
        return atomic_legal_origins(p, piece, to, promo);
    if (!variant_moves_differ(p)) { /* chess's moves until the variant's end: its narrowed searches */
        bool last_rank = RANK_OF(to) == (p->turn == WHITE ? 7 : 0);
        if (pos_variant_end(p) || (piece == PAWN ? last_rank != (promo != 0) : promo != 0))
            return 0;
        return piece == PAWN ? pos_pawn_origins(p, to, ~0ULL)
               : piece == KING ? (pos_king_step_legal(p, to) ? pos_pieces(p, p->turn, KING) : 0)
                               : pos_piece_origins(p, piece, to);
    }
    MoveList ml;
    bb_t origins = 0;
    pos_gen_legal(p, &ml, 1 << piece, ~0ULL, BB(to));
    for (int i = 0; i < ml.n; i++)
        if (mv_promo(ml.moves[i]) == promo && mv_type(ml.moves[i]) != MT_CASTLE)
            origins |= BB(mv_from(ml.moves[i]));
    return origins;
}

bool pos_is_checkmate(const Position *p) { return pos_in_check(p) && !pos_has_legal_move(p); }
bool pos_is_stalemate(const Position *p) { return !pos_in_check(p) && !pos_has_legal_move(p); }

uint64_t pos_perft(const Position *p, int depth)
{
    MoveList ml;
    if (depth <= 0)
        return 1;
    pos_gen_legal(p, &ml, GEN_ALL, ~0ULL, ~0ULL);
    if (depth == 1)
        return (uint64_t)ml.n; /* bulk counting at the leaves */
    uint64_t nodes = 0;
    for (int i = 0; i < ml.n; i++) {
        Position child = *p;
        pos_make(&child, ml.moves[i]);
        nodes += pos_perft(&child, depth - 1);
    }
    return nodes;
}
