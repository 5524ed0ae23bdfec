/* A chess position: bitboards + mailbox, castling rights by rook square (Chess960-ready),
 * clocks and an incrementally kept Zobrist hash (Polyglot's numbers); making and taking back a
 * move. Legal move generation and the game-end status are movegen.h's. */
#ifndef PGNT_POSITION_H
#define PGNT_POSITION_H

#include <stddef.h>
#include <string.h>

#include "bitboard.h"

/* Crazyhouse: the pieces each side holds to drop, and the pieces on the board that were pawns
 * (taken, they go to the pocket as pawns). */
typedef struct {
    uint8_t pocket[2][8]; /* [color][PAWN..QUEEN] */
    bb_t promoted;
} Pockets;

typedef struct {
    bb_t by_type[7]; /* index by PAWN..KING; [0] unused */
    bb_t by_color[2];
    uint8_t board[64];
    Pockets zh;            /* crazyhouse (apart from the state pos_make_undo copies: pos_make_other saves it) */
    uint8_t turn;
    uint8_t ep;            /* the square behind a pawn that just advanced two squares, else NO_SQ */
    uint8_t ep_hashed;     /* ep is in the hash: only when a legal en-passant capture exists */
    uint8_t castle[2][2];  /* rook square per [color][0 = king side, 1 = queen side], NO_SQ if none */
    uint8_t chess960;
    uint16_t halfmove;
    uint8_t variant;       /* VARIANT_*: the rules (never changes in a game) */
    uint8_t checks_left;   /* three-check: the checks White (low nibble) and Black (high) have to give */
    uint32_t fullmove;
    uint64_t hash;         /* Polyglot's; three-check: the checks left mixed in (pos_key takes them out) */
    bb_t checkers;         /* enemy pieces giving check to the side to move (kept by pos_make) */
} Position;

/* Zobrist keys: the Polyglot numbers by piece code and square, castling [color][side], en-passant
 * file, white to move (zobrist.c). */
extern uint64_t ZOBRIST_PIECE[16][64], ZOBRIST_CASTLE[2][2], ZOBRIST_EP[8], ZOBRIST_TURN;

void pos_init_start(Position *p);
void pos_clear(Position *p);
void pos_put(Position *p, int sq, int color, int type);
void pos_rehash(Position *p); /* recompute hash, ep_hashed and checkers from scratch */
/* p is a start position of the variant (VARIANT_*): three-check's counters at 3+3, rehashed. */
void pos_set_variant(Position *p, int variant);

static inline bb_t pos_occ(const Position *p) { return p->by_color[WHITE] | p->by_color[BLACK]; }
static inline bb_t pos_pieces(const Position *p, int color, int type) { return p->by_type[type] & p->by_color[color]; }
static inline int pos_king(const Position *p, int color)
{
    bb_t k = pos_pieces(p, color, KING);
    return k ? bb_lsb(k) : NO_SQ;
}

bb_t pos_attackers(const Position *p, int sq, bb_t occ); /* pieces of both colors attacking sq */
bb_t pos_compute_checkers(const Position *p);
/* Whether a piece of `color` attacks sq, with `occ` as the blockers. Inline: the king's
 * targets, castling and the check status ask it a few times a move. */
static inline bool pos_attacked_by(const Position *p, int sq, int color, bb_t occ)
{
    bb_t them = p->by_color[color];
    if ((BB_KNIGHT[sq] & p->by_type[KNIGHT] & them) || (BB_PAWN_ATTACKS[color ^ 1][sq] & p->by_type[PAWN] & them) ||
        (BB_KING[sq] & p->by_type[KING] & them))
        return true;
    /* The sliders on a line through sq that moves them along it (few): one attacks sq when the
     * squares between are empty, which is what their attack sets would say. */
    bb_t sliders = ((p->by_type[BISHOP] | p->by_type[QUEEN]) & BB_BISHOP_PSEUDO[sq]) |
                   ((p->by_type[ROOK] | p->by_type[QUEEN]) & BB_ROOK_PSEUDO[sq]);
    sliders &= them;
    while (sliders)
        if (!(BB_BETWEEN[bb_pop(&sliders)][sq] & occ))
            return true;
    return false;
}
static inline bool pos_in_check(const Position *p) { return p->checkers != 0; }

/* Whether our pawn on `from` may take en passant (on p->ep): our king is not attacked once both
 * pawns have left their squares and ours stands on p->ep (FIDE 3.7d; the taken pawn may have been
 * the checker, and the two pawns leaving one rank may uncover a rook's line). */
