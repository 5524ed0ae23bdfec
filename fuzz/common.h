/* Shared by the libFuzzer harnesses: an exact-size copy of the input (so AddressSanitizer sees
 * any read past its end), a check that aborts with a message, and position comparisons. */
#ifndef PGNT_FUZZ_COMMON_H
#define PGNT_FUZZ_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fen.h"
#include "position.h"
#include "san.h"

/* A property the core must hold: report it and abort, so libFuzzer saves the input. */
#define CHECK(cond, ...)                                                              \
    do {                                                                              \
        if (!(cond)) {                                                                \
            fprintf(stderr, "%s:%d: check failed: %s\n  ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                             \
            fprintf(stderr, "\n");                                                    \
            abort();                                                                  \
        }                                                                             \
    } while (0)

/* libFuzzer's buffer may have slack after it; a malloc of exactly n bytes has none. */
static inline char *exact_copy(const uint8_t *data, size_t n)
{
    char *p = malloc(n ? n : 1);
    if (!p)
        abort();
    if (n)
        memcpy(p, data, n);
    return p;
}

/* Everything a FEN says about a position (the en-passant square only when `with_ep`: the
 * default FEN style drops a square no capture can use). */
static inline bool pos_same(const Position *a, const Position *b, bool with_ep)
{
    if (memcmp(a->board, b->board, sizeof a->board) || a->turn != b->turn ||
        memcmp(a->castle, b->castle, sizeof a->castle) || a->halfmove != b->halfmove ||
        a->fullmove != b->fullmove || a->hash != b->hash || a->checkers != b->checkers ||
        a->ep_hashed != b->ep_hashed)
        return false;
    for (int t = PAWN; t <= KING; t++)
        if (a->by_type[t] != b->by_type[t])
            return false;
    if (a->by_color[0] != b->by_color[0] || a->by_color[1] != b->by_color[1])
        return false;
    return !with_ep || a->ep == b->ep;
}

/* The state pos_make keeps incrementally (hash, checkers, ep_hashed) equals a recomputation. */
static inline void check_incremental_state(const Position *p, const char *what)
{
    Position fresh = *p;
    pos_rehash(&fresh);
    char fen[FEN_MAX];
    fen_format(p, fen, FEN_EP_ALWAYS);
    CHECK(fresh.hash == p->hash, "%s: incremental hash differs from a recomputed one in %s", what, fen);
    CHECK(fresh.checkers == p->checkers, "%s: checkers differ from recomputed ones in %s", what, fen);
    CHECK(fresh.ep_hashed == p->ep_hashed, "%s: ep_hashed differs from a recomputed one in %s", what, fen);
    for (int sq = 0; sq < 64; sq++) {
        uint8_t pc = p->board[sq];
        bb_t bit = BB(sq);
        bool in_boards = (p->by_color[WHITE] | p->by_color[BLACK]) & bit;
        CHECK(in_boards == (pc != 0), "%s: mailbox and bitboards disagree on square %d in %s", what, sq, fen);
        if (pc)
            CHECK((p->by_type[PIECE_TYPE(pc)] & p->by_color[PIECE_COLOR(pc)] & bit) != 0,
                  "%s: piece %d on square %d is not in its bitboards in %s", what, pc, sq, fen);
    }
}

static inline bool move_is_legal(const Position *p, move_t m)
{
    MoveList ml;
    pos_gen_legal(p, &ml, GEN_ALL, ~0ULL, ~0ULL);
    for (int i = 0; i < ml.n; i++)
        if (ml.moves[i] == m)
            return true;
    return false;
}

/* Canonical SAN and UCI of every legal move read back as that move, without notes. */
static inline void check_move_round_trips(const Position *p)
{
    MoveList ml;
    char fen[FEN_MAX];
    pos_gen_legal(p, &ml, GEN_ALL, ~0ULL, ~0ULL);
    for (int i = 0; i < ml.n; i++) {
        move_t m = ml.moves[i], back = MOVE_NONE;
        char san[16], uci[8];
        SanMove sm;
        size_t n = san_format(p, m, san);
        CHECK(n > 0 && n < sizeof san, "SAN length %zu", n);
        fen_format(p, fen, FEN_EP_ALWAYS);
        int rc = san_parse(san, n, &sm);
        if (rc == SAN_OK)
            rc = san_resolve(p, &sm, &back);
        CHECK(rc == SAN_OK && back == m, "canonical SAN '%s' reads back as rc %d move %04x, not %04x in %s", san,
              rc, back, m, fen);
        CHECK(sm.notes == 0, "canonical SAN '%s' needed normalising (notes %#x) in %s", san, sm.notes, fen);
        Position after = *p;
        pos_make(&after, m);
        CHECK(sm.check == pos_check_status(&after), "canonical SAN '%s' has the wrong check marker in %s", san, fen);
        n = uci_format(p, m, uci);
        back = MOVE_NONE;
        rc = uci_to_move(p, uci, n, &back);
        CHECK(rc == SAN_OK && back == m, "UCI '%s' reads back as rc %d move %04x, not %04x in %s", uci, rc, back, m,
              fen);
        check_incremental_state(&after, "after pos_make");
    }
}

#endif
