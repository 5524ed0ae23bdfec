/* A set of 128-bit keys, each with the id of the game that brought it first (--dedup's memory):
 * open addressing, linear probing, a power-of-two table kept at most 3/4 full, 16 bytes a slot.
 * A slot holds the key's lane 0 and, packed in one word, 24 bits of lane 1 with the game id + 1
 * (40 bits): an 88-bit comparison (two different games over 100 M meet with a chance of about
 * 10^-11) and game ids below 2^40 - 1. Lane 0 picks the slot (the keys are well mixed). */
#ifndef PGNT_KEYSET_H
#define PGNT_KEYSET_H

#include <stddef.h>
#include <stdint.h>

#define KEYSET_MAX_ID ((int64_t)((1ULL << 40) - 2))

typedef struct {
    uint64_t *slots; /* 2 words a slot; word 1 == 0: empty */
    size_t cap;      /* slots, a power of two (0: none yet) */
    size_t used;
} KeySet;

void keyset_free(KeySet *s);
/* For each of n keys (lanes a[i], b[i]; skipped where valid[i] is 0), in order: first[i] = the
 * id of the game that brought the key first, or -1 when it is new (it is then added with
 * ids[i]) or skipped. Returns 0, or -1 when memory ran out or an id is out of range. */
int keyset_add_many(KeySet *s, const int64_t *a, const int64_t *b, const uint8_t *valid, const int64_t *ids,
                    size_t n, int64_t *first);
/* The bytes the table holds. */
size_t keyset_bytes(const KeySet *s);

#endif
