#include "pgn_writer.h"

static inline bool put(ByteVec *v, const char *s, size_t n)
{
    if (v->len + n > v->cap && !VEC_RESERVE(*v, n))
        return false;
    memcpy(v->data + v->len, s, n);
    v->len += n;
    return true;
}

bool bytes_add_text(ByteVec *v, const char *s, size_t n, bool latin1)
{
    if (!latin1)
        return put(v, s, n);
    if (!VEC_RESERVE(*v, 2 * n))
        return false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x80) {
            v->data[v->len++] = (char)c;
        } else {
            v->data[v->len++] = (char)(0xC0 | (c >> 6));
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
}

void em_free(Emitter *e) { VEC_FREE(e->unit); }

void em_reset(Emitter *e, ByteVec *out)
{
    e->out = out;
    e->unit.len = 0;
    e->col = 0;
    e->open_parens = 0;
    e->failed = false;
}

static void flush_unit(Emitter *e)
{
    size_t n = e->unit.len;
    if (n == 0)
        return;
    if (e->col > 0) {
        bool wrap = e->col + 1 + (int)n > PGN_MAX_LINE;
        e->failed |= !put(e->out, wrap ? "\n" : " ", 1);
        e->col = wrap ? 0 : e->col + 1;
    }
    e->failed |= !put(e->out, e->unit.data, n);
    e->col += (int)n;
    e->unit.len = 0;
}

void em_unit(Emitter *e, const char *s, size_t n)
{
    flush_unit(e);
    for (; e->open_parens > 0; e->open_parens--)
        e->failed |= !put(&e->unit, "(", 1);
    e->failed |= !put(&e->unit, s, n);
}

void em_append(Emitter *e, const char *s, size_t n) { e->failed |= !put(&e->unit, s, n); }

void em_move_number(Emitter *e, uint32_t fullmove, bool black)
{
    char buf[16];
    size_t n = format_uint(buf, fullmove);
    memcpy(buf + n, "...", 3);
    em_unit(e, buf, n + (black ? 3 : 1));
}

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

void em_comment(Emitter *e, const char *s, size_t n, bool latin1)
{
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
        if (i == start) { /* a '}' cannot appear inside a brace comment: drop it */
            i++;
            continue;
        }
        if (first)
            em_unit(e, "{", 1);
        else
            em_unit(e, "", 0);
        e->failed |= !bytes_add_text(&e->unit, s + start, i - start, latin1);
        first = false;
    }
    if (first)
        em_unit(e, "{", 1);
    em_append(e, "}", 1);
}

void em_nag(Emitter *e, int nag)
{
    char buf[16];
    buf[0] = '$';
    em_unit(e, buf, 1 + format_uint(buf + 1, (uint32_t)nag));
}

void em_open_variation(Emitter *e) { e->open_parens++; }

void em_close_variation(Emitter *e)
{
    if (e->open_parens > 0) { /* an empty variation "()" */
        e->open_parens--;
        em_unit(e, "()", 2);
        return;
    }
    em_append(e, ")", 1);
}

void em_finish(Emitter *e)
{
    for (; e->open_parens > 0; e->open_parens--)
        e->failed |= !put(&e->unit, "(", 1);
    flush_unit(e);
}