static inline bool pos_ep_capture_legal(const Position *p, int from)
{
    int us = p->turn, ksq = pos_king(p, us), taken = p->ep ^ 8;
    if (ksq == NO_SQ)
        return false;
    bb_t occ = (pos_occ(p) ^ BB(from) ^ BB(taken)) | BB(p->ep);
    return !(pos_attackers(p, ksq, occ) & p->by_color[us ^ 1] & ~BB(taken));
}
bool pos_has_legal_ep(const Position *p);
/* ---------------------------------------------------------------- making a move
 * Inline: a game makes one a ply. */

/* Whether sq is one of the four castling rook squares: the four bytes compared at once. */
static inline bool pos_is_castle_square(const Position *p, int sq)
{
    uint32_t rights, x;
    memcpy(&rights, p->castle, 4);
    x = rights ^ (0x01010101u * (uint32_t)sq); /* a zero byte where the square is */
    return ((x - 0x01010101u) & ~x & 0x80808080u) != 0;
}

/* Whether any castling right is left (most of a game: none). */
static inline bool pos_any_castle_rights(const Position *p)
{
    uint32_t rights;
    memcpy(&rights, p->castle, 4);
    return rights != 0x01010101u * NO_SQ;
}

/* The pieces giving check after a move from -> to that put no piece elsewhere (the side to move
 * is already the defender): the moved piece itself, and a slider uncovered on the line through
 * `from` (a discovered check). */
static inline bb_t pos_checkers_after(const Position *p, int from, int to)
{
    int ksq = pos_king(p, p->turn), att = p->turn ^ 1;
    if (ksq == NO_SQ)
        return 0;
    bb_t occ = pos_occ(p);
    int type = PIECE_TYPE(p->board[to]);
    bb_t reach = type == PAWN ? BB_PAWN_ATTACKS[att][to] : BB_PIECE_PSEUDO[type][to];
    bb_t checkers = (reach & BB(ksq)) && !(BB_BETWEEN[to][ksq] & occ) ? BB(to) : 0;
    /* the line from the king through `from`, unless the piece stayed on it */
    bb_t line = BB_LINE[ksq][from];
    line = line & BB(to) ? 0 : line;
    bb_t straight = BB_ROOK_PSEUDO[ksq] & BB(from) ? ~0ULL : 0;
    bb_t sliders = (((p->by_type[ROOK] & straight) | (p->by_type[BISHOP] & ~straight)) | p->by_type[QUEEN]) &
                   p->by_color[att] & line;
    if (sliders)
        checkers |= bb_attacks_along(ksq, from, occ) & sliders;
    return checkers;
}

/* Out of line (position.c), each rare: castling (the king takes its own rook: FIDE 3.8.2), en
 * passant (3.7d) and the null move; the castling rights a king or rook move or a rook taken ends
 * (3.8.2.1), p->turn still the mover. */
void pos_make_special(Position *p, move_t m);
/* A variant's side effects of a move by `us` (p->turn already the other side, p->checkers set):
 * three-check counts a check, variant_rules_after_make. Out of line: never in standard chess. */
void pos_variant_after_make(Position *p, int us);
void pos_lose_castling(Position *p, int piece, int from, int to, bool captured);

/* Position's fields from `turn` on, in the same order: all that pos_make changes besides the
 * pieces. With the move and the piece it took, they take the move back (pos_unmake), which
 * costs less than copying the whole position before every move. */
typedef struct {
    uint8_t turn, ep, ep_hashed, castle[2][2], chess960;
    uint16_t halfmove;
    uint8_t variant, checks_left;
    uint32_t fullmove;
    uint64_t hash;
    bb_t checkers;
} PosState;

typedef struct {
    PosState state; /* before the move */
    move_t move;
    uint8_t captured; /* the piece on the target square before a plain move or promotion, else 0 */
    /* atomic: a capture's explosion, written by the variant's make alone: the piece that moved and
     * the 3x3 squares around the target before the move (0 off the board), put back by pos_unmake */
    uint8_t mover, blast[9];
    Pockets zh; /* crazyhouse: the pockets before the move (written by the variant's make alone) */
} Undo;

