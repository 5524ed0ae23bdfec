/* Racing Kings, Horde and Antichess in the position layer (variant_rules.h says the rules). */
#include "variant_rules.h"

/* ---------------------------------------------------------------- start positions */

/* Lichess's start placements, rank 8 first (FEN's first field). */
static const char RACING_KINGS_START[] = "8/8/8/8/8/8/krbnNBRK/qrbnNBRQ";
static const char HORDE_START[] = "rnbqkbnr/pppppppp/8/1PP2PP1/PPPPPPPP/PPPPPPPP/PPPPPPPP/PPPPPPPP";

static void place(Position *p, const char *placement)
{
    memset(p->by_type, 0, sizeof p->by_type);
    memset(p->by_color, 0, sizeof p->by_color);
    memset(p->board, 0, sizeof p->board);
    static const char LETTERS[] = " pnbrqk";
    int sq = SQ(0, 7);
    for (const char *c = placement; *c; c++) {
        if (*c == '/') {
            sq -= 16;
        } else if (*c >= '1' && *c <= '8') {
            sq += *c - '0';
        } else {
            int color = *c >= 'a' ? BLACK : WHITE, type = (int)(strchr(LETTERS, *c | 0x20) - LETTERS);
            p->board[sq] = PIECE(color, type);
            p->by_type[type] |= BB(sq);
            p->by_color[color] |= BB(sq);
            sq++;
        }
    }
}

void variant_rules_start(Position *p)
{
    if (p->variant == VARIANT_RACING_KINGS)
        place(p, RACING_KINGS_START);
    else if (p->variant == VARIANT_HORDE)
        place(p, HORDE_START);
    else if (p->variant != VARIANT_ANTICHESS)
        return;
    /* castling: Black's both ways in the Horde, none in Racing Kings and Antichess */
    p->castle[WHITE][0] = p->castle[WHITE][1] = NO_SQ;
    bool black_castles = p->variant == VARIANT_HORDE;
    p->castle[BLACK][0] = black_castles ? SQ(7, 7) : NO_SQ;
    p->castle[BLACK][1] = black_castles ? SQ(0, 7) : NO_SQ;
}

/* ---------------------------------------------------------------- a move's side effects */

/* Antichess: a king taken off its square castles no more (python-chess reads the rights so). */
static void drop_kingless_castling(Position *p)
{
    for (int c = 0; c < 2; c++) {
        if (p->chess960 || p->board[SQ(4, c == WHITE ? 0 : 7)] == PIECE(c, KING))
            continue;
        for (int side = 0; side < 2; side++)
            if (p->castle[c][side] != NO_SQ) {
                p->hash ^= ZOBRIST_CASTLE[c][side];
                p->castle[c][side] = NO_SQ;
            }
    }
}

void variant_rules_after_make(Position *p, int us)
{
    (void)us;
    if (p->variant == VARIANT_ANTICHESS) { /* the king is an ordinary piece: no check */
        p->checkers = 0;
        if (pos_any_castle_rights(p))
            drop_kingless_castling(p);
    } else if (p->variant == VARIANT_HORDE && p->ep != NO_SQ && (RANK_OF(p->ep) == 1 || RANK_OF(p->ep) == 6))
        p->ep = NO_SQ; /* a double step from the first rank can be taken by no pawn en passant */
}

/* ---------------------------------------------------------------- the ends */

static int racing_kings_end(const Position *p)
{
    int us = p->turn, them = us ^ 1;
    bb_t in_goal = p->by_type[KING] & RANK_8;
    if (!in_goal)
        return VARIANT_END_NONE;
    if ((in_goal & p->by_color[WHITE]) && (in_goal & p->by_color[BLACK]))
        return VARIANT_END_DRAW;
    bb_t black_king = pos_pieces(p, BLACK, KING);
    bool over = us == WHITE || (black_king & RANK_8) || !black_king;
    if (!over) { /* White got there first: Black's king still may, onto a square no white piece attacks */
        int from = bb_msb(black_king);
        bb_t targets = BB_KING[from] & RANK_8 & ~p->by_color[BLACK], occ = pos_occ(p);
        over = true;
        while (targets && over)
            over = pos_attacked_by(p, bb_pop(&targets), WHITE, occ);
    }
    if (!over)
        return VARIANT_END_NONE;
    return in_goal & p->by_color[us] ? VARIANT_END_WIN : in_goal & p->by_color[them] ? VARIANT_END_LOSS
                                                                                   : VARIANT_END_NONE;
}

