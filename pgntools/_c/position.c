/* Board state changes: placing pieces, making moves, hashing, and the game-end status checks. */
#include <string.h>

#include "position.h"

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
    int k = pos_king(p, p->turn);
    if (k == NO_SQ)
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

/* Whether sq is one of the four castling rook squares: the four bytes compared at once (the
 * common answer, no, costs no loop). */
static inline bool is_castle_square(const Position *p, int sq)
{
    uint32_t rights, x;
    memcpy(&rights, p->castle, 4);
    x = rights ^ (0x01010101u * (uint32_t)sq); /* a zero byte where the square is */
    return ((x - 0x01010101u) & ~x & 0x80808080u) != 0;
}

/* Whether any castling right is left (most of a game: none, and no king or rook move then looks
 * at the rights). */
static inline bool any_castle_rights(const Position *p)
{
    uint32_t rights;
    memcpy(&rights, p->castle, 4);
    return rights != 0x01010101u * NO_SQ;
}

/* Whether a piece of `type` and `color` on `from` attacks `sq` on the board `occ`: sq is among
 * its attacks on an empty board, with nothing between (for a knight or a pawn, and a slider's
 * neighbour, nothing is). By table rather than a switch on the type, whose jump was mispredicted
 * on most moves. */
static inline bool piece_attacks(int type, int color, int from, int sq, bb_t occ)
{
    bb_t reach = type == PAWN ? BB_PAWN_ATTACKS[color][from] : BB_PIECE_PSEUDO[type][from];
    return (reach & BB(sq)) && !(BB_BETWEEN[from][sq] & occ);
}

/* The pieces giving check after a plain move from -> to (the side to move is already the
 * defender): the moved piece itself, and a slider uncovered on the line through `from`. */
static inline bb_t checkers_after(const Position *p, int from, int to)
{
    int ksq = pos_king(p, p->turn), att = p->turn ^ 1;
    if (ksq == NO_SQ)
        return 0;
    bb_t occ = pos_occ(p);
    bb_t checkers = piece_attacks(PIECE_TYPE(p->board[to]), att, to, ksq, occ) ? BB(to) : 0;
    /* `from` on a line to the king that the piece left: selected without a branch (whether the
     * squares are aligned is as good as random), then mostly no enemy slider on it */
    bb_t line = BB_LINE[ksq][from];
    line = line & BB(to) ? 0 : line;
    bb_t straight = BB_ROOK_PSEUDO[ksq] & BB(from) ? ~0ULL : 0;
    bb_t sliders = (((p->by_type[ROOK] & straight) | (p->by_type[BISHOP] & ~straight)) | p->by_type[QUEEN]) &
                   p->by_color[att] & line;
    if (sliders)
        checkers |= bb_attacks_along(ksq, from, occ) & sliders;
    return checkers;
}

/* The clocks, the turn and the en-passant state every move updates the same way. */
static inline void begin_move(Position *p)
{
    if (p->ep_hashed)
        p->hash ^= ZOBRIST_EP[FILE_OF(p->ep)];
    p->ep = NO_SQ;
    p->ep_hashed = 0;
    p->halfmove += p->halfmove != UINT16_MAX; /* saturates: a FEN may start it at 65535 */
}

static inline void end_move(Position *p, int us)
{
    p->turn ^= 1;
    p->hash ^= ZOBRIST_TURN;
    /* no wrap to 0, which no FEN could say; without a branch (it alternates every ply) */
    p->fullmove += (uint32_t)(us == BLACK) & (uint32_t)(p->fullmove != UINT32_MAX);
}

/* Castling (king takes own rook) and en passant: rare, out of line so that the plain move's
 * path stays short. Castling: both pieces leave their squares before either lands, as in
 * Chess960 a target may be the other's start square. */
