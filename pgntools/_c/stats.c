/* pgntools stats: a batch's aggregates in one pass over its columns (stats.h). */
#include "stats.h"

#include <stdlib.h>
#include <string.h>

#include "chess.h"
#include "openings.h"
#include "result.h"
#include "batch.h"

static const char *const SF_NAMES[SF_COUNT] = {"Event", "Site", "Date", "White", "Black", "Result", "WhiteElo",
                                               "BlackElo", "ECO", "Opening", "TimeControl", "Termination", "UTCDate"};
static const char STANDARD_START[] = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/* ---------------------------------------------------------------- clock bins */

/* Seconds: 1 s bins under a minute, 10 s to 10 minutes, 1 minute to an hour, 5 minutes to 3
 * hours, then one bin (the quartiles of clock usage are exact to their bin's width). */
static const struct { int low, high, width; } CLOCK_SEGMENTS[] = {{0, 60, 1}, {60, 600, 10}, {600, 3600, 60},
                                                                  {3600, 10800, 300}};

int stats_clock_bin(double seconds)
{
    int first = 0;
    if (!(seconds > 0)) /* negative, and NaN */
        seconds = 0;
    for (size_t i = 0; i < sizeof CLOCK_SEGMENTS / sizeof *CLOCK_SEGMENTS; i++) {
        int low = CLOCK_SEGMENTS[i].low, high = CLOCK_SEGMENTS[i].high, width = CLOCK_SEGMENTS[i].width;
        if (seconds < high)
            return first + (int)((seconds - low) / width);
        first += (high - low) / width;
    }
    return STATS_CLOCK_BINS - 1;
}

double stats_clock_edge(int bin)
{
    int first = 0;
    for (size_t i = 0; i < sizeof CLOCK_SEGMENTS / sizeof *CLOCK_SEGMENTS; i++) {
        int n = (CLOCK_SEGMENTS[i].high - CLOCK_SEGMENTS[i].low) / CLOCK_SEGMENTS[i].width;
        if (bin < first + n)
            return CLOCK_SEGMENTS[i].low + (double)(bin - first) * CLOCK_SEGMENTS[i].width;
        first += n;
    }
    return 10800.0;
}

/* ---------------------------------------------------------------- bounded value counts */

static uint64_t hash_bytes(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
    return h ^ (h >> 29);
}

static bool values_alloc(StatsValues *v, size_t n_slots)
{
    v->slots = calloc(n_slots, sizeof *v->slots);
    v->n_slots = v->slots ? n_slots : 0;
    v->used = 0;
    return v->slots != NULL;
}

static StatsEntry *find_slot(StatsEntry *slots, size_t n_slots, const char *key, size_t len, uint64_t h)
{
    size_t mask = n_slots - 1, i = (size_t)h & mask;
    while (slots[i].key && !(slots[i].hash == h && slots[i].len == len && memcmp(slots[i].key, key, len) == 0))
        i = (i + 1) & mask;
    return &slots[i];
}

/* Rehashes into a table of n_slots, keeping the entries with a count above 0. */
static bool values_rehash(StatsValues *v, size_t n_slots)
{
    StatsEntry *old = v->slots;
    size_t n_old = v->n_slots;
    if (!values_alloc(v, n_slots)) {
        v->slots = old, v->n_slots = n_old;
        return false;
    }
    for (size_t i = 0; i < n_old; i++) {
        if (!old[i].key)
            continue;
        if (old[i].count <= 0) {
            free(old[i].key);
            continue;
        }
        *find_slot(v->slots, v->n_slots, old[i].key, old[i].len, old[i].hash) = old[i];
        v->used++;
    }
    free(old);
    return true;
}

bool stats_values_add(StatsValues *v, const char *key, size_t len, int64_t count)
{
    uint64_t h = hash_bytes(key, len);
    StatsEntry *e = find_slot(v->slots, v->n_slots, key, len, h);
    v->total += count;
    if (e->key) {
        e->count += count;
        return true;
    }
    char *copy = malloc(len + 1);
    if (!copy)
        return !(v->failed = true);
    memcpy(copy, key, len);
    copy[len] = 0;
    e->key = copy, e->len = (uint32_t)len, e->hash = h, e->count = count;
    v->used++;
    if (v->used * 2 > v->n_slots && !values_rehash(v, v->n_slots * 2)) /* at most half full */
        return !(v->failed = true);
    /* twice the capacity in distinct values: pruned (in between, the counts are exact) */
    if (v->used > 2 * v->capacity && !stats_values_fold(v))
        return !(v->failed = true);
    return true;
}

