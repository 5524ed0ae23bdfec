/* Atomic chess: the explosion a capture makes, the check that only a king apart from the enemy
 * king can be in, and the legal moves (a move of chess whose explosion leaves the own king, and
 * leaves it unattacked unless the enemy king exploded or stands beside it). Only the inline parts
 * of position.h and bitboard.h are used here: position.c and movegen.c call this file. */
#include <string.h>

#include "variant_atomic.h"

/* Takes the piece on sq off the board, the hash and the castling rights it held (a rook on its
 * castling square, a king: all of its side's). */
static void explode_square(Position *p, int sq)
{
    uint8_t pc = p->board[sq];
    p->by_type[PIECE_TYPE(pc)] ^= BB(sq);
    p->by_color[PIECE_COLOR(pc)] ^= BB(sq);
    p->hash ^= ZOBRIST_PIECE[pc][sq];
    p->board[sq] = 0;
    for (int c = 0; c < 2; c++)
        for (int s = 0; s < 2; s++)
            if (p->castle[c][s] != NO_SQ && (p->castle[c][s] == sq || (PIECE_TYPE(pc) == KING && PIECE_COLOR(pc) == c))) {
                p->hash ^= ZOBRIST_CASTLE[c][s];
                p->castle[c][s] = NO_SQ;
            }
}

/* The squares an explosion on `to` empties besides `to` itself: the pieces around it but pawns. */
static inline bb_t blast_radius(const Position *p, int to)
{
    return BB_KING[to] & pos_occ(p) & ~p->by_type[PAWN];
}

void atomic_explode(Position *p, int to)
{
    explode_square(p, to); /* the capturer */
    for (bb_t b = blast_radius(p, to); b;)
        explode_square(p, bb_pop(&b));
}

/* The 3x3 squares around `to` in a fixed order, NO_SQ off the board. */
static void blast_squares(int to, int out[9])
{
    int f = FILE_OF(to), r = RANK_OF(to), i = 0;
    for (int dr = -1; dr <= 1; dr++)
        for (int df = -1; df <= 1; df++, i++)
            out[i] = f + df < 0 || f + df > 7 || r + dr < 0 || r + dr > 7 ? NO_SQ : SQ(f + df, r + dr);
}

void atomic_save_blast(const Position *p, move_t m, Undo *u)
{
    int sq[9];
    blast_squares(mv_to(m), sq);
    u->mover = p->board[mv_from(m)];
    for (int i = 0; i < 9; i++)
        u->blast[i] = sq[i] == NO_SQ ? 0 : p->board[sq[i]];
}

/* Puts piece pc (0: none) on sq, whatever stood there: bitboards and board (the hash is restored
 * with the state). */
static void set_square(Position *p, int sq, uint8_t pc)
{
    uint8_t old = p->board[sq];
    if (old) {
        p->by_type[PIECE_TYPE(old)] ^= BB(sq);
        p->by_color[PIECE_COLOR(old)] ^= BB(sq);
    }
    if (pc) {
        p->by_type[PIECE_TYPE(pc)] |= BB(sq);
        p->by_color[PIECE_COLOR(pc)] |= BB(sq);
    }
    p->board[sq] = pc;
}

void atomic_restore_blast(Position *p, const Undo *u)
{
    int sq[9];
    blast_squares(mv_to(u->move), sq);
    set_square(p, mv_from(u->move), u->mover);
    for (int i = 0; i < 9; i++)
        if (sq[i] != NO_SQ)
            set_square(p, sq[i], u->blast[i]);
}

static inline bool kings_touch(const Position *p)
{
    int wk = pos_king(p, WHITE), bk = pos_king(p, BLACK);
    return wk != NO_SQ && bk != NO_SQ && (BB_KING[wk] & BB(bk));
}

/* The pieces of `color` attacking sq (kings aside: a king never captures here). */
/* The pieces among `them` (of `color`; by_type: the position's piece bitboards) attacking sq on
 * the board occ, kings aside. */
static inline bb_t attacks_on(const bb_t *by_type, bb_t them, int color, int sq, bb_t occ)
{
    bb_t a = (BB_PAWN_ATTACKS[color ^ 1][sq] & by_type[PAWN]) | (BB_KNIGHT[sq] & by_type[KNIGHT]);
    bb_t diagonal = (by_type[BISHOP] | by_type[QUEEN]) & them & BB_BISHOP_PSEUDO[sq];
    bb_t straight = (by_type[ROOK] | by_type[QUEEN]) & them & BB_ROOK_PSEUDO[sq];
    if (diagonal) /* (the sliders' lines only when one stands on them) */
        a |= bb_bishop_attacks(sq, occ) & diagonal;
    if (straight)
        a |= bb_rook_attacks(sq, occ) & straight;
    return a & them;
}