static __attribute__((noinline)) void make_special(Position *p, move_t m)
{
    int us = p->turn, from = mv_from(m), to = mv_to(m);
    begin_move(p);
    if (mv_type(m) == MT_CASTLE) {
        int side = castle_side_of(p, us, to);
        uint8_t king = p->board[from];
        remove_piece(p, from);
        remove_piece(p, to);
        add_piece(p, castle_king_target(us, side), king);
        add_piece(p, castle_rook_target(us, side), PIECE(us, ROOK));
        clear_castle(p, us, 0);
        clear_castle(p, us, 1);
    } else { /* en passant */
        uint8_t pawn = p->board[from];
        remove_piece(p, to ^ 8);
        remove_piece(p, from);
        add_piece(p, to, pawn);
        p->halfmove = 0;
    }
    end_move(p, us);
    p->checkers = pos_compute_checkers(p);
}

void pos_make(Position *p, move_t m)
{
    int type = mv_type(m);
    if (type == MT_CASTLE || type == MT_EN_PASSANT) {
        make_special(p, m);
        return;
    }
    int us = p->turn, from = mv_from(m), to = mv_to(m);
    uint8_t pc = p->board[from], captured = p->board[to];
    uint8_t landing = type == MT_PROMOTION ? PIECE(us, mv_promo(m)) : pc;
    int piece = PIECE_TYPE(pc);
    begin_move(p);
    /* The capture taken off without a branch (a sixth of the moves, at random): with nothing on
     * `to`, `taken` is 0 (by_type[0], unused, is xored with 0) and ZOBRIST_PIECE[0] all zeros. */
    bb_t taken = captured ? BB(to) : 0;
    p->by_type[PIECE_TYPE(captured)] ^= taken;
    p->by_color[us ^ 1] ^= taken;
    p->hash ^= ZOBRIST_PIECE[captured][to];
    if (captured && is_castle_square(p, to)) /* (once the rights are gone, never) */
        lose_castle_at(p, to);
    /* from and to in one step each: `to` is empty now, so ^= sets it */
    p->by_color[us] ^= BB(from) | BB(to);
    p->by_type[piece] ^= BB(from);
    p->by_type[PIECE_TYPE(landing)] ^= BB(to);
    p->hash ^= ZOBRIST_PIECE[pc][from] ^ ZOBRIST_PIECE[landing][to];
    p->board[from] = 0;
    p->board[to] = landing;
    bool pawn = piece == PAWN;
    p->halfmove = pawn || captured ? 0 : p->halfmove;
    p->ep = pawn && (from ^ to) == 16 ? (uint8_t)((from + to) / 2) : NO_SQ;
    if (any_castle_rights(p) && (piece == KING || (piece == ROOK && is_castle_square(p, from)))) {
        if (piece == KING) {
            clear_castle(p, us, 0);
            clear_castle(p, us, 1);
        } else {
            lose_castle_at(p, from);
        }
    }
    end_move(p, us);
    p->checkers = checkers_after(p, from, to);
    /* the en-passant square goes into the hash only when a capture there is legal */
    if (p->ep != NO_SQ && (BB_PAWN_ATTACKS[us][p->ep] & pos_pieces(p, p->turn, PAWN)) && pos_has_legal_ep(p)) {
        p->ep_hashed = 1;
        p->hash ^= ZOBRIST_EP[FILE_OF(p->ep)];
    }
}

/* ---------------------------------------------------------------- the common moves in one pass */

/* Resolving a SAN move and making it read the same squares: the common shapes (e4, exd5, Nf3,
 * Nxd5, Kf1 -- most of every game) are resolved and made here in one pass over the moving piece,
 * its target and the king lines, without a MoveList, a SanMove or pos_make's dispatch on the
 * move's type. Each pos_play_* returns the move made, or MOVE_NONE with the position untouched
 * when the move is not one legal plain move of that shape (no legal or several candidates, a
 * promotion, en passant, double check, ...): the caller then asks san_resolve, which says why. */

