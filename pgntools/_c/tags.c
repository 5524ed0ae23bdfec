#include <string.h>

#include "result.h"
#include "tags.h"

static const char *const TAG_COLUMN_NAMES[TAG_COLUMN_COUNT] = {
    "Event", "Site", "Date", "Round", "White", "Black", "Result", "WhiteElo", "BlackElo",
    "TimeControl", "ECO", "Opening", "Termination", "UTCDate", "UTCTime", "Variant",
};

const char *game_tag_column_name(int i) { return i >= 0 && i < TAG_COLUMN_COUNT ? TAG_COLUMN_NAMES[i] : "unknown"; }

/* The tag columns of integers (the Elos): an int32 column in exports, so a value must be 1 to 9
 * digits (what the exporters turn into a number). */
bool game_tag_column_is_integer(int i)
{
    const char *name = game_tag_column_name(i);
    return strcmp(name, "WhiteElo") == 0 || strcmp(name, "BlackElo") == 0;
}

/* The tag columns whose text also stays in export's `tags` map: Date, whose column is typed (a
 * day; its text, with ?? for an unknown part, is kept where it can be read as written). */
enum { TAG_DATE = 2 }; /* TAG_COLUMN_NAMES[2] */
bool game_tag_text_in_map(int i) { return i == TAG_DATE; }

static bool name_is(const char *s, size_t n, const char *name) { return strlen(name) == n && memcmp(s, name, n) == 0; }

static int tag_column_of(const char *name, size_t n)
{
    for (int i = 0; i < TAG_COLUMN_COUNT; i++)
        if (name_is(name, n, TAG_COLUMN_NAMES[i]))
            return i;
    return -1;
}

static bool tag_row_is(const StrCol *names, size_t row, const char *name, size_t n)
{
    int32_t a = names->offsets.data[row], z = names->offsets.data[row + 1];
    const char *s = names->data.data + a;
    /* the first byte before memcmp (a call): a game's names of one length mostly differ there
     * (Event, White, Black, Round; Site, Date) */
    return (size_t)(z - a) == n && (n == 0 || (s[0] == name[0] && memcmp(s, name, n) == 0));
}

/* Tag-name lookups of a game with many tags go through a hash set of its rows: a scan of the
 * rows per tag made a game of n tags cost n^2 (200,000 tags, 2 MB of input: a minute). The set
 * is brought up to date with the game's rows before each lookup, and rebuilt when the rows are
 * not those it holds (a new game, a rollback). Games of a few tags keep the plain scan. */
enum { TAG_SCAN_MAX = 32 };

static uint64_t tag_hash(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
    return h;
}

static void tag_set_insert(GameReader *r, const StrCol *names, size_t row)
{
    int32_t a = names->offsets.data[row], z = names->offsets.data[row + 1];
    size_t mask = r->tag_set.len - 1, i = tag_hash(names->data.data + a, (size_t)(z - a)) & mask;
    while (r->tag_set.data[i])
        i = (i + 1) & mask;
    r->tag_set.data[i] = (int32_t)row + 1;
}

/* Makes the set hold exactly the rows [first, count); false when out of memory. */
static bool tag_set_sync(GameReader *r, const StrCol *names, size_t first, size_t count)
{
    size_t size = r->tag_set.len;
    bool rebuild = r->tag_set_first != first || r->tag_set_rows > count || 2 * (count - first) >= size;
    if (rebuild) {
        size = 64;
        while (size < 4 * (count - first)) /* at most half full until the next rebuild */
            size *= 2;
        r->tag_set.len = 0;
        if (!VEC_RESERVE(r->tag_set, size))
            return false;
        r->tag_set.len = size;
        memset(r->tag_set.data, 0, size * sizeof *r->tag_set.data);
        r->tag_set_first = r->tag_set_rows = first;
    }
    for (; r->tag_set_rows < count; r->tag_set_rows++)
        tag_set_insert(r, names, r->tag_set_rows);
    return true;
}

/* A tag name's bit in Game.tag_bits: a name whose bit is clear is not among the game's rows, so
 * most lookups (a name seen first) scan no row. Length and end bytes: the two dozen names of
 * real files (the roster, Elos, ECO, Lichess' tags) take 21 different bits of the 64. */
static inline uint64_t tag_bit(const char *s, size_t n)
{
    unsigned h = n ? (unsigned)n + 9u * (unsigned char)s[0] + 31u * (unsigned char)s[n - 1] : 0;
    return 1ULL << (h & 63);
}

/* Whether this game already has a tag of that name. */
bool tags_has(GameReader *r, const Game *g, const char *name, size_t n)
{
    if (!(g->tag_bits & tag_bit(name, n)))
        return false;
    const StrCol *names = &r->batch.strs[S_TAG_NAME];
    size_t first = g->mark->strs[S_TAG_NAME], count = strcol_count(names);
    if (count - first > TAG_SCAN_MAX && tag_set_sync(r, names, first, count)) {
        size_t mask = r->tag_set.len - 1;
        for (size_t i = tag_hash(name, n) & mask; r->tag_set.data[i]; i = (i + 1) & mask)
            if (tag_row_is(names, (size_t)r->tag_set.data[i] - 1, name, n))
                return true;
        return false;
    }
    for (size_t i = first; i < count; i++) /* few tags (or no memory for the set) */
        if (tag_row_is(names, i, name, n))
            return true;
    return false;
}

