/* The C cost of validate -o's PGN and to-fen's final FENs over validate (RESULTS.md, issue 23):
 * the master file loaded into memory, then the reader run with each command's options (as the
 * CLI maps them), thread CPU time, best of RUNS, the three interleaved.
 *
 *   validate   validate --summary's options (tag values off)
 *   pgn        validate -o's: the export-format PGN column (tag values on)
 *   fen        to-fen's: the final FEN column
 * ONLY=NAME runs that one alone (for perf).
 *
 * With OUT=FILE, the PGN column of every batch is written to FILE (compare it with the CLI's).
 * Build and run: sh benchmarks/output_budget/run.sh [FILE [RUNS]]  (bench-only). */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "game.h"
#include "game_reader.h"
#include "../bench_input.h"

static char *buf;
static size_t buf_len;
static FILE *dump;

static int64_t read_with(const GameOptions *options)
{
    GameReader *r = gr_new(options);
    Scanner *sc = gr_scanner(r);
    sc->buf = buf;
    sc->len = buf_len;
    sc->eof = true;
    int64_t bytes = 0;
    for (;;) {
        int rc = gr_fill(r);
        Batch *b = gr_batch(r);
        bytes += (int64_t)b->strs[S_PGN].data.len + (int64_t)b->strs[S_FINAL_FEN].data.len;
        if (dump && b->strs[S_PGN].data.len)
            fwrite(b->strs[S_PGN].data.data, 1, b->strs[S_PGN].data.len, dump);
        batch_clear(b);
        if (rc == GR_END)
            break;
        if (rc != GR_FULL) {
            fprintf(stderr, "gr_fill: %d\n", rc);
            exit(1);
        }
    }
    gr_free(r);
    return bytes;
}

static GameOptions options_for(int which)
{
    GameOptions o;
    memset(&o, 0, sizeof o);
    o.replay = true;
    o.fix_results = true;
    o.max_games = 1024;
    o.max_batch_bytes = 1 << 20;
    o.max_errors = 16;
    o.skip_tag_values = which != 1;
    o.pgn = which == 1;
    o.final_fen = which == 2;
    return o;
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "../shared/corpora/bench/master-games-30k.pgn";
    int runs = argc > 2 ? atoi(argv[2]) : 11;
    buf = load_file(path, &buf_len);
    const char *out = getenv("OUT");
    if (out) {
        dump = fopen(out, "wb");
        GameOptions o = options_for(1);
        read_with(&o);
        fclose(dump);
        return 0;
    }
    const char *names[3] = {"validate", "pgn", "fen"};
    const char *only = getenv("ONLY"); /* one of the names: that reader alone (for perf) */
    double best[3] = {1e9, 1e9, 1e9};
    int64_t bytes[3] = {0};
    for (int k = 0; k < runs; k++)
        for (int w = 0; w < 3; w++) {
            if (only && strcmp(only, names[w]) != 0)
                continue;
            GameOptions o = options_for(w);
            double t0 = now();
            bytes[w] = read_with(&o);
            double t = now() - t0;
            if (t < best[w])
                best[w] = t;
        }
    for (int w = 0; w < 3; w++)
        printf("%-9s %7.1f ms  (+%5.1f ms over validate; %lld bytes out)\n", names[w], best[w] * 1e3,
               (best[w] - best[0]) * 1e3, (long long)bytes[w]);
    return 0;
}