static bb_t attackers_of(const Position *p, int sq, int color, bb_t occ)
{
    return attacks_on(p->by_type, p->by_color[color] & occ, color, sq, occ);
}

bb_t atomic_checkers(const Position *p)
{
    bb_t ours = p->by_type[KING] & p->by_color[p->turn], theirs = p->by_type[KING] & p->by_color[p->turn ^ 1];
    if (!ours || !theirs)
        return 0;
    int k = bb_lsb(ours);
    return BB_KING[k] & theirs ? 0 : attackers_of(p, k, p->turn ^ 1, pos_occ(p));
}

/* The pieces of a position after a move, as bitboards alone (what the legality test reads). */
typedef struct {
    bb_t by_type[7], by_color[2];
} Pieces;

/* Takes the piece pc off sq, or puts it there (the same xor). */
static inline void flip(Pieces *q, int sq, uint8_t pc)
{
    q->by_type[PIECE_TYPE(pc)] ^= BB(sq);
    q->by_color[PIECE_COLOR(pc)] ^= BB(sq);
}

static inline int king_of(const Pieces *q, int color)
{
    bb_t k = q->by_type[KING] & q->by_color[color];
    return k ? bb_lsb(k) : NO_SQ;
}

/* Whether the pseudo-legal move m leaves the mover's king standing and, unless the enemy king
 * exploded or stands beside it, unattacked. */
static bool legal_after(const Position *p, move_t m)
{
    int us = p->turn, from = mv_from(m), to = mv_to(m), type = mv_type(m);
    uint8_t mover = p->board[from];
    if (!p->checkers && type <= MT_PROMOTION && !p->board[to] && PIECE_TYPE(mover) != KING) {
        /* nothing explodes, the king stays and was in no check: it can be attacked after the move
         * only along the line the piece leaves (kings side by side stay so: no check) */
        int ksq = pos_king(p, us);
        return ksq != NO_SQ && (!pos_uncovers_king(p, ksq, from, to, pos_occ(p)) || kings_touch(p));
    }
    Pieces q;
    memcpy(q.by_type, p->by_type, sizeof q.by_type);
    memcpy(q.by_color, p->by_color, sizeof q.by_color);
    if (type == MT_CASTLE) {
        int side = castle_side_of(p, us, to);
        flip(&q, from, mover);
        flip(&q, to, p->board[to]);
        flip(&q, castle_king_target(us, side), mover);
        flip(&q, castle_rook_target(us, side), PIECE(us, ROOK));
    } else if (atomic_is_capture(p, m)) { /* the capturer, the piece taken and the pieces around but pawns */
        int taken = type == MT_EN_PASSANT ? to ^ 8 : to;
        flip(&q, from, mover);
        flip(&q, taken, p->board[taken]);
        bb_t occ = q.by_color[WHITE] | q.by_color[BLACK];
        for (bb_t b = BB_KING[to] & occ & ~q.by_type[PAWN]; b;) {
            int sq = bb_pop(&b);
            flip(&q, sq, p->board[sq]);
        }
    } else {
        flip(&q, from, mover);
        flip(&q, to, type == MT_PROMOTION ? PIECE(us, mv_promo(m)) : mover);
    }
    int ours = king_of(&q, us), theirs = king_of(&q, us ^ 1);
    if (ours == NO_SQ)
        return false;
    if (theirs == NO_SQ || (BB_KING[ours] & BB(theirs)))
        return true;
    return !attacks_on(q.by_type, q.by_color[us ^ 1], us ^ 1, ours, q.by_color[WHITE] | q.by_color[BLACK]);
}

bool atomic_has_legal_ep(const Position *p)
{
    if (p->ep == NO_SQ)
        return false;
    for (bb_t takers = BB_PAWN_ATTACKS[p->turn ^ 1][p->ep] & pos_pieces(p, p->turn, PAWN); takers;)
        if (legal_after(p, mv_make(bb_pop(&takers), p->ep, MT_EN_PASSANT, 0)))
            return true;
    return false;
}

/* A generation's moves: ml, and how many are wanted (one to know whether any exists). */
typedef struct {
    MoveList *ml;
    int wanted;
} Found;

