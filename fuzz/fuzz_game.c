/* The whole GameReader (scan, replay, annotations, result checks, export-format PGN) over
 * arbitrary bytes, driven the way the Cython BatchReader drives it.
 *
 * Checks, besides AddressSanitizer and UBSan on every path:
 * - reading terminates: GR_NEED_MORE never comes back once the input has ended;
 * - the batches are the same whether the input comes in one buffer or in small refills of a
 *   growing buffer (the scanner's rewind-and-refill must not change a single column);
 * - every string column Python decodes is valid UTF-8, and game spans lie inside the input;
 * - validate's output is stable: the export-format PGN of the valid and fixed games, read
 *   again, gives as many games, all valid, whose PGN is the same text;
 * - with the smallest buffer limit the reader allows (4 KiB), an oversized game is skipped
 *   without crashing or looping.
 * The options vary with a hash of the input, so one corpus covers them. */
#include "common.h"
#include "game.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#include <sanitizer/asan_interface.h>
#define POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#endif
#endif
#ifndef POISON
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#define MIN_BUFFER 4096 /* BatchReader: cap = max(buffer_size, 4096), max_buffer >= cap */

/* ---------------------------------------------------------------- batches as bytes */

/* A batch serialised column by column: (kind, id, length) headers, then the bytes. */
static void put_bytes(ByteVec *out, const void *p, size_t n)
{
    CHECK(VEC_RESERVE(*out, n), "out of memory");
    if (n)
        memcpy(out->data + out->len, p, n);
    out->len += n;
}

static void put_section(ByteVec *out, uint32_t kind, uint32_t id, const void *p, size_t n)
{
    uint64_t head[2] = {(uint64_t)kind << 32 | id, n};
    put_bytes(out, head, sizeof head);
    put_bytes(out, p, n);
}

static void serialise(ByteVec *out, const Batch *b)
{
    uint64_t games = b->n_games;
    put_section(out, 0, 0, &games, sizeof games);
    for (int i = 0; i < BATCH_NCOLS; i++)
        put_section(out, 1, (uint32_t)i, b->cols[i].data, b->cols[i].len * b->cols[i].item);
    for (int i = 0; i < BATCH_NSTRS; i++) {
        put_section(out, 2, (uint32_t)i, b->strs[i].offsets.data, b->strs[i].offsets.len * sizeof(int32_t));
        put_section(out, 3, (uint32_t)i, b->strs[i].data.data, b->strs[i].data.len);
    }
}

/* The first section where two serialisations differ, named for the report. */
static void check_same_batches(const ByteVec *a, const ByteVec *b, const char *what)
{
    size_t i = 0;
    while (i < a->len && i < b->len) {
        uint64_t ha[2], hb[2];
        memcpy(ha, a->data + i, sizeof ha);
        memcpy(hb, b->data + i, sizeof hb);
        uint32_t kind = (uint32_t)(ha[0] >> 32), id = (uint32_t)ha[0];
        const char *name = kind == 0 ? "n_games" : kind == 1 ? batch_column_name((int)id) : batch_string_name((int)id);
        CHECK(ha[0] == hb[0] && ha[1] == hb[1] && memcmp(a->data + i + 16, b->data + i + 16, ha[1]) == 0,
              "%s: column '%s'%s differs (at byte %zu of the serialised batches)", what, name,
              kind == 2 ? " (offsets)" : "", i);
        i += 16 + ha[1];
    }
    CHECK(a->len == b->len, "%s: one reading has more batches than the other", what);
}

/* Strict UTF-8 as Python decodes it (RFC 3629), by code point: no overlong forms, no
 * surrogates, nothing past U+10FFFF. (Written apart from game.c's check, on purpose.) */