/* Whether moving our piece from `from` to `to` uncovers a slider attack on our king at ksq (the
 * piece is pinned and leaves the pin line): san.c's leaves_pin, on the occupancy given. */
static inline bool uncovers_king(const Position *p, int them, int ksq, int from, int to, bb_t occ)
{
    bb_t line = BB_LINE[ksq][from];
    line = line & BB(to) ? 0 : line;
    bb_t straight = BB_ROOK_PSEUDO[ksq] & BB(from) ? ~0ULL : 0;
    bb_t sliders = ((p->by_type[ROOK] & straight) | (p->by_type[BISHOP] & ~straight) | p->by_type[QUEEN]) &
                   p->by_color[them] & line;
    if (!sliders)
        return false;
    return (bb_attacks_along(ksq, from, occ ^ BB(from)) & sliders) != 0;
}

/* In check, only a move onto the one checker or between it and the king (ksq) can be legal for
 * a piece other than the king; double check: the king alone moves. */
static inline bool evades(const Position *p, int ksq, int to)
{
    bb_t checkers = p->checkers;
    if (!checkers)
        return true;
    return !(checkers & (checkers - 1)) && (BB(to) & (BB_BETWEEN[ksq][bb_lsb(checkers)] | checkers));
}

/* The plain move of our `piece` from -> to (legal; `to` empty or an enemy piece), made as pos_make
 * makes it, recorded in u as pos_make_undo records it. */
static inline __attribute__((always_inline)) move_t play_plain(Position *p, int us, int piece, int from, int to, Undo *u)
{
    int them = us ^ 1;
    uint8_t captured = p->board[to], pc = PIECE(us, piece);
    move_t m = mv_make(from, to, MT_NORMAL, 0);
    memcpy(&u->state, &p->turn, sizeof u->state);
    u->move = m;
    u->captured = captured;
    uint64_t h = p->hash ^ ZOBRIST_TURN ^ ZOBRIST_PIECE[pc][from] ^ ZOBRIST_PIECE[pc][to] ^ ZOBRIST_PIECE[captured][to];
    if (p->ep_hashed)
        h ^= ZOBRIST_EP[FILE_OF(p->ep)];
    /* the capture without a branch, as in pos_make (by_type[0] is unused) */
    bb_t taken = BB(to) & (0 - (bb_t)(captured != 0)), moved = BB(from) | BB(to);
    p->by_type[PIECE_TYPE(captured)] ^= taken;
    p->by_type[piece] ^= moved;
    p->by_color[them] ^= taken;
    p->by_color[us] ^= moved;
    p->board[from] = 0;
    p->board[to] = pc;
    uint16_t halfmove = p->halfmove;
    halfmove += halfmove != UINT16_MAX;
    p->halfmove = (uint16_t)(halfmove & (0u - (unsigned)!((piece == PAWN) | (captured != 0))));
    p->ep = NO_SQ;
    p->ep_hashed = 0;
    p->hash = h;
    if (any_castle_rights(p) &&
        ((piece == KING) | ((piece == ROOK) & is_castle_square(p, from)) | ((captured != 0) & is_castle_square(p, to)))) {
        if (captured && is_castle_square(p, to))
            lose_castle_at(p, to);
        if (piece == KING) {
            clear_castle(p, us, 0);
            clear_castle(p, us, 1);
        } else if (piece == ROOK) {
            lose_castle_at(p, from);
        }
    }
    p->turn = (uint8_t)them;
    p->fullmove += (uint32_t)us & (uint32_t)(p->fullmove != UINT32_MAX); /* (BLACK is 1) */
    p->checkers = checkers_after(p, from, to);
    return m;
}

