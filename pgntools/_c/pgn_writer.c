#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fen.h"
#include "pgn_writer.h"

static inline bool put(ByteVec *v, const char *s, size_t n)
{
    if (n == 0) /* v->data may still be NULL: NULL + 0 and memcpy(NULL, ...) are undefined */
        return true;
    if (v->len + n > v->cap && !VEC_RESERVE(*v, n))
        return false;
    memcpy(v->data + v->len, s, n);
    v->len += n;
    return true;
}

/* Text of a game that is not UTF-8, as UTF-8: read as Windows-1252, which such files are (ChessBase
 * and other Windows exports): Latin-1 but for 0x80-0x9F, where Latin-1 has control characters that
 * no PGN means and Windows-1252 has the curly quotes, dashes, the euro sign, ... (its 5 unassigned
 * bytes stay the controls, as the WHATWG decoder reads them). */
static const uint16_t CP1252_80_9F[32] = {
    0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160,
    0x2039, 0x0152, 0x008D, 0x017D, 0x008F, 0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022,
    0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178,
};

bool bytes_add_text(ByteVec *v, const char *s, size_t n, bool latin1)
{
    if (!latin1)
        return put(v, s, n);
    if (!VEC_RESERVE(*v, 3 * n))
        return false;
    for (size_t i = 0; i < n; i++) {
        unsigned c = (unsigned char)s[i];
        if (c >= 0x80 && c < 0xA0)
            c = CP1252_80_9F[c - 0x80];
        if (c < 0x80) {
            v->data[v->len++] = (char)c;
        } else if (c < 0x800) {
            v->data[v->len++] = (char)(0xC0 | (c >> 6));
            v->data[v->len++] = (char)(0x80 | (c & 0x3F));
        } else {
            v->data[v->len++] = (char)(0xE0 | (c >> 12));
            v->data[v->len++] = (char)(0x80 | ((c >> 6) & 0x3F));
            v->data[v->len++] = (char)(0x80 | (c & 0x3F));
        }
    }
    return true;
}

bool bytes_add_escaped(ByteVec *v, const char *s, size_t n)
{
    if (!VEC_RESERVE(*v, 2 * n))
        return false;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\\' || s[i] == '"')
            v->data[v->len++] = '\\';
        v->data[v->len++] = s[i];
    }
    return true;
}

void em_init(Emitter *e, ByteVec *out)
{
    memset(e, 0, sizeof *e);
    e->out = out;
    e->max_line = PGN_MAX_LINE;
}

void em_shape(Emitter *e, unsigned shape, int line_length)
{
    e->shape = shape;
    e->max_line = line_length > 0 ? line_length : line_length < 0 ? INT_MAX : PGN_MAX_LINE;
}

void em_window(Emitter *e, int drop_plies, int max_plies)
{
    e->drop_plies = drop_plies > 0 ? drop_plies : 0;
    e->max_plies = max_plies == 0 ? INT_MAX : max_plies < 0 ? 0 : max_plies; /* (GameOptions' convention) */
    e->windowed = e->drop_plies > 0 || e->max_plies != INT_MAX;
}

void em_free(Emitter *e) { (void)e; }

void em_reset(Emitter *e, ByteVec *out)
{
    e->out = out;
    e->unit_at = out->len;
    e->col = 0;
    e->open_parens = 0;
    e->in_unit = false;
    e->failed = false;
    e->muted = e->drop_plies > 0; /* (what comes before the first move: with it) */
    e->has_start = e->has_last = false;
}

/* A comment word starting with '[' must not start a line: '[Event "x"]' there reads as a tag
 * line, which ends the comment (the reader's guard against an unclosed '{'): one space before it. */
void em_wrap_bracket(Emitter *e)
{
    ByteVec *v = e->out;
    size_t n = v->len - e->unit_at;
    if (!em_room(e, 1))
        return;
    memmove(v->data + e->unit_at + 1, v->data + e->unit_at, n);
    v->data[e->unit_at] = ' ';
    v->len++;
    e->col++;
}

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

/* A comment's text with each '}' as ')' and each '{' that a '}' closes as '(' (nested braces,
 * { a { b } c }, read to the matching '}'): a brace comment cannot hold a '}', and parentheses
 * keep the nesting readable; a '{' alone may stand and stays. NULL when out of memory. */
