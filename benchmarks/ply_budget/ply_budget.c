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
 *   derived   derived_move and the insufficient-material test after captures
 *
 * Build and run: sh benchmarks/ply_budget/run.sh [FILE]  (bench-only; not part of the package). */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "game.h"
#include "game_hash.h"
#include "game_reader.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts); /* CPU time: the machine is shared */
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

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

static int64_t run_reader(bool replay, int64_t *plies)
{
    GameOptions opt;
    memset(&opt, 0, sizeof opt);
    opt.replay = replay;
    opt.fix_results = true;
    opt.skip_tag_values = true;
    GameReader *r = gr_new(&opt);
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
    for (size_t g = 0; g < n_games; g++) {
        Position p;
        pos_init_start(&p);
        for (size_t i = game_first[g]; i < game_first[g + 1]; i++) {
            before[i] = p;
            if (san_parse(texts[i].text, texts[i].len, &sans[i]) != SAN_OK ||
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
            derived_move(&d, after, moves[i], captured, after->checkers != 0, changed, NULL, NULL);
            if (changed)
                acc += pos_is_insufficient_material(after);
        }
        acc += d.checks + d.captures;
    }
    sink += acc;
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
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return 2;
    }
    fseek(f, 0, SEEK_END);
    buf_len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc(buf_len + 1);
    if (fread(buf, 1, buf_len, f) != buf_len)
        return 2;
    fclose(f);
    int64_t plies;
    int64_t games = run_reader(true, &plies);
    const char *only = getenv("PLY_BUDGET_ONLY"); /* e.g. "full": time that stage alone (callgrind) */
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
