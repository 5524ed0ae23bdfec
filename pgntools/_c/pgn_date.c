#include "pgn_date.h"

enum { UNKNOWN = -2, INVALID = -1 };

/* `len` bytes that are all digits: their value; all '?': UNKNOWN; else INVALID. */
static int part(const char *s, size_t len)
{
    int value = 0;
    bool unknown = true, digits = true;
    for (size_t i = 0; i < len; i++) {
        digits = digits && s[i] >= '0' && s[i] <= '9';
        unknown = unknown && s[i] == '?';
        value = value * 10 + (s[i] - '0');
    }
    return digits ? value : unknown ? UNKNOWN : INVALID;
}

/* A part within [1, high] (a date has no year, month or day 0), or unknown (0). */
static bool in_range(int value, int high, int *out)
{
    if (value == UNKNOWN) {
        *out = 0;
        return true;
    }
    *out = value;
    return value >= 1 && value <= high;
}

bool pgn_date_read(const char *s, size_t n, PgnDate *d)
{
    PgnDate read;
    d->year = d->month = d->day = 0;
    if (n != 10 || s[4] != '.' || s[7] != '.')
        return false;
    if (!in_range(part(s, 4), 9999, &read.year) || !in_range(part(s + 5, 2), 12, &read.month) ||
        !in_range(part(s + 8, 2), 31, &read.day))
        return false;
    *d = read;
    return true;
}

PgnDate pgn_year_date(const char *first, size_t n1, const char *second, size_t n2)
{
    PgnDate d = {0, 0, 0}, other;
    if (first)
        pgn_date_read(first, n1, &d); /* (all unknown when it is no date) */
    if (d.year == 0 && second && pgn_date_read(second, n2, &other))
        d = other;
    return d;
}

static bool leap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

bool pgn_date_is_day(PgnDate d)
{
    static const int DAYS[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (!d.year || !d.month || !d.day)
        return false;
    return d.day <= DAYS[d.month - 1] + (d.month == 2 && leap(d.year));
}

/* The civil-calendar day count (H. Hinnant, "chrono-Compatible Low-Level Date Algorithms"):
 * years counted from March, so that the leap day ends a year. */
int32_t pgn_days_from_civil(PgnDate d)
{
    int y = d.year - (d.month <= 2);
    int era = (y >= 0 ? y : y - 399) / 400;
    int yoe = y - era * 400;
    int doy = (153 * (d.month + (d.month > 2 ? -3 : 9)) + 2) / 5 + d.day - 1;
    int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return (int32_t)(era * 146097 + doe - 719468);
}

bool pgn_time_read(const char *s, size_t n, int32_t *seconds)
{
    if (n != 8 || s[2] != ':' || s[5] != ':')
        return false;
    int h = part(s, 2), m = part(s + 3, 2), sec = part(s + 6, 2); /* (unknown, invalid: negative) */
    if (h < 0 || m < 0 || sec < 0 || h > 23 || m > 59 || sec > 59)
        return false;
    *seconds = h * 3600 + m * 60 + sec;
    return true;
}
