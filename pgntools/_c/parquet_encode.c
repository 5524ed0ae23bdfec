/* Parquet column encoders (see parquet_encode.h). */
#include "parquet_encode.h"

#include <string.h>

#define BAD(c) ((c)->failed = true)

bool pq_init(PqColumn *c, PqKind kind, bool optional, int value_width)
{
    memset(c, 0, sizeof *c);
    c->kind = kind;
    c->optional = optional;
    c->value_width = value_width;
    if (kind == PQ_DICT_FIXED || kind == PQ_DICT_STRING) {
        c->table_cap = 256;
        c->table = calloc(c->table_cap, sizeof *c->table);
        if (!c->table)
            return false;
    }
    pq_reset(c);
    return true;
}

void pq_free(PqColumn *c)
{
    VEC_FREE(c->def_levels);
    VEC_FREE(c->rep_levels);
    VEC_FREE(c->indices);
    VEC_FREE(c->plain);
    VEC_FREE(c->dict_page);
    free(c->table);
    c->table = NULL;
}

static void clear_table(PqColumn *c)
{
    memset(c->table, 0, c->table_cap * sizeof *c->table);
    memset(c->small, 0, sizeof c->small);
    c->last_index = 0;
}

void pq_reset(PqColumn *c)
{
    c->rows = c->values = c->nulls = c->bits = 0;
    c->def_levels.len = c->rep_levels.len = c->indices.len = c->plain.len = 0;
    c->min = INT64_MAX;
    c->max = INT64_MIN;
    if (c->table && c->dict_count > c->fixed_entries) { /* the fixed entries of a string dictionary stay */
        c->dict_count = c->fixed_entries;
        size_t keep = 0;
        for (uint32_t i = 0, off = 0; i < c->fixed_entries; i++) {
            uint32_t len;
            memcpy(&len, c->dict_page.data + off, 4);
            off += 4 + len;
            keep = off;
        }
        c->dict_page.len = keep;
        if (!c->fixed_entries)
            clear_table(c);
    }
}

/* ---------------------------------------------------------------- dictionaries */

static inline uint64_t mix(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return k;
}

static bool grow_table(PqColumn *c)
{
    size_t ncap = c->table_cap * 2;
    PqSlot *nt = calloc(ncap, sizeof *nt);
    if (!nt)
        return false;
    for (size_t i = 0; i < c->table_cap; i++) {
        PqSlot s = c->table[i];
        if (!s.index)
            continue;
        size_t j = mix(s.key) & (ncap - 1);
        while (nt[j].index)
            j = (j + 1) & (ncap - 1);
        nt[j] = s;
    }
    free(c->table);
    c->table = nt;
    c->table_cap = ncap;
    return true;
}

/* The dictionary index of a fixed value, added to the dictionary when new. */
static uint32_t fixed_index(PqColumn *c, uint64_t key)
{
    if (c->last_index && key == c->last_key)
        return c->last_index - 1;
    if (key < PQ_SMALL && c->small[key])
        return c->small[key] - 1;
    size_t mask = c->table_cap - 1, j = mix(key) & mask;
    while (c->table[j].index) {
        if (c->table[j].key == key)
            goto found;
        j = (j + 1) & mask;
    }
    if (!VEC_RESERVE(c->dict_page, 8)) {
        BAD(c);
        return 0;
    }
    memcpy(c->dict_page.data + c->dict_page.len, &key, (size_t)c->value_width); /* little-endian */
    c->dict_page.len += (size_t)c->value_width;
    c->table[j] = (PqSlot){key, ++c->dict_count, 0};
    if (key < PQ_SMALL)
        c->small[key] = c->dict_count;
    if (c->dict_count * 2 > c->table_cap && !grow_table(c)) {
        BAD(c);
        return 0;
    }
    /* the slot may have moved: look the value up again on the next call, not through j */
    c->last_key = key;
    c->last_index = c->dict_count;
    return c->dict_count - 1;
found:
    c->last_key = key;
    c->last_index = c->table[j].index;
    return c->table[j].index - 1;
}

/* A string's key: strings of up to 7 bytes are their own key (bytes and length), so equal keys
 * mean equal strings (SAN and UCI always are that short); longer strings key by a hash with the
 * top bit set, and are compared too. */