static char *braces_as_parentheses(const char *s, size_t n)
{
    char *copy = malloc(n ? n : 1);
    size_t *open = malloc((n ? n : 1) * sizeof *open), depth = 0;
    if (copy && open) {
        memcpy(copy, s, n);
        for (size_t i = 0; i < n; i++) {
            if (s[i] == '{') {
                open[depth++] = i;
            } else if (s[i] == '}') {
                copy[i] = ')';
                if (depth > 0)
                    copy[open[--depth]] = '(';
            }
        }
    } else {
        free(copy);
        copy = NULL;
    }
    free(open);
    return copy;
}

void em_comment(Emitter *e, const char *s, size_t n, bool latin1)
{
    if (e->muted)
        return;
    char *mapped = memchr(s, '}', n) ? braces_as_parentheses(s, n) : NULL;
    if (mapped)
        s = mapped;
    bool first = true;
    size_t i = 0;
    for (;;) {
        while (i < n && is_space(s[i]))
            i++;
        if (i >= n)
            break;
        size_t start = i;
        while (i < n && !is_space(s[i]) && s[i] != '}')
            i++;
        if (i == start) { /* a '}' left (no memory to map it): a brace comment cannot hold it, drop it */
            i++;
            continue;
        }
        if (first)
            em_unit(e, "{", 1);
        else
            em_unit(e, "", 0);
        e->failed |= !bytes_add_text(e->out, s + start, i - start, latin1);
        first = false;
    }
    if (first)
        em_unit(e, "{", 1);
    em_append(e, "}", 1);
    free(mapped);
}

void em_nag(Emitter *e, int nag)
{
    if (e->shape & PGN_STRIP_NAGS || e->muted)
        return;
    char buf[16];
    buf[0] = '$';
    em_unit(e, buf, 1 + format_uint(buf + 1, (uint32_t)nag));
}

void em_open_variation(Emitter *e) { e->open_parens += !e->muted; }

void em_close_variation(Emitter *e)
{
    if (e->muted)
        return;
    if (e->open_parens > 0) { /* an empty variation "()" */
        e->open_parens--;
        em_unit(e, "()", 2);
        return;
    }
    em_append(e, ")", 1);
}

/* A key as 16 lowercase hex digits, as printf's %016llx writes it (without its format parsing, at every ply) */
static size_t key_hex(char *out, uint64_t key)
{
    for (int i = 15; i >= 0; i--, key >>= 4)
        out[i] = "0123456789abcdef"[key & 15];
    return 16;
}

void em_position_comments(Emitter *e, const Position *after, int fen_options)
{
    char text[FEN_MAX + 24];
    if (e->shape & PGN_FEN_COMMENTS)
        em_comment(e, text, (size_t)fen_format(after, text, fen_options), false);
    if (e->shape & PGN_KEY_COMMENTS)
        em_comment(e, text, key_hex(text, pos_key(after)), false);
}

size_t pgn_lan(char *out, int piece, int from, int to, bool capture, int promo, bool castle)
{
    if (castle) { /* (to: the rook's square; kingside when it is on the king's right) */
        bool king_side = FILE_OF(to) > FILE_OF(from);
        memcpy(out, king_side ? "O-O" : "O-O-O", king_side ? 3 : 5);
        return king_side ? 3 : 5;
    }
    size_t n = 0;
    if (piece != PAWN)
        out[n++] = "?PNBRQK"[piece];
    out[n++] = (char)('a' + FILE_OF(from));
    out[n++] = (char)('1' + RANK_OF(from));
    out[n++] = capture ? 'x' : '-';
    out[n++] = (char)('a' + FILE_OF(to));
    out[n++] = (char)('1' + RANK_OF(to));
    if (promo) {
        out[n++] = '=';
        out[n++] = "?PNBRQK"[promo];
    }
    return n;
}

void em_finish(Emitter *e)
{
    int parens = e->open_parens; /* '(' that no unit followed: on the last one */
    e->open_parens = 0;
    for (; parens > 0; parens--)
        em_append(e, "(", 1);
    if (e->in_unit)
        em_end_unit(e);
}

/* ---------------------------------------------------------------- the tag section */

static const char *const SEVEN_TAGS[7] = {"Event", "Site", "Date", "Round", "White", "Black", "Result"};
static const char *const SEVEN_DEFAULTS[7] = {"?", "?", "????.??.??", "?", "?", "?", ""};
static const uint8_t SEVEN_LENS[7] = {5, 4, 4, 5, 5, 5, 6};

