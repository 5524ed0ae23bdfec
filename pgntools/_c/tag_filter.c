#include "tag_filter.h"

#include <string.h>

static int compare_bytes(const char *a, size_t alen, const char *b, size_t blen)
{
    size_t n = alen < blen ? alen : blen;
    int c = n ? memcmp(a, b, n) : 0;
    if (c)
        return c;
    return alen < blen ? -1 : alen > blen ? 1 : 0;
}

static bool holds(int op, int c)
{
    switch (op) {
    case TF_LT: return c < 0;
    case TF_LE: return c <= 0;
    case TF_EQ: return c == 0;
    case TF_NE: return c != 0;
    case TF_GT: return c > 0;
    case TF_GE: return c >= 0;
    default: return false;
    }
}

static bool clause_holds(const TagClause *k, const char *s, size_t n)
{
    if (n == 0 || (n == 1 && (s[0] == '?' || s[0] == '-')))
        return false; /* unknown: null */
    if (k->op == TF_NOT_NULL && !k->number)
        return true;
    if (k->op == TF_PREFIX)
        return n >= k->len && memcmp(s, k->text, k->len) == 0;
    if (k->number) { /* as the columns read integers: 1 to 9 digits, else null */
        if (n > 9)
            return false;
        int64_t v = 0;
        for (size_t i = 0; i < n; i++) {
            if (s[i] < '0' || s[i] > '9')
                return false;
            v = v * 10 + (s[i] - '0');
        }
        if (k->op == TF_NOT_NULL)
            return true;
        double d = (double)v;
        return holds(k->op, d < k->value ? -1 : d > k->value ? 1 : 0);
    }
    return holds(k->op, compare_bytes(s, n, k->text, k->len));
}

bool tag_filter_pass(const TagFilter *f, const int32_t *slots, const int32_t *offsets, const char *data,
                     int speed)
{
    for (size_t i = 0; i < f->n; i++) {
        const TagClause *k = &f->clauses[i];
        if (k->op == TF_SPEED) {
            if (speed < 0 || speed > 31 || !(((uint32_t)k->value >> speed) & 1u))
                return false;
            continue;
        }
        int32_t slot = slots[k->tag];
        if (slot <= 0)
            return false; /* no such tag: null */
        int32_t a = offsets[slot - 1], b = offsets[slot];
        if (!clause_holds(k, data + a, (size_t)(b - a)))
            return false;
    }
    return true;
}