static uint64_t string_key(const char *s, size_t n, bool can_read_8)
{
    uint64_t w = 0;
    if (n <= 7) {
        if (can_read_8) { /* one load instead of a call to memcpy */
            memcpy(&w, s, 8);
            w &= (1ULL << (8 * n)) - 1;
        } else {
            memcpy(&w, s, n);
        }
        return w | (uint64_t)n << 56;
    }
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ n;
    for (; n >= 8; s += 8, n -= 8) {
        memcpy(&w, s, 8);
        h = mix(h ^ w);
    }
    w = 0;
    memcpy(&w, s, n);
    return mix(h ^ w) | 1ULL << 63;
}

/* can_read_8: the 8 bytes from s are readable (the string may be shorter). */
static uint32_t string_index(PqColumn *c, const char *s, uint32_t n, bool can_read_8)
{
    uint64_t key = string_key(s, n, can_read_8);
    size_t mask = c->table_cap - 1, j = mix(key) & mask;
    for (; c->table[j].index; j = (j + 1) & mask) {
        const PqSlot *slot = &c->table[j];
        if (slot->key == key && (n <= 7 || (memcmp(c->dict_page.data + slot->offset, &n, 4) == 0 &&
                                            memcmp(c->dict_page.data + slot->offset + 4, s, n) == 0)))
            return slot->index - 1;
    }
    if (c->dict_page.len + 4 + (size_t)n > UINT32_MAX || !VEC_RESERVE(c->dict_page, 4 + (size_t)n)) {
        BAD(c);
        return 0;
    }
    uint32_t offset = (uint32_t)c->dict_page.len;
    memcpy(c->dict_page.data + offset, &n, 4);
    memcpy(c->dict_page.data + offset + 4, s, n);
    c->dict_page.len += 4 + (size_t)n;
    c->table[j] = (PqSlot){key, ++c->dict_count, offset};
    if (c->dict_count * 2 > c->table_cap && !grow_table(c)) {
        BAD(c);
        return 0;
    }
    return c->dict_count - 1;
}

bool pq_fix_dictionary(PqColumn *c, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        string_index(c, names[i], (uint32_t)strlen(names[i]), false);
    c->fixed_entries = c->dict_count;
    return !c->failed;
}

/* ---------------------------------------------------------------- adding values */

/* Reserves room for n more rows' levels and values. */
static bool reserve(PqColumn *c, size_t n)
{
    bool ok = !c->optional || VEC_RESERVE(c->def_levels, n);
    if (c->kind == PQ_DICT_FIXED || c->kind == PQ_DICT_STRING)
        ok = ok && VEC_RESERVE(c->indices, n);
    if (!ok)
        BAD(c);
    return ok;
}

static inline bool is_valid(PqColumn *c, const uint8_t *has, uint8_t bit, size_t i)
{
    bool valid = !has || (has[i] & bit);
    if (c->optional) {
        c->def_levels.data[c->def_levels.len++] = valid;
        c->nulls += !valid;
    }
    return valid;
}

/* One loop per source type (T), so that the conversion is not a switch per value. */
#define ADD_FIXED_LOOP(T, track_range)                                      \
    for (size_t i = 0; i < n; i++) {                                        \
        if (!is_valid(c, has, has_bit, i))                                  \
            continue;                                                       \
        T raw;                                                              \
        memcpy(&raw, (const char *)values + sizeof(T) * i, sizeof(T));     \
        int64_t v = (int64_t)raw;                                           \
        if (track_range) {                                                  \
            if (v < c->min)                                                 \
                c->min = v;                                                 \
            if (v > c->max)                                                 \
                c->max = v;                                                 \
        }                                                                   \
        c->indices.data[c->indices.len++] = fixed_index(c, (uint64_t)v);   \
    }

void pq_add_fixed(PqColumn *c, const void *values, PqSource source, size_t n, const uint8_t *has, uint8_t has_bit)
{
    if (c->failed || !reserve(c, n))
        return;
    switch (source) {
    case PQ_U8: ADD_FIXED_LOOP(uint8_t, true) break;
    case PQ_I16: ADD_FIXED_LOOP(int16_t, true) break;
    case PQ_U16: ADD_FIXED_LOOP(uint16_t, true) break;
    case PQ_I32: ADD_FIXED_LOOP(int32_t, true) break;
    case PQ_I64: ADD_FIXED_LOOP(int64_t, true) break;
    case PQ_BITS64: ADD_FIXED_LOOP(int64_t, false) break; /* a double's bits: no range */
    }
    c->rows += n;
    c->values += n;
}

