/* The per-ply budget of validate's C path (RESULTS.md "per-ply budget"): the master file loaded
 * into memory, then each stage of the replay timed alone (thread CPU time), best of N runs.
 *
 *   full      gr_fill with validate --summary's options (what the CLI's reader runs)
 *   scan      gr_fill with replay off: tokens, tags, the game loop and records, no replay
 *   tokens    tok_next over the whole buffer, nothing else
 *   parse     san_parse of every mainline move token (collected beforehand)
 *   resolve   san_resolve of every move against its position (positions replayed beforehand)
 *   make      pos_make (incl. check detection, en-passant legality and the Zobrist key)
 *   status    pos_check_status after each move (checkmate needs a legal-move search)
 *   hashing   gh_move (the mainline key) + the repetition history and count
 *   derived   derived_count and the insufficient-material test after captures
 *
 * With RUNS 0 it prints a digest of every batch column under several option sets instead (the
 * same before and after a change of the hot path: outputs unchanged).
 *
 * Build and run: sh benchmarks/ply_budget/run.sh [FILE]  (bench-only; not part of the package). */
#define _GNU_SOURCE /* REG_RIP: the sampling profiler (PLY_BUDGET_ONLY=sample) */
#include <signal.h>
#include <stdio.h>
#include <sys/time.h>
#include <ucontext.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "game.h"
#include "game_hash.h"
#include "game_reader.h"
#include "../bench_input.h"

static char *buf;
static size_t buf_len;

typedef struct {
    const char *text;
    uint32_t len;
} MoveText;

static MoveText *texts;
static SanMove *sans;
static move_t *moves;
static Position *before; /* the position before each ply */
static size_t *game_first; /* index of each game's first ply; game_first[n_games] = n_plies */
static size_t n_plies, n_games;

static uint64_t digest = 1469598103934665603ULL; /* FNV-1a of every batch column (--digest) */
static bool digesting;

static void digest_bytes(const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        digest = (digest ^ b[i]) * 1099511628211ULL;
}

static void digest_batch(const Batch *b)
{
    digest_bytes(&b->n_games, sizeof b->n_games);
    for (int i = 0; i < BATCH_NCOLS; i++)
        digest_bytes(b->cols[i].data, b->cols[i].len * b->cols[i].item);
    for (int i = 0; i < BATCH_NSTRS; i++) {
        digest_bytes(b->strs[i].offsets.data, b->strs[i].offsets.len * sizeof(int32_t));
        digest_bytes(b->strs[i].data.data, b->strs[i].data.len);
    }
}

static int64_t read_with(const GameOptions *options, int64_t *plies)
{
    GameReader *r = gr_new(options);
    Scanner *sc = gr_scanner(r);
    sc->buf = buf;
    sc->len = buf_len;
    sc->eof = true;
    int64_t total_plies = 0;
    for (;;) {
        int rc = gr_fill(r);
        Batch *b = gr_batch(r);
        for (size_t g = 0; g < b->n_games; g++)
            total_plies += COL_AT(b, G_PLY_COUNT, int32_t, g);
        if (digesting)
            digest_batch(b);
        batch_clear(b);
        if (rc == GR_END)
            break;
        if (rc != GR_FULL) {
            fprintf(stderr, "gr_fill: %d\n", rc);
            exit(1);
        }
    }
    int64_t games = gr_games_read(r);
    gr_free(r);
    if (plies)
        *plies = total_plies;
    return games;
}

static int64_t run_reader(bool replay, int64_t *plies)
{
    GameOptions opt;
    memset(&opt, 0, sizeof opt);
    opt.replay = replay;
    opt.fix_results = true;
    opt.skip_tag_values = true;
    return read_with(&opt, plies);
}

/* --digest: one hash of every batch column under several option sets (validate, export's move
 * rows with comments and FENs, -o's PGN, strict, null moves and truncation; sets 5 and 6 the
 * strict and the lenient options without a move table or PGN, which the one-pass path of
 * replay_move reads), to show that a change of the hot path leaves every output as it was. */
