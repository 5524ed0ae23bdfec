/* PGN dates and times read as numbers: the Date and UTCDate tags' "YYYY.MM.DD" with "??" (or
 * "????") for a part that is unknown (PGN standard 8.1.1.3), the UTCTime tag's "HH:MM:SS"; and
 * the day numbers of the proleptic Gregorian calendar (Arrow's date32: days since 1970-01-01). */
#ifndef PGNTOOLS_PGN_DATE_H
#define PGNTOOLS_PGN_DATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    int year, month, day; /* 0: unknown ("??"); a year is 0 to 9999, a month 1 to 12, a day 1 to 31 */
} PgnDate;

/* A date of the form YYYY.MM.DD, each part digits or question marks; false for any other text
 * (then *d is all unknown). A part out of its range (year 0000, month 00 or 13, day 00 or 32)
 * makes the text no date. */
bool pgn_date_read(const char *s, size_t n, PgnDate *d);

/* The date the typed year and month columns are of: `first` (the Date tag) when its year is
 * known, else `second` (UTCDate) when it is a date; NULL for a tag the game lacks. Its year is
 * known when not 0, its month when the year and the month are not 0. */
PgnDate pgn_year_date(const char *first, size_t n1, const char *second, size_t n2);

/* Whether year, month and day are known and make a calendar day (not 2023.02.29). */
bool pgn_date_is_day(PgnDate d);

/* Days since 1970-01-01 of a calendar day (pgn_date_is_day). */
int32_t pgn_days_from_civil(PgnDate d);

/* A time of the form HH:MM:SS (00:00:00 to 23:59:59) as seconds since midnight; false for any
 * other text. */
bool pgn_time_read(const char *s, size_t n, int32_t *seconds);

#endif