_Static_assert(sizeof(PosState) == sizeof(Position) - offsetof(Position, turn) &&
                   offsetof(PosState, checkers) == offsetof(Position, checkers) - offsetof(Position, turn) &&
                   offsetof(PosState, hash) == offsetof(Position, hash) - offsetof(Position, turn) &&
                   offsetof(PosState, fullmove) == offsetof(Position, fullmove) - offsetof(Position, turn) &&
                   offsetof(PosState, halfmove) == offsetof(Position, halfmove) - offsetof(Position, turn) &&
                   offsetof(PosState, variant) == offsetof(Position, variant) - offsetof(Position, turn) &&
                   offsetof(PosState, checks_left) == offsetof(Position, checks_left) - offsetof(Position, turn) &&
                   offsetof(PosState, chess960) == offsetof(Position, chess960) - offsetof(Position, turn) &&
                   offsetof(PosState, castle) == offsetof(Position, castle) - offsetof(Position, turn) &&
                   offsetof(PosState, ep_hashed) == offsetof(Position, ep_hashed) - offsetof(Position, turn) &&
                   offsetof(PosState, ep) == offsetof(Position, ep) - offsetof(Position, turn),
               "PosState mirrors the tail of Position");

/* The moves pos_make takes out of line: the rare ones of chess (promotions, pos_make_special) and every move
 * of a variant (p->variant is not VARIANT_STANDARD): the move of chess, then the variant's side
 * effects (an atomic capture's explosion, three-check's counters); u, when not NULL, gains what
 * pos_unmake needs besides the state. */
void pos_make_other(Position *p, move_t m, Undo *u);

/* The move of chess m of a plain type, or of the promotion type when `may_promote` (a constant:
 * pos_make's inline path makes plain moves only, promotions are made out of line). `checks`:
 * whether to find the checkers and the en-passant square's legality by chess's rules (atomic
 * decides both after its explosion). */
static inline __attribute__((always_inline)) void pos_make_plain(Position *p, move_t m, bool may_promote,
                                                                 bool checks)
{
    int type = mv_type(m);
    int us = p->turn, them = us ^ 1, from = mv_from(m), to = mv_to(m);
    uint8_t pc = p->board[from], captured = p->board[to];
    uint8_t landing = may_promote && type == MT_PROMOTION ? PIECE(us, mv_promo(m)) : pc;
    int piece = PIECE_TYPE(pc);
    uint64_t h = p->hash ^ ZOBRIST_TURN ^ ZOBRIST_PIECE[pc][from] ^ ZOBRIST_PIECE[landing][to] ^
                 ZOBRIST_PIECE[captured][to]; /* (ZOBRIST_PIECE[0] is all zeros: no capture) */
    if (p->ep_hashed)
        h ^= ZOBRIST_EP[FILE_OF(p->ep)];
    /* the piece taken, if any, off its bitboards without a branch (by_type[0] is unused) */
    bb_t taken = BB(to) & (0 - (bb_t)(captured != 0)), moved = BB(from) | BB(to);
    p->by_type[PIECE_TYPE(captured)] ^= taken;
    p->by_color[them] ^= taken;
    p->by_color[us] ^= moved;
    p->by_type[piece] ^= may_promote ? BB(from) : moved;
    if (may_promote)
        p->by_type[PIECE_TYPE(landing)] ^= BB(to);
    p->board[from] = 0;
    p->board[to] = landing;
    /* FIDE 9.3: a capture or a pawn move sets the half-move clock to 0; else it counts on
     * (saturating: a FEN may start it at 65535) */
    uint16_t halfmove = p->halfmove;
    halfmove += halfmove != UINT16_MAX;
    p->halfmove = (uint16_t)(halfmove & (0u - (unsigned)!((piece == PAWN) | (captured != 0))));
    p->ep = piece == PAWN && (from ^ to) == 16 ? (uint8_t)((from + to) / 2) : NO_SQ;
    p->ep_hashed = 0;
    p->hash = h;
    if (pos_any_castle_rights(p) && ((int)(piece == KING) | ((piece == ROOK) & (int)pos_is_castle_square(p, from)) |
                                     ((captured != 0) & (int)pos_is_castle_square(p, to))))
        pos_lose_castling(p, piece, from, to, captured != 0);
    p->turn = (uint8_t)them;
    p->fullmove += (uint32_t)us & (uint32_t)(p->fullmove != UINT32_MAX); /* (BLACK is 1: after Black's move) */
    if (!checks)
        return;
    p->checkers = pos_checkers_after(p, from, to);
    /* the en-passant square is part of the position (FIDE 9.2.3.1) only when a capture there is
     * legal: asked only when an enemy pawn stands beside the pawn that stepped (the Horde's
     * first-rank double step leaves no en-passant square: pos_variant_after_make) */
    if (p->ep != NO_SQ && (BB_PAWN_ATTACKS[us][p->ep] & pos_pieces(p, them, PAWN)) && pos_has_legal_ep(p)) {
        p->ep_hashed = 1;
        p->hash ^= ZOBRIST_EP[FILE_OF(p->ep)];
    }
}