void pq_add_game_ids(PqColumn *c, const int32_t *starts, size_t n_games, size_t n_rows, int64_t first_game)
{
    if (c->failed || !reserve(c, n_rows))
        return;
    for (size_t g = 0; g < n_games; g++) {
        int32_t a = starts[g], z = g + 1 < n_games ? starts[g + 1] : (int32_t)n_rows;
        if (a == z)
            continue;
        int64_t id = first_game + (int64_t)g;
        uint32_t index = fixed_index(c, (uint64_t)id);
        for (int32_t i = a; i < z; i++)
            c->indices.data[c->indices.len++] = index;
        if (id < c->min)
            c->min = id;
        if (id > c->max)
            c->max = id;
    }
    c->rows += n_rows;
    c->values += n_rows;
}

void pq_add_strings(PqColumn *c, const int32_t *offsets, const char *data, size_t n, const uint8_t *has,
                    uint8_t has_bit)
{
    if (c->failed || !reserve(c, n))
        return;
    for (size_t i = 0; i < n; i++) {
        if (!is_valid(c, has, has_bit, i))
            continue;
        uint32_t len = (uint32_t)(offsets[i + 1] - offsets[i]);
        const char *s = data + offsets[i];
        if (c->kind == PQ_DICT_STRING) {
            bool can_read_8 = offsets[i] + 8 <= offsets[n];
            c->indices.data[c->indices.len++] = string_index(c, s, len, can_read_8);
        } else if (VEC_RESERVE(c->plain, 4 + (size_t)len)) {
            memcpy(c->plain.data + c->plain.len, &len, 4);
            memcpy(c->plain.data + c->plain.len + 4, s, len);
            c->plain.len += 4 + (size_t)len;
        } else {
            BAD(c);
            return;
        }
    }
    c->rows += n;
    c->values += n;
}

void pq_add_codes(PqColumn *c, const uint8_t *codes, size_t n)
{
    if (c->failed || !reserve(c, n))
        return;
    for (size_t i = 0; i < n; i++) {
        bool valid = codes[i] != 0;
        if (c->optional) {
            c->def_levels.data[c->def_levels.len++] = valid;
            c->nulls += !valid;
        }
        if (valid)
            c->indices.data[c->indices.len++] = codes[i] - 1u;
    }
    c->rows += n;
    c->values += n;
}

void pq_add_flag_bits(PqColumn *c, const uint8_t *flags, size_t n, uint8_t bit)
{
    if (c->failed || !VEC_RESERVE(c->plain, n / 8 + 2)) {
        BAD(c);
        return;
    }
    size_t i = 0;
    for (; i < n && c->bits % 8; i++, c->bits++) /* into the last, partly filled byte */
        if (flags[i] & bit)
            c->plain.data[c->plain.len - 1] |= (char)(1u << (c->bits % 8));
    for (; i + 8 <= n; i += 8, c->bits += 8) { /* whole bytes */
        unsigned byte = 0;
        for (int k = 0; k < 8; k++)
            byte |= (unsigned)((flags[i + k] & bit) != 0) << k;
        c->plain.data[c->plain.len++] = (char)byte;
    }
    for (; i < n; i++, c->bits++) {
        if (c->bits % 8 == 0)
            c->plain.data[c->plain.len++] = 0;
        if (flags[i] & bit)
            c->plain.data[c->plain.len - 1] |= (char)(1u << (c->bits % 8));
    }
    c->rows += n;
    c->values += n;
}

void pq_add_lists(PqColumn *c, const int32_t *starts, const uint8_t *values, size_t n)
{
    if (c->failed)
        return;
    size_t entries = 0;
    for (size_t i = 0; i < n; i++)
        entries += starts[i + 1] > starts[i] ? (size_t)(starts[i + 1] - starts[i]) : 1;
    if (!VEC_RESERVE(c->def_levels, entries) || !VEC_RESERVE(c->rep_levels, entries) ||
        !VEC_RESERVE(c->plain, 4 * entries)) {
        BAD(c);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        if (starts[i + 1] == starts[i]) { /* an empty list: one entry, defined up to the list itself */
            c->def_levels.data[c->def_levels.len++] = 0;
            c->rep_levels.data[c->rep_levels.len++] = 0;
            continue;
        }
        for (int32_t k = starts[i]; k < starts[i + 1]; k++) {
            int32_t v = values[k];
            c->def_levels.data[c->def_levels.len++] = 2;
            c->rep_levels.data[c->rep_levels.len++] = k > starts[i];
            memcpy(c->plain.data + c->plain.len, &v, 4);
            c->plain.len += 4;
        }
    }
    c->rows += n;
    c->values += entries;
}

