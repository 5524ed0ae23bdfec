/* Parquet column encoders (see parquet_encode.h). */
#include "parquet_encode.h"

#include <string.h>

#define BAD(c) ((c)->failed = true)

bool pq_init(PqColumn *c, PqKind kind, int max_def, int max_rep, int value_width)
{
    memset(c, 0, sizeof *c);
    c->kind = kind;
    c->max_def = max_def;
    c->max_rep = max_rep;
    c->value_width = value_width;
    if (kind == PQ_DICT_FIXED || kind == PQ_DICT_STRING) {
        c->table_cap = 16; /* grows with the dictionary (grow_table); small for the many files of --partition-by */
        c->table = calloc(c->table_cap, sizeof *c->table);
    }
    if (kind == PQ_DICT_FIXED)
        c->small = calloc(PQ_SMALL, sizeof *c->small);
    if ((c->table_cap && !c->table) || (kind == PQ_DICT_FIXED && !c->small)) {
        pq_free(c);
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
    free(c->small);
    c->small = NULL;
}

static void clear_table(PqColumn *c)
{
    memset(c->table, 0, c->table_cap * sizeof *c->table);
    if (c->small)
        memset(c->small, 0, PQ_SMALL * sizeof *c->small);
    c->last_index = 0;
}

void pq_reset(PqColumn *c)
{
    c->rows = c->values = c->nulls = c->bits = 0;
    c->def_levels.len = c->rep_levels.len = c->indices.len = c->plain.len = 0;
    c->min = INT64_MAX;
    c->max = INT64_MIN;
    c->range_in_dictionary = false;
    if (c->table && c->dict_count > c->fixed_entries) { /* a fixed dictionary (fed codes) never grows */
        c->dict_count = 0;
        c->dict_page.len = 0;
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

/* The dictionary index of a fixed value not found by fixed_index's short cuts. */
static uint32_t fixed_index_slow(PqColumn *c, uint64_t key)
{
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

/* The dictionary index of a fixed value, added to the dictionary when new. */
static inline uint32_t fixed_index(PqColumn *c, uint64_t key)
{
    if (key < PQ_SMALL && c->small[key])
        return c->small[key] - 1;
    if (c->last_index && key == c->last_key)
        return c->last_index - 1;
    return fixed_index_slow(c, key);
}

/* A string's key: strings of up to 7 bytes are their own key (bytes and length), so equal keys
 * mean equal strings (SAN and UCI always are that short); longer strings key by a hash with the
 * top bit set, and are compared too. */
static const uint64_t LOW_BYTES[8] = {0, 0xFF, 0xFFFF, 0xFFFFFF, 0xFFFFFFFF, 0xFFFFFFFFFFULL, 0xFFFFFFFFFFFFULL,
                                      0xFFFFFFFFFFFFFFULL}; /* the low n bytes of a word */

static inline uint64_t string_key(const char *s, size_t n, bool can_read_8)
{
    uint64_t w = 0;
    if (n <= 7) {
        if (can_read_8) { /* one load instead of a call to memcpy */
            memcpy(&w, s, 8);
            w &= LOW_BYTES[n];
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

/* Adds a string to the dictionary at the empty slot j; returns its index. */
static uint32_t add_string(PqColumn *c, size_t j, uint64_t key, const char *s, uint32_t n)
{
    if (c->fixed_entries) { /* a column with a fixed dictionary takes codes only */
        BAD(c);
        return 0;
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

/* The dictionary index of a string, added when new. can_read_8: the 8 bytes from s are
 * readable (the string may be shorter). */
static inline uint32_t string_index(PqColumn *c, const char *s, uint32_t n, bool can_read_8)
{
    uint64_t key = string_key(s, n, can_read_8);
    size_t mask = c->table_cap - 1, j = mix(key) & mask;
    for (; c->table[j].index; j = (j + 1) & mask) {
        const PqSlot *slot = &c->table[j];
        if (slot->key == key && (n <= 7 || (memcmp(c->dict_page.data + slot->offset, &n, 4) == 0 &&
                                            memcmp(c->dict_page.data + slot->offset + 4, s, n) == 0)))
            return slot->index - 1;
    }
    return add_string(c, j, key, s, n);
}

bool pq_fix_dictionary(PqColumn *c, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        string_index(c, names[i], (uint32_t)strlen(names[i]), false);
    c->fixed_entries = c->dict_count;
    return !c->failed;
}

/* ---------------------------------------------------------------- values and levels */

/* Room for n more level entries (and values) and `plain_bytes` more PLAIN bytes, so that the
 * put_* below need no checks of their own; false (and the encoder failed) when out of memory. */
static bool reserve(PqColumn *c, size_t n, size_t plain_bytes)
{
    bool ok = !c->failed;
    if (ok && c->max_def)
        ok = VEC_RESERVE(c->def_levels, n);
    if (ok && c->max_rep)
        ok = VEC_RESERVE(c->rep_levels, n);
    if (ok && (c->kind == PQ_DICT_FIXED || c->kind == PQ_DICT_STRING))
        ok = VEC_RESERVE(c->indices, n);
    if (ok && c->kind == PQ_PLAIN_FIXED)
        ok = VEC_RESERVE(c->plain, n * 8);
    if (ok && c->kind == PQ_PLAIN_STRING)
        ok = VEC_RESERVE(c->plain, plain_bytes + 4 * n);
    if (!ok)
        BAD(c);
    return ok;
}

/* The definition level of a flat row or list entry: whether it has a value. */
static inline void put_defined(PqColumn *c, bool valid)
{
    if (c->max_def)
        c->def_levels.data[c->def_levels.len++] = (uint8_t)(valid ? c->max_def : c->max_def - 1);
    c->nulls += !valid;
    c->values++;
}

static inline void put_index(PqColumn *c, uint32_t index) { c->indices.data[c->indices.len++] = index; }

static inline void put_fixed(PqColumn *c, int64_t v, bool track_range)
{
    if (track_range) {
        if (v < c->min)
            c->min = v;
        if (v > c->max)
            c->max = v;
    }
    if (c->kind == PQ_DICT_FIXED) {
        put_index(c, fixed_index(c, (uint64_t)v));
    } else {
        memcpy(c->plain.data + c->plain.len, &v, 8); /* little-endian: the first value_width bytes */
        c->plain.len += (size_t)c->value_width;
    }
}

static inline void put_string(PqColumn *c, const char *s, uint32_t n, bool can_read_8)
{
    if (c->kind == PQ_DICT_STRING) {
        put_index(c, string_index(c, s, n, can_read_8));
    } else {
        memcpy(c->plain.data + c->plain.len, &n, 4);
        memcpy(c->plain.data + c->plain.len + 4, s, n);
        c->plain.len += 4 + (size_t)n;
    }
}

/* The hot loops below keep their outputs in locals (Out) and store them back once: a store
 * through a byte pointer may alias any field of the column, which would otherwise be reloaded
 * at every value. */
typedef struct {
    uint8_t *def;   /* next definition level, or NULL */
    uint32_t *idx;  /* next dictionary index (dictionary kinds) */
    size_t nulls;
    int64_t min, max;
} Out;

static inline Out out_begin(const PqColumn *c)
{
    return (Out){c->max_def ? c->def_levels.data + c->def_levels.len : NULL, c->indices.data + c->indices.len,
                 0, c->min, c->max};
}

static inline void out_end(PqColumn *c, const Out *o, size_t n)
{
    if (o->def)
        c->def_levels.len = (size_t)(o->def - c->def_levels.data);
    if (c->kind == PQ_DICT_FIXED || c->kind == PQ_DICT_STRING)
        c->indices.len = (size_t)(o->idx - c->indices.data);
    c->nulls += o->nulls;
    c->values += n;
    c->rows += n;
    c->min = o->min;
    c->max = o->max;
}

static inline void out_defined(Out *o, int max_def, bool valid)
{
    if (o->def)
        *o->def++ = (uint8_t)(valid ? max_def : max_def - 1);
    o->nulls += !valid;
}

/* One loop per source type (T), so that the conversion is not a switch per value; the levels
 * and nulls are written before (put_flat_levels), so this loop only visits the values. */
#define ADD_FIXED_LOOP(T, track_range)                                      \
    for (size_t i = 0; i < n; i++) {                                        \
        if (has && !(has[i] & has_bit))                                     \
            continue;                                                       \
        T raw;                                                              \
        memcpy(&raw, (const char *)values + sizeof(T) * i, sizeof(T));     \
        int64_t v = (int64_t)raw;                                           \
        if (track_range) {                                                  \
            o.min = v < o.min ? v : o.min;                                  \
            o.max = v > o.max ? v : o.max;                                  \
        }                                                                   \
        if (dict)                                                           \
            *o.idx++ = fixed_index(c, (uint64_t)v);                         \
        else                                                                \
            put_fixed(c, v, false);                                         \
    }

/* A dictionary column's values without nulls (has NULL: plies, squares, clocks): those below
 * PQ_SMALL already in the dictionary by the small table, read inline; the others by fixed_index.
 * Their min and max are the dictionary's (every value is in it, and it holds the row group's
 * values only), taken once by dictionary_range: a value of T fits the column's value width. */
#define ADD_DICT_LOOP(T)                                                    \
    c->range_in_dictionary = true;                                          \
    for (size_t i = 0; i < n; i++) {                                        \
        T raw;                                                              \
        memcpy(&raw, (const char *)values + sizeof(T) * i, sizeof(T));     \
        int64_t v = (int64_t)raw;                                           \
        uint32_t k = (uint64_t)v < PQ_SMALL ? c->small[v] : 0;              \
        *o.idx++ = k ? k - 1 : fixed_index(c, (uint64_t)v);                 \
    }

/* Merges the dictionary's range into the column's (range_in_dictionary). */
static void dictionary_range(PqColumn *c)
{
    if (!c->range_in_dictionary)
        return;
    for (uint32_t i = 0; i < c->dict_count; i++) {
        int64_t v;
        if (c->value_width == 8) {
            memcpy(&v, c->dict_page.data + 8 * (size_t)i, 8);
        } else {
            int32_t x;
            memcpy(&x, c->dict_page.data + 4 * (size_t)i, 4);
            v = x;
        }
        c->min = v < c->min ? v : c->min;
        c->max = v > c->max ? v : c->max;
    }
    c->range_in_dictionary = false;
}

/* The definition levels of n flat rows (a value where has[i] & has_bit, every row without has)
 * in one pass the compiler vectorizes; returns the rows with a value (the others are nulls). */
static size_t put_flat_levels(PqColumn *c, Out *o, size_t n, const uint8_t *has, uint8_t has_bit)
{
    size_t valid = n;
    if (has) {
        valid = 0;
        if (o->def) {
            uint8_t *d = o->def, low = (uint8_t)(c->max_def - 1);
            for (size_t i = 0; i < n; i++) {
                uint8_t ok = (has[i] & has_bit) != 0;
                d[i] = (uint8_t)(low + ok);
                valid += ok;
            }
        } else {
            for (size_t i = 0; i < n; i++)
                valid += (has[i] & has_bit) != 0;
        }
    } else if (o->def) {
        memset(o->def, c->max_def, n);
    }
    if (o->def)
        o->def += n;
    o->nulls += n - valid;
    return valid;
}

void pq_add_fixed(PqColumn *c, const void *values, PqSource source, size_t n, const uint8_t *has, uint8_t has_bit)
{
    if (!reserve(c, n, 0))
        return;
    Out o = out_begin(c);
    bool dict = c->kind == PQ_DICT_FIXED;
    if (put_flat_levels(c, &o, n, has, has_bit) && dict && !has) {
        switch (source) {
        case PQ_U8: ADD_DICT_LOOP(uint8_t) break;
        case PQ_I16: ADD_DICT_LOOP(int16_t) break;
        case PQ_U16: ADD_DICT_LOOP(uint16_t) break;
        case PQ_I32: ADD_DICT_LOOP(int32_t) break;
        case PQ_I64:
            if (c->value_width == 8) {
                ADD_DICT_LOOP(int64_t)
            } else {
                ADD_FIXED_LOOP(int64_t, true)
            }
            break;
        case PQ_BITS64: ADD_FIXED_LOOP(int64_t, false) break; /* a double's bits: no range */
        case PQ_CODE: break;
        }
    } else if (o.nulls < n) { /* (a column of nulls: no value to visit) */
        switch (source) {
        case PQ_U8: ADD_FIXED_LOOP(uint8_t, true) break;
        case PQ_I16: ADD_FIXED_LOOP(int16_t, true) break;
        case PQ_U16: ADD_FIXED_LOOP(uint16_t, true) break;
        case PQ_I32: ADD_FIXED_LOOP(int32_t, true) break;
        case PQ_I64: ADD_FIXED_LOOP(int64_t, true) break;
        case PQ_BITS64: ADD_FIXED_LOOP(int64_t, false) break; /* a double's bits: no range */
        case PQ_CODE: break;
        }
    }
    out_end(c, &o, n);
}

void pq_add_sequence(PqColumn *c, int64_t first, size_t n)
{
    if (!reserve(c, n, 0))
        return;
    for (size_t i = 0; i < n; i++) {
        put_defined(c, true);
        put_fixed(c, first + (int64_t)i, true);
    }
    c->rows += n;
}

void pq_add_game_ids(PqColumn *c, const int32_t *starts, size_t n_games, size_t n_rows, int64_t first_game)
{
    if (!reserve(c, n_rows, 0))
        return;
    for (size_t g = 0; g < n_games; g++) {
        int32_t a = starts[g], z = g + 1 < n_games ? starts[g + 1] : (int32_t)n_rows;
        if (a >= z)
            continue;
        /* the game's rows share one value: looked up once (its first row adds it to the dictionary) */
        int64_t v = first_game + (int64_t)g;
        if (c->kind != PQ_DICT_FIXED) {
            for (int32_t i = a; i < z; i++) {
                put_defined(c, true);
                put_fixed(c, v, true);
            }
            continue;
        }
        put_defined(c, true);
        put_fixed(c, v, true);
        uint32_t index = c->indices.data[c->indices.len - 1];
        size_t rest = (size_t)(z - a - 1);
        if (c->max_def)
            memset(c->def_levels.data + c->def_levels.len, c->max_def, rest);
        c->def_levels.len += c->max_def ? rest : 0;
        for (size_t i = 0; i < rest; i++)
            c->indices.data[c->indices.len + i] = index;
        c->indices.len += rest;
        c->values += rest;
    }
    c->rows += n_rows;
}

/* The dictionary indices of n strings, every one a value (SAN, UCI: at most 7 bytes each), into idx:
 * string_index's probe inline, with the table in locals (a store of an index may alias the
 * column's uint32_t fields, which the compiler would otherwise reload at every string). A string
 * not found there (new, longer than 7 bytes, or among the last 8 bytes) goes through string_index. */
static uint32_t *add_dict_strings(PqColumn *c, uint32_t *idx, const int32_t *offsets, const char *data, size_t n)
{
    const PqSlot *table = c->table;
    size_t mask = c->table_cap - 1;
    int32_t end = offsets[n], a = offsets[0];
    for (size_t i = 0; i < n; i++) {
        int32_t z = offsets[i + 1];
        uint32_t len = (uint32_t)(z - a), found = 0;
        bool can_read_8 = a + 8 <= end;
        if (len <= 7 && can_read_8) { /* string_key's short key */
            uint64_t w;
            memcpy(&w, data + a, 8);
            uint64_t key = (w & LOW_BYTES[len]) | (uint64_t)len << 56;
            for (size_t j = mix(key) & mask; table[j].index; j = (j + 1) & mask)
                if (table[j].key == key) {
                    found = table[j].index;
                    break;
                }
        }
        if (!found) {
            found = string_index(c, data + a, len, can_read_8) + 1;
            table = c->table; /* (it may have grown) */
            mask = c->table_cap - 1;
        }
        *idx++ = found - 1;
        a = z;
    }
    return idx;
}

void pq_add_strings(PqColumn *c, const int32_t *offsets, const char *data, size_t n, const uint8_t *has,
                    uint8_t has_bit)
{
    if (!reserve(c, n, n ? (size_t)(offsets[n] - offsets[0]) : 0))
        return;
    Out o = out_begin(c);
    bool dict = c->kind == PQ_DICT_STRING;
    if (dict && !has && n) { /* no nulls: the levels in one pass, then only the values */
        put_flat_levels(c, &o, n, NULL, 0);
        o.idx = add_dict_strings(c, o.idx, offsets, data, n);
        out_end(c, &o, n);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        bool valid = !has || (has[i] & has_bit);
        out_defined(&o, c->max_def, valid);
        if (!valid)
            continue;
        const char *s = data + offsets[i];
        uint32_t len = (uint32_t)(offsets[i + 1] - offsets[i]);
        if (dict)
            *o.idx++ = string_index(c, s, len, offsets[i] + 8 <= offsets[n]);
        else
            put_string(c, s, len, false);
    }
    out_end(c, &o, n);
}

void pq_add_repeated_string(PqColumn *c, const char *s, uint32_t len, size_t n)
{
    if (!reserve(c, n, n * (size_t)len))
        return;
    for (size_t i = 0; i < n; i++) {
        put_defined(c, true);
        put_string(c, s, len, false);
    }
    c->rows += n;
}

/* The value of 1 to 9 ASCII digits, or -1. */
static int64_t digits_value(const char *s, int32_t n)
{
    if (n < 1 || n > 9)
        return -1;
    int64_t v = 0;
    for (int32_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

void pq_add_slotted(PqColumn *c, const int32_t *slots, size_t stride, size_t n, const int32_t *offsets,
                    const char *data, bool as_int)
{
    size_t bytes = 0;
    for (size_t i = 0; i < n && c->kind == PQ_PLAIN_STRING; i++)
        bytes += slots[i * stride] ? (size_t)(offsets[slots[i * stride]] - offsets[slots[i * stride] - 1]) : 0;
    if (!reserve(c, n, bytes))
        return;
    for (size_t i = 0; i < n; i++) {
        int32_t k = slots[i * stride] - 1;
        const char *s = k >= 0 ? data + offsets[k] : NULL;
        int32_t len = k >= 0 ? offsets[k + 1] - offsets[k] : 0;
        int64_t v = as_int && s ? digits_value(s, len) : -1;
        bool valid = as_int ? v >= 0 : s != NULL;
        put_defined(c, valid);
        if (valid && as_int)
            put_fixed(c, v, true);
        else if (valid)
            put_string(c, s, (uint32_t)len, false);
    }
    c->rows += n;
}

void pq_add_codes(PqColumn *c, const uint8_t *codes, size_t n, int base)
{
    if (!reserve(c, n, 0))
        return;
    Out o = out_begin(c);
    size_t valid = 0;
    uint8_t b = (uint8_t)base, top = (uint8_t)c->max_def, low = (uint8_t)(c->max_def - 1);
    if (o.def) { /* levels, then indices: two loops the compiler vectorizes */
        for (size_t i = 0; i < n; i++) {
            uint8_t ok = codes[i] >= b;
            o.def[i] = ok ? top : low;
            valid += ok;
        }
        o.def += n;
    } else {
        for (size_t i = 0; i < n; i++)
            valid += codes[i] >= b;
    }
    o.nulls += n - valid;
    if (valid == n) {
        for (size_t i = 0; i < n; i++)
            o.idx[i] = (uint32_t)(codes[i] - b);
        o.idx += n;
    } else if (valid) {
        for (size_t i = 0; i < n; i++) {
            *o.idx = (uint32_t)(codes[i] - b);
            o.idx += codes[i] >= b;
        }
    }
    out_end(c, &o, n);
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
    int shift = 0;
    while (shift < 7 && !((bit >> shift) & 1))
        shift++;
    /* one bit: each flag byte masked and shifted to 0 or 1, then the 8 gathered by a multiply */
    bool one_bit = bit && !(bit & (bit - 1));
    uint64_t lanes = 0x0101010101010101ULL << shift;
    for (; i + 8 <= n; i += 8, c->bits += 8) { /* whole bytes */
        unsigned byte = 0;
        if (one_bit) {
            uint64_t w;
            memcpy(&w, flags + i, 8);
            byte = (unsigned)((((w & lanes) >> shift) * 0x0102040810204080ULL) >> 56);
        } else {
            for (int k = 0; k < 8; k++)
                byte |= (unsigned)((flags[i + k] & bit) != 0) << k;
        }
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

static void put_entry(PqColumn *c, const PqEntries *e, int32_t k)
{
    if (e->offsets) {
        put_defined(c, true);
        put_string(c, e->data + e->offsets[k], (uint32_t)(e->offsets[k + 1] - e->offsets[k]), false);
        return;
    }
    int64_t v;
    switch (e->source) {
    case PQ_U8: case PQ_CODE: v = ((const uint8_t *)e->values)[k]; break;
    case PQ_I32: { int32_t x; memcpy(&x, (const char *)e->values + 4 * (size_t)k, 4); v = x; break; }
    default: { int16_t x; memcpy(&x, (const char *)e->values + 2 * (size_t)k, 2); v = x; break; }
    }
    bool valid = !(e->zero_is_null && v == 0);
    put_defined(c, valid);
    if (valid && e->source == PQ_CODE)
        put_index(c, (uint32_t)v);
    else if (valid)
        put_fixed(c, v, true);
}

void pq_add_lists(PqColumn *c, const int32_t *starts, size_t n_rows, int empty_def, const PqEntries *entries)
{
    size_t n_entries = n_rows ? (size_t)(starts[n_rows] - starts[0]) : 0;
    size_t bytes = entries->offsets && n_rows ? (size_t)(entries->offsets[starts[n_rows]] - entries->offsets[starts[0]]) : 0;
    if (!reserve(c, n_entries + n_rows, bytes))
        return;
    for (size_t i = 0; i < n_rows; i++) {
        size_t empty = 0; /* a run of empty lists (most moves have no NAG): their levels at once */
        while (i + empty < n_rows && starts[i + empty] == starts[i + empty + 1])
            empty++;
        if (empty) {
            memset(c->rep_levels.data + c->rep_levels.len, 0, empty);
            memset(c->def_levels.data + c->def_levels.len, empty_def, empty);
            c->rep_levels.len += empty;
            c->def_levels.len += empty;
            c->values += empty;
            i += empty - 1;
            continue;
        }
        bool first = true;
        for (int32_t k = starts[i]; k < starts[i + 1]; k++) {
            if (entries->keep && !entries->keep[k])
                continue;
            c->rep_levels.data[c->rep_levels.len++] = !first;
            put_entry(c, entries, k);
            first = false;
        }
        if (first) { /* an empty list: one level entry, defined down to the list */
            c->rep_levels.data[c->rep_levels.len++] = 0;
            c->def_levels.data[c->def_levels.len++] = (uint8_t)empty_def;
            c->values++;
        }
    }
    c->rows += n_rows;
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

static inline bool all_equal8(const uint32_t *v, uint32_t x)
{
    if (v[1] != x || v[7] != x) /* most groups of indices are no run: settled by two loads */
        return false;
    return (v[0] == x) & (v[1] == x) & (v[2] == x) & (v[3] == x) & (v[4] == x) & (v[5] == x) & (v[6] == x) &
           (v[7] == x);
}

/* Eight values of W bits, least significant first, as one 128-bit word (W <= 16): each half of
 * four values in 64-bit arithmetic (a value is below 2^W: an index below the dictionary's size,
 * or a level), then one 128-bit shift. */
#define PACK4(v, W) ((uint64_t)(v)[0] | (uint64_t)(v)[1] << (W) | (uint64_t)(v)[2] << 2 * (W) | (uint64_t)(v)[3] << 3 * (W))
#define PACK8(W)                                                                 \
    case W:                                                                      \
        acc = (unsigned __int128)PACK4(v, W) | (unsigned __int128)PACK4(v + 4, W) << 4 * W; \
        break;

/* Eight values of `width` bits, least significant first, into `width` bytes at out (16 bytes
 * there are writable). One case per width, so that the shifts are constants. */
static inline __attribute__((always_inline)) void pack8(const uint32_t *v, int width, char *out)
{
    unsigned __int128 acc;
    switch (width) {
    PACK8(1) PACK8(2) PACK8(3) PACK8(4) PACK8(5) PACK8(6) PACK8(7) PACK8(8)
    PACK8(9) PACK8(10) PACK8(11) PACK8(12) PACK8(13) PACK8(14) PACK8(15) PACK8(16)
    default: { /* dictionaries over 65,536 entries */
        uint64_t wide = 0;
        int nbits = 0;
        for (int k = 0; k < 8; k++) {
            wide |= (uint64_t)v[k] << nbits;
            for (nbits += width; nbits >= 8; nbits -= 8) {
                *out++ = (char)wide;
                wide >>= 8;
            }
        }
        return;
    }
    }
    memcpy(out, &acc, 16); /* little-endian; the bytes past `width` are overwritten next */
}

/* Value i of a run of uint8_t (size 1: levels) or uint32_t (size 4: indices) values. */
static inline uint32_t value_at(const void *v, int size, size_t i)
{
    return size == 1 ? ((const uint8_t *)v)[i] : ((const uint32_t *)v)[i];
}

/* Whether the 8 values from i all are x (levels: one 8-byte compare). */
static inline bool all_equal8_at(const void *v, int size, size_t i, uint32_t x)
{
    if (size == 1) {
        uint64_t w;
        memcpy(&w, (const uint8_t *)v + i, 8);
        return w == 0x0101010101010101ULL * (uint8_t)x;
    }
    return all_equal8((const uint32_t *)v + i, x);
}

/* Runs of 8 or more equal values become RLE runs; the rest is bit-packed in groups of 8 (at most
 * 63 groups a run, as Arrow writes them), the last group padded with zeros. Inlined for each
 * value size, so that levels are read as bytes (no widened copy). */
static inline __attribute__((always_inline)) bool hybrid(const void *v, int size, size_t n, int width, ByteVec *out)
{
    size_t value_bytes = ((size_t)width + 7) / 8;
    size_t i = 0;
    while (i < n) {
        size_t run = 1;
        uint32_t first = value_at(v, size, i);
        while (i + run + 8 <= n && all_equal8_at(v, size, i + run, first))
            run += 8;
        while (i + run < n && value_at(v, size, i + run) == first)
            run++;
        if (run >= 8) {
            if (!put_varint(out, (uint64_t)run << 1) || !VEC_RESERVE(*out, 4))
                return false;
            memcpy(out->data + out->len, &first, value_bytes); /* (little-endian) */
            out->len += value_bytes;
            i += run;
            continue;
        }
        size_t groups = 0; /* bit-packed groups of 8 from i, until a run of 8 equal values starts */
        do {
            groups++;
        } while (groups < 63 && i + groups * 8 + 8 <= n &&
                 !all_equal8_at(v, size, i + groups * 8, value_at(v, size, i + groups * 8)));
        if (i + groups * 8 + 8 > n && groups < 63 && i + groups * 8 < n)
            groups++; /* the last values, padded */
        if (!put_varint(out, (uint64_t)groups << 1 | 1) || !VEC_RESERVE(*out, groups * (size_t)width + 16))
            return false;
        for (size_t g = 0; g < groups; g++, i += 8) {
            if (size == 4 && i + 8 <= n) {
                pack8((const uint32_t *)v + i, width, out->data + out->len);
            } else { /* a group of levels, or the last, partial group */
                uint32_t group[8] = {0};
                for (size_t k = 0; k < 8 && i + k < n; k++)
                    group[k] = value_at(v, size, i + k);
                pack8(group, width, out->data + out->len);
            }
            out->len += (size_t)width;
        }
    }
    return true;
}

bool pq_hybrid(const uint32_t *v, size_t n, int width, ByteVec *out)
{
    return hybrid(v, 4, n, width, out);
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
    if (!VEC_RESERVE(*out, 4))
        return false;
    size_t at = out->len;
    out->len += 4;
    bool ok = hybrid(levels->data, 1, levels->len, width, out);
    uint32_t len = (uint32_t)(out->len - at - 4);
    memcpy(out->data + at, &len, 4);
    return ok;
}

bool pq_data_page(PqColumn *c, ByteVec *out)
{
    if (c->failed)
        return false;
    dictionary_range(c); /* (the caller reads min and max after this) */
    if (c->max_rep && !put_levels(&c->rep_levels, bit_width((uint32_t)c->max_rep), out))
        return false;
    if (c->max_def && !put_levels(&c->def_levels, bit_width((uint32_t)c->max_def), out))
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

/* Byte-wise order of two PLAIN string entries (a shorter prefix first). */
static int entry_cmp(const char *a, const char *b)
{
    uint32_t na, nb;
    memcpy(&na, a, 4);
    memcpy(&nb, b, 4);
    int r = memcmp(a + 4, b + 4, na < nb ? na : nb);
    return r ? r : (na > nb) - (na < nb);
}

bool pq_string_range(const PqColumn *c, size_t *low, size_t *high)
{
    if (c->kind != PQ_DICT_STRING || c->fixed_entries || !c->dict_count)
        return false;
    const char *page = c->dict_page.data;
    *low = *high = 0;
    for (size_t off = 0; off < c->dict_page.len;) {
        uint32_t n;
        memcpy(&n, page + off, 4);
        if (entry_cmp(page + off, page + *low) < 0)
            *low = off;
        if (entry_cmp(page + off, page + *high) > 0)
            *high = off;
        off += 4 + (size_t)n;
    }
    return true;
}

/* A Thrift compact i32 field value (zigzag varint; the values here are never negative). */
static inline void put_i32(char *out, size_t *len, uint32_t v)
{
    uint64_t z = (uint64_t)v << 1;
    while (z >= 0x80) {
        out[(*len)++] = (char)(z | 0x80);
        z >>= 7;
    }
    out[(*len)++] = (char)z;
}

size_t pq_page_header(char *out, bool dictionary, uint32_t uncompressed, uint32_t compressed, uint32_t count,
                      int encoding)
{
    size_t n = 0;
    out[n++] = 0x15; /* field 1 (type), i32 */
    put_i32(out, &n, dictionary ? 2 : 0);
    out[n++] = 0x15; /* 2: uncompressed_page_size */
    put_i32(out, &n, uncompressed);
    out[n++] = 0x15; /* 3: compressed_page_size */
    put_i32(out, &n, compressed);
    if (dictionary) {
        out[n++] = 0x4C; /* 7: dictionary_page_header (struct) */
        out[n++] = 0x15; /* num_values */
        put_i32(out, &n, count);
        out[n++] = 0x15; /* encoding: PLAIN */
        put_i32(out, &n, 0);
    } else {
        out[n++] = 0x2C; /* 5: data_page_header (struct) */
        out[n++] = 0x15; /* num_values */
        put_i32(out, &n, count);
        out[n++] = 0x15; /* encoding */
        put_i32(out, &n, (uint32_t)encoding);
        out[n++] = 0x15; /* definition_level_encoding: RLE */
        put_i32(out, &n, 3);
        out[n++] = 0x15; /* repetition_level_encoding: RLE */
        put_i32(out, &n, 3);
    }
    out[n++] = 0; /* the inner struct's end */
    out[n++] = 0; /* the header's end */
    return n;
}

bool pq_put_page(ByteVec *out, bool dictionary, uint32_t uncompressed, const char *body, size_t len, uint32_t count,
                 int encoding, size_t *header_len)
{
    if (len > INT32_MAX || !VEC_RESERVE(*out, PQ_PAGE_HEADER_MAX + len))
        return false;
    *header_len = pq_page_header(out->data + out->len, dictionary, uncompressed, (uint32_t)len, count, encoding);
    out->len += *header_len;
    if (len)
        memcpy(out->data + out->len, body, len);
    out->len += len;
    return true;
}

size_t pq_buffered_bytes(const PqColumn *c)
{
    return c->def_levels.len + c->rep_levels.len + 4 * c->indices.len + c->plain.len + c->dict_page.len;
}

const ByteVec *pq_dictionary_page(const PqColumn *c)
{
    return c->kind == PQ_DICT_FIXED || c->kind == PQ_DICT_STRING ? &c->dict_page : NULL;
}