/* Adds m when legal; whether the moves wanted are all found (the search ends). */
static bool add_if_legal(const Position *p, Found *f, move_t m)
{
    if (legal_after(p, m))
        f->ml->moves[f->ml->n++] = m;
    return f->ml->n >= f->wanted;
}

/* The squares a piece of `type` of the side to move may come from to reach `to` (a pawn: to take
 * there, or to step there along its file): SAN names one target, and only these pieces are tried. */
static bb_t origins_toward(const Position *p, int type, int to)
{
    bb_t occ = pos_occ(p);
    switch (type) {
    case PAWN: return BB_PAWN_ATTACKS[p->turn ^ 1][to] | (FILE_A << FILE_OF(to));
    case KNIGHT: return BB_KNIGHT[to];
    case BISHOP: return bb_bishop_attacks(to, occ);
    case ROOK: return bb_rook_attacks(to, occ);
    case QUEEN: return bb_bishop_attacks(to, occ) | bb_rook_attacks(to, occ);
    default: return BB_KING[to];
    }
}

/* The squares the piece of `type` of the side to move on `from` may move to, legal or not: a
 * pawn's steps and captures (en passant too; none from its first or last rank), a king's steps to
 * empty squares (a king never captures: it would explode), the other pieces' as in chess. */
static bb_t targets_of(const Position *p, int type, int from)
{
    int us = p->turn;
    bb_t occ = pos_occ(p);
    switch (type) {
    case PAWN: {
        if (BB(from) & (RANK_1 | RANK_8))
            return 0;
        int forward = us == WHITE ? 8 : -8, one = from + forward;
        bb_t takes = p->by_color[us ^ 1] | (p->ep != NO_SQ && !(occ & BB(p->ep)) ? BB(p->ep) : 0);
        bb_t t = BB_PAWN_ATTACKS[us][from] & takes;
        if (!(occ & BB(one))) {
            t |= BB(one);
            if (RANK_OF(from) == (us == WHITE ? 1 : 6) && !(occ & BB(one + forward)))
                t |= BB(one + forward);
        }
        return t;
    }
    case KNIGHT: return BB_KNIGHT[from] & ~p->by_color[us];
    case BISHOP: return bb_bishop_attacks(from, occ) & ~p->by_color[us];
    case ROOK: return bb_rook_attacks(from, occ) & ~p->by_color[us];
    case QUEEN: return (bb_bishop_attacks(from, occ) | bb_rook_attacks(from, occ)) & ~p->by_color[us];
    default: return BB_KING[from] & ~occ;
    }
}

/* The move of the piece of `type` from `from` to one of its targets (promoting to `promo`). */
static inline move_t move_of(const Position *p, int type, int from, int to, int promo)
{
    if (type == PAWN && to == p->ep)
        return mv_make(from, to, MT_EN_PASSANT, 0);
    return mv_make(from, to, promo ? MT_PROMOTION : MT_NORMAL, promo);
}

static inline bool on_last_rank(int to) { return RANK_OF(to) == 0 || RANK_OF(to) == 7; }

bb_t atomic_legal_origins(const Position *p, int piece, int to, int promo)
{
    if (atomic_end(p) || (piece == PAWN ? on_last_rank(to) != (promo != 0) : promo != 0))
        return 0;
    /* a piece's moves are symmetric (it reaches `to` from the squares it would attack from `to`):
     * only a pawn's targets are asked for */
    if (piece != PAWN && (BB(to) & (piece == KING ? pos_occ(p) : p->by_color[p->turn])))
        return 0;
    bb_t legal = 0;
    for (bb_t s = pos_pieces(p, p->turn, piece) & origins_toward(p, piece, to); s;) {
        int from = bb_pop(&s);
        if ((piece != PAWN || (targets_of(p, PAWN, from) & BB(to))) && legal_after(p, move_of(p, piece, from, to, promo)))
            legal |= BB(from);
    }
    return legal;
}

/* Castling as in chess (the squares between empty, the king not in check, no square it crosses
 * or lands on attacked), but a square beside the enemy king counts as unattacked. */
