#include "fen_rows.h"

#include <string.h>

static bool kept(const FenRowsInput *in, size_t g)
{
    return in->replayed[g] && (in->include_invalid || in->status[g] != in->invalid_status);
}

static bool wanted(const FenRowsInput *in, int32_t ply)
{
    if (ply < in->first_ply || (in->last_ply >= 0 && ply > in->last_ply))
        return false;
    if (!in->n_plies)
        return true;
    size_t lo = 0, hi = in->n_plies;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (in->plies[mid] < ply)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < in->n_plies && in->plies[lo] == ply;
}

static size_t moves_end(const FenRowsInput *in, size_t g)
{
    return g + 1 < in->n_games ? (size_t)in->move_start[g + 1] : in->n_moves;
}

static size_t length(const FenStrings *s, size_t i)
{
    return (size_t)(s->offsets[i + 1] - s->offsets[i]);
}

/* The final position's move: the game's last recorded one; none without plies or recorded moves
 * (as the Arrow table it replaces took it: the row before the next game's first, from row 0). */
static bool last_move(const FenRowsInput *in, size_t g, size_t *m)
{
    if (in->ply_count[g] <= 0 || !in->n_moves)
        return false;
    size_t end = moves_end(in, g);
    *m = end ? end - 1 : 0;
    return true;
}

FenRowsSize fen_rows_size(const FenRowsInput *in)
{
    FenRowsSize size = {0, 0, 0};
    for (size_t g = 0; g < in->n_games; g++) {
        if (!kept(in, g))
            continue;
        if (!in->every_ply) {
            size_t m = 0;
            size.rows++;
            if (last_move(in, g, &m))
                size.san_bytes += length(&in->san, m);
            size.fen_bytes += length(&in->final_fen, g);
            continue;
        }
        if (wanted(in, 0)) {
            size.rows++;
            size.fen_bytes += length(&in->start_fen, g);
        }
        for (size_t m = (size_t)in->move_start[g], end = moves_end(in, g); m < end; m++) {
            if (!wanted(in, in->ply[m]))
                continue;
            size.rows++;
            size.san_bytes += length(&in->san, m);
            size.fen_bytes += length(&in->fen, m);
        }
    }
    return size;
}

typedef struct {
    int32_t *offsets;
    char *data;
    size_t n;
} Out;

static void put(Out *out, const FenStrings *s, size_t i)
{
    size_t at = (size_t)out->offsets[out->n];
    if (s) {
        size_t len = length(s, i);
        memcpy(out->data + at, s->data + s->offsets[i], len);
        at += len;
    }
    out->offsets[++out->n] = (int32_t)at;
}

void fen_rows_fill(const FenRowsInput *in, int64_t *game_id, int16_t *ply, int32_t *san_offsets, char *san_data,
                   int32_t *fen_offsets, char *fen_data)
{
    Out san = {san_offsets, san_data, 0}, fen = {fen_offsets, fen_data, 0};
    size_t row = 0;
    san_offsets[0] = fen_offsets[0] = 0;
    for (size_t g = 0; g < in->n_games; g++) {
        if (!kept(in, g))
            continue;
        int64_t id = in->ids ? in->ids[g] : in->first_game + (int64_t)g;
        if (!in->every_ply) {
            size_t m = 0;
            bool moved = last_move(in, g, &m); /* (before put's arguments: their order is unspecified) */
            game_id[row] = id;
            ply[row++] = (int16_t)in->ply_count[g];
            put(&san, moved ? &in->san : NULL, m);
            put(&fen, &in->final_fen, g);
            continue;
        }
        if (wanted(in, 0)) {
            game_id[row] = id;
            ply[row++] = 0;
            put(&san, NULL, 0);
            put(&fen, &in->start_fen, g);
        }
        for (size_t m = (size_t)in->move_start[g], end = moves_end(in, g); m < end; m++) {
            if (!wanted(in, in->ply[m]))
                continue;
            game_id[row] = id;
            ply[row++] = in->ply[m];
            put(&san, &in->san, m);
            put(&fen, &in->fen, m);
        }
    }
}