/* ---------------------------------------------------------------- the hybrid encoding */

static bool put_varint(ByteVec *o, uint64_t v)
{
    if (!VEC_RESERVE(*o, 10))
        return false;
    while (v >= 0x80) {
        o->data[o->len++] = (char)(v | 0x80);
        v >>= 7;
    }
    o->data[o->len++] = (char)v;
    return true;
}

static bool all_equal8(const uint32_t *v)
{
    return v[1] == v[0] && v[2] == v[0] && v[3] == v[0] && v[4] == v[0] && v[5] == v[0] && v[6] == v[0] &&
           v[7] == v[0];
}

/* Runs of 8 or more equal values become RLE runs; the rest is bit-packed in groups of 8 (at most
 * 63 groups a run, as Arrow writes them), the last group padded with zeros. */
bool pq_hybrid(const uint32_t *v, size_t n, int width, ByteVec *out)
{
    size_t value_bytes = ((size_t)width + 7) / 8;
    size_t i = 0;
    while (i < n) {
        size_t run = 1;
        while (i + run < n && v[i + run] == v[i])
            run++;
        if (run >= 8) {
            if (!put_varint(out, (uint64_t)run << 1) || !VEC_RESERVE(*out, 4))
                return false;
            memcpy(out->data + out->len, &v[i], value_bytes);
            out->len += value_bytes;
            i += run;
            continue;
        }
        size_t groups = 0; /* bit-packed groups of 8 from i, until a run of 8 equal values starts */
        do {
            groups++;
        } while (groups < 63 && i + groups * 8 + 8 <= n && !all_equal8(v + i + groups * 8));
        if (i + groups * 8 + 8 > n && groups < 63 && i + groups * 8 < n)
            groups++; /* the last values, padded */
        if (!put_varint(out, (uint64_t)groups << 1 | 1) || !VEC_RESERVE(*out, groups * (size_t)width + 8))
            return false;
        uint64_t acc = 0;
        int nbits = 0;
        for (size_t k = 0; k < groups * 8; k++) {
            acc |= (uint64_t)(i + k < n ? v[i + k] : 0) << nbits;
            nbits += width;
            while (nbits >= 8) {
                out->data[out->len++] = (char)acc;
                acc >>= 8;
                nbits -= 8;
            }
        }
        i += groups * 8;
    }
    return true;
}

static int bit_width(uint32_t max_value)
{
    int w = 1; /* at least 1: some readers do not take width 0 */
    while (w < 32 && (max_value >> w))
        w++;
    return w;
}

/* Levels in a v1 data page: a 4-byte length, then the hybrid encoding. */
static bool put_levels(const U8Vec *levels, int width, ByteVec *out)
{
    uint32_t *wide = malloc((levels->len + 1) * sizeof *wide);
    if (!wide || !VEC_RESERVE(*out, 4)) {
        free(wide);
        return false;
    }
    for (size_t i = 0; i < levels->len; i++)
        wide[i] = levels->data[i];
    size_t at = out->len;
    out->len += 4;
    bool ok = pq_hybrid(wide, levels->len, width, out);
    free(wide);
    uint32_t len = (uint32_t)(out->len - at - 4);
    memcpy(out->data + at, &len, 4);
    return ok;
}

bool pq_data_page(PqColumn *c, ByteVec *out)
{
    if (c->failed)
        return false;
    if (c->kind == PQ_PLAIN_LIST && !put_levels(&c->rep_levels, 1, out))
        return false;
    if ((c->optional || c->kind == PQ_PLAIN_LIST) && !put_levels(&c->def_levels, c->kind == PQ_PLAIN_LIST ? 2 : 1, out))
        return false;
    if (c->kind == PQ_DICT_FIXED || c->kind == PQ_DICT_STRING) {
        int width = bit_width(c->dict_count ? c->dict_count - 1 : 0);
        if (!VEC_RESERVE(*out, 1))
            return false;
        out->data[out->len++] = (char)width;
        return pq_hybrid(c->indices.data, c->indices.len, width, out);
    }
    if (!VEC_RESERVE(*out, c->plain.len))
        return false;
    memcpy(out->data + out->len, c->plain.data, c->plain.len);
    out->len += c->plain.len;
    return true;
}

const ByteVec *pq_dictionary_page(const PqColumn *c)
{
    return c->kind == PQ_DICT_FIXED || c->kind == PQ_DICT_STRING ? &c->dict_page : NULL;
}
