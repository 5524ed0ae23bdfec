#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "openings.h"
#include "san.h"

/* A position as the table compares it: the pieces, the side to move, the castling rooks and the
 * en-passant square when a capture is legal (EPD without the counters). No padding is left
 * uninitialised: two equal positions are equal bytes. */
typedef struct {
    bb_t bb[8]; /* by_color[WHITE], by_color[BLACK], by_type[PAWN..KING] */
    uint8_t turn, ep, castle[4], pad[2];
} Signature;

typedef struct {
    uint64_t key;
    int32_t row; /* -1: empty */
} Slot;

struct OpeningTable {
    OpeningFilter filter; /* first: openings_may_name reads it inline */
    size_t n_rows;
    Signature *sigs;   /* by row */
    uint32_t *text_at; /* by row: eco at text_at[2 row], name at text_at[2 row + 1]; ends at the next */
    char *text;
    Slot *slots;       /* open addressing, at most half full */
    size_t mask;
};

/* The en-passant square when a capture is legal, else NO_SQ. ep_hashed is set at least when
 * one is (whether the key counts it when the capture is legal, as ours, or possible, as
 * Polyglot's): the move generation runs only then, after few double steps. */
static int legal_ep(const Position *p)
{
    return p->ep != NO_SQ && p->ep_hashed && pos_has_legal_ep(p) ? p->ep : NO_SQ;
}

static void signature(const Position *p, Signature *s)
{
    s->bb[0] = p->by_color[WHITE];
    s->bb[1] = p->by_color[BLACK];
    for (int t = PAWN; t <= KING; t++)
        s->bb[t + 1] = p->by_type[t];
    s->turn = p->turn;
    s->ep = legal_ep(p);
    s->castle[0] = p->castle[WHITE][0];
    s->castle[1] = p->castle[WHITE][1];
    s->castle[2] = p->castle[BLACK][0];
    s->castle[3] = p->castle[BLACK][1];
    s->pad[0] = s->pad[1] = 0;
}

static int find(const OpeningTable *t, const Signature *s, uint64_t key)
{
    for (size_t i = key & t->mask;; i = (i + 1) & t->mask) {
        const Slot *slot = &t->slots[i];
        if (slot->row < 0)
            return -1;
        if (slot->key == key && memcmp(&t->sigs[slot->row], s, sizeof *s) == 0)
            return slot->row;
    }
}

int openings_find(const OpeningTable *t, const Position *p, uint64_t key)
{
    if (!openings_may_name(t, key))
        return -1;
    for (size_t i = key & t->mask;; i = (i + 1) & t->mask) { /* most plies: one empty slot */
        const Slot *slot = &t->slots[i];
        if (slot->row < 0)
            return -1;
        if (slot->key == key) { /* the whole position compared only now */
            Signature s;
            signature(p, &s);
            return find(t, &s, key);
        }
    }
}

bool openings_is_start(const Position *p)
{
    Position start;
    Signature a, b;
    pos_init_start(&start);
    signature(p, &a);
    signature(&start, &b);
    return memcmp(&a, &b, sizeof a) == 0;
}

size_t openings_count(const OpeningTable *t) { return t->n_rows; }

void openings_row(const OpeningTable *t, int row, const char **eco, size_t *eco_len, const char **name,
                  size_t *name_len)
{
    const uint32_t *at = t->text_at + 2 * (size_t)row;
    *eco = t->text + at[0];
    *eco_len = at[1] - at[0];
    *name = t->text + at[1];
    *name_len = at[2] - at[1];
}

void openings_free(OpeningTable *t)
{
    if (!t)
        return;
    free(t->sigs);
    free(t->text_at);
    free(t->text);
    free(t->slots);
    free(t);
}

/* The line played before, for the next line that starts alike (most do: the table lists an
 * opening's lines one after another): its moves' text, where each of its first PREFIX_PLIES move
 * tokens ends there, and the position after each. */
enum { PREFIX_PLIES = 24 };
typedef struct {
    const char *text;
    size_t len, end[PREFIX_PLIES];
    int plies;
    Position after[PREFIX_PLIES];
} LinePrefix;

/* The most moves of prev the line s (n bytes) starts with, whole tokens (0: none). */
static int shared_plies(const LinePrefix *prev, const char *s, size_t n)
{
    size_t same = 0, most = prev->len < n ? prev->len : n;
    while (same < most && s[same] == prev->text[same])
        same++;
    int k = prev->plies;
    while (k > 0 && !(prev->end[k - 1] < same || (prev->end[k - 1] == same && (same == n || s[same] == ' '))))
        k--;
    return k;
}

/* The position after a line's moves ("1. e4 e5 2. Nf3"): false at a move that is not legal. The
 * moves it shares with the line before (prev) are not played again; prev becomes this line. */