/* Makes the legal move m (MOVE_NULL: the side to move passes); u (or NULL) as pos_make_other's.
 * The rare moves (promotion, en passant, castling, a null move) and a variant's take the out-of-line path:
 * standard chess pays one test of the variant byte there. */
static inline __attribute__((always_inline)) void pos_make_with(Position *p, move_t m, Undo *u)
{
    if (__builtin_expect((mv_type(m) != MT_NORMAL) | (p->variant != VARIANT_STANDARD), 0)) {
        pos_make_other(p, m, u);
        return;
    }
    pos_make_plain(p, m, false, true);
}

/* Makes the legal move m (MOVE_NULL: the side to move passes). pos_make_undo also records what
 * pos_unmake needs to take it back. */
static inline void pos_make(Position *p, move_t m) { pos_make_with(p, m, NULL); }

static inline void pos_make_undo(Position *p, move_t m, Undo *u)
{
    memcpy(&u->state, &p->turn, sizeof u->state);
    u->move = m;
    u->captured = mv_type(m) == MT_CASTLE ? 0 : p->board[mv_to(m)]; /* (MOVE_NULL is of the castling type) */
    pos_make_with(p, m, u);
}

/* Takes back the move recorded in u (the last one made on p): p is then as before it. */
void pos_unmake(Position *p, const Undo *u);

/* Castling geometry for the side `side` (0 king side, 1 queen side) of `color`. */
static inline int castle_king_target(int color, int side) { return SQ(side == 0 ? 6 : 2, color == WHITE ? 0 : 7); }
static inline int castle_rook_target(int color, int side) { return SQ(side == 0 ? 5 : 3, color == WHITE ? 0 : 7); }
static inline int castle_side_of(const Position *p, int color, int rook_sq) { return rook_sq == p->castle[color][0] ? 0 : 1; }

bool pos_color_has_insufficient_material(const Position *p, int color);
/* Neither side can mate. A pawn, rook or queen of either side settles it at once (the common
 * case: this is asked after every capture). */
static inline bool pos_is_insufficient_material(const Position *p)
{
    if (p->by_type[PAWN] | p->by_type[QUEEN])
        return false;
    if (p->by_type[ROOK] && p->variant != VARIANT_ATOMIC) /* (atomic: a lone rook cannot win) */
        return false;
    if (p->variant == VARIANT_CRAZYHOUSE) /* (the pockets count too) */
        return pos_color_has_insufficient_material(p, WHITE);
    return pos_color_has_insufficient_material(p, WHITE) && pos_color_has_insufficient_material(p, BLACK);
}

/* ---------------------------------------------------------------- the variants' ends */

/* The checks `color` has still to give (three-check). */
static inline int pos_checks_left(const Position *p, int color) { return (p->checks_left >> (4 * color)) & 15; }

/* How a variant's own rule ended the game in p (VARIANT_END_*), or VARIANT_END_NONE: a king on
 * the hill (king of the hill), a third check (three-check). No legal move exists there. */
enum { VARIANT_END_NONE = 0, VARIANT_END_WIN, VARIANT_END_LOSS, VARIANT_END_DRAW }; /* for the side to move */
int pos_variant_end(const Position *p);


/* The position's Polyglot key (python-chess's chess.polyglot.zobrist_hash). p->hash differs in
 * one rare case: it counts the en-passant file only when the capture is legal (FIDE: positions
 * are the same when it is not; what repetitions compare), Polyglot whenever a pawn of the side
 * to move stands beside the pawn that just advanced, legal or not (a pinned pawn). */
extern uint64_t ZOBRIST_CHECKS[2][16]; /* three-check: the checks a side has to give */
static inline uint64_t pos_key(const Position *p)
{
    uint64_t h = p->hash;
    if (__builtin_expect(p->variant == VARIANT_THREE_CHECK, 0)) /* (Polyglot's key has no checks) */
        h ^= ZOBRIST_CHECKS[WHITE][p->checks_left & 15] ^ ZOBRIST_CHECKS[BLACK][p->checks_left >> 4];
    if (p->ep != NO_SQ && !p->ep_hashed && (BB_PAWN_ATTACKS[p->turn ^ 1][p->ep] & pos_pieces(p, p->turn, PAWN)))
        return h ^ ZOBRIST_EP[FILE_OF(p->ep)];
    return h;
}

/* How often the last position of `history` (hashes, oldest first) occurred, looking back over
 * the last `halfmove` reversible plies. */
int pos_repetition_count(const uint64_t *history, int n, int halfmove);

#endif
