#include "tag_filter.h"

#include "pgn_date.h"

#include <string.h>

static int compare_bytes(const char *a, size_t alen, const char *b, size_t blen)
{
    size_t n = alen < blen ? alen : blen;
    int c = n ? memcmp(a, b, n) : 0;
    if (c)
        return c;
    return alen < blen ? -1 : alen > blen ? 1 : 0;
}

static int truth(bool holds) { return holds ? TRUTH_TRUE : TRUTH_FALSE; }

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

/* ---------------------------------------------------------------- dates */

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
 * 2023.12.31; an unknown day, or any day of an unknown month, is 01 to 31, as the evaluator has
 * it); false when the value is no date or its year is unknown (null). */
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

/* A date compared with a day as the evaluator compares intervals: true when it holds for every
 * day the date can be, false when for none, else null. */
static int date_truth(int op, const char *s, size_t n, const char *day)
{
    char low[10], high[10];
    if (!date_interval(s, n, low, high))
        return TRUTH_NULL;
    int lo = memcmp(low, day, 10), hi = memcmp(high, day, 10);
    bool t = false, f = false;
    switch (op) {
    case TF_LT: t = hi < 0, f = lo >= 0; break;
    case TF_LE: t = hi <= 0, f = lo > 0; break;
    case TF_GT: t = lo > 0, f = hi <= 0; break;
    case TF_GE: t = lo >= 0, f = hi < 0; break;
    case TF_EQ: t = lo == 0 && hi == 0, f = hi < 0 || lo > 0; break;
    case TF_NE: t = hi < 0 || lo > 0, f = lo == 0 && hi == 0; break;
    default: break;
    }
    return t ? TRUTH_TRUE : f ? TRUTH_FALSE : TRUTH_NULL;
}

/* ---------------------------------------------------------------- LIKE */

/* The bytes of the UTF-8 character at s (1 for a byte that starts none), at most n. */
static size_t char_len(const char *s, size_t n)
{
    unsigned char c = (unsigned char)s[0];
    size_t k = c < 0xC0 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : c < 0xF8 ? 4 : 1;
    return k < n ? k : n;
}

static char lower_ascii(char c) { return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c; }

/* How many bytes of s (at least one character) the pattern's element at p (one character, or a
 * \ and the character it escapes) matches; 0: none. `*step`: the element's bytes. */
static size_t element_match(const char *p, size_t plen, size_t *step, const char *s, size_t n, bool fold)
{
    if (p[0] == '_') {
        *step = 1;
        return char_len(s, n);
    }
    size_t at = p[0] == '\\' && plen > 1; /* \%, \_ or \\: that character */
    size_t k = char_len(p + at, plen - at);
    *step = at + k;
    if (fold && k == 1) {
        char c = lower_ascii(p[at]);
        if (lower_ascii(s[0]) == c)
            return 1;
        if (c == 'k' && n >= 3 && memcmp(s, "\xE2\x84\xAA", 3) == 0) /* KELVIN SIGN */
            return 3;
        if (c == 's' && n >= 2 && memcmp(s, "\xC5\xBF", 2) == 0) /* LATIN SMALL LETTER LONG S */
            return 2;
        return 0;
    }
    return k <= n && memcmp(p + at, s, k) == 0 ? k : 0;
}

bool tag_like_match(const char *p, size_t plen, const char *s, size_t n, bool fold)
{
    /* Each element matches one character, so the last % is the only point to go back to: on a
     * mismatch it takes one more character and the elements after it are tried again. */
    size_t pi = 0, si = 0, star_p = (size_t)-1, star_s = 0, step;
    while (si < n) {
        if (pi < plen && p[pi] == '%') {
            star_p = ++pi;
            star_s = si;
            continue;
        }
        if (pi < plen) {
            size_t m = element_match(p + pi, plen - pi, &step, s + si, n - si, fold);
            if (m) {
                pi += step, si += m;
                continue;
            }
        }
        if (star_p == (size_t)-1)
            return false;
        star_s += char_len(s + star_s, n - star_s);
        si = star_s, pi = star_p;
    }
    while (pi < plen && p[pi] == '%')
        pi++;
    if (pi + 1 == plen && p[pi] == '\\') /* a \ that escapes nothing (the evaluator drops it) */
        pi++;
    return pi == plen;
}

/* ---------------------------------------------------------------- leaves */

/* The value's bytes, or NULL when the game has no such tag. */
static const char *value_of(const TagClause *k, const TagView *g, size_t *n)
{
    int32_t row = -1;
    if (k->tag >= 0) {
        row = g->slots[k->tag] - 1;
    } else {
        for (size_t i = g->first; i < g->end; i++) {
            int32_t a = g->name_offsets[i];
            if ((size_t)(g->name_offsets[i + 1] - a) == k->name_len && memcmp(g->names + a, k->name, k->name_len) == 0) {
                row = (int32_t)i;
                break;
            }
        }
    }
    if (row < 0)
        return NULL;
    *n = (size_t)(g->value_offsets[row + 1] - g->value_offsets[row]);
    return g->values + g->value_offsets[row];
}

