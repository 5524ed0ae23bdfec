/* A chess position: bitboards + mailbox, castling rights by rook square (Chess960-ready),
 * clocks and an incrementally kept Zobrist hash (Polyglot's numbers). Also legal move generation and status. */
#ifndef PGNT_POSITION_H
#define PGNT_POSITION_H

#include <stddef.h>
#include <string.h>

#include "bitboard.h"

typedef struct {
    bb_t by_type[7]; /* index by PAWN..KING; [0] unused */
    bb_t by_color[2];
    uint8_t board[64];
    uint8_t turn;
    uint8_t ep;            /* the square behind a pawn that just advanced two squares, else NO_SQ */
    uint8_t ep_hashed;     /* ep is in the hash: only when a legal en-passant capture exists */
    uint8_t castle[2][2];  /* rook square per [color][0 = king side, 1 = queen side], NO_SQ if none */
    uint8_t chess960;
    uint16_t halfmove;
    uint32_t fullmove;
    uint64_t hash;
    bb_t checkers;         /* enemy pieces giving check to the side to move (kept by pos_make) */
} Position;

typedef struct {
    move_t moves[256];
    int n;
} MoveList;

/* Filter bits for pos_gen_legal: one bit per piece type (1 << type), plus castling. */
#define GEN_ALL_PIECES 0x7E
#define GEN_CASTLING 0x80
#define GEN_ALL (GEN_ALL_PIECES | GEN_CASTLING)

void pos_init_start(Position *p);
void pos_clear(Position *p);
void pos_put(Position *p, int sq, int color, int type);
void pos_rehash(Position *p); /* recompute hash, ep_hashed and checkers from scratch */

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

/* Legal moves whose piece type is in `gen` (GEN_* bits), origin in from_mask, target in to_mask.
 * Castling (GEN_CASTLING) is matched against to_mask by the rook's square. */
void pos_gen_legal(const Position *p, MoveList *ml, int gen, bb_t from_mask, bb_t to_mask);
bool pos_has_legal_move(const Position *p);
/* The legal castling moves with the rook on rsq (as pos_gen_legal with GEN_CASTLING, from the
 * king's square to rsq, finds them, without the rest of generation): their count, the last in
 * *out. */
int pos_gen_castling_to(const Position *p, int rsq, move_t *out);
/* Whether the king on ksq (not in check) may castle with the rook on rsq = castle[turn][side]. */
bool pos_castling_legal(const Position *p, int ksq, int side, int rsq);
bool pos_has_legal_ep(const Position *p);
void pos_make(Position *p, move_t m); /* m must be legal; callers copy the position to undo */

/* Position's fields from `turn` on, in the same order: all that pos_make changes besides the
 * pieces. With the move and the piece it took, they take the move back (pos_unmake), which
 * costs less than copying the whole position before every move. */
typedef struct {
    uint8_t turn, ep, ep_hashed, castle[2][2], chess960;
    uint16_t halfmove;
    uint32_t fullmove;
    uint64_t hash;
    bb_t checkers;
} PosState;

typedef struct {
    PosState state; /* before the move */
    move_t move;
    uint8_t captured; /* the piece on the target square before a plain move or promotion, else 0 */
} Undo;

_Static_assert(sizeof(PosState) == sizeof(Position) - offsetof(Position, turn) &&
                   offsetof(PosState, checkers) == offsetof(Position, checkers) - offsetof(Position, turn) &&
                   offsetof(PosState, hash) == offsetof(Position, hash) - offsetof(Position, turn) &&
                   offsetof(PosState, fullmove) == offsetof(Position, fullmove) - offsetof(Position, turn) &&
                   offsetof(PosState, halfmove) == offsetof(Position, halfmove) - offsetof(Position, turn) &&
                   offsetof(PosState, chess960) == offsetof(Position, chess960) - offsetof(Position, turn) &&
                   offsetof(PosState, castle) == offsetof(Position, castle) - offsetof(Position, turn) &&
                   offsetof(PosState, ep_hashed) == offsetof(Position, ep_hashed) - offsetof(Position, turn) &&
                   offsetof(PosState, ep) == offsetof(Position, ep) - offsetof(Position, turn),
               "PosState mirrors the tail of Position");