static bool valid_utf8(const unsigned char *s, size_t n)
{
    static const uint32_t MIN_CP[5] = {0, 0, 0x80, 0x800, 0x10000};
    for (size_t i = 0; i < n;) {
        unsigned char c = s[i];
        size_t len = c < 0x80 ? 1 : c < 0xC0 ? 0 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : c < 0xF8 ? 4 : 0;
        if (!len || i + len > n)
            return false;
        uint32_t cp = len == 1 ? c : c & (0x7F >> len);
        for (size_t k = 1; k < len; k++) {
            if ((s[i + k] & 0xC0) != 0x80)
                return false;
            cp = cp << 6 | (s[i + k] & 0x3F);
        }
        if (cp < MIN_CP[len] || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
            return false;
        i += len;
    }
    return true;
}

/* What Python relies on when it turns a batch into records. */
static void check_batch(const Batch *b, int64_t input_size)
{
    for (int i = 0; i < BATCH_NSTRS; i++) {
        const StrCol *c = &b->strs[i];
        for (size_t k = 1; k < c->offsets.len; k++)
            CHECK(c->offsets.data[k] >= c->offsets.data[k - 1], "string column '%s' offsets go back",
                  batch_string_name(i));
        CHECK((size_t)c->offsets.data[c->offsets.len - 1] == c->data.len, "string column '%s' length",
              batch_string_name(i));
        if (i != S_RAW) /* raw input bytes stay bytes; every other column is decoded as UTF-8 */
            CHECK(valid_utf8((const unsigned char *)c->data.data, c->data.len),
                  "string column '%s' is not valid UTF-8", batch_string_name(i));
    }
    for (size_t g = 0; g < b->n_games; g++) {
        int64_t offset = COL_AT(b, G_OFFSET, int64_t, g), length = COL_AT(b, G_LENGTH, int64_t, g);
        CHECK(offset >= 0 && length >= 0 && offset + length <= input_size, "game %zu spans [%lld, +%lld) of %lld",
              g, (long long)offset, (long long)length, (long long)input_size);
        CHECK(COL_AT(b, G_LINE, int64_t, g) >= 1, "game %zu on line %lld", g,
              (long long)COL_AT(b, G_LINE, int64_t, g));
    }
}

/* ---------------------------------------------------------------- reading */

typedef struct {
    ByteVec batches; /* every batch, serialised */
    ByteVec pgn;     /* the export-format PGN of the valid and fixed games, concatenated */
    size_t games, pgn_games, fixed;
} Output;

static void take_batch(GameReader *r, Output *out, int64_t input_size)
{
    Batch *b = gr_batch(r);
    check_batch(b, input_size);
    serialise(&out->batches, b);
    out->games += b->n_games;
    for (size_t g = 0; g < b->n_games; g++)
        out->fixed += COL_AT(b, G_STATUS, uint8_t, g) == STATUS_FIXED;
    const StrCol *pgn = &b->strs[S_PGN];
    for (size_t g = 0; g < strcol_count(pgn); g++) {
        size_t len = (size_t)(pgn->offsets.data[g + 1] - pgn->offsets.data[g]);
        if (COL_AT(b, G_STATUS, uint8_t, g) != STATUS_INVALID) {
            CHECK(len > 0, "valid game %zu without PGN", g);
            put_bytes(&out->pgn, pgn->data.data + pgn->offsets.data[g], len);
            out->pgn_games++;
        }
    }
    batch_clear(b);
}

/* The input in one buffer that ends the stream. */
static void read_whole(const GameOptions *opt, const char *buf, size_t size, Output *out)
{
    GameReader *r = gr_new(opt);
    CHECK(r, "gr_new failed");
    Scanner *sc = gr_scanner(r);
    sc->buf = buf;
    sc->len = size;
    sc->eof = true;
    for (;;) {
        int rc = gr_fill(r);
        CHECK(rc != GR_NEED_MORE, "GR_NEED_MORE after the end of the input");
        CHECK(rc != GR_NO_MEMORY, "GR_NO_MEMORY");
        if (rc == GR_END && gr_batch(r)->n_games == 0)
            break;
        take_batch(r, out, (int64_t)size);
        if (rc == GR_END)
            break;
    }
    gr_free(r);
}

/* The input in refills of about `step` bytes into a buffer of `cap` bytes, grown (up to
 * `max_buffer`, 0 for no limit) when one game fills it: BatchReader._refill in C. The bytes
 * past the scanner's length are poisoned, so reading them is an error. */
static void read_in_pieces(const GameOptions *opt, const char *input, size_t size, size_t cap, size_t step,
                           size_t max_buffer, Output *out)
{
    GameReader *r = gr_new(opt);
    CHECK(r, "gr_new failed");
    char *buf = malloc(cap);
    size_t fed = 0, rounds = 0, first_step = step;
    Scanner *sc = gr_scanner(r);
    sc->buf = buf;
    POISON(buf, cap);
    for (;;) {
        int rc = gr_fill(r);
        CHECK(rc != GR_NO_MEMORY, "GR_NO_MEMORY");
        if (rc == GR_NEED_MORE) {
            CHECK(!sc->eof, "GR_NEED_MORE after the end of the input");
            CHECK(++rounds < 4 * size + 64, "no progress after %zu refills", rounds);
            size_t keep = sc->pos, remaining = sc->len - sc->pos;
            /* Each refill rescans the game from its start: reads grow while one game goes on
             * (O(n log n) in all, as the real buffer's doubling), and start small again after. */
            step = keep ? first_step : step * 2;
            UNPOISON(buf, cap);
            if (keep) {
                memmove(buf, buf + keep, remaining);
                sc->base += (int64_t)keep;
                sc->pos = 0;
                sc->len = remaining;
            }
            if (remaining == cap && max_buffer && cap >= max_buffer) {
                POISON(buf + sc->len, cap - sc->len);
                gr_skip_oversized(r, (int64_t)max_buffer);
                continue;
            }
            if (remaining == cap) {
                cap = max_buffer && cap * 2 > max_buffer ? max_buffer : cap * 2;
                buf = realloc(buf, cap);
                CHECK(buf, "out of memory");
                sc->buf = buf;
            }
            size_t n = cap - remaining < step ? cap - remaining : step;
            if (n > size - fed)
                n = size - fed;
            memcpy(buf + remaining, input + fed, n);
            fed += n;
            if (n == 0)
                sc->eof = true;
            else
                sc->len = remaining + n;
            POISON(buf + sc->len, cap - sc->len);
            continue;
        }
        if (rc == GR_END && gr_batch(r)->n_games == 0)
            break;
        take_batch(r, out, (int64_t)size);
        if (rc == GR_END)
            break;
    }
    CHECK(fed == size, "the reader ended after %zu of %zu bytes", fed, size);
    UNPOISON(buf, cap);
    free(buf);
    gr_free(r);
}

static void output_free(Output *o)
{
    VEC_FREE(o->batches);
    VEC_FREE(o->pgn);
}

/* ---------------------------------------------------------------- the harness */

static uint64_t fnv1a(const uint8_t *p, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ULL;
    return h;
}

/* A few lines of an opening table (a name with a quote and a backslash: the tag writer escapes
 * them), built once: validate --classify's tags and notes are exercised too. */
static const OpeningTable *small_opening_table(void)
{
    static const char text[] = "eco\tname\tpgn\n"
                               "C60\tRuy Lopez\t1. e4 e5 2. Nf3 Nc6 3. Bb5\n"
                               "B20\tSicilian Defense\t1. e4 c5\n"
                               "D00\tQueen's Pawn Game\t1. d4 d5\n"
                               "A00\tA \"quoted\" \\\\ name\t1. a3\n";
    static OpeningTable *table;
    char err[200];
    if (!table)
        table = openings_build(text, sizeof text - 1, err, sizeof err);
    CHECK(table != NULL, "the small opening table does not build: %s", err);
    return table;
}

/* A tag filter with every kind of leaf (tag_filter.h), for the second reading: LIKE and ILIKE,
 * IN of strings and numbers, a date, a tag found by name, NOT / AND / OR and an unknown, over
 * the scanner's tag values (a Latin-1 game's raw bytes too, before it is read again). Columns:
 * Event 0, Date 2, White 4, WhiteElo 7 (game.c's TAG_COLUMNS). */
static const int32_t IN_ENDS[] = {1, 3};
static const double IN_NUMBERS[] = {1500, 2500};
static const TagClause CLAUSES[] = {
    {.op = TF_LIKE, .tag = 4, .kind = TV_STRING, .text = "%a_\\%%", .len = 6},
    {.op = TF_ILIKE, .tag = -1, .kind = TV_STRING, .text = "_k%s", .len = 4, .name = "Annotator", .name_len = 9},
    {.op = TF_OR},
    {.op = TF_GE, .tag = 2, .kind = TV_DATE, .text = "2023.01.01", .len = 10},
    {.op = TF_NOT},
    {.op = TF_IN, .tag = 7, .kind = TV_NUMBER, .numbers = IN_NUMBERS, .n_items = 2},
    {.op = TF_OR},
    {.op = TF_IN, .tag = -1, .kind = TV_STRING, .text = "abc", .len = 3, .item_ends = IN_ENDS, .n_items = 2,
     .name = "Event", .name_len = 5},
    {.op = TF_UNKNOWN},
    {.op = TF_AND},
    {.op = TF_OR},
    {.op = TF_AND},
};
static uint8_t filter_stack[sizeof CLAUSES / sizeof CLAUSES[0]];
static const TagFilter FILTER = {sizeof CLAUSES / sizeof CLAUSES[0], CLAUSES, filter_stack};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint64_t h = fnv1a(data, size);
    char *buf = exact_copy(data, size);

    /* Everything the commands can ask for, at once. */
    GameOptions all = {0};
    all.replay = all.moves = all.comments = all.fen_every_ply = all.final_fen = all.pgn = all.raw_invalid = true;
    all.fix_results = true;
    all.movetext_hash = all.position_hash = all.counters = true;
    all.max_games = 1 + (int)(h % 3); /* small batches: the batch boundary is exercised too */
    all.max_errors = 16;
    all.openings = small_opening_table();
    all.opening_tags = (int)(h >> 40) % 3; /* none, missing, overwrite: the output reads back the same */

    Output whole = {0}, pieces = {0};
    read_whole(&all, buf, size, &whole);
    read_in_pieces(&all, buf, size, 1 + (h >> 8) % 64, 1 + (h >> 16) % 97, 0, &pieces);
    check_same_batches(&whole.batches, &pieces.batches, "one buffer vs refills");

    /* validate -o, then validate that output again: the same games, valid, the same text. */
    if (whole.pgn_games) {
        Output again = {0};
        char *pgn = exact_copy((const uint8_t *)whole.pgn.data, whole.pgn.len);
        read_whole(&all, pgn, whole.pgn.len, &again);
        CHECK(again.games == whole.pgn_games, "the PGN output of %zu games reads as %zu games", whole.pgn_games,
              again.games);
        CHECK(again.pgn_games == whole.pgn_games && again.fixed == 0,
              "the PGN output of %zu valid or fixed games has %zu (%zu fixed) on re-reading", whole.pgn_games,
              again.pgn_games, again.fixed);
        CHECK(again.pgn.len == whole.pgn.len && memcmp(again.pgn.data, whole.pgn.data, whole.pgn.len) == 0,
              "the PGN output changes when validated again:\n--- first\n%.*s\n--- again\n%.*s", (int)whole.pgn.len,
              whole.pgn.data, (int)again.pgn.len, again.pgn.data);
        free(pgn);
        output_free(&again);
    }
    output_free(&whole);
    output_free(&pieces);

    /* The other switches, chosen by the hash; the smallest buffer limit, so that a large game
     * takes the skip path. */
    GameOptions other = {0};
    other.replay = (h >> 24) % 8 != 0;
    other.moves = h >> 27 & 1;
    other.pgn = h >> 28 & 1;
    other.strict = h >> 29 & 1;
    other.fix_results = h >> 30 & 1;
    other.strip_comments = h >> 31 & 1;
    other.strip_variations = h >> 32 & 1;
    other.reduced = h >> 33 & 1;
    other.final_fen = h >> 34 & 1;
    other.fen_options = (int)(h >> 35 & 3);
    other.raw_invalid = h >> 37 & 1;
    other.skip_tag_values = h >> 38 & 1;
    if (h >> 39 & 1) { /* games the filter drops are read past (skip_movetext) */
        other.tag_filter = &FILTER;
        other.tag_columns = true;
    }
    other.movetext_hash = h >> 41 & 1;
    other.position_hash = h >> 42 & 1;
    other.counters = h >> 43 & 1;
    other.max_games = 1024;
    Output limited = {0};
    read_in_pieces(&other, buf, size, MIN_BUFFER, MIN_BUFFER, MIN_BUFFER, &limited);
    output_free(&limited);

    free(buf);
    return 0;
}
