/* The key set of --dedup (keyset.h). */
#include <stdlib.h>

#include "keyset.h"

#define ID_BITS 40
#define ID_MASK ((1ULL << ID_BITS) - 1)

void keyset_free(KeySet *s)
{
    free(s->slots);
    s->slots = NULL;
    s->cap = s->used = 0;
}

size_t keyset_bytes(const KeySet *s) { return s->cap * 2 * sizeof(uint64_t); }

/* The slot of lane 0 (and the packed word's key bits): found, or the empty one it would take. */
static size_t probe(const KeySet *s, uint64_t a, uint64_t tag)
{
    size_t mask = s->cap - 1, i = (size_t)a & mask;
    for (;;) {
        uint64_t w = s->slots[2 * i + 1];
        if (!w || (s->slots[2 * i] == a && (w & ~ID_MASK) == tag))
            return i;
        i = (i + 1) & mask;
    }
}

static int grow(KeySet *s)
{
    size_t cap = s->cap ? s->cap * 2 : (size_t)1 << 16;
    uint64_t *slots = calloc(cap, 2 * sizeof(uint64_t));
    if (!slots)
        return -1;
    KeySet bigger = {slots, cap, s->used};
    for (size_t i = 0; i < s->cap; i++) {
        uint64_t w = s->slots[2 * i + 1];
        if (w) {
            size_t j = probe(&bigger, s->slots[2 * i], w & ~ID_MASK);
            slots[2 * j] = s->slots[2 * i];
            slots[2 * j + 1] = w;
        }
    }
    free(s->slots);
    *s = bigger;
    return 0;
}

int keyset_add_many(KeySet *s, const int64_t *a, const int64_t *b, const uint8_t *valid, const int64_t *ids,
                    size_t n, int64_t *first)
{
    for (size_t k = 0; k < n; k++) {
        first[k] = -1;
        if (!valid[k])
            continue;
        if (ids[k] < 0 || ids[k] > KEYSET_MAX_ID)
            return -1;
        if ((s->used + 1) * 4 > s->cap * 3 && grow(s))
            return -1;
        uint64_t la = (uint64_t)a[k], tag = (uint64_t)b[k] & ~ID_MASK;
        size_t i = probe(s, la, tag);
        uint64_t w = s->slots[2 * i + 1];
        if (w) {
            first[k] = (int64_t)(w & ID_MASK) - 1;
        } else {
            s->slots[2 * i] = la;
            s->slots[2 * i + 1] = tag | ((uint64_t)ids[k] + 1);
            s->used++;
        }
    }
    return 0;
}