move_t pos_play_pawn_push(Position *p, int to, Undo *u)
{
    int us = p->turn, them = us ^ 1;
    if (RANK_OF(to) == 0 || RANK_OF(to) == 7 || p->board[to]) /* a promotion, or not a push */
        return MOVE_NONE;
    bb_t occ = pos_occ(p), pawns = pos_pieces(p, us, PAWN), king = pos_pieces(p, us, KING);
    /* one step or two, told apart without a branch (as good as random in an opening); the
     * square two behind is only looked at on the double step's rank (else it may be off the
     * board: & 63 keeps the shift defined) */
    int back = us == WHITE ? -8 : 8, one = to + back, two = (one + back) & 63;
    bool single = (pawns >> one) & 1;
    bool double_step = !single & !((occ >> one) & 1) & (RANK_OF(to) == (us == WHITE ? 3 : 4)) & ((pawns >> two) & 1);
    if (!(single | double_step) || !king)
        return MOVE_NONE;
    int from = single ? one : two, ksq = bb_lsb(king);
    if (!evades(p, ksq, to) || uncovers_king(p, them, ksq, from, to, occ))
        return MOVE_NONE;
    move_t m = play_plain(p, us, PAWN, from, to, u);
    /* the en-passant square, hashed only when a capture there is legal (asked only when an
     * enemy pawn stands beside the one that stepped: rarely) */
    int ep = one;
    p->ep = double_step ? (uint8_t)ep : NO_SQ;
    if (double_step & ((BB_PAWN_ATTACKS[us][ep] & pos_pieces(p, them, PAWN)) != 0) && pos_has_legal_ep(p)) {
        p->ep_hashed = 1;
        p->hash ^= ZOBRIST_EP[FILE_OF(ep)];
    }
    return m;
}

move_t pos_play_pawn_capture(Position *p, int from_file, int to, Undo *u)
{
    int us = p->turn, them = us ^ 1;
    uint8_t target = p->board[to];
    if (RANK_OF(to) == 0 || RANK_OF(to) == 7 || !target || PIECE_COLOR(target) == us) /* promotion, en passant */
        return MOVE_NONE;
    bb_t from_bb = pos_pieces(p, us, PAWN) & BB_PAWN_ATTACKS[them][to] & (FILE_A << from_file);
    bb_t king = pos_pieces(p, us, KING);
    if (!from_bb || !king) /* (one square at most: the file and the target fix it) */
        return MOVE_NONE;
    int from = bb_lsb(from_bb), ksq = bb_lsb(king);
    if (!evades(p, ksq, to) || uncovers_king(p, them, ksq, from, to, pos_occ(p)))
        return MOVE_NONE;
    return play_plain(p, us, PAWN, from, to, u);
}

move_t pos_play_piece(Position *p, int piece, int to, Undo *u)
{
    int us = p->turn, them = us ^ 1;
    bb_t ours = p->by_color[us], occ = pos_occ(p), king = ours & p->by_type[KING];
    if ((ours & BB(to)) || !king)
        return MOVE_NONE;
    bb_t candidates = p->by_type[piece] & ours & BB_PIECE_PSEUDO[piece][to], seen = 0;
    /* the ones with nothing between them and `to` (few); a knight too, with no branch on the
     * type (as good as random): nothing is between squares a knight's step apart */
    for (bb_t s = candidates; s;) {
        int from = bb_pop(&s);
        seen |= BB(from) & (0 - (bb_t)!(BB_BETWEEN[from][to] & occ));
    }
    candidates = seen;
    int ksq = bb_lsb(king);
    if (!candidates || !evades(p, ksq, to))
        return MOVE_NONE;
    int from = bb_lsb(candidates);
    if (candidates & (candidates - 1)) { /* several reach `to`: exactly one may be free to go */
        int count = 0;
        for (bb_t s = candidates; s;) {
            int o = bb_pop(&s);
            if (!uncovers_king(p, them, ksq, o, to, occ))
                from = o, count++;
        }
        if (count != 1)
            return MOVE_NONE;
    } else if (uncovers_king(p, them, ksq, from, to, occ)) {
        return MOVE_NONE;
    }
    return play_plain(p, us, piece, from, to, u);
}

