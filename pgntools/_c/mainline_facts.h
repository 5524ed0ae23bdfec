/* What a game's mainline did, found as it is replayed (issue 18): its counters (captures, checks,
 * underpromotions, the highest half-move clock, the most repetitions of one position, clocks and
 * evals seen) and whether it reached one of the positions (--where-position) or material balances
 * (--material) asked for. The counters are updated once a mainline ply (a recorder of the replay),
 * from what the replay computed anyway, when a run reads them. */
#ifndef PGNT_MAINLINE_FACTS_H
#define PGNT_MAINLINE_FACTS_H

#include "position.h"

/* G_DERIVED bits. */
enum { DERIVED_HAS_CLOCK = 1, DERIVED_HAS_EVAL = 2, DERIVED_REACHED_POSITION = 4, DERIVED_REACHED_MATERIAL = 8 };

/* The positions of --where-position: their keys sorted, each with its position (same index). */
typedef struct {
    size_t n;
    const uint64_t *keys;
    const Position *positions;
} PositionTargets;

/* A --material signature: the count of each piece type (PAWN..QUEEN) per color, exactly or at
 * least (`at_least[color]`: the side's `*`). Kings are always one each. */
typedef struct {
    uint8_t count[2][7];
    bool at_least[2];
} MaterialSignature;

typedef struct {
    size_t n;
    const MaterialSignature *signatures;
} MaterialSignatures;

typedef struct {
    uint8_t flags; /* DERIVED_* */
    uint8_t captures, underpromotions;
    uint16_t max_halfmove_clock, max_repetitions;
    int32_t checks;
} Derived;

/* Whether p is one of the targets: the key first, then the board (placement, side to move,
 * castling rights, en passant when a capture is possible; the clocks are not compared). */
bool targets_reached(const PositionTargets *t, const Position *p);
bool material_reached(const MaterialSignatures *m, const Position *p);

/* The game's start position (replayed: a valid one). */
static inline void derived_start(Derived *d, const Position *p, const PositionTargets *t, const MaterialSignatures *m)
{
    d->max_halfmove_clock = p->halfmove;
    d->max_repetitions = 1;
    if (t && targets_reached(t, p))
        d->flags |= DERIVED_REACHED_POSITION;
    if (m && material_reached(m, p))
        d->flags |= DERIVED_REACHED_MATERIAL;
}

/* The counters after a mainline move m (status: pos_check_status of p, the position after it);
 * only when a run reads them (GameOptions.counters). */
static inline void derived_count(Derived *d, const Position *p, move_t m, bool captured, int status)
{
    d->captures += captured;
    d->checks += status != 0;
    int promo = mv_promo(m);
    d->underpromotions += promo && promo != QUEEN;
    if (p->halfmove > d->max_halfmove_clock)
        d->max_halfmove_clock = p->halfmove;
}

/* Whether the position after a mainline move reached a target (--where-position, --material). */
static inline void derived_reached(Derived *d, const Position *p, bool material_changed, const PositionTargets *t,
                                   const MaterialSignatures *ms)
{
    if (t && !(d->flags & DERIVED_REACHED_POSITION) && targets_reached(t, p))
        d->flags |= DERIVED_REACHED_POSITION;
    if (ms && material_changed && !(d->flags & DERIVED_REACHED_MATERIAL) && material_reached(ms, p))
        d->flags |= DERIVED_REACHED_MATERIAL; /* (only a capture or a promotion changes it) */
}

#endif
