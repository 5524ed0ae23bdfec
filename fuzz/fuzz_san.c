/* SAN (and the LAN/UCI forms) parsed and resolved against positions.
 *
 * Input: an optional first line holding a FEN, then move texts separated by whitespace. Each
 * move text is resolved against a fixed set of positions (castling, en passant, promotions,
 * pins, ambiguity, Chess960) and played in sequence from the input's FEN (or the start).
 *
 * Checks: a resolved move is legal, and agrees with a brute-force search of the legal moves
 * (which covers the fast path that resolves without generating moves); UCI input resolves to
 * a legal move; positions reached keep a consistent incremental state; and from the input's
 * position, the canonical SAN and UCI of every legal move read back as that move. */
#include <ctype.h>

#include "common.h"

static const struct {
    const char *fen;
    bool chess960;
} POSITIONS[] = {
    {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", false},
    {"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", false},  /* castling, pins */
    {"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 0 1", false},
    {"rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3", false},         /* en passant */
    {"8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", false},                              /* pinned ep */
    {"n1n5/PPPk4/8/8/8/8/4Kppp/5N1N w - - 0 1", false},                               /* promotions */
    {"n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1", false},
    {"6k1/8/8/8/Q3Q3/8/8/Q3Q2K w - - 0 1", false},                                    /* ambiguity */
    {"4k3/8/8/1N3N2/8/1N3N2/8/R3K2R w KQ - 0 1", false},
    {"r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", false},
    {"4k3/8/8/8/8/8/4q3/4K3 w - - 0 1", false},                                       /* in check */
    {"bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9", true},      /* Chess960 */
    {"rk5r/8/8/8/8/8/8/RK5R w KQkq - 0 1", true},
};
#define N_POSITIONS (sizeof POSITIONS / sizeof *POSITIONS)
#define MAX_WORDS 256
#define MAX_FIXED_WORDS 24 /* words tried in every fixed position (the rest only in the game) */

/* What san_resolve should find, by filtering every legal move: SAN_OK (with *out), SAN_ILLEGAL
 * or SAN_AMBIGUOUS. `sm` is as san_resolve left it (coordinate notation names its piece). */
static int brute_force(const Position *p, const SanMove *sm, move_t *out)
{
    MoveList ml;
    int count = 0;
    pos_gen_legal(p, &ml, GEN_ALL, ~0ULL, ~0ULL);
    for (int i = 0; i < ml.n; i++) {
        move_t m = ml.moves[i];
        int from = mv_from(m);
        if (mv_type(m) == MT_CASTLE || mv_to(m) != sm->to || PIECE_TYPE(p->board[from]) != sm->piece ||
            mv_promo(m) != sm->promo)
            continue;
        if ((sm->from_file >= 0 && FILE_OF(from) != sm->from_file) ||
            (sm->from_rank >= 0 && RANK_OF(from) != sm->from_rank))
            continue;
        if (sm->piece == PAWN && sm->from_file < 0 && FILE_OF(from) != FILE_OF(sm->to))
            continue; /* a pawn move without an origin file is a push */
        *out = m;
        count++;
    }
    return count == 0 ? SAN_ILLEGAL : count > 1 ? SAN_AMBIGUOUS : SAN_OK;
}

/* Resolves one move text in p; returns the move or MOVE_NONE. */
static move_t try_move(const Position *p, const char *text, size_t n)
{
    SanMove sm;
    move_t m = MOVE_NONE, expected = MOVE_NONE;
    char fen[FEN_MAX];
    int rc = san_parse(text, n, &sm);
    CHECK(rc == SAN_OK || rc == SAN_INVALID || rc == SAN_NULL_MOVE || rc == SAN_DROP, "san_parse returned %d", rc);
    if (rc == SAN_OK) {
        rc = san_resolve(p, &sm, &m);
        CHECK(rc >= SAN_OK && rc < SAN_ERROR_COUNT, "san_resolve returned %d", rc);
        fen_format(p, fen, FEN_EP_ALWAYS);
        if (rc == SAN_OK)
            CHECK(move_is_legal(p, m), "'%.*s' resolved to an illegal move %04x in %s", (int)n, text, m, fen);
        bool king_with_origin = sm.piece == KING && sm.from_file >= 0 && sm.from_rank >= 0; /* maybe castling */
        if (sm.kind == SAN_KIND_MOVE && !king_with_origin &&
            (rc == SAN_OK || rc == SAN_ILLEGAL || rc == SAN_AMBIGUOUS)) {
            int want = brute_force(p, &sm, &expected);
            CHECK(rc == want && (rc != SAN_OK || m == expected),
                  "'%.*s' in %s: san_resolve says %d (move %04x), the legal moves say %d (move %04x)", (int)n, text,
                  fen, rc, m, want, expected);
        }
    }
    move_t u = MOVE_NONE;
    if (uci_to_move(p, text, n, &u) == SAN_OK) {
        fen_format(p, fen, FEN_EP_ALWAYS);
        CHECK(move_is_legal(p, u), "UCI '%.*s' resolved to an illegal move %04x in %s", (int)n, text, u, fen);
    }
    return rc == SAN_OK ? m : MOVE_NONE;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static Position fixed[N_POSITIONS];
    static bool ready = false;
    if (!ready) {
        for (size_t i = 0; i < N_POSITIONS; i++)
            CHECK(fen_parse(&fixed[i], POSITIONS[i].fen, strlen(POSITIONS[i].fen), POSITIONS[i].chess960) == 0,
                  "fixed position %s does not parse", POSITIONS[i].fen);
        ready = true;
    }
    char *buf = exact_copy(data, size);

    /* The first line as a FEN: the start of the game played below. */
    Position game;
    const char *nl = memchr(buf, '\n', size);
    size_t moves_at = 0;
    bool from_fen = false;
    if (nl) {
        size_t n = (size_t)(nl - buf);
        from_fen = fen_parse(&game, buf, n, false) == 0 || fen_parse(&game, buf, n, true) == 0;
        if (from_fen)
            moves_at = n + 1;
    }
    if (!from_fen)
        pos_init_start(&game);
    else
        check_move_round_trips(&game);

    /* The rest as one text (as Board.push_san gets it), then word by word. */
    try_move(&game, buf + moves_at, size - moves_at);
    size_t i = moves_at, words = 0;
    while (i < size && words++ < MAX_WORDS) {
        while (i < size && isspace((unsigned char)buf[i]))
            i++;
        size_t start = i;
        while (i < size && !isspace((unsigned char)buf[i]))
            i++;
        if (i == start)
            break;
        /* a word-sized copy, so a read past the word is caught */
        char *word = exact_copy((const uint8_t *)buf + start, i - start);
        for (size_t k = 0; k < N_POSITIONS && words <= MAX_FIXED_WORDS; k++)
            try_move(&fixed[k], word, i - start);
        move_t m = try_move(&game, word, i - start);
        if (m != MOVE_NONE) {
            pos_make(&game, m);
            check_incremental_state(&game, "after a played move");
        }
        free(word);
    }
    free(buf);
    return 0;
}
