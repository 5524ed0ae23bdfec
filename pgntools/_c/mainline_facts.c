#include "mainline_facts.h"

static bool same_board(const Position *a, const Position *b)
{
    if (a->turn != b->turn || memcmp(a->castle, b->castle, sizeof a->castle) ||
        (a->ep_hashed ? a->ep : NO_SQ) != (b->ep_hashed ? b->ep : NO_SQ))
        return false;
    for (int t = PAWN; t <= KING; t++)
        if (a->by_type[t] != b->by_type[t])
            return false;
    return a->by_color[WHITE] == b->by_color[WHITE];
}

bool targets_reached(const PositionTargets *t, const Position *p)
{
    size_t lo = 0, hi = t->n; /* the first key >= p's */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (t->keys[mid] < p->hash)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < t->n && t->keys[lo] == p->hash; lo++)
        if (same_board(&t->positions[lo], p))
            return true;
    return false;
}

bool material_reached(const MaterialSignatures *m, const Position *p)
{
    uint8_t count[2][7];
    for (int c = WHITE; c <= BLACK; c++)
        for (int t = PAWN; t <= QUEEN; t++)
            count[c][t] = (uint8_t)__builtin_popcountll(pos_pieces(p, c, t));
    for (size_t i = 0; i < m->n; i++) {
        const MaterialSignature *s = &m->signatures[i];
        bool ok = true;
        for (int c = WHITE; c <= BLACK && ok; c++)
            for (int t = PAWN; t <= QUEEN && ok; t++)
                ok = s->at_least[c] ? count[c][t] >= s->count[c][t] : count[c][t] == s->count[c][t];
        if (ok)
            return true;
    }
    return false;
}