static int by_count_descending(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

bool stats_values_fold(StatsValues *v)
{
    if (v->used <= v->capacity)
        return true;
    int64_t *counts = malloc(v->used * sizeof *counts);
    if (!counts)
        return !(v->failed = true);
    size_t n = 0;
    for (size_t i = 0; i < v->n_slots; i++)
        if (v->slots[i].key)
            counts[n++] = v->slots[i].count;
    qsort(counts, n, sizeof *counts, by_count_descending);
    int64_t cut = counts[v->capacity]; /* the (capacity + 1)-th largest count */
    free(counts);
    for (size_t i = 0; i < v->n_slots; i++)
        if (v->slots[i].key)
            v->slots[i].count -= cut;
    v->error += cut;
    return values_rehash(v, v->n_slots) || !(v->failed = true);
}

/* ---------------------------------------------------------------- the aggregates */

bool stats_init(Stats *s, size_t capacity)
{
    memset(s, 0, sizeof *s);
    for (int f = 0; f < SF_COUNT; f++) {
        s->tag_column[f] = -1;
        for (int t = 0; t < TAG_COLUMN_COUNT; t++)
            if (strcmp(game_tag_column_name(t), SF_NAMES[f]) == 0)
                s->tag_column[f] = t;
    }
    for (int i = 0; i < SV_COUNT; i++) {
        s->values[i].capacity = capacity;
        if (!values_alloc(&s->values[i], 64)) {
            stats_free(s);
            return false;
        }
    }
    return true;
}

void stats_free(Stats *s)
{
    free(s->family_clocks);
    s->family_clocks = NULL;
    for (int i = 0; i < SV_COUNT; i++) {
        StatsValues *v = &s->values[i];
        for (size_t k = 0; k < v->n_slots; k++)
            free(v->slots[k].key);
        free(v->slots);
        v->slots = NULL;
        v->n_slots = v->used = 0;
    }
}

typedef struct {
    const char *s;
    size_t n; /* s NULL: no value */
} Text;

/* The game's value of tag column t, with PGN's "unknown" values (empty, ?, -, ??, ????.??.??) as none. */
static Text tag_of(const StatsBatch *b, int t, size_t g)
{
    Text out = {NULL, 0};
    if (t < 0 || !b->tag_slots)
        return out;
    int32_t slot = b->tag_slots[(size_t)t * b->tag_stride + g * b->game_stride];
    if (!slot)
        return out;
    const int32_t *o = b->tag_values.offsets;
    const char *s = b->tag_values.data + o[slot - 1];
    size_t n = (size_t)(o[slot] - o[slot - 1]);
    if (n == 0 || (n == 1 && (s[0] == '?' || s[0] == '-')) || (n == 2 && memcmp(s, "??", 2) == 0) ||
        (n == 10 && memcmp(s, "????.??.??", 10) == 0))
        return out;
    out.s = s, out.n = n;
    return out;
}

static Text string_of(const StatsStrings *c, size_t i)
{
    Text out = {c->data + c->offsets[i], (size_t)(c->offsets[i + 1] - c->offsets[i])};
    return out;
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* A rating: 1 to 9 digits (as export's int32 columns read them), else -1. */
static int64_t integer_of(Text t)
{
    if (!t.s || t.n > 9)
        return -1;
    int64_t v = 0;
    for (size_t i = 0; i < t.n; i++) {
        if (!is_digit(t.s[i]))
            return -1;
        v = v * 10 + (t.s[i] - '0');
    }
    return v;
}

static int bin_of(int64_t v, int64_t low, int64_t width, int bins)
{
    int64_t high = low + (int64_t)bins * width - 1;
    v = v < low ? low : v > high ? high : v;
    return (int)((v - low) / width);
}

static bool count(Stats *s, int which, Text t)
{
    return !t.s || stats_values_add(&s->values[which], t.s, t.n, 1);
}

static bool digits4(Text t) { return t.s && t.n >= 4 && is_digit(t.s[0]) && is_digit(t.s[1]) && is_digit(t.s[2]) && is_digit(t.s[3]); }

/* Games per month of the Date tag (of UTCDate when Date has no year), else per year. */
static bool count_date(Stats *s, Text date, Text utc_date)
{
    if (!(digits4(date) && date.n >= 5 && date.s[4] == '.'))
        date = utc_date;
    if (!digits4(date))
        return true;
    if (date.n >= 7 && date.s[4] == '.' && is_digit(date.s[5]) && is_digit(date.s[6]))
        return stats_values_add(&s->values[SV_MONTH], date.s, 7, 1);
    return stats_values_add(&s->values[SV_YEAR], date.s, 4, 1);
}

/* The first move's SAN from the standard start (no capture, check or ambiguity is possible
 * there), from the game's first_move column (squares and piece), so no move needs its SAN. */
static bool count_first_move(Stats *s, uint16_t move)
{
    char san[4];
    size_t n = 0;
    int to = (move >> 6) & 63, piece = move >> 12;
    if (move == 0xFFFF) /* a null move (allow_null_moves) */
        return stats_values_add(&s->values[SV_FIRST_MOVE], "--", 2, 1);
    if (piece != PAWN)
        san[n++] = " PNBRQK"[piece < 7 ? piece : 0];
    san[n++] = (char)('a' + FILE_OF(to));
    san[n++] = (char)('1' + RANK_OF(to));
    return stats_values_add(&s->values[SV_FIRST_MOVE], san, n, 1);
}

static bool add_opening(Stats *s, const StatsBatch *b, size_t g)
{
    uint8_t state = b->opening_state ? b->opening_state[g] : 0;
    if (state & OPENING_NAMED) {
        s->opening_sources[OS_TABLE]++;
        return count(s, SV_ECO, string_of(&b->opening_eco, g)) && count(s, SV_OPENING, string_of(&b->opening_name, g));
    }
    if (state & OPENING_CUSTOM_START) { /* the table names positions from the standard start only */
        Text eco = tag_of(b, s->tag_column[SF_ECO], g), name = tag_of(b, s->tag_column[SF_OPENING], g);
        s->opening_sources[eco.s || name.s ? OS_TAG : OS_CUSTOM_NO_TAG]++;
        return count(s, SV_ECO_TAG, eco) && count(s, SV_OPENING_TAG, name);
    }
    s->opening_sources[OS_UNNAMED]++;
    return true;
}

int stats_family_slot(Stats *s, const char *name, size_t len)
{
    if (len > STATS_FAMILY_LEN - 1)
        len = STATS_FAMILY_LEN - 1;
    for (int f = 0; f < s->n_families; f++)
        if (strlen(s->family[f]) == len && memcmp(s->family[f], name, len) == 0)
            return f;
    if (!s->family_clocks && !(s->family_clocks = calloc((size_t)STATS_CLOCK_FAMILIES * STATS_FAMILY_CELLS,
                                                         sizeof *s->family_clocks)))
        return -1;
    if (s->n_families == STATS_CLOCK_FAMILIES - 1) { /* the last slot: every later time control */
        for (int f = 0; f < s->n_families; f++)
            if (strcmp(s->family[f], "other") == 0)
                return f;
        name = "other", len = 5;
    }
    memcpy(s->family[s->n_families], name, len);
    s->family[s->n_families][len] = '\0';
    return s->n_families++;
}

int64_t *stats_family_clocks(Stats *s, int slot)
{
    return s->family_clocks && slot >= 0 && slot < s->n_families ? s->family_clocks + (size_t)slot * STATS_FAMILY_CELLS
                                                                  : NULL;
}

/* A game's [%clk] clocks by move number, pooled and in its time control's family (a game without
 * a TimeControl: "?"). False when out of memory. */
static bool add_clocks(Stats *s, const StatsBatch *b, size_t g, Text time_control)
{
    size_t a = (size_t)b->clock_start[g], z = g + 1 < b->n_games ? (size_t)b->clock_start[g + 1] : b->n_clocks;
    if (z == a)
        return true;
    int slot = time_control.s ? stats_family_slot(s, time_control.s, time_control.n) : stats_family_slot(s, "?", 1);
    if (slot < 0)
        return false;
    int64_t *family = stats_family_clocks(s, slot);
    for (size_t i = a; i < z; i++) {
        int move = (b->clock_ply[i] + 1) / 2;
        if (move > STATS_MAX_MOVE)
            move = STATS_MAX_MOVE;
        int cell = move * STATS_CLOCK_BINS + stats_clock_bin(b->clock[i]);
        s->clocks[cell]++;
        family[cell]++;
    }
    s->totals[ST_CLOCK_GAMES]++;
    s->family_games[slot]++;
    return true;
}

bool stats_add(Stats *s, const StatsBatch *b)
{
    static const int half_points[5] = {0, 2, 0, 1, 0}; /* by result code: 1-0 2, 0-1 0, draw 1 */
    for (size_t i = 0; i < b->n_errors; i++)
        if (b->error_kind[i] < ERR_COUNT)
            s->errors[b->error_kind[i]]++;
    for (size_t i = 0; i < b->n_notes; i++)
        if (b->note_kind[i] < NOTE_KIND_COUNT)
            s->notes[b->note_kind[i]]++;
    for (size_t i = 0; i < b->n_fixes; i++)
        if (b->fix_kind[i] < FIX_KIND_COUNT)
            s->fixes[b->fix_kind[i]]++;
    const size_t start_len = sizeof STANDARD_START - 1;
    bool ok = true;
    for (size_t g = 0; g < b->n_games && ok; g++) {
        s->totals[ST_GAMES]++;
        s->totals[ST_PGN_BYTES] += b->length[g];
        s->status[b->status[g] & 3]++;
        int result = b->result[g] < 5 ? b->result[g] : 0;
        s->results[result]++;
        s->outcomes[b->outcome[g] < OUTCOME_COUNT ? b->outcome[g] : 0]++;
        s->automatic_ends[b->automatic_end[g] < OUTCOME_COUNT ? b->automatic_end[g] : 0]++;
        s->totals[ST_RESULT_TAG_FIXES] += (b->fixes[g] & FIX_RESULT_TAG) != 0;
        s->totals[ST_RESULT_MARKER_FIXES] += (b->fixes[g] & FIX_RESULT_MARKER) != 0;
        s->plies[bin_of(b->ply_count[g], 0, STATS_PLY_WIDTH, STATS_PLY_BINS)]++;
        s->variants[b->variant && b->variant[g] < VARIANT_COUNT ? b->variant[g] : VARIANT_STANDARD]++;

        Text tags[SF_COUNT];
        for (int f = 0; f < SF_COUNT; f++) {
            tags[f] = tag_of(b, s->tag_column[f], g);
            s->present[f] += tags[f].s != NULL;
        }
        int64_t white = integer_of(tags[SF_WHITE_ELO]), black = integer_of(tags[SF_BLACK_ELO]);
        if (white >= 0)
            s->white_elo[bin_of(white, 0, STATS_ELO_WIDTH, STATS_ELO_BINS)]++;
        if (black >= 0)
            s->black_elo[bin_of(black, 0, STATS_ELO_WIDTH, STATS_ELO_BINS)]++;
        if (white >= 0 && black >= 0 && result >= 1 && result <= 3) {
            int d = bin_of(white - black, STATS_DIFF_LOW, STATS_DIFF_WIDTH, STATS_DIFF_BINS);
            s->difference[d]++;
            s->difference_points[d] += half_points[result];
        }
        if (tags[SF_TIME_CONTROL].s) /* a TimeControl the rule cannot read is SPEED_NONE: "unknown" */
            s->speeds[b->speed && b->speed[g] < SPEED_COUNT ? b->speed[g] : 0]++;
        ok = count(s, SV_TERMINATION, tags[SF_TERMINATION]) && count(s, SV_TIME_CONTROL, tags[SF_TIME_CONTROL]) &&
             count(s, SV_EVENT, tags[SF_EVENT]) && count(s, SV_PLAYER, tags[SF_WHITE]) &&
             count(s, SV_PLAYER, tags[SF_BLACK]) && count_date(s, tags[SF_DATE], tags[SF_UTC_DATE]) &&
             add_opening(s, b, g);
        if (ok && b->first_move && b->first_move[g]) {
            Text fen = string_of(&b->start_fen, g);
            if (fen.n == start_len && memcmp(fen.s, STANDARD_START, start_len) == 0)
                ok = count_first_move(s, b->first_move[g]);
        }
        if (ok && b->clock_start && b->n_clocks)
            ok = add_clocks(s, b, g, tags[SF_TIME_CONTROL]);
    }
    for (int i = 0; i < SV_COUNT; i++)
        ok = ok && !s->values[i].failed;
    return ok;
}

#define STATS_ARRAYS(X)                                                                                   \
    X(SA_TOTALS, totals, "totals") X(SA_STATUS, status, "status") X(SA_RESULTS, results, "results")       \
    X(SA_OUTCOMES, outcomes, "outcomes") X(SA_AUTOMATIC_ENDS, automatic_ends, "automatic_ends")           \
    X(SA_PLIES, plies, "plies") X(SA_WHITE_ELO, white_elo, "white_elo") X(SA_BLACK_ELO, black_elo, "black_elo") \
    X(SA_DIFFERENCE, difference, "difference") X(SA_DIFFERENCE_POINTS, difference_points, "difference_points") \
    X(SA_PRESENT, present, "present") X(SA_SPEEDS, speeds, "speeds") X(SA_VARIANTS, variants, "variants") X(SA_ERRORS, errors, "errors")       \
    X(SA_NOTES, notes, "notes") X(SA_FIXES, fixes, "fixes") X(SA_OPENING_SOURCES, opening_sources, "opening_sources") \
    X(SA_CLOCKS, clocks, "clocks")

int64_t *stats_array(Stats *s, int which, size_t *n)
{
    switch (which) {
#define AS_CASE(id, field, name) case id: *n = sizeof s->field / sizeof s->field[0]; return s->field;
        STATS_ARRAYS(AS_CASE)
#undef AS_CASE
    }
    *n = 0;
    return NULL;
}

const char *stats_array_name(int which)
{
    switch (which) {
#define AS_NAME(id, field, name) case id: return name;
        STATS_ARRAYS(AS_NAME)
#undef AS_NAME
    }
    return "";
}

StatsValues *stats_values(Stats *s, int which) { return which >= 0 && which < SV_COUNT ? &s->values[which] : NULL; }