static bool play_line(const char *s, size_t n, Position *p, size_t *bad_at, size_t *bad_len, LinePrefix *prev)
{
    int ply = shared_plies(prev, s, n);
    size_t i = 0;
    if (ply) {
        *p = prev->after[ply - 1];
        i = prev->end[ply - 1];
    } else {
        pos_init_start(p);
    }
    prev->text = s, prev->len = n, prev->plies = ply;
    while (i < n) {
        while (i < n && s[i] == ' ')
            i++;
        size_t a = i;
        bool number = true;
        while (i < n && s[i] != ' ') {
            number &= (s[i] >= '0' && s[i] <= '9') || s[i] == '.';
            i++;
        }
        if (i == a || number)
            continue;
        move_t m;
        uint16_t notes;
        if (san_to_move(p, s + a, i - a, &m, &notes) != SAN_OK) {
            *bad_at = a, *bad_len = i - a;
            prev->plies = 0;
            return false;
        }
        pos_make(p, m);
        if (ply < PREFIX_PLIES) {
            prev->end[ply] = i;
            prev->after[ply] = *p;
            prev->plies = ++ply;
        }
    }
    return true;
}

static const char *field_end(const char *s, const char *end)
{
    const char *tab = memchr(s, '\t', (size_t)(end - s));
    return tab ? tab : end;
}

OpeningTable *openings_build(const char *text, size_t len, char *err, size_t err_len)
{
    OpeningTable *t = calloc(1, sizeof *t);
    size_t lines = 0;
    for (size_t i = 0; i < len; i++)
        lines += text[i] == '\n';
    lines++;
    size_t slots = 16;
    while (slots < 2 * lines)
        slots *= 2;
    if (t) {
        t->sigs = malloc(lines * sizeof *t->sigs);
        t->text_at = malloc((2 * lines + 1) * sizeof *t->text_at);
        t->text = malloc(len + 1);
        t->slots = malloc(slots * sizeof *t->slots);
        t->mask = slots - 1;
    }
    if (!t || !t->sigs || !t->text_at || !t->text || !t->slots || len > UINT32_MAX) {
        snprintf(err, err_len, "out of memory");
        openings_free(t);
        return NULL;
    }
    for (size_t i = 0; i < slots; i++)
        t->slots[i].row = -1;
    size_t used = 0, line_no = 0;
    LinePrefix *prev = calloc(1, sizeof *prev);
    if (!prev) {
        snprintf(err, err_len, "out of memory");
        openings_free(t);
        return NULL;
    }
    for (const char *line = text, *end = text + len; line < end; line_no++) {
        const char *eol = memchr(line, '\n', (size_t)(end - line));
        eol = eol ? eol : end;
        const char *next = eol < end ? eol + 1 : end;
        if (eol > line && eol[-1] == '\r')
            eol--;
        if (eol == line || (eol - line >= 4 && memcmp(line, "eco\t", 4) == 0)) { /* blank, or a header */
            line = next;
            continue;
        }
        const char *eco_end = field_end(line, eol);
        const char *name = eco_end < eol ? eco_end + 1 : eol;
        const char *name_end = field_end(name, eol);
        const char *moves = name_end < eol ? name_end + 1 : eol;
        Position p;
        size_t bad_at = 0, bad_len = 0;
        bool ok = eco_end > line && name_end > name && moves < eol;
        if (!ok)
            snprintf(err, err_len, "line %zu: not eco<TAB>name<TAB>moves", line_no + 1);
        else if (!(ok = play_line(moves, (size_t)(eol - moves), &p, &bad_at, &bad_len, prev)))
            snprintf(err, err_len, "line %zu: %.*s is not a legal move there", line_no + 1, (int)bad_len,
                     moves + bad_at);
        Signature s;
        if (ok) {
            signature(&p, &s);
            if (find(t, &s, openings_key(&p)) >= 0) {
                snprintf(err, err_len, "line %zu: its position is named by an earlier line", line_no + 1);
                ok = false;
            }
        }
        if (!ok) {
            free(prev);
            openings_free(t);
            return NULL;
        }
        size_t row = t->n_rows++;
        t->sigs[row] = s;
        uint64_t key = openings_key(&p);
        size_t i = key & t->mask;
        while (t->slots[i].row >= 0)
            i = (i + 1) & t->mask;
        t->slots[i].key = key;
        t->filter.bits[key >> 53] |= 1ULL << ((key >> 47) & 63);
        t->slots[i].row = (int32_t)row;
        t->text_at[2 * row] = (uint32_t)used;
        memcpy(t->text + used, line, (size_t)(eco_end - line));
        used += (size_t)(eco_end - line);
        t->text_at[2 * row + 1] = (uint32_t)used;
        memcpy(t->text + used, name, (size_t)(name_end - name));
        used += (size_t)(name_end - name);
        line = next;
    }
    t->text_at[2 * t->n_rows] = (uint32_t)used;
    free(prev);
    return t;
}