static size_t str_len(const StrCol *c, size_t i) { return (size_t)(c->offsets.data[i + 1] - c->offsets.data[i]); }
static const char *str_at(const StrCol *c, size_t i) { return c->data.data + c->offsets.data[i]; }

/* Which of the Seven Tag Roster a name is (0-6), or -1: by its length and first letter, then
 * one compare. */
static int roster_index(const char *s, size_t n)
{
    int k;
    switch (n) {
    case 4: k = s[0] == 'S' ? 1 : s[0] == 'D' ? 2 : -1; break;
    case 5: k = s[0] == 'E' ? 0 : s[0] == 'R' ? 3 : s[0] == 'W' ? 4 : s[0] == 'B' ? 5 : -1; break;
    case 6: k = s[0] == 'R' ? 6 : -1; break;
    default: return -1;
    }
    return k >= 0 && memcmp(s, SEVEN_TAGS[k], n) == 0 ? k : -1;
}

static bool name_is(const StrCol *c, size_t i, const char *name, size_t len)
{
    return str_len(c, i) == len && memcmp(str_at(c, i), name, len) == 0;
}

/* Byte order of a name against row i's name (a prefix sorts first). */
static int name_cmp(const char *name, size_t len, const StrCol *c, size_t i)
{
    size_t b = str_len(c, i);
    int d = memcmp(name, str_at(c, i), len < b ? len : b);
    return d ? d : (len > b) - (len < b);
}

/* Byte order of strings i and j of a column (a prefix sorts first). */
static int str_cmp(const StrCol *c, size_t i, size_t j) { return name_cmp(str_at(c, i), str_len(c, i), c, j); }

/* Sorts rows by their name: insertion sort for a few, merged halves for many (a game may have
 * 200,000 tags: insertion sort alone made that n^2, minutes). `tmp` has room for n rows. */
static void sort_by_name(const StrCol *names, size_t *rows, size_t *tmp, size_t n)
{
    if (n <= 16) {
        for (size_t k = 1; k < n; k++) {
            size_t row = rows[k], j = k;
            for (; j > 0 && str_cmp(names, rows[j - 1], row) > 0; j--)
                rows[j] = rows[j - 1];
            rows[j] = row;
        }
        return;
    }
    size_t half = n / 2, a = 0, b = half, k = 0;
    sort_by_name(names, rows, tmp, half);
    sort_by_name(names, rows + half, tmp, n - half);
    while (a < half && b < n)
        tmp[k++] = str_cmp(names, rows[b], rows[a]) < 0 ? rows[b++] : rows[a++];
    while (a < half)
        tmp[k++] = rows[a++];
    while (b < n)
        tmp[k++] = rows[b++];
    memcpy(rows, tmp, n * sizeof *rows);
}

/* The room a tag line takes at most (its value escaped). */
static size_t tag_room(size_t name_len, size_t value_len) { return name_len + 2 * value_len + 6; }

/* Writes [name "value"] and a line end at o (room from tag_room); returns the end. */
static char *put_tag(char *o, const char *name, size_t nlen, const char *value, size_t vlen)
{
    *o++ = '[';
    memcpy(o, name, nlen);
    o += nlen;
    *o++ = ' ';
    *o++ = '"';
    for (size_t i = 0; i < vlen; i++) {
        char c = value[i];
        if (c == '\\' || c == '"')
            *o++ = '\\';
        *o++ = c;
    }
    memcpy(o, "\"]\n", 3);
    return o + 3;
}

/* Tag pairs by name and value columns [first, first + count): the Seven Tag Roster in order
 * (missing ones as ? and ????.??.??; Result as given), then the other tags in ASCII order
 * (only FEN, SetUp and Variant in the reduced format: the game cannot be read without them), a
 * SetUp "1" added beside a FEN that lacked it. The room for all of it is reserved once, then
 * written without further checks. */