static bool gen_castling(const Position *p, Found *ml, int ksq, bb_t to_mask)
{
    int us = p->turn, them = us ^ 1, enemy_king = pos_king(p, them);
    bb_t shielded = enemy_king == NO_SQ ? ~0ULL : BB_KING[enemy_king];
    for (int side = 0; side < 2; side++) {
        int rsq = p->castle[us][side];
        if (rsq == NO_SQ || !(BB(rsq) & to_mask))
            continue;
        int kt = castle_king_target(us, side), rt = castle_rook_target(us, side);
        bb_t occ = pos_occ(p);
        bb_t must_be_empty = (BB_BETWEEN[ksq][kt] | BB(kt) | BB_BETWEEN[rsq][rt] | BB(rt)) & ~(BB(ksq) | BB(rsq));
        if (occ & must_be_empty)
            continue;
        bb_t without = occ ^ BB(ksq) ^ BB(rsq);
        bool attacked = false;
        for (bb_t path = (BB_BETWEEN[ksq][kt] | BB(kt) | BB(ksq)) & ~shielded; path && !attacked;)
            attacked = attackers_of(p, bb_pop(&path), them, without) != 0;
        if (!attacked && add_if_legal(p, ml, mv_make(ksq, rsq, MT_CASTLE, 0)))
            return true;
    }
    return false;
}

/* The legal moves wanted (all, or the first to know whether one exists): the king's steps first
 * (the likeliest legal move), then the other pieces'. */
static void gen_moves(const Position *p, Found *ml, int gen, bb_t from_mask, bb_t to_mask)
{
    int us = p->turn;
    ml->ml->n = 0;
    int ksq = pos_king(p, us);
    if (ksq != NO_SQ && (BB(ksq) & from_mask)) {
        if (gen & (1 << KING))
            for (bb_t moves = targets_of(p, KING, ksq) & to_mask; moves;)
                if (add_if_legal(p, ml, mv_make(ksq, bb_pop(&moves), MT_NORMAL, 0)))
                    return;
        if ((gen & GEN_CASTLING) && !atomic_checkers(p) && gen_castling(p, ml, ksq, to_mask))
            return;
    }
    for (int type = PAWN; type <= QUEEN; type++) {
        if (!(gen & (1 << type)))
            continue;
        for (bb_t pieces = pos_pieces(p, us, type) & from_mask; pieces;) {
            int from = bb_pop(&pieces);
            for (bb_t moves = targets_of(p, type, from) & to_mask; moves;) {
                int to = bb_pop(&moves);
                if (type == PAWN && on_last_rank(to)) {
                    for (int promo = QUEEN; promo >= KNIGHT; promo--)
                        if (add_if_legal(p, ml, move_of(p, type, from, to, promo)))
                            return;
                } else if (add_if_legal(p, ml, move_of(p, type, from, to, 0))) {
                    return;
                }
            }
        }
    }
}

void atomic_gen_legal(const Position *p, MoveList *ml, int gen, bb_t from_mask, bb_t to_mask)
{
    Found f = {ml, 256};
    gen_moves(p, &f, gen, from_mask, to_mask);
}

bool atomic_has_legal_move(const Position *p)
{
    MoveList ml;
    Found f = {&ml, 1};
    gen_moves(p, &f, GEN_ALL, ~0ULL, ~0ULL);
    return ml.n > 0;
}

bool atomic_insufficient_material(const Position *p, int color)
{
    bb_t kings = p->by_type[KING], mine = p->by_color[color], theirs = p->by_color[color ^ 1];
    if (!(theirs & kings)) /* the enemy king has exploded already */
        return false;
    if (!(mine & ~kings)) /* a bare king explodes nothing */
        return true;
    if (theirs & ~kings) { /* the enemy's own pieces can explode beside its king */
        bb_t bishops = p->by_type[BISHOP];
        if ((kings | bishops) == pos_occ(p)) { /* unless bishops only, on colours that never meet */
            bb_t white = bishops & p->by_color[WHITE], black = bishops & p->by_color[BLACK];
            if (!(white & DARK_SQUARES))
                return !(black & ~DARK_SQUARES);
            if (!(white & ~DARK_SQUARES))
                return !(black & DARK_SQUARES);
        }
        return false;
    }
    if (p->by_type[QUEEN] | p->by_type[PAWN]) /* a queen (or a pawn, a queen to be) mates a bare king */
        return false;
    bb_t minors = p->by_type[KNIGHT] | p->by_type[BISHOP] | p->by_type[ROOK];
    if (bb_count(minors) == 1) /* one knight, bishop or rook cannot */
        return true;
    if ((p->by_type[KNIGHT] | kings) == pos_occ(p)) /* nor two knights */
        return bb_count(p->by_type[KNIGHT]) <= 2;
    return false;
}