static void print_digests(void)
{
    digesting = true;
    for (int set = 0; set < 9; set++) {
        GameOptions o;
        memset(&o, 0, sizeof o);
        o.replay = true;
        o.fix_results = true;
        o.skip_tag_values = set == 0;
        o.moves = set == 1 || set == 3;
        o.comments = set == 1;
        o.fen_every_ply = set == 1;
        o.final_fen = set >= 1;
        o.pgn = set == 2 || set == 4;
        o.tag_columns = set == 1;
        o.strict = set == 3;
        o.allow_null_moves = set == 4;
        o.repair_truncate = set == 4;
        o.automatic_ends = set == 4 ? AUTO_END_TRUNCATE : set == 3 ? AUTO_END_ENFORCE : AUTO_END_NOTE;
        o.raw_invalid = set == 2;
        if (set >= 5) { /* no move table, no PGN: final FEN, strict (5) or lenient (6) */
            o.moves = o.pgn = o.comments = o.fen_every_ply = false;
            o.tag_columns = true;
            o.strict = set == 5;
            o.allow_null_moves = o.repair_truncate = set == 6;
            o.automatic_ends = set == 5 ? AUTO_END_ENFORCE : AUTO_END_TRUNCATE;
        }
        if (set >= 7) { /* the other recorders: position rows with planes, clock rows, keys every ply
                         * (7: with the move table; 8: the clock rows alone, as stats reads them) */
            static const PositionRowOptions rows = {0, 0, -1, 7, true};
            o.moves = set == 7;
            o.clock_rows = true;
            o.keys_every_ply = set == 7;
            o.pgn = o.comments = o.fen_every_ply = o.strict = false;
            o.allow_null_moves = true;
            o.automatic_ends = AUTO_END_NOTE;
            o.position_rows = set == 7 ? &rows : NULL;
        }
        o.movetext_hash = o.position_hash = o.counters = true; /* (every column: what validate skips too) */
        digest = 1469598103934665603ULL;
        int64_t plies, games = read_with(&o, &plies);
        printf("set %d: %lld games %lld plies digest %016llx\n", set, (long long)games, (long long)plies,
               (unsigned long long)digest);
    }
}

/* The mainline move tokens of every game (depth 0, tags start a game), then their SanMove,
 * move and position before, from a replay with the library's own functions. */
static void collect(void)
{
    Scanner sc;
    Token t;
    memset(&sc, 0, sizeof sc);
    sc.buf = buf, sc.len = buf_len, sc.eof = true, sc.line = 1;
    size_t cap = 1 << 22;
    texts = malloc(cap * sizeof *texts);
    game_first = malloc((1 << 20) * sizeof *game_first);
    int depth = 0;
    bool in_tags = false;
    for (int k; (k = tok_next(&sc, &t)) != TOK_END;) {
        if (k == TOK_TAG) {
            if (!in_tags)
                game_first[n_games++] = n_plies;
            in_tags = true;
            continue;
        }
        in_tags = false;
        if (k == TOK_VAR_OPEN)
            depth++;
        else if (k == TOK_VAR_CLOSE)
            depth--;
        else if (k == TOK_MOVE && depth == 0) {
            texts[n_plies].text = buf + t.a;
            texts[n_plies].len = (uint32_t)t.alen;
            n_plies++;
        }
    }
    game_first[n_games] = n_plies;
    sans = malloc(n_plies * sizeof *sans);
    moves = malloc(n_plies * sizeof *moves);
    before = malloc(n_plies * sizeof *before);
    /* PLY_BUDGET_VARIANT=n: the games are of the variant VARIANT_* n, from its start (the stages
     * past the reader's replay them so; the reader reads each game's Variant tag itself) */
    const char *variant = getenv("PLY_BUDGET_VARIANT");
    for (size_t g = 0; g < n_games; g++) {
        Position p;
        pos_init_start(&p);
        if (variant)
            pos_set_variant(&p, atoi(variant));
        for (size_t i = game_first[g]; i < game_first[g + 1]; i++) {
            before[i] = p;
            int parsed = san_parse(texts[i].text, texts[i].len, &sans[i]);
            if ((parsed != SAN_OK && !(parsed == SAN_DROP && variant)) ||
                san_resolve(&p, &sans[i], &moves[i]) != SAN_OK) {
                fprintf(stderr, "game %zu ply %zu: %.*s does not replay\n", g, i - game_first[g], (int)texts[i].len,
                        texts[i].text);
                exit(1);
            }
            pos_make(&p, moves[i]);
        }
    }
}