static void push_tag_value(GameReader *r, const Game *g, const char *s, size_t n)
{
    StrCol *c = &r->batch.strs[S_TAG_VALUE];
    size_t i = 0;
    while (i < n) { /* undo \" and \\ */
        const char *bs = memchr(s + i, '\\', n - i);
        size_t run = bs ? (size_t)(bs - (s + i)) : n - i;
        if (!bytes_add_text(&c->data, s + i, run, g->latin1))
            r->batch.failed = true;
        i += run;
        if (bs) {
            bool escape = i + 1 < n && (s[i + 1] == '"' || s[i + 1] == '\\');
            if (!bytes_add_text(&c->data, s + i + escape, 1, false))
                r->batch.failed = true;
            i += 1 + escape;
        }
    }
    if (!strcol_end(c))
        r->batch.failed = true;
}

/* A value an integer tag column can hold (1 to 9 digits), or one that says "unknown" ("", "?",
 * "-": null in the column, and nothing to note). */
static bool integer_value_or_unknown(const char *v, size_t n)
{
    if (n == 0 || (n == 1 && (v[0] == '?' || v[0] == '-')))
        return true;
    if (n > 9)
        return false;
    for (size_t i = 0; i < n; i++)
        if (v[i] < '0' || v[i] > '9')
            return false;
    return true;
}

/* A tag line without a value ([Round]) is read as the PGN standard's "unknown" for the Seven
 * Tag Roster ("?"; "????.??.??" for Date, "*" for Result: what the export format writes for a
 * missing roster tag); NULL for any other tag (an empty value, where it stands in the input:
 * a FEN tag's value is located by its place there). */
static const char *unknown_value(const char *name, size_t n)
{
    static const char *const SEVEN[7][2] = {{"Event", "?"}, {"Site", "?"}, {"Date", "????.??.??"}, {"Round", "?"},
                                           {"White", "?"}, {"Black", "?"}, {"Result", "*"}};
    for (int i = 0; i < 7; i++)
        if (name_is(name, n, SEVEN[i][0]))
            return SEVEN[i][1];
    return NULL;
}

const char *tags_value(const GameReader *r, const Token *t, size_t *len)
{
    const char *unknown = t->value == TAG_WITHOUT_VALUE ? unknown_value(r->sc.buf + t->a, t->alen) : NULL;
    if (unknown) {
        *len = strlen(unknown);
        return unknown;
    }
    *len = t->blen;
    return r->sc.buf + t->b;
}

/* `duplicate`: the game already has a tag of this name (tags_has, asked once by the caller). */
void tags_read(GameReader *r, Game *g, const Token *t, bool duplicate)
{
    size_t vlen;
    const char *name = r->sc.buf + t->a, *value = tags_value(r, t, &vlen);
    if (duplicate) {
        game_add_note(g, NOTE_DUPLICATE_TAG, 0, t);
        return; /* the first value stands */
    }
    if (r->opt.tag_columns) {
        int column = tag_column_of(name, t->alen);
        if (column >= 0)
            g->tag_slot[column] = (int32_t)strcol_count(&r->batch.strs[S_TAG_NAME]) + 1;
        COL_PUSH(&r->batch, T_IN_MAP, uint8_t, column < 0 || column == TAG_DATE);
    }
    if (t->alen <= 16 && t->a + 16 <= r->sc.len) { /* names are ASCII and short: a fixed-size copy */
        if (!strcol_push_short(&r->batch.strs[S_TAG_NAME], name, t->alen))
            r->batch.failed = true;
    } else {
        game_push_text(r, S_TAG_NAME, name, t->alen, false);
    }
    g->tag_bits |= tag_bit(name, t->alen);
    if (!r->opt.skip_tag_values)
        push_tag_value(r, g, value, vlen);
    else if (!strcol_end(&r->batch.strs[S_TAG_VALUE]))
        r->batch.failed = true;
    g->n_tags++;
    if (name_is(name, t->alen, "Result")) {
        g->result_tag = result_parse(value, vlen);
    } else if (name_is(name, t->alen, "FEN")) {
        g->fen = value;
        g->fen_len = vlen;
    } else if (name_is(name, t->alen, "SetUp")) {
        g->has_setup = true;
    } else if (name_is(name, t->alen, "Variant")) {
        g->variant = value;
        g->variant_len = vlen;
    } else if (name_is(name, t->alen, "TimeControl")) {
        g->speed = (uint8_t)speed_of_time_control(value, vlen);
    } else if (name_is(name, t->alen, "WhiteElo") || name_is(name, t->alen, "BlackElo")) {
        if (!integer_value_or_unknown(value, vlen)) /* null in its column: say why */
            game_add_note(g, NOTE_INVALID_TAG_VALUE, 0, t);
    }
}

/* In a tag section, a repeated tag name (`duplicate`) begins a new game (the one before had no
 * movetext, as broadcasts and studies export them): at the first tag after a blank line if there
 * was one, else at a second Event. */
bool tags_start_next_game(GameReader *r, const Token *t, bool duplicate, bool after_gap)
{
    return duplicate && (after_gap || name_is(r->sc.buf + t->a, t->alen, "Event"));
}