/* The year or month (TV_YEAR, TV_MONTH) of the game's date tags; false when unknown. */
static bool date_number(const TagClause *k, const TagView *g, double *out)
{
    size_t n1 = 0, n2 = 0;
    const char *first = value_of(k, g, &n1), *second = NULL;
    int32_t row = g->slots[k->tag2] - 1;
    if (row >= 0) {
        second = g->values + g->value_offsets[row];
        n2 = (size_t)(g->value_offsets[row + 1] - g->value_offsets[row]);
    }
    PgnDate d = pgn_year_date(first, n1, second, n2);
    int value = k->kind == TV_YEAR ? d.year : d.year ? d.month : 0;
    *out = value;
    return value != 0;
}

/* As the columns read integers: 1 to 9 digits, else null (false). */
static bool whole_number(const char *s, size_t n, double *out)
{
    if (n == 0 || n > 9)
        return false;
    int64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        v = v * 10 + (s[i] - '0');
    }
    *out = (double)v;
    return true;
}

static bool in_strings(const TagClause *k, const char *s, size_t n)
{
    size_t lo = 0, hi = k->n_items;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int32_t a = mid ? k->item_ends[mid - 1] : 0, z = k->item_ends[mid];
        int c = compare_bytes(s, n, k->text + a, (size_t)(z - a));
        if (c == 0)
            return true;
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return false;
}

static bool in_numbers(const TagClause *k, double v)
{
    size_t lo = 0, hi = k->n_items;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (k->numbers[mid] == v)
            return true;
        if (v < k->numbers[mid])
            hi = mid;
        else
            lo = mid + 1;
    }
    return false;
}

static int leaf_truth(const TagClause *k, const TagView *g)
{
    switch (k->op) {
    case TF_CONST: return k->truth;
    case TF_UNKNOWN: return TRUTH_ANY;
    case TF_SPEED:
        if (g->speed < 0 || g->speed > 31)
            return TRUTH_FALSE;
        return (k->true_mask >> g->speed) & 1u ? TRUTH_TRUE : (k->null_mask >> g->speed) & 1u ? TRUTH_NULL : TRUTH_FALSE;
    default: break;
    }
    size_t n = 0;
    double number = 0;
    bool numeric = k->kind == TV_NUMBER || k->kind == TV_YEAR || k->kind == TV_MONTH;
    const char *s = NULL;
    bool null;
    if (k->kind == TV_YEAR || k->kind == TV_MONTH) {
        null = !date_number(k, g, &number);
    } else {
        s = value_of(k, g, &n);
        null = !s || n == 0 || (n == 1 && (s[0] == '?' || s[0] == '-'));
    }
    if (!null && k->kind == TV_DATE_STRING)
        null = n >= 4 && memcmp(s, "????", 4) == 0;
    if (!null && k->kind == TV_NUMBER)
        null = !whole_number(s, n, &number);
    if (k->kind == TV_DATE && k->op <= TF_GE) /* (the interval says when it is null) */
        return null ? TRUTH_NULL : date_truth(k->op, s, n, k->text);
    if (k->op == TF_IS_NULL || k->op == TF_NOT_NULL)
        return truth(null == (k->op == TF_IS_NULL));
    if (null)
        return TRUTH_NULL;
    switch (k->op) {
    case TF_IN: return truth(numeric ? in_numbers(k, number) : in_strings(k, s, n));
    case TF_LIKE: return truth(tag_like_match(k->text, k->len, s, n, false));
    case TF_ILIKE: return truth(tag_like_match(k->text, k->len, s, n, true));
    default: break;
    }
    if (numeric)
        return truth(holds(k->op, number < k->value ? -1 : number > k->value ? 1 : 0));
    return truth(holds(k->op, compare_bytes(s, n, k->text, k->len)));
}

/* ---------------------------------------------------------------- the program */

/* The truth sets of NOT a, a AND b, a OR b: each value one of a's with one of b's can give. */
static uint8_t not_of(uint8_t a) { return (uint8_t)(((a & TRUTH_FALSE) << 2) | (a & TRUTH_NULL) | ((a & TRUTH_TRUE) >> 2)); }

static uint8_t and_of(uint8_t a, uint8_t b)
{
    uint8_t out = (a & TRUTH_FALSE) || (b & TRUTH_FALSE) ? TRUTH_FALSE : 0;
    if ((a & TRUTH_TRUE) && (b & TRUTH_TRUE))
        out |= TRUTH_TRUE;
    if (((a & TRUTH_NULL) && (b & (TRUTH_NULL | TRUTH_TRUE))) || ((a & TRUTH_TRUE) && (b & TRUTH_NULL)))
        out |= TRUTH_NULL;
    return out;
}

static uint8_t or_of(uint8_t a, uint8_t b) { return not_of(and_of(not_of(a), not_of(b))); }

bool tag_filter_pass(const TagFilter *f, const TagView *g)
{
    uint8_t *stack = f->stack;
    size_t depth = 0;
    for (size_t i = 0; i < f->n; i++) {
        const TagClause *k = &f->clauses[i];
        switch (k->op) {
        case TF_NOT: stack[depth - 1] = not_of(stack[depth - 1]); break;
        case TF_AND: depth--, stack[depth - 1] = and_of(stack[depth - 1], stack[depth]); break;
        case TF_OR: depth--, stack[depth - 1] = or_of(stack[depth - 1], stack[depth]); break;
        default: stack[depth++] = (uint8_t)leaf_truth(k, g); break;
        }
    }
    return depth == 1 && (stack[0] & TRUTH_TRUE);
}
