/* Growable buffers for building Arrow-layout columns in C: a byte arena, typed vectors, and
 * string columns (int32 offsets + UTF-8 data), so Python wraps whole columns without copying
 * string by string. Allocation failure sets `failed` on the owner and is checked per game. */
#ifndef PGNT_BUFFERS_H
#define PGNT_BUFFERS_H

#include <stdlib.h>
#include <string.h>

#include "chess.h"

/* A typed growable array: VEC(T) declares { T *data; size_t len, cap; }. */
#define VEC(T) struct { T *data; size_t len, cap; }

/* Ensures room for `extra` more items; returns false on allocation failure. */
static inline bool vec_reserve_raw(void **data, size_t *cap, size_t len, size_t extra, size_t item)
{
    if (len + extra <= *cap)
        return true;
    size_t ncap = *cap ? *cap : 64;
    while (ncap < len + extra)
        ncap *= 2;
    void *nd = realloc(*data, ncap * item);
    if (!nd)
        return false;
    *data = nd;
    *cap = ncap;
    return true;
}

#define VEC_RESERVE(v, extra) vec_reserve_raw((void **)&(v).data, &(v).cap, (v).len, (extra), sizeof *(v).data)
/* Appends x; sets `failed` (the batch's flag) when memory ran out. */
#define VEC_PUSH_OR_FAIL(v, x, failed) do { if (VEC_RESERVE(v, 1)) (v).data[(v).len++] = (x); else (failed) = true; } while (0)
#define VEC_FREE(v) do { free((v).data); (v).data = NULL; (v).len = (v).cap = 0; } while (0)

typedef VEC(char) ByteVec;

/* Writes v in decimal at o (no NUL); returns the length (at most 10). Faster than snprintf. */
static inline size_t format_uint(char *o, uint32_t v)
{
    char tmp[10];
    size_t n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (size_t i = 0; i < n; i++)
        o[i] = tmp[n - 1 - i];
    return n;
}
typedef VEC(int32_t) I32Vec;

/* A string column: offsets[0] = 0, string i is data[offsets[i] .. offsets[i+1]). */
typedef struct {
    I32Vec offsets;
    ByteVec data;
} StrCol;

static inline bool strcol_init(StrCol *c)
{
    memset(c, 0, sizeof *c);
    /* data too, so that it is never NULL: NULL + offset and memcpy/memcmp of NULL are undefined,
     * even for empty strings */
    if (!VEC_RESERVE(c->offsets, 1) || !VEC_RESERVE(c->data, 1))
        return false;
    c->offsets.data[c->offsets.len++] = 0;
    return true;
}
static inline size_t strcol_count(const StrCol *c) { return c->offsets.len - 1; }

/* Appends bytes to the string being built (not yet ended). */
static inline bool strcol_add(StrCol *c, const char *s, size_t n)
{
    if (!VEC_RESERVE(c->data, n))
        return false;
    memcpy(c->data.data + c->data.len, s, n);
    c->data.len += n;
    return true;
}
static inline bool strcol_addc(StrCol *c, char ch)
{
    if (!VEC_RESERVE(c->data, 1))
        return false;
    c->data.data[c->data.len++] = ch;
    return true;
}
/* Ends the current string. Strings longer than 2 GiB in total per batch are refused. */
static inline bool strcol_end(StrCol *c)
{
    if (c->data.len > 0x7fffffff || !VEC_RESERVE(c->offsets, 1))
        return false;
    c->offsets.data[c->offsets.len++] = (int32_t)c->data.len;
    return true;
}
static inline bool strcol_push(StrCol *c, const char *s, size_t n) { return strcol_add(c, s, n) && strcol_end(c); }
/* Pushes a string of at most 16 bytes from a buffer of at least 16 (SAN, UCI): a fixed-size copy
 * instead of a call to memcpy, for the two strings of every move row. */
static inline bool strcol_push_short(StrCol *c, const char *s16, size_t n)
{
    if (c->data.len + 16 > 0x7fffffff || !VEC_RESERVE(c->data, 16) || !VEC_RESERVE(c->offsets, 1))
        return false;
    memcpy(c->data.data + c->data.len, s16, 16);
    c->data.len += n;
    c->offsets.data[c->offsets.len++] = (int32_t)c->data.len;
    return true;
}
static inline void strcol_clear(StrCol *c)
{
    c->offsets.len = 1;
    c->data.len = 0;
}
/* Back to `count` strings (drops a game that turned out to be incomplete). */
static inline void strcol_truncate(StrCol *c, size_t count)
{
    c->offsets.len = count + 1;
    c->data.len = (size_t)c->offsets.data[count];
}
static inline void strcol_free(StrCol *c)
{
    VEC_FREE(c->offsets);
    VEC_FREE(c->data);
}

#endif
