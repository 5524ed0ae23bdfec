/* Board state changes: placing pieces, making moves, hashing, and the game-end status checks. */
#include <string.h>

#include "position.h"
#include "variant_rules.h"
#include "variant_atomic.h"
#include "variant_crazyhouse.h"

void zobrist_init(void);


void pos_clear(Position *p)
{
    bb_init();
    zobrist_init();
    memset(p, 0, sizeof *p);
    p->ep = NO_SQ;
    p->castle[0][0] = p->castle[0][1] = p->castle[1][0] = p->castle[1][1] = NO_SQ;
    p->fullmove = 1;
}

void pos_put(Position *p, int sq, int color, int type)
{
    p->board[sq] = PIECE(color, type);
    p->by_type[type] |= BB(sq);
    p->by_color[color] |= BB(sq);
}

void pos_init_start(Position *p)
{
    static const int back[8] = {ROOK, KNIGHT, BISHOP, QUEEN, KING, BISHOP, KNIGHT, ROOK};
    pos_clear(p);
    for (int f = 0; f < 8; f++) {
        pos_put(p, SQ(f, 0), WHITE, back[f]);
        pos_put(p, SQ(f, 1), WHITE, PAWN);
        pos_put(p, SQ(f, 6), BLACK, PAWN);
        pos_put(p, SQ(f, 7), BLACK, back[f]);
    }
    p->castle[WHITE][0] = SQ(7, 0);
    p->castle[WHITE][1] = SQ(0, 0);
    p->castle[BLACK][0] = SQ(7, 7);
    p->castle[BLACK][1] = SQ(0, 7);
    pos_rehash(p);
}

void pos_set_variant(Position *p, int variant)
{
    p->variant = (uint8_t)variant;
    variant_rules_start(p);
    p->checks_left = variant == VARIANT_THREE_CHECK ? 0x33 : 0;
    pos_rehash(p);
}

static uint64_t castle_key(const Position *p)
{
    uint64_t h = 0;
    for (int c = 0; c < 2; c++)
        for (int s = 0; s < 2; s++)
            if (p->castle[c][s] != NO_SQ)
                h ^= ZOBRIST_CASTLE[c][s];
    return h;
}

void pos_rehash(Position *p)
{
    uint64_t h = 0;
    for (int sq = 0; sq < 64; sq++)
        if (p->board[sq])
            h ^= ZOBRIST_PIECE[p->board[sq]][sq];
    h ^= castle_key(p);
    if (p->variant == VARIANT_THREE_CHECK)
        h ^= ZOBRIST_CHECKS[WHITE][p->checks_left & 15] ^ ZOBRIST_CHECKS[BLACK][p->checks_left >> 4];
    if (p->turn == WHITE) /* Polyglot's turn key is white's */
        h ^= ZOBRIST_TURN;
    p->checkers = pos_compute_checkers(p);
    p->ep_hashed = p->ep != NO_SQ && pos_has_legal_ep(p);
    if (p->ep_hashed)
        h ^= ZOBRIST_EP[FILE_OF(p->ep)];
    p->hash = h;
}

bb_t pos_attackers(const Position *p, int sq, bb_t occ)
{
    bb_t diag = (p->by_type[BISHOP] | p->by_type[QUEEN]) & BB_BISHOP_PSEUDO[sq];
    bb_t orth = (p->by_type[ROOK] | p->by_type[QUEEN]) & BB_ROOK_PSEUDO[sq];
    bb_t a = (BB_PAWN_ATTACKS[BLACK][sq] & pos_pieces(p, WHITE, PAWN)) |
             (BB_PAWN_ATTACKS[WHITE][sq] & pos_pieces(p, BLACK, PAWN)) | (BB_KNIGHT[sq] & p->by_type[KNIGHT]) |
             (BB_KING[sq] & p->by_type[KING]);
    if (diag)
        a |= bb_bishop_attacks(sq, occ) & diag;
    if (orth)
        a |= bb_rook_attacks(sq, occ) & orth;
    return a;
}

bb_t pos_compute_checkers(const Position *p)
{
    if (p->variant == VARIANT_ATOMIC)
        return atomic_checkers(p);
    int k = pos_king(p, p->turn);
    if (k == NO_SQ || p->variant == VARIANT_ANTICHESS) /* (no check in antichess) */
        return 0;
    return pos_attackers(p, k, pos_occ(p)) & p->by_color[p->turn ^ 1];
}

