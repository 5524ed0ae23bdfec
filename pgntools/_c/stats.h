/* pgntools stats (issue 21): a batch's counts and histograms in one C pass over its columns,
 * into bounded, mergeable aggregates: fixed-bin histograms, counts by code, and bounded value
 * counts (Misra-Gries summaries of at most `capacity` strings each) for the open domains.
 * No Python here: the Cython side points a StatsBatch at a batch's buffers (the reader's own,
 * or a selection's copies) and reads the aggregates out when the run ends. */
#ifndef PGNT_STATS_H
#define PGNT_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "game.h"
#include "mainline_facts.h"
#include "speed.h"

/* The tags whose presence is counted (the report's "tags present"), in this order. */
enum { SF_EVENT, SF_SITE, SF_DATE, SF_WHITE, SF_BLACK, SF_RESULT, SF_WHITE_ELO, SF_BLACK_ELO, SF_ECO, SF_OPENING,
       SF_TIME_CONTROL, SF_TERMINATION, SF_UTC_DATE, SF_COUNT };
/* The open domains, one bounded value count each. */
enum { SV_ECO, SV_OPENING, SV_ECO_TAG, SV_OPENING_TAG, SV_FIRST_MOVE, SV_TERMINATION, SV_TIME_CONTROL, SV_EVENT,
       SV_PLAYER, SV_MONTH, SV_YEAR, SV_COUNT };
/* Where a game's opening came from: the classifier's table, the ECO tag (a custom start the
 * table cannot name), neither (a custom start without the tag; a standard game the table does
 * not name). */
enum { OS_TABLE, OS_TAG, OS_CUSTOM_NO_TAG, OS_UNNAMED, OS_COUNT };

enum { STATS_PLY_BINS = 40, STATS_PLY_WIDTH = 10 };     /* plies by 10 to 400 */
enum { STATS_ELO_BINS = 70, STATS_ELO_WIDTH = 50 };     /* Elo by 50 to 3500 */
enum { STATS_DIFF_BINS = 32, STATS_DIFF_WIDTH = 50, STATS_DIFF_LOW = -800 }; /* White - Black */
enum { STATS_MAX_MOVE = 150, STATS_CLOCK_BINS = 189 };  /* clock usage by move number; clock bins (stats.c) */
/* Clock usage per time control (a clock curve pooled over 60+0 and 180+2 says neither): the first
 * STATS_CLOCK_FAMILIES - 1 TimeControl values of games with clocks each, the later ones together
 * as "other"; a value longer than STATS_FAMILY_LEN - 1 is cut. */
enum { STATS_CLOCK_FAMILIES = 8, STATS_FAMILY_LEN = 24 };
#define STATS_FAMILY_CELLS ((STATS_MAX_MOVE + 1) * STATS_CLOCK_BINS)

typedef struct {
    const int32_t *offsets; /* n + 1 */
    const char *data;
} StatsStrings;

/* One batch's columns (batch.h names), as pointers: per game n_games rows, per clock n_clocks. */
typedef struct {
    size_t n_games, n_clocks, n_errors, n_notes, n_fixes;
    const uint8_t *status, *result, *outcome, *automatic_end, *fixes, *speed, *opening_state;
    const uint8_t *variant; /* the rules played (VARIANT_*; NULL: all standard) */
    const int32_t *ply_count, *clock_start;
    const uint16_t *first_move;
    const int64_t *length;
    const int32_t *tag_slots;   /* 1 + the tag's row in tag_values, 0: none; at [t * tag_stride + g * game_stride] */
    size_t tag_stride, game_stride;
    StatsStrings tag_values, start_fen, opening_eco, opening_name;
    const int16_t *clock_ply; /* the clock table */
    const double *clock;
    const uint8_t *error_kind, *note_kind, *fix_kind;
} StatsBatch;

typedef struct {
    char *key;
    uint32_t len;
    uint64_t hash;
    int64_t count;
} StatsEntry;

