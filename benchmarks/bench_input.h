/* What the C benchmark drivers (ply_budget, output_budget) share: thread CPU time, and the input
 * file read into memory once (so each timed run reads no file). Header-only: each driver is one
 * translation unit built by its run.sh. */
#ifndef PGNTOOLS_BENCH_INPUT_H
#define PGNTOOLS_BENCH_INPUT_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts); /* CPU time: the machine is shared */
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The whole file at `path` in a malloc'ed buffer (*len bytes); exits 2 when it cannot be read. */
static char *load_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        exit(2);
    }
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    char *data = malloc(*len + 1);
    if (!data || fread(data, 1, *len, f) != *len) {
        fprintf(stderr, "%s: could not read it\n", path);
        exit(2);
    }
    fclose(f);
    return data;
}

#endif