static inline void remove_piece(Position *p, int sq)
{
    uint8_t pc = p->board[sq];
    p->by_type[PIECE_TYPE(pc)] ^= BB(sq);
    p->by_color[PIECE_COLOR(pc)] ^= BB(sq);
    p->hash ^= ZOBRIST_PIECE[pc][sq];
    p->board[sq] = 0;
}

static inline void add_piece(Position *p, int sq, uint8_t pc)
{
    p->by_type[PIECE_TYPE(pc)] |= BB(sq);
    p->by_color[PIECE_COLOR(pc)] |= BB(sq);
    p->hash ^= ZOBRIST_PIECE[pc][sq];
    p->board[sq] = pc;
}

/* Clears castling right [c][s], taking its key out of the hash. */
static inline void clear_castle(Position *p, int c, int s)
{
    if (p->castle[c][s] != NO_SQ) {
        p->hash ^= ZOBRIST_CASTLE[c][s];
        p->castle[c][s] = NO_SQ;
    }
}

/* Drop the castling right tied to a rook square (the rook moved or was captured). */
static inline void lose_castle_at(Position *p, int sq)
{
    for (int c = 0; c < 2; c++)
        for (int s = 0; s < 2; s++)
            if (p->castle[c][s] == sq)
                clear_castle(p, c, s);
}

/* What every move changes alike: the en-passant chance ends (FIDE 3.7d: only on the reply to a
 * double step) and the half-move clock counts on (9.3; a capture or pawn move sets it to 0). */
static inline void begin_move(Position *p)
{
    if (p->ep_hashed)
        p->hash ^= ZOBRIST_EP[FILE_OF(p->ep)];
    p->ep = NO_SQ;
    p->ep_hashed = 0;
    p->halfmove += p->halfmove != UINT16_MAX; /* saturates: a FEN may start it at 65535 */
}

/* The other side is to move; after Black's move the move number counts on (no wrap to 0, which
 * no FEN could say). */
static inline void end_move(Position *p, int us)
{
    p->turn ^= 1;
    p->hash ^= ZOBRIST_TURN;
    p->fullmove += (uint32_t)(us == BLACK) & (uint32_t)(p->fullmove != UINT32_MAX);
}

/* Castling: both pieces leave their squares before either lands, as in Chess960 a target may be
 * the other's start square. */
void pos_lose_castling(Position *p, int piece, int from, int to, bool captured)
{
    if (captured && pos_is_castle_square(p, to))
        lose_castle_at(p, to);
    if (piece == KING) {
        clear_castle(p, p->turn, 0);
        clear_castle(p, p->turn, 1);
    } else if (piece == ROOK) {
        lose_castle_at(p, from);
    }
}

void pos_make_special(Position *p, move_t m)
{
    int us = p->turn, from = mv_from(m), to = mv_to(m);
    begin_move(p);
    if (m == MOVE_NULL) {
        /* the side passes: nothing moves */
    } else if (mv_type(m) == MT_CASTLE) {
        int side = castle_side_of(p, us, to);
        uint8_t king = p->board[from];
        remove_piece(p, from);
        remove_piece(p, to);
        add_piece(p, castle_king_target(us, side), king);
        add_piece(p, castle_rook_target(us, side), PIECE(us, ROOK));
        clear_castle(p, us, 0);
        clear_castle(p, us, 1);
    } else if (mv_is_king_promotion(m)) { /* antichess: a pawn becomes a king (what it takes is gone) */
        if (p->board[to]) {
            remove_piece(p, to);
            lose_castle_at(p, to);
        }
        remove_piece(p, from);
        add_piece(p, to, PIECE(us, KING));
        p->halfmove = 0;
    } else { /* en passant: the pawn taken stands beside the target, on the mover's rank */
        uint8_t pawn = p->board[from];
        remove_piece(p, to ^ 8);
        remove_piece(p, from);
        add_piece(p, to, pawn);
        p->halfmove = 0;
    }
    end_move(p, us);
    p->checkers = pos_compute_checkers(p);
}

