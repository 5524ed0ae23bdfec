#include "book_table.h"

#include <stdlib.h>
#include <string.h>

#include "positions_dataset.h"

#define MIN_CAP 4096

void book_table_free(BookTable *t)
{
    free(t->slots);
    t->slots = NULL;
    t->cap = t->used = 0;
}

static size_t slot_of(const BookTable *t, uint64_t key, uint16_t move)
{
    uint64_t h = key ^ ((uint64_t)move * 0x9E3779B97F4A7C15ULL); /* the key is already well mixed */
    size_t i = (size_t)(h ^ (h >> 29)) & (t->cap - 1);
    while (t->slots[i].count && (t->slots[i].key != key || t->slots[i].move != move))
        i = (i + 1) & (t->cap - 1);
    return i;
}

static int grow(BookTable *t)
{
    size_t cap = t->cap ? 2 * t->cap : MIN_CAP;
    BookSlot *old = t->slots, *slots = calloc(cap, sizeof *slots);
    size_t old_cap = t->cap;
    if (!slots)
        return -1;
    t->slots = slots;
    t->cap = cap;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i].count)
            t->slots[slot_of(t, old[i].key, old[i].move)] = old[i];
    free(old);
    return 0;
}

static int add(BookTable *t, uint64_t key, uint16_t move, uint64_t points, uint32_t count)
{
    if (4 * (t->used + 1) > 3 * t->cap && grow(t))
        return -1;
    BookSlot *s = &t->slots[slot_of(t, key, move)];
    if (!s->count) {
        s->key = key;
        s->move = move;
        t->used++;
    }
    s->points += points;
    s->count += count;
    return 0;
}

uint16_t book_polyglot_move(const char *uci, size_t uci_len, const char *san, size_t san_len)
{
    if (uci_len < 4)
        return 0;
    int from_file = uci[0] - 'a', from_rank = uci[1] - '1', to_file = uci[2] - 'a', to_rank = uci[3] - '1';
    int promotion = 0;
    if (uci_len > 4) {
        const char *p = strchr("nbrq", uci[4]);
        promotion = p && uci[4] ? (int)(p - "nbrq") + 1 : 0;
    }
    if (san_len >= 3 && memcmp(san, "O-O", 3) == 0)
        to_file = san_len >= 5 && memcmp(san, "O-O-O", 5) == 0 ? 0 : 7;
    return (uint16_t)(to_file | to_rank << 3 | from_file << 6 | from_rank << 9 | promotion << 12);
}

int book_table_add_rows(BookTable *t, size_t n_games, const int32_t *starts, size_t n_rows, const int16_t *ply,
                        const uint64_t *key, const uint8_t *has, const double *result, const int32_t *uci_offsets,
                        const char *uci, const int32_t *san_offsets, const char *san)
{
    for (size_t g = 0; g < n_games; g++) {
        size_t first = (size_t)starts[g], end = g + 1 < n_games ? (size_t)starts[g + 1] : n_rows;
        if (first >= end || ply[first] != 0 || key[first] != BOOK_START_KEY)
            continue;
        for (size_t r = first; r < end; r++) {
            if (!(has[r] & PH_RESULT))
                continue;
            uint16_t move = book_polyglot_move(uci + uci_offsets[r], (size_t)(uci_offsets[r + 1] - uci_offsets[r]),
                                               san + san_offsets[r], (size_t)(san_offsets[r + 1] - san_offsets[r]));
            if (add(t, key[r], move, (uint64_t)(2 * result[r] + 0.5), 1))
                return -1;
        }
    }
    return 0;
}

int book_table_add_slots(BookTable *t, const BookSlot *slots, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (add(t, slots[i].key, slots[i].move, slots[i].points, slots[i].count))
            return -1;
    return 0;
}

size_t book_table_slots(const BookTable *t, BookSlot *out)
{
    size_t n = 0;
    for (size_t i = 0; i < t->cap; i++)
        if (t->slots[i].count)
            out[n++] = t->slots[i];
    return n;
}

static int entry_order(const void *a, const void *b)
{
    const BookSlot *x = a, *y = b; /* points hold the weight by now */
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    if (x->points != y->points)
        return x->points > y->points ? -1 : 1;
    return (x->move > y->move) - (x->move < y->move);
}

static void put_be(unsigned char *out, uint64_t v, int bytes)
{
    for (int i = bytes - 1; i >= 0; i--, v >>= 8)
        out[i] = (unsigned char)v;
}

size_t book_table_polyglot(const BookTable *t, uint32_t min_count, unsigned char *out)
{
    BookSlot *kept = malloc((t->used ? t->used : 1) * sizeof *kept);
    size_t n = 0;
    uint64_t highest = 0;
    if (!kept)
        return (size_t)-1;
    for (size_t i = 0; i < t->cap; i++) {
        const BookSlot *s = &t->slots[i];
        if (s->count && s->count >= min_count && s->points > 0) {
            kept[n++] = *s;
            highest = s->points > highest ? s->points : highest;
        }
    }
    if (highest > 0xFFFF) /* one factor for all, rounded up so that no move gets 0 */
        for (size_t i = 0; i < n; i++)
            kept[i].points = (kept[i].points * 0xFFFF + highest - 1) / highest;
    qsort(kept, n, sizeof *kept, entry_order);
    for (size_t i = 0; i < n; i++, out += 16) {
        put_be(out, kept[i].key, 8);
        put_be(out + 8, kept[i].move, 2);
        put_be(out + 10, kept[i].points, 2);
        put_be(out + 12, 0, 4); /* learn */
    }
    free(kept);
    return n;
}