/* Makes m (legal) and records in u what pos_unmake needs to take it back. */
static inline void pos_make_undo(Position *p, move_t m, Undo *u)
{
    memcpy(&u->state, &p->turn, sizeof u->state);
    u->move = m;
    u->captured = mv_type(m) == MT_CASTLE ? 0 : p->board[mv_to(m)];
    pos_make(p, m);
}
/* A common SAN move resolved and made in one pass (position.c): a pawn push to `to`, a pawn
 * capture from `from_file`, a knight, bishop, rook or queen (`piece`) or the king to `to`. Each
 * returns the move, made on p and recorded in u as pos_make_undo records it; or MOVE_NONE, p
 * untouched, when it is not exactly one legal plain move (san_resolve then says what it is). */
move_t pos_play_pawn_push(Position *p, int to, Undo *u);
move_t pos_play_pawn_capture(Position *p, int from_file, int to, Undo *u);
move_t pos_play_piece(Position *p, int piece, int to, Undo *u);
move_t pos_play_king(Position *p, int to, Undo *u);
/* Castling on `side` (0 king side, 1 queen side: O-O, O-O-O) as san_resolve finds it and
 * pos_make_undo makes it. */
move_t pos_play_castle(Position *p, int side, Undo *u);
/* pos_play_piece with an origin written (Nbd7, R1e2): the one legal move from from_mask, and in
 * *others the other pieces of the type that could legally go to `to` (whether the origin was
 * needed). */
move_t pos_play_piece_from(Position *p, int piece, int to, bb_t from_mask, Undo *u, bb_t *others);
/* Takes back the move recorded in u (the last one made on p): p is then as before it. */
void pos_unmake(Position *p, const Undo *u);
uint64_t pos_perft(const Position *p, int depth);

/* Castling geometry for the side `side` (0 king side, 1 queen side) of `color`. */
static inline int castle_king_target(int color, int side) { return SQ(side == 0 ? 6 : 2, color == WHITE ? 0 : 7); }
static inline int castle_rook_target(int color, int side) { return SQ(side == 0 ? 5 : 3, color == WHITE ? 0 : 7); }
static inline int castle_side_of(const Position *p, int color, int rook_sq) { return rook_sq == p->castle[color][0] ? 0 : 1; }

/* 0 no check, 1 check, 2 checkmate: the suffix SAN writes. Inline: asked after every move. */
static inline int pos_check_status(const Position *p)
{
    if (!pos_in_check(p))
        return 0;
    return pos_has_legal_move(p) ? 1 : 2;
}
bool pos_is_checkmate(const Position *p);
bool pos_is_stalemate(const Position *p);
bool pos_color_has_insufficient_material(const Position *p, int color);
/* Neither side can mate. A pawn, rook or queen of either side settles it at once (the common
 * case: this is asked after every capture). */
static inline bool pos_is_insufficient_material(const Position *p)
{
    if (p->by_type[PAWN] | p->by_type[ROOK] | p->by_type[QUEEN])
        return false;
    return pos_color_has_insufficient_material(p, WHITE) && pos_color_has_insufficient_material(p, BLACK);
}

/* Zobrist keys: the Polyglot numbers by piece code and square, castling [color][side], en-passant
 * file, white to move (zobrist.c). */
extern uint64_t ZOBRIST_PIECE[16][64], ZOBRIST_CASTLE[2][2], ZOBRIST_EP[8], ZOBRIST_TURN;

/* The position's Polyglot key (python-chess's chess.polyglot.zobrist_hash). p->hash differs in
 * one rare case: it counts the en-passant file only when the capture is legal (FIDE: positions
 * are the same when it is not; what repetitions compare), Polyglot whenever a pawn of the side
 * to move stands beside the pawn that just advanced, legal or not (a pinned pawn). */
static inline uint64_t pos_key(const Position *p)
{
    if (p->ep != NO_SQ && !p->ep_hashed && (BB_PAWN_ATTACKS[p->turn ^ 1][p->ep] & pos_pieces(p, p->turn, PAWN)))
        return p->hash ^ ZOBRIST_EP[FILE_OF(p->ep)];
    return p->hash;
}

/* How often the last position of `history` (hashes, oldest first) occurred, looking back over
 * the last `halfmove` reversible plies. */
int pos_repetition_count(const uint64_t *history, int n, int halfmove);

#endif