void pos_make_other(Position *p, move_t m, Undo *u)
{
    if (p->variant == VARIANT_STANDARD) {
        if (mv_type(m) == MT_PROMOTION)
            pos_make_plain(p, m, true, true);
        else
            pos_make_special(p, m);
        return;
    }
    int us = p->turn;
    if (p->variant == VARIANT_CRAZYHOUSE) {
        if (u)
            u->zh = p->zh;
        zh_before_make(p, m);
        if (mv_is_drop(m)) { /* the piece from the pocket onto its square (no capture, no pawn move: */
            begin_move(p);   /* the half-move clock counts on, as python-chess counts it) */
            add_piece(p, mv_to(m), PIECE(us, mv_drop_piece(m)));
            end_move(p, us);
            p->checkers = pos_compute_checkers(p);
            return;
        }
    }
    bool explodes = p->variant == VARIANT_ATOMIC && m != MOVE_NULL && atomic_is_capture(p, m);
    if (explodes && u)
        atomic_save_blast(p, m, u);
    if (mv_type(m) >= MT_EN_PASSANT)
        pos_make_special(p, m);
    else
        pos_make_plain(p, m, true, p->variant != VARIANT_ATOMIC);
    if (p->variant == VARIANT_ATOMIC) { /* (after the explosion; the kings may touch now) */
        if (explodes)
            atomic_explode(p, mv_to(m));
        p->checkers = atomic_checkers(p);
    }
    /* the en-passant square is part of the position only when a capture there is legal (FIDE
     * 9.2.3.1): decided again after the variant's side effects (a third check ends the game; the
     * Horde's first-rank step leaves no square; Antichess has no check) */
    if (p->ep_hashed) {
        p->hash ^= ZOBRIST_EP[FILE_OF(p->ep)];
        p->ep_hashed = 0;
    }
    pos_variant_after_make(p, us);
    if (p->ep != NO_SQ && (BB_PAWN_ATTACKS[us][p->ep] & pos_pieces(p, us ^ 1, PAWN)) && pos_has_legal_ep(p)) {
        p->ep_hashed = 1;
        p->hash ^= ZOBRIST_EP[FILE_OF(p->ep)];
    }
}

void pos_variant_after_make(Position *p, int us)
{
    if (p->variant == VARIANT_THREE_CHECK && p->checkers) { /* a check given: one fewer to give */
        int left = pos_checks_left(p, us), shift = 4 * us;
        if (left > 0) {
            p->hash ^= ZOBRIST_CHECKS[us][left] ^ ZOBRIST_CHECKS[us][left - 1];
            p->checks_left = (uint8_t)(p->checks_left - (1 << shift));
        }
    }
    if (p->variant == VARIANT_HORDE || p->variant == VARIANT_ANTICHESS)
        variant_rules_after_make(p, us);
}

/* The centre squares d4, e4, d5, e5: a king there wins king of the hill. */
#define CENTRE (BB(SQ(3, 3)) | BB(SQ(4, 3)) | BB(SQ(3, 4)) | BB(SQ(4, 4)))

int pos_variant_end(const Position *p)
{
    int us = p->turn, them = us ^ 1;
    switch (p->variant) {
    case VARIANT_KING_OF_THE_HILL: {
        bb_t hill = p->by_type[KING] & CENTRE;
        return hill & p->by_color[them] ? VARIANT_END_LOSS : hill & p->by_color[us] ? VARIANT_END_WIN : VARIANT_END_NONE;
    }
    case VARIANT_THREE_CHECK: {
        bool ours = pos_checks_left(p, us) == 0, theirs = pos_checks_left(p, them) == 0;
        return ours && theirs ? VARIANT_END_DRAW : theirs ? VARIANT_END_LOSS : ours ? VARIANT_END_WIN : VARIANT_END_NONE;
    }
    case VARIANT_RACING_KINGS:
    case VARIANT_HORDE:
    case VARIANT_ANTICHESS:
        return variant_rules_end(p);
    case VARIANT_ATOMIC:
        return atomic_end(p);
    default:
        return VARIANT_END_NONE;
    }
}

/* Puts piece pc on sq or takes it off (the same xor): bitboards and board only, as pos_unmake
 * restores the hash with the rest of the state. */
static inline void toggle_piece(Position *p, int sq, uint8_t pc)
{
    p->by_type[PIECE_TYPE(pc)] ^= BB(sq);
    p->by_color[PIECE_COLOR(pc)] ^= BB(sq);
}