move_t pos_play_piece_from(Position *p, int piece, int to, bb_t from_mask, Undo *u, bb_t *others)
{
    int us = p->turn, them = us ^ 1;
    bb_t ours = p->by_color[us], occ = pos_occ(p), king = ours & p->by_type[KING];
    if ((ours & BB(to)) || !king)
        return MOVE_NONE;
    bb_t reach = p->by_type[piece] & ours & BB_PIECE_PSEUDO[piece][to], legal = 0;
    int ksq = bb_lsb(king);
    if (!reach || !evades(p, ksq, to))
        return MOVE_NONE;
    for (bb_t s = reach; s;) { /* every piece of the type that may legally go to `to` (the notes need them) */
        int o = bb_pop(&s);
        if (!(BB_BETWEEN[o][to] & occ) && !uncovers_king(p, them, ksq, o, to, occ))
            legal |= BB(o);
    }
    bb_t chosen = legal & from_mask;
    if (!chosen || (chosen & (chosen - 1)))
        return MOVE_NONE;
    *others = legal & ~chosen;
    return play_plain(p, us, piece, bb_lsb(chosen), to, u);
}

move_t pos_play_king(Position *p, int to, Undo *u)
{
    int us = p->turn;
    bb_t king = pos_pieces(p, us, KING);
    if (!king || (p->by_color[us] & BB(to)))
        return MOVE_NONE;
    int ksq = bb_lsb(king);
    if (!(BB_KING[ksq] & BB(to)) || pos_attacked_by(p, to, us ^ 1, pos_occ(p) ^ BB(ksq)))
        return MOVE_NONE;
    return play_plain(p, us, KING, ksq, to, u);
}

move_t pos_play_castle(Position *p, int side, Undo *u)
{
    int us = p->turn, rsq = p->castle[us][side];
    bb_t king = pos_pieces(p, us, KING);
    /* (a right on the same rook for both sides, which no legal position has: san_resolve's) */
    if (rsq == NO_SQ || rsq == p->castle[us][side ^ 1] || !king || p->checkers)
        return MOVE_NONE;
    int ksq = bb_lsb(king);
    if (!pos_castling_legal(p, ksq, side, rsq))
        return MOVE_NONE;
    move_t m = mv_make(ksq, rsq, MT_CASTLE, 0);
    memcpy(&u->state, &p->turn, sizeof u->state);
    u->move = m;
    u->captured = 0;
    make_special(p, m);
    return m;
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
    uint8_t pc = mv_type(m) == MT_PROMOTION ? PIECE(us, PAWN) : landing;
    toggle_piece(p, to, landing);
    toggle_piece(p, from, pc);
    p->board[from] = pc;
    p->board[to] = u->captured;
    if (u->captured)
        toggle_piece(p, to, u->captured);
    if (mv_type(m) == MT_EN_PASSANT) {
        uint8_t pawn = PIECE(us ^ 1, PAWN);
        toggle_piece(p, to ^ 8, pawn);
        p->board[to ^ 8] = pawn;
    }
}

bool pos_has_legal_ep(const Position *p)
{
    if (p->ep == NO_SQ)
        return false;
    MoveList ml;
    pos_gen_legal(p, &ml, 1 << PAWN, ~0ULL, BB(p->ep));
    for (int i = 0; i < ml.n; i++)
        if (mv_type(ml.moves[i]) == MT_EN_PASSANT)
            return true;
    return false;
}

bool pos_is_checkmate(const Position *p) { return pos_in_check(p) && !pos_has_legal_move(p); }
bool pos_is_stalemate(const Position *p) { return !pos_in_check(p) && !pos_has_legal_move(p); }

/* Whether `color` cannot possibly checkmate, whatever the opponent plays (the rule set that
 * python-chess and Lichess use for "insufficient material"). */
bool pos_color_has_insufficient_material(const Position *p, int color)
{
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