static volatile uint64_t sink;

static void stage_tokens(void)
{
    Scanner sc;
    Token t;
    memset(&sc, 0, sizeof sc);
    sc.buf = buf, sc.len = buf_len, sc.eof = true, sc.line = 1;
    uint64_t n = 0;
    while (tok_next(&sc, &t) != TOK_END)
        n++;
    sink += n;
}

static void stage_parse(void)
{
    SanMove sm;
    uint64_t acc = 0;
    for (size_t i = 0; i < n_plies; i++) {
        acc += san_parse(texts[i].text, texts[i].len, &sm);
        acc += sm.to;
    }
    sink += acc;
}

static void stage_resolve(void)
{
    uint64_t acc = 0;
    for (size_t i = 0; i < n_plies; i++) {
        SanMove sm = sans[i];
        move_t m;
        acc += san_resolve(&before[i], &sm, &m) + m;
    }
    sink += acc;
}

/* pos_make along each game from its start (the position stays in cache, as in the reader). */
static void stage_make(void)
{
    uint64_t acc = 0;
    for (size_t g = 0; g < n_games; g++) {
        Position p = before[game_first[g]];
        for (size_t i = game_first[g]; i < game_first[g + 1]; i++)
            pos_make(&p, moves[i]);
        acc += p.hash;
    }
    sink += acc;
}

static void stage_make_status(void)
{
    uint64_t acc = 0;
    for (size_t g = 0; g < n_games; g++) {
        Position p = before[game_first[g]];
        for (size_t i = game_first[g]; i < game_first[g + 1]; i++) {
            pos_make(&p, moves[i]);
            acc += pos_check_status(&p);
        }
        acc += p.hash;
    }
    sink += acc;
}

/* The mainline key and the repetition history, on the hashes of the positions after each ply. */
static void stage_hashing(void)
{
    uint64_t *history = malloc(4096 * sizeof *history), acc = 0;
    for (size_t g = 0; g < n_games; g++) {
        uint64_t key[2];
        int n = 0;
        gh_start(&before[game_first[g]], false, key);
        history[n++] = before[game_first[g]].hash;
        for (size_t i = game_first[g]; i < game_first[g + 1]; i++) {
            const Position *after = i + 1 < game_first[g + 1] ? &before[i + 1] : &before[i];
            gh_move(key, moves[i]);
            if (n < 4096)
                history[n++] = after->hash;
            if (after->halfmove >= 4)
                acc += pos_repetition_count(history, n, after->halfmove);
        }
        acc += key[0];
    }
    free(history);
    sink += acc;
}

static void stage_derived(void)
{
    uint64_t acc = 0;
    for (size_t g = 0; g < n_games; g++) {
        Derived d;
        memset(&d, 0, sizeof d);
        derived_start(&d, &before[game_first[g]], NULL, NULL);
        for (size_t i = game_first[g]; i + 1 < game_first[g + 1]; i++) {
            const Position *after = &before[i + 1];
            bool captured = before[i].board[mv_to(moves[i])] != 0 || mv_type(moves[i]) == MT_EN_PASSANT;
            bool changed = captured || mv_type(moves[i]) == MT_PROMOTION;
            derived_count(&d, after, moves[i], captured, after->checkers != 0);
            derived_reached(&d, after, changed, NULL, NULL);
            if (changed)
                acc += pos_is_insufficient_material(after);
        }
        acc += d.checks + d.captures;
    }
    sink += acc;
}