void pos_unmake(Position *p, const Undo *u)
{
    move_t m = u->move;
    int from = mv_from(m), to = mv_to(m), us = u->state.turn;
    memcpy(&p->turn, &u->state, sizeof u->state);
    if (m == MOVE_NULL)
        return;
    if (u->state.variant == VARIANT_CRAZYHOUSE) {
        p->zh = u->zh;
        if (mv_is_drop(m)) {
            toggle_piece(p, mv_to(m), p->board[mv_to(m)]);
            p->board[mv_to(m)] = 0;
            return;
        }
    }
    if (u->state.variant == VARIANT_ATOMIC && mv_type(m) != MT_CASTLE && (u->captured || mv_type(m) == MT_EN_PASSANT)) {
        atomic_restore_blast(p, u); /* (the explosion's squares, the mover's and the taken piece's among them) */
        return;
    }
    if (mv_type(m) == MT_CASTLE) { /* both off their targets before either is back (Chess960) */
        int side = castle_side_of(p, us, to); /* the rights before the move are back */
        int kt = castle_king_target(us, side), rt = castle_rook_target(us, side);
        uint8_t king = p->board[kt], rook = p->board[rt];
        toggle_piece(p, kt, king);
        toggle_piece(p, rt, rook);
        p->board[kt] = p->board[rt] = 0;
        toggle_piece(p, from, king);
        toggle_piece(p, to, rook);
        p->board[from] = king;
        p->board[to] = rook;
        return;
    }
    uint8_t landing = p->board[to];
    uint8_t pc = mv_type(m) == MT_PROMOTION || mv_is_king_promotion(m) ? PIECE(us, PAWN) : landing;
    toggle_piece(p, to, landing);
    toggle_piece(p, from, pc);
    p->board[from] = pc;
    p->board[to] = u->captured;
    if (u->captured)
        toggle_piece(p, to, u->captured);
    if (mv_is_en_passant(m)) {
        uint8_t pawn = PIECE(us ^ 1, PAWN);
        toggle_piece(p, to ^ 8, pawn);
        p->board[to ^ 8] = pawn;
    }
}

bool pos_has_legal_ep(const Position *p)
{
    if (p->variant == VARIANT_ATOMIC)
        return atomic_has_legal_ep(p);
    if (p->ep == NO_SQ || (p->checkers & (p->checkers - 1))) /* (double check: the king alone moves) */
        return false;
    bb_t takers = BB_PAWN_ATTACKS[p->turn ^ 1][p->ep] & pos_pieces(p, p->turn, PAWN);
    if (p->variant != VARIANT_STANDARD) { /* no move once the game has ended; no king to keep safe */
        if (pos_variant_end(p))
            return false;
        if (variant_no_king_safety(p))
            return takers != 0;
    }
    while (takers)
        if (pos_ep_capture_legal(p, bb_pop(&takers)))
            return true;
    return false;
}

/* Whether `color` cannot possibly checkmate, whatever the opponent plays (the rule set that
 * python-chess and Lichess use for "insufficient material"). */
bool pos_color_has_insufficient_material(const Position *p, int color)
{
    if (p->variant == VARIANT_KING_OF_THE_HILL) /* a bare king can still walk to the hill */
        return false;
    if (p->variant == VARIANT_THREE_CHECK) /* any piece but the king can give check */
        return !(p->by_color[color] & ~p->by_type[KING]);
    if (p->variant == VARIANT_RACING_KINGS || p->variant == VARIANT_HORDE || p->variant == VARIANT_ANTICHESS)
        return variant_rules_insufficient_material(p, color);
    if (p->variant == VARIANT_ATOMIC)
        return atomic_insufficient_material(p, color);
    if (p->variant == VARIANT_CRAZYHOUSE)
        return zh_insufficient_material(p);
    bb_t ours = p->by_color[color], theirs = p->by_color[color ^ 1];
    if (ours & (p->by_type[PAWN] | p->by_type[ROOK] | p->by_type[QUEEN]))
        return false;
    if (ours & p->by_type[KNIGHT]) /* a lone knight mates only with the opponent's help pieces */
        return bb_count(ours) <= 2 && !(theirs & ~p->by_type[KING] & ~p->by_type[QUEEN]);
    if (ours & p->by_type[BISHOP]) {
        bb_t bishops = p->by_type[BISHOP];
        bool same_colour = !(bishops & DARK_SQUARES) || !(bishops & ~DARK_SQUARES);
        return same_colour && !p->by_type[PAWN] && !p->by_type[KNIGHT];
    }
    return true;
}

int pos_repetition_count(const uint64_t *history, int n, int halfmove)
{
    if (n == 0)
        return 0;
    int count = 1;
    uint64_t now = history[n - 1];
    int first = n - 1 - halfmove > 0 ? n - 1 - halfmove : 0; /* no repetition across a capture or pawn move */
    for (int i = n - 3; i >= first; i -= 2) /* one bound test a step: long endgames run this far */
        count += history[i] == now;
    return count;
}