/* A bounded value count: exact while it has seen at most `capacity` distinct values; past that
 * the summary of Agarwal et al. ("Mergeable summaries", 2012): every kept count at most `error`
 * below the true one. */
typedef struct {
    StatsEntry *slots; /* open addressing, a power of two, key NULL: empty */
    size_t n_slots, used, capacity;
    int64_t error, total;
    bool failed;
} StatsValues;

/* Totals (Stats.totals). */
enum { ST_GAMES, ST_PGN_BYTES, ST_CLOCK_GAMES, ST_RESULT_TAG_FIXES, ST_RESULT_MARKER_FIXES, ST_COUNT };

typedef struct {
    int64_t totals[ST_COUNT];
    int64_t status[4], results[5], outcomes[OUTCOME_COUNT], automatic_ends[OUTCOME_COUNT];
    int64_t plies[STATS_PLY_BINS], white_elo[STATS_ELO_BINS], black_elo[STATS_ELO_BINS];
    int64_t difference[STATS_DIFF_BINS], difference_points[STATS_DIFF_BINS]; /* games; White's half points */
    int64_t present[SF_COUNT];
    int64_t speeds[SPEED_COUNT];
    int64_t variants[VARIANT_COUNT]; /* games by the rules played (VARIANT_*) */
    int64_t errors[ERR_COUNT], notes[NOTE_KIND_COUNT], fixes[FIX_KIND_COUNT];
    int64_t opening_sources[OS_COUNT];
    int64_t clocks[(STATS_MAX_MOVE + 1) * STATS_CLOCK_BINS]; /* [move number][clock bin] */
    StatsValues values[SV_COUNT];
    int tag_column[SF_COUNT]; /* each SF_ tag's index in the tag columns (game.h), -1: none */
    int n_families;           /* clock usage per time control: the families named so far */
    char family[STATS_CLOCK_FAMILIES][STATS_FAMILY_LEN];
    int64_t family_games[STATS_CLOCK_FAMILIES];
    int64_t *family_clocks;   /* [family][move number][clock bin], allocated with the first family */
} Stats;

/* The count arrays, by name for the Python side: stats_array(s, i, &n) for i < SA_COUNT. */
enum { SA_TOTALS, SA_STATUS, SA_RESULTS, SA_OUTCOMES, SA_AUTOMATIC_ENDS, SA_PLIES, SA_WHITE_ELO, SA_BLACK_ELO,
       SA_DIFFERENCE, SA_DIFFERENCE_POINTS, SA_PRESENT, SA_SPEEDS, SA_VARIANTS, SA_ERRORS, SA_NOTES, SA_FIXES,
       SA_OPENING_SOURCES, SA_CLOCKS, SA_COUNT };
int64_t *stats_array(Stats *s, int which, size_t *n);
const char *stats_array_name(int which);
StatsValues *stats_values(Stats *s, int which);

bool stats_init(Stats *s, size_t capacity);
void stats_free(Stats *s);
/* Adds one batch; returns false when memory ran out (the aggregates are then unusable). */
bool stats_add(Stats *s, const StatsBatch *b);
/* One (value, count) into a value count (merging a part); then stats_values_fold. */
bool stats_values_add(StatsValues *v, const char *key, size_t len, int64_t count);
/* Pruned to the capacity (Misra-Gries) when it holds more. */
bool stats_values_fold(StatsValues *v);
/* The family (slot) of a time control's clocks, named on first use ("other" once the slots are
 * taken); -1 when out of memory. stats_family_clocks: its [move][bin] counts. */
int stats_family_slot(Stats *s, const char *name, size_t len);
int64_t *stats_family_clocks(Stats *s, int slot);
/* A clock's bin (seconds), of the edges stats_clock_edge gives. */
int stats_clock_bin(double seconds);
double stats_clock_edge(int bin);

#endif
