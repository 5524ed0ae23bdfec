#include "speed.h"

#include <stdbool.h>

/* A number of seconds at s[*i]: digits, optionally a fraction ("10.931": some exporters write
 * them). False when there is none. */
static bool read_seconds(const char *s, size_t n, size_t *i, double *out)
{
    size_t start = *i;
    double v = 0;
    while (*i < n && s[*i] >= '0' && s[*i] <= '9')
        v = v * 10 + (s[(*i)++] - '0');
    if (*i == start)
        return false;
    if (*i < n && s[*i] == '.') {
        double scale = 0.1;
        size_t frac = ++*i;
        while (*i < n && s[*i] >= '0' && s[*i] <= '9') {
            v += (s[(*i)++] - '0') * scale;
            scale /= 10;
        }
        if (*i == frac)
            return false;
    }
    *out = v;
    return true;
}

/* One period of the PGN standard's TimeControl (section 9.6): "M/S", "S", "S+I", "*S" (and
 * "M/S+I"); its estimate base + 40 x increment in *estimate. */
static bool read_period(const char *s, size_t n, size_t *i, double *estimate)
{
    double base, increment = 0, moves;
    if (*i < n && s[*i] == '*') { /* sandclock */
        ++*i;
        return read_seconds(s, n, i, estimate);
    }
    if (!read_seconds(s, n, i, &base))
        return false;
    if (*i < n && s[*i] == '/') { /* M moves in S seconds */
        moves = base;
        ++*i;
        if (moves < 1 || !read_seconds(s, n, i, &base))
            return false;
    }
    if (*i < n && s[*i] == '+') {
        ++*i;
        if (!read_seconds(s, n, i, &increment))
            return false;
    }
    *estimate = base + 40 * increment;
    return true;
}

int speed_of_time_control(const char *s, size_t n)
{
    while (n && (s[n - 1] == ' '))
        n--;
    while (n && s[0] == ' ')
        s++, n--;
    if (n == 1 && s[0] == '-')
        return SPEED_CORRESPONDENCE;
    double first = 0, estimate;
    size_t i = 0;
    for (int period = 0;; period++) {
        if (!read_period(s, n, &i, &estimate))
            return SPEED_NONE;
        if (period == 0)
            first = estimate;
        if (i == n)
            break;
        if (s[i++] != ':')
            return SPEED_NONE;
    }
    return first < 30 ? SPEED_ULTRABULLET : first < 180 ? SPEED_BULLET : first < 480 ? SPEED_BLITZ
           : first < 1500 ? SPEED_RAPID : SPEED_CLASSICAL;
}

const char *speed_name(int code)
{
    static const char *const names[SPEED_COUNT] = {"",      "ultrabullet", "bullet",        "blitz",
                                                   "rapid", "classical",   "correspondence"};
    return code >= 0 && code < SPEED_COUNT ? names[code] : "";
}
