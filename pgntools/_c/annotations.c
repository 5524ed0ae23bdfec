#include <string.h>

#include "annotations.h"
#include "batch.h"

static size_t skip_spaces(const char *s, size_t i, size_t n)
{
    while (i < n && (s[i] == ' ' || s[i] == '\t'))
        i++;
    return i;
}

/* h:mm:ss(.f), m:ss or plain seconds; returns false when malformed (a fourth field too). */
static bool parse_duration(const char *s, size_t i, size_t n, double *out)
{
    double total = 0, field = 0, frac = 0, scale = 0.1;
    bool digits = false, in_frac = false;
    int colons = 0;
    for (; i < n && s[i] != ']'; i++) {
        char c = s[i];
        if (c >= '0' && c <= '9') {
            digits = true;
            if (in_frac) {
                frac += (c - '0') * scale;
                scale /= 10;
            } else {
                field = field * 10 + (c - '0');
            }
        } else if (c == ':' && !in_frac && ++colons <= 2) {
            total = (total + field) * 60;
            field = 0;
        } else if (c == '.' && !in_frac) {
            in_frac = true;
        } else if (c == ' ' || c == '\t') {
            break;
        } else {
            return false;
        }
    }
    *out = total + field + frac;
    return digits;
}

static bool parse_eval(const char *s, size_t i, size_t n, Annotations *a)
{
    if (i < n && s[i] == '#') {
        int sign = 1, value = 0;
        bool digits = false;
        i++;
        if (i < n && (s[i] == '-' || s[i] == '+'))
            sign = s[i++] == '-' ? -1 : 1;
        for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, digits = true)
            if ((value = value * 10 + (s[i] - '0')) > INT16_MAX)
                return false; /* beyond the column's range: not read (it wrapped to any value) */
        if (!digits)
            return false;
        a->eval_mate = (int16_t)(sign * value);
        a->has = (uint8_t)((a->has | HAS_EVAL_MATE) & ~HAS_EVAL_CP);
        return true;
    }
    int sign = 1;
    long whole = 0, frac = 0, frac_digits = 0;
    bool digits = false;
    if (i < n && (s[i] == '-' || s[i] == '+'))
        sign = s[i++] == '-' ? -1 : 1;
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, digits = true)
        if ((whole = whole * 10 + (s[i] - '0')) >= 10000000)
            return false; /* 10^7 pawns and more: beyond int32 centipawns (it wrapped to any value) */
    if (i < n && s[i] == '.')
        for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++, digits = true)
            if (frac_digits < 3) {
                frac = frac * 10 + (s[i] - '0');
                frac_digits++;
            }
    if (!digits)
        return false;
    /* centipawns, rounded half away from zero on the third decimal */
    long milli = whole * 1000 + frac * (frac_digits == 1 ? 100 : frac_digits == 2 ? 10 : 1);
    a->eval_cp = (int32_t)(sign * ((milli + 5) / 10));
    a->has = (uint8_t)((a->has | HAS_EVAL_CP) & ~HAS_EVAL_MATE);
    return true;
}

void ann_parse(const char *s, size_t n, Annotations *a)
{
    const char *end = s + n;
    for (const char *p = s; (p = memchr(p, '[', (size_t)(end - p))) != NULL; p++) {
        size_t i = (size_t)(p - s);
        if (i + 1 >= n || s[i + 1] != '%')
            continue;
        i += 2;
        size_t name = i;
        while (i < n && s[i] >= 'a' && s[i] <= 'z')
            i++;
        size_t name_len = i - name;
        i = skip_spaces(s, i, n);
        double seconds;
        if (name_len == 3 && memcmp(s + name, "clk", 3) == 0 && parse_duration(s, i, n, &seconds)) {
            a->clock = seconds;
            a->has |= HAS_CLOCK;
        } else if (name_len == 3 && memcmp(s + name, "emt", 3) == 0 && parse_duration(s, i, n, &seconds)) {
            a->emt = seconds;
            a->has |= HAS_EMT;
        } else if (name_len == 4 && memcmp(s + name, "eval", 4) == 0) {
            parse_eval(s, i, n, a);
        }
    }
}