int variant_rules_end(const Position *p)
{
    int us = p->turn, them = us ^ 1;
    switch (p->variant) {
    case VARIANT_RACING_KINGS:
        return racing_kings_end(p);
    case VARIANT_HORDE: /* the side without pieces has lost */
        return !p->by_color[us] ? VARIANT_END_LOSS : !p->by_color[them] ? VARIANT_END_WIN : VARIANT_END_NONE;
    case VARIANT_ANTICHESS: /* no pieces left, or no move: the side to move has won */
        if (!p->by_color[us])
            return VARIANT_END_WIN;
        return p->by_color[them] && !antichess_has_move(p) ? VARIANT_END_WIN : VARIANT_END_NONE;
    default:
        return VARIANT_END_NONE;
    }
}

/* ---------------------------------------------------------------- insufficient material */

#define LIGHT_SQUARES (~DARK_SQUARES)

bool variant_rules_insufficient_material(const Position *p, int color)
{
    if (p->variant != VARIANT_ANTICHESS) /* Racing Kings: kings race; Horde: Black can always take the horde */
        return false;
    bb_t ours = p->by_color[color], theirs = p->by_color[color ^ 1], occ = ours | theirs;
    if (!ours)
        return false;
    if (!theirs)
        return true;
    if (occ == p->by_type[BISHOP]) /* bishops alone: ours cannot be made to take theirs */
        return ((ours & LIGHT_SQUARES) && !(theirs & LIGHT_SQUARES)) || ((ours & DARK_SQUARES) && !(theirs & DARK_SQUARES));
    if (occ == p->by_type[KNIGHT] && bb_count(occ) == 2) /* a knight each: who moves and the squares' colours decide */
        return (p->turn ^ color) == (((p->by_color[WHITE] & LIGHT_SQUARES) != 0) ^ ((p->by_color[BLACK] & DARK_SQUARES) != 0));
    return false;
}

/* ---------------------------------------------------------------- antichess's moves, in short */

/* The squares a piece of type `type` and colour `color` on sq attacks. */
static inline bb_t attacks_of(int type, int color, int sq, bb_t occ)
{
    switch (type) {
    case PAWN: return BB_PAWN_ATTACKS[color][sq];
    case KNIGHT: return BB_KNIGHT[sq];
    case BISHOP: return bb_bishop_attacks(sq, occ);
    case ROOK: return bb_rook_attacks(sq, occ);
    case QUEEN: return bb_bishop_attacks(sq, occ) | bb_rook_attacks(sq, occ);
    default: return BB_KING[sq];
    }
}

/* The squares our pawns attack (their diagonals forward), all at once. */
static inline bb_t pawn_attacks(bb_t pawns, int color)
{
    bb_t west = pawns & ~FILE_A, east = pawns & ~(FILE_A << 7);
    return color == WHITE ? (west << 7) | (east << 9) : (west >> 9) | (east >> 7);
}

bool antichess_can_capture(const Position *p)
{
    int us = p->turn;
    bb_t theirs = p->by_color[us ^ 1], occ = pos_occ(p), pawns = pos_pieces(p, us, PAWN);
    if (pawn_attacks(pawns, us) & theirs)
        return true;
    if (p->ep != NO_SQ && (BB_PAWN_ATTACKS[us ^ 1][p->ep] & pawns))
        return true;
    for (int type = KNIGHT; type <= KING; type++)
        for (bb_t s = pos_pieces(p, us, type); s;)
            if (attacks_of(type, us, bb_pop(&s), occ) & theirs)
                return true;
    return false;
}

bool antichess_has_move(const Position *p)
{
    int us = p->turn;
    bb_t occ = pos_occ(p), free = ~occ;
    /* a quiet move first (a pawn's step is the likeliest and the cheapest to see), then a capture */
    bb_t pawns = pos_pieces(p, us, PAWN) & ~(us == WHITE ? RANK_8 : RANK_1);
    if ((us == WHITE ? pawns << 8 : pawns >> 8) & free)
        return true;
    for (int type = KNIGHT; type <= KING; type++)
        for (bb_t s = pos_pieces(p, us, type); s;)
            if (attacks_of(type, us, bb_pop(&s), occ) & free)
                return true;
    if (antichess_can_capture(p))
        return true;
    /* castling alone: the squares between king and rook empty (no square is attacked there) */
    int ksq = pos_king(p, us);
    for (int side = 0; side < 2 && ksq != NO_SQ; side++) {
        int rsq = p->castle[us][side];
        if (rsq == NO_SQ)
            continue;
        int kt = castle_king_target(us, side), rt = castle_rook_target(us, side);
        if (!((BB_BETWEEN[ksq][kt] | BB(kt) | BB_BETWEEN[rsq][rt] | BB(rt)) & ~(BB(ksq) | BB(rsq)) & occ))
            return true;
    }
    return false;
}
