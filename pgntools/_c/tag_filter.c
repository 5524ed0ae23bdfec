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

/* A PGN date's part of `len` bytes: digits (1), all '?' (0: unknown), or neither (-1). */
static int date_part(const char *s, size_t len)
{
    bool digits = true, unknown = true;
    for (size_t i = 0; i < len; i++) {
        digits = digits && s[i] >= '0' && s[i] <= '9';
        unknown = unknown && s[i] == '?';
    }
    return digits ? 1 : unknown ? 0 : -1;
}

/* The first and last day a PGN date can be, as 'YYYY.MM.DD' ("2023.??.??": 2023.01.01 and
 * 2023.12.31; an unknown day of a known month ends on its 31st, as the evaluator has it); false
 * when the value is no date or its year is unknown (null). */
static bool date_interval(const char *s, size_t n, char low[10], char high[10])
{
    if (n != 10 || s[4] != '.' || s[7] != '.')
        return false;
    int year = date_part(s, 4), month = date_part(s + 5, 2), day = date_part(s + 8, 2);
    if (year != 1 || month < 0 || day < 0)
        return false;
    memcpy(low, s, 10);
    memcpy(high, s, 10);
    if (!month)
        memcpy(low + 5, "01", 2), memcpy(high + 5, "12", 2);
    if (!month || !day)
        memcpy(low + 8, "01", 2), memcpy(high + 8, "31", 2);
    return true;
}

/* A date compared with a literal day as the evaluator compares intervals, true only when it
 * holds for every day the date can be (false for none, else null: not true either). */
static bool date_holds(int op, const char *s, size_t n, const char *day)
{
    char low[10], high[10];
    if (!date_interval(s, n, low, high))
        return false;
    int lo = memcmp(low, day, 10), hi = memcmp(high, day, 10);
    switch (op) {
    case TF_LT: return hi < 0;
    case TF_LE: return hi <= 0;
    case TF_GT: return lo > 0;
    case TF_GE: return lo >= 0;
    case TF_EQ: return lo == 0 && hi == 0;
    case TF_NE: return hi < 0 || lo > 0;
    default: return false;
    }
}

static bool clause_holds(const TagClause *k, const char *s, size_t n)
{
    if (n == 0 || (n == 1 && (s[0] == '?' || s[0] == '-')))
        return false; /* unknown: null */
    if (k->op >= TF_DATE_LT && k->op <= TF_DATE_GE)
        return k->len == 10 && date_holds(k->op - TF_DATE_LT + TF_LT, s, n, k->text);
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