/* A sampling profiler where perf is not available: SIGPROF every 50 us of CPU time, the
 * interrupted instruction's address written out (resolve with addr2line / nm). */
static uintptr_t samples[1 << 20];
static volatile size_t n_samples;

static void on_prof(int sig, siginfo_t *si, void *ctx)
{
    (void)sig, (void)si;
    if (n_samples < sizeof samples / sizeof *samples)
        samples[n_samples++] = (uintptr_t)((ucontext_t *)ctx)->uc_mcontext.gregs[REG_RIP];
}

static void sample_full(int runs)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_prof;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigaction(SIGPROF, &sa, NULL);
    struct itimerval it = {{0, 50}, {0, 50}};
    setitimer(ITIMER_PROF, &it, NULL);
    for (int k = 0; k < runs; k++)
        sink += run_reader(true, NULL);
    memset(&it, 0, sizeof it);
    setitimer(ITIMER_PROF, &it, NULL);
    FILE *out = fopen("benchmarks/out/samples.txt", "w");
    for (size_t i = 0; i < n_samples; i++)
        fprintf(out, "%lx\n", (unsigned long)samples[i]);
    fclose(out);
    printf("%zu samples in benchmarks/out/samples.txt\n", (size_t)n_samples);
}

static double best_of(void (*f)(void), int runs)
{
    double best = 1e9;
    for (int k = 0; k < runs; k++) {
        double t0 = now();
        f();
        double t = now() - t0;
        if (t < best)
            best = t;
    }
    return best;
}

static void full(void) { sink += run_reader(true, NULL); }
static void scan(void) { sink += run_reader(false, NULL); }

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "../shared/corpora/bench/master-games-30k.pgn";
    int runs = argc > 2 ? atoi(argv[2]) : 7;
    buf = load_file(path, &buf_len);
    int64_t plies;
    int64_t games = run_reader(true, &plies);
    if (runs == 0) { /* --digest */
        print_digests();
        return 0;
    }
    const char *only = getenv("PLY_BUDGET_ONLY"); /* e.g. "full": time that stage alone (callgrind) */
    if (only && strcmp(only, "sample") == 0) {
        sample_full(runs);
        return 0;
    }
    if (only && strcmp(only, "fulltime") == 0) { /* A/B runs: the reader alone, best of RUNS */
        printf("full %.2f ms\n", best_of(full, runs) * 1e3);
        return 0;
    }
    if (only && strcmp(only, "full") == 0) {
        printf("full: %lld games, %lld plies\n", (long long)games, (long long)plies);
        return 0;
    }
    collect();
    printf("%s: %.1f MB, %lld games, %lld plies (reader); %zu games, %zu mainline plies (collected)\n", path,
           buf_len / 1e6, (long long)games, (long long)plies, n_games, n_plies);
    struct {
        const char *name;
        void (*f)(void);
    } stages[] = {{"full", full},       {"scan", scan},         {"tokens", stage_tokens},
                  {"parse", stage_parse}, {"resolve", stage_resolve}, {"make", stage_make},
                  {"make+status", stage_make_status}, {"hashing", stage_hashing}, {"derived", stage_derived}};
    double per_ply = 1e9 / (double)plies;
    printf("%-12s %9s %8s\n", "stage", "ms", "ns/ply");
    for (size_t s = 0; s < sizeof stages / sizeof *stages; s++) {
        double t = best_of(stages[s].f, runs);
        printf("%-12s %9.1f %8.1f\n", stages[s].name, t * 1e3, t * per_ply);
    }
    return 0;
}