bool pgn_write_game(ByteVec *out, const StrCol *names, const StrCol *values, size_t first, size_t count,
                    const char *result, bool add_setup, bool reduced, bool no_tags, const ByteVec *movetext,
                    const PgnTag *extra, size_t n_extra)
{
    if (no_tags) { /* the movetext alone, and the blank line that ends the game */
        if (!VEC_RESERVE(*out, movetext->len + 2))
            return false;
        if (movetext->len)
            memcpy(out->data + out->len, movetext->data, movetext->len);
        memcpy(out->data + out->len + movetext->len, "\n\n", 2);
        out->len += movetext->len + 2;
        return true;
    }
    bool keep_extra[8] = {false};
    PgnTag needed[8]; /* the reduced format keeps the extras a game cannot be read without: FEN, SetUp */
    if (n_extra > sizeof keep_extra)
        n_extra = 0;
    if (reduced) {
        size_t k = 0;
        for (size_t e = 0; e < n_extra; e++)
            if ((extra[e].name_len == 3 && memcmp(extra[e].name, "FEN", 3) == 0) ||
                (extra[e].name_len == 5 && memcmp(extra[e].name, "SetUp", 5) == 0))
                needed[k++] = extra[e];
        extra = needed;
        n_extra = k;
    }
    for (size_t e = 0; e < n_extra; e++) { /* an extra tag the game has is kept out unless it replaces */
        keep_extra[e] = true;
        for (size_t i = first; i < first + count && !extra[e].replace; i++)
            if (name_is(names, i, extra[e].name, extra[e].name_len))
                keep_extra[e] = false;
    }
    size_t small[2 * 64], *order = count <= 64 ? small : malloc(2 * count * sizeof *order); /* + sort room */
    size_t n_other = 0;
    if (!order)
        return false;
    const char *roster[7];
    size_t roster_len[7], room = movetext->len + 3;
    for (int s = 0; s < 7; s++) {
        roster[s] = s == 6 ? result : SEVEN_DEFAULTS[s];
        roster_len[s] = strlen(roster[s]);
    }
    for (size_t i = first; i < first + count; i++) {
        const char *name = str_at(names, i);
        size_t len = str_len(names, i);
        int s = roster_index(name, len);
        if (s >= 0) {
            if (s < 6) { /* (the last of a name wins) */
                roster[s] = str_at(values, i);
                roster_len[s] = str_len(values, i);
            }
            continue;
        }
        bool replaced = false;
        for (size_t e = 0; e < n_extra; e++)
            replaced |= extra[e].replace && len == extra[e].name_len && memcmp(name, extra[e].name, len) == 0;
        if (replaced || (reduced && !name_is(names, i, "FEN", 3) && !name_is(names, i, "SetUp", 5) &&
                         !name_is(names, i, "Variant", 7)))
            continue;
        order[n_other++] = i;
        room += tag_room(len, str_len(values, i));
    }
    for (int s = 0; s < 7; s++)
        room += tag_room(SEVEN_LENS[s], roster_len[s]);
    for (size_t e = 0; e < n_extra; e++)
        room += keep_extra[e] ? tag_room(extra[e].name_len, extra[e].value_len) : 0;
    room += add_setup ? tag_room(5, 1) : 0;
    if (!VEC_RESERVE(*out, room)) {
        if (order != small)
            free(order);
        return false;
    }
    char *o = out->data + out->len;
    for (int s = 0; s < 7; s++)
        o = put_tag(o, SEVEN_TAGS[s], SEVEN_LENS[s], roster[s], roster_len[s]);
    sort_by_name(names, order, order + count, n_other);
    size_t next_extra = 0;
    for (size_t k = 0; k < n_other; k++) {
        size_t i = order[k];
        const char *name = str_at(names, i);
        size_t len = str_len(names, i);
        for (; next_extra < n_extra && name_cmp(extra[next_extra].name, extra[next_extra].name_len, names, i) < 0;
             next_extra++)
            if (keep_extra[next_extra])
                o = put_tag(o, extra[next_extra].name, extra[next_extra].name_len, extra[next_extra].value,
                            extra[next_extra].value_len);
        int cmp = memcmp(name, "SetUp", len < 5 ? len : 5);
        if (add_setup && (cmp > 0 || (cmp == 0 && len > 5))) { /* "SetUp" sorts before "SetUpX" too */
            o = put_tag(o, "SetUp", 5, "1", 1);
            add_setup = false;
        }
        o = put_tag(o, name, len, str_at(values, i), str_len(values, i));
    }
    for (; next_extra < n_extra; next_extra++) /* (the extras sort before SetUp: E, O < S) */
        if (keep_extra[next_extra])
            o = put_tag(o, extra[next_extra].name, extra[next_extra].name_len, extra[next_extra].value,
                        extra[next_extra].value_len);
    if (add_setup)
        o = put_tag(o, "SetUp", 5, "1", 1);
    if (order != small)
        free(order);
    *o++ = '\n';
    if (movetext->len)
        memcpy(o, movetext->data, movetext->len);
    o += movetext->len;
    memcpy(o, "\n\n", 2);
    out->len = (size_t)(o + 2 - out->data);
    return true;
}
