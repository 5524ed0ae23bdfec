#include <string.h>

#include "tokenizer.h"

/* Bytes that end a move-like word. */
static const char *const DELIMITERS = "{}();$[]!?\"\x7f";
static bool DELIM[256], SPACE[256], TAG_NAME[256];
uint8_t tok_class[256];

void tok_init(void)
{
    static bool done = false;
    if (done)
        return;
    for (int c = 0; c <= ' '; c++)
        DELIM[c] = true;
    for (const char *d = DELIMITERS; *d; d++)
        DELIM[(unsigned char)*d] = true;
    for (const char *c = " \t\n\r\f\v"; *c; c++)
        SPACE[(unsigned char)*c] = true;
    for (int c = 0; c < 256; c++) {
        TAG_NAME[c] = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
                      c == '+' || c == '#' || c == '=' || c == ':' || c == '-';
        bool word = c >= 'A' && !DELIM[c] && c != '[' && c != ']' && c != '{' && c != '}' && c != 0xEF;
        tok_class[c] = (uint8_t)((DELIM[c] ? TOKC_DELIM : 0) | (word ? TOKC_WORD : 0) |
                                 (c >= '1' && c <= '9' ? TOKC_DIGIT : 0));
    }
    done = true;
}

static inline bool is_delim(unsigned char c) { return DELIM[c]; }

static inline bool is_tag_name_char(unsigned char c) { return TAG_NAME[c]; }

static inline void new_line(Scanner *s, size_t next)
{
    s->line++;
    s->line_start_abs = s->base + (int64_t)next;
}

/* Advances over buf[pos..end) counting LF, CRLF and lone CR as line ends. */
void tok_skip_to(Scanner *s, size_t end)
{
    const char *b = s->buf;
    for (size_t i = s->pos; i < end; i++) {
        if (b[i] == '\n')
            new_line(s, i + 1);
        else if (b[i] == '\r' && (i + 1 >= s->len || b[i + 1] != '\n'))
            new_line(s, i + 1);
    }
    s->pos = end;
}

bool tok_looks_like_tag(const Scanner *s, size_t i, bool *need_more)
{
    const char *b = s->buf;
    *need_more = false;
    if (i >= s->len || b[i] != '[')
        return false;
    size_t j = i + 1;
    while (j < s->len && (b[j] == ' ' || b[j] == '\t'))
        j++;
    size_t name = j;
    while (j < s->len && is_tag_name_char((unsigned char)b[j]))
        j++;
    if (j == name) {
        *need_more = j >= s->len && !s->eof;
        return false;
    }
    while (j < s->len && (b[j] == ' ' || b[j] == '\t'))
        j++;
    if (j >= s->len) {
        *need_more = !s->eof;
        return false;
    }
    return b[j] == '"';
}

/* Ends a token that may span lines (comments, bad tags, stray text). */
static int finish(Scanner *s, Token *t, int kind, size_t end)
{
    t->kind = kind;
    t->len = end - t->start;
    tok_skip_to(s, end);
    s->last_token_line = s->line;
    return kind;
}

/* Ends a token that never contains a line end. */
static inline int finish_on_line(Scanner *s, Token *t, int kind, size_t end)
{
    t->kind = kind;
    t->len = end - t->start;
    s->pos = end;
    s->last_token_line = s->line;
    return kind;
}

void tok_unread(Scanner *s, const Token *t)
{
    s->pos = t->start;
    s->line = t->line;
    s->line_start_abs = t->line_at;
    s->last_token_line = t->line_start ? t->line - 1 : t->line;
}

/* Where a tag value starting at b[i] stops: at its closing quote (a backslash escapes the byte
 * after it), at the first line end, escaped or not (no closing quote on this line), or at n.
 * Tag values are short: one pass over the bytes beats a memchr per kind of stop. */
static size_t tag_value_end(const char *b, size_t i, size_t n)
{
    for (; i < n; i++) {
        char c = b[i];
        if (c == '"' || c == '\n' || c == '\r')
            return i;
        if (c == '\\') {
            if (i + 1 < n && (b[i + 1] == '\n' || b[i + 1] == '\r'))
                return i + 1;
            i++;
        }
    }
    return n;
}

static bool unescaped_quote_in(const char *b, size_t i, size_t end)
{
    for (; i < end; i++) {
        if (b[i] == '\\')
            i++;
        else if (b[i] == '"')
            return true;
    }
    return false;
}

/* A tag line [start, end) at a line start that scan_tag could not read, with a name that ends at
 * name_end: the damage it can be read past (TAG_*, the value in t->b), or TAG_CLEAN when none. */
static int recover_tag(const char *b, size_t name_end, size_t end, Token *t)
{
    while (end > name_end && (b[end - 1] == ' ' || b[end - 1] == '\t'))
        end--;
    bool closed = end > name_end && b[end - 1] == ']';
    if (closed)
        end--;
    while (end > name_end && (b[end - 1] == ' ' || b[end - 1] == '\t'))
        end--;
    size_t v = name_end;
    while (v < end && (b[v] == ' ' || b[v] == '\t'))
        v++;
    t->b = v;
    t->blen = 0;
    if (v == end)
        return TAG_WITHOUT_VALUE;
    if (b[v] != '"')
        return TAG_CLEAN; /* an unquoted value: not a shape we know */
    v++;
    bool quoted = end > v && b[end - 1] == '"';
    if (quoted && end - 1 > v && b[end - 2] == '\\') { /* a Windows path's backslash, not an escape */
        t->b = v;
        t->blen = end - 1 - v;
        return TAG_TRAILING_BACKSLASH;
    }
    if (!quoted) {
        t->b = v;
        t->blen = end - v;
        return TAG_MISSING_QUOTE;
    }
    size_t z = end - 1;
    if (z - v >= 2 && b[v] == '"' && b[z - 1] == '"' && !unescaped_quote_in(b, v + 1, z - 1)) {
        t->b = v + 1;
        t->blen = z - v - 2;
        return TAG_DOUBLED_QUOTES;
    }
    t->b = v;
    t->blen = z - v;
    if (unescaped_quote_in(b, v, z))
        return TAG_UNESCAPED_QUOTES;
    return closed ? TAG_CLEAN : TAG_MISSING_BRACKET;
}

/* What follows a tag's ']' on a line that starts with the tag: nothing or tokens (another tag,
 * a comment, movetext: AFTER_TOKENS), bytes no token begins with (']', '"', '\\', and '[' after
 * one of them: AFTER_JUNK, read past: [Event "x"]] ), or text that ends the line with a ']' or '"' (AFTER_TAG_TEXT: the
 * value held '"]', [Event "a "b"] c"] , and the whole line is the tag; no movetext ends so). A stray ']' or '"' used to end
 * the tag section there, and the next tag line began a game of its own. */
enum { AFTER_TOKENS, AFTER_JUNK, AFTER_TAG_TEXT, AFTER_NEED_MORE };

static int after_tag(const char *b, size_t i, size_t n, bool eof, size_t *line_end)
{
    size_t e = i;
    while (e < n && b[e] != '\n' && b[e] != '\r')
        e++;
    if (e >= n && !eof)
        return AFTER_NEED_MORE;
    *line_end = e;
    while (i < e && (b[i] == ' ' || b[i] == '\t'))
        i++;
    while (e > i && (b[e - 1] == ' ' || b[e - 1] == '\t'))
        e--;
    if (i == e || b[i] == '[' || b[i] == '{' || b[i] == ';')
        return AFTER_TOKENS;
    bool junk = true;
    for (size_t k = i; k < e && junk; k++)
        junk = b[k] == ']' || b[k] == '"' || b[k] == '\\' || b[k] == '[' || b[k] == ' ' || b[k] == '\t';
    return junk ? AFTER_JUNK : b[e - 1] == ']' || b[e - 1] == '"' ? AFTER_TAG_TEXT : AFTER_TOKENS;
}

static int scan_tag(Scanner *s, Token *t)
{
    const char *b = s->buf;
    size_t i = s->pos + 1, n = s->len;
    while (i < n && (b[i] == ' ' || b[i] == '\t'))
        i++;
    t->a = i;
    while (i < n && is_tag_name_char((unsigned char)b[i]))
        i++;
    t->alen = i - t->a;
    while (i < n && (b[i] == ' ' || b[i] == '\t'))
        i++;
    if (i < n && b[i] == '"' && t->alen) {
        t->b = ++i;
        i = tag_value_end(b, i, n);
        if (i < n && b[i] == '"') {
            t->blen = i - t->b;
            i++;
            while (i < n && (b[i] == ' ' || b[i] == '\t'))
                i++;
            if (i < n && b[i] == ']') {
                size_t line_end;
                int after = t->line_start ? after_tag(b, i + 1, n, s->eof, &line_end) : AFTER_TOKENS;
                if (after == AFTER_NEED_MORE)
                    return TOK_NEED_MORE;
                if (after == AFTER_JUNK) {
                    t->value = TAG_TRAILING_TEXT;
                    return finish_on_line(s, t, TOK_TAG, line_end);
                }
                if (after == AFTER_TOKENS)
                    return finish_on_line(s, t, TOK_TAG, i + 1);
                /* AFTER_TAG_TEXT: the line is read as one damaged tag line, below */
            }
        }
    }
    /* Malformed: the rest of the line is the bad tag, unless it is a tag line with damage we
     * can read past (the game decides what to make of it: a fix, or an error with --strict). */
    i = s->pos;
    while (i < n && b[i] != '\n' && b[i] != '\r')
        i++;
    if (i >= n && !s->eof)
        return TOK_NEED_MORE;
    if (t->line_start && t->alen && (t->value = recover_tag(b, t->a + t->alen, i, t)) != TAG_CLEAN)
        return finish_on_line(s, t, TOK_TAG, i);
    t->b = t->blen = 0;
    return finish(s, t, TOK_BAD_TAG, i);
}

/* How far past its first '}' a comment with a '{' inside may look for the '}' that matches:
 * a nested comment is short, and a stray '{' must not make every later comment a long scan. */
enum { NESTED_COMMENT_REACH = 1024 };

static int scan_brace_comment(Scanner *s, Token *t)
{
    const char *b = s->buf;
    size_t n = s->len, i = s->pos + 1;
    size_t first_close = SIZE_MAX; /* where the comment ends if its braces do not match */
    int depth = 1;
    bool one_line = false; /* the comment up to its first '}' holds no line end */
    t->a = i;
    for (;;) {
        const char *close = memchr(b + i, '}', n - i);
        size_t limit = close ? (size_t)(close - b) : n;
        if (first_close != SIZE_MAX && limit > first_close + NESTED_COMMENT_REACH)
            limit = n, close = NULL; /* no match near enough: the first '}' ends it (below) */
        /* A tag line inside a comment means its '}' is missing: end the comment before it. */
        const char *nl = first_close == SIZE_MAX || close ? memchr(b + i, '\n', limit - i) : NULL;
        if (first_close == SIZE_MAX && close && !nl)
            one_line = !memchr(b + i, '\r', limit - i);
        while (nl) {
            bool need_more;
            size_t next = (size_t)(nl - b) + 1;
            if (tok_looks_like_tag(s, next, &need_more)) {
                if (first_close != SIZE_MAX)
                    break; /* braces that never match: the first '}' ends it */
                t->alen = next - t->a;
                return finish(s, t, TOK_UNTERMINATED_COMMENT, next);
            }
            if (need_more)
                return TOK_NEED_MORE;
            nl = memchr(b + next, '\n', limit - next);
        }
        if (close && !nl) {
            for (const char *o = memchr(b + i, '{', limit - i); o; o = memchr(o + 1, '{', (size_t)(b + limit - o - 1)))
                depth++; /* (most comments have none: one memchr) */
            if (--depth == 0) {
                t->alen = limit - t->a;
                t->value = first_close != SIZE_MAX;
                /* most comments ({[%clk 0:03:00]}) end on their line: no byte loop counting lines */
                if (one_line && !t->value)
                    return finish_on_line(s, t, TOK_COMMENT, limit + 1);
                return finish(s, t, TOK_COMMENT, limit + 1);
            }
            if (first_close == SIZE_MAX)
                first_close = limit;
            i = limit + 1;
            continue;
        }
        if (first_close != SIZE_MAX && (nl || s->eof || n > first_close + NESTED_COMMENT_REACH)) {
            t->alen = first_close - t->a; /* the braces do not match: as if none nested */
            return finish(s, t, TOK_COMMENT, first_close + 1);
        }
        if (!s->eof)
            return TOK_NEED_MORE;
        t->alen = n - t->a;
        return finish(s, t, TOK_UNTERMINATED_COMMENT, n);
    }
}

static int scan_line_comment(Scanner *s, Token *t)
{
    const char *b = s->buf;
    size_t n = s->len, i = s->pos + 1;
    t->a = i;
    while (i < n && b[i] != '\n' && b[i] != '\r')
        i++;
    if (i >= n && !s->eof)
        return TOK_NEED_MORE;
    t->alen = i - t->a;
    return finish_on_line(s, t, TOK_COMMENT, i);
}

static int match_result(const char *w, size_t n)
{
    if (n == 3 && memcmp(w, "1-0", 3) == 0)
        return RESULT_WHITE;
    if (n == 3 && memcmp(w, "0-1", 3) == 0)
        return RESULT_BLACK;
    if (n == 7 && memcmp(w, "1/2-1/2", 7) == 0)
        return RESULT_DRAW;
    if (n == 1 && w[0] == '*')
        return RESULT_UNKNOWN;
    return RESULT_NONE;
}

static int scan_word(Scanner *s, Token *t)
{
    const char *b = s->buf;
    size_t n = s->len, i = s->pos;
    while (i < n && !is_delim((unsigned char)b[i]))
        i++;
    if (i >= n && !s->eof)
        return TOK_NEED_MORE;
    if (i == s->pos) /* a control character or DEL: not a word, and an empty token never advances */
        return finish_on_line(s, t, TOK_BAD_CHAR, i + 1);
    const char *w = b + s->pos;
    size_t wlen = i - s->pos;
    t->a = s->pos;
    t->alen = wlen;
    if ((unsigned char)w[0] >= 'A') /* a letter: a move (results, numbers and "--" start lower) */
        return finish_on_line(s, t, TOK_MOVE, i);
    if ((w[0] == '1' || w[0] == '0' || w[0] == '*') && (t->value = match_result(w, wlen)))
        return finish_on_line(s, t, TOK_RESULT, i);
    if (w[0] == '.') { /* "1. ... Nf6": periods apart from their number */
        size_t j = s->pos;
        while (j < i && b[j] == '.')
            j++;
        if (j == i) {
            t->value = 0;
            return finish_on_line(s, t, TOK_MOVE_NUMBER, i);
        }
    }
    if (w[0] >= '1' && w[0] <= '9') { /* 0-0 and 0000 are moves */
        /* A move number: digits, then any dots ("12." "12..." or a bare "12"). */
        int64_t number = 0;
        size_t j = tok_digits((const unsigned char *)b, s->pos, i, &number);
        size_t digits_end = j;
        while (j < i && b[j] == '.')
            j++;
        if (j == digits_end && j < i)
            return finish_on_line(s, t, TOK_MOVE, i); /* digits glued to letters: not a number */
        t->value = (int)number;
        return finish_on_line(s, t, TOK_MOVE_NUMBER, j);
    }
    return finish_on_line(s, t, TOK_MOVE, i);
}

static int scan_glyph(Scanner *s, Token *t)
{
    const char *b = s->buf;
    size_t n = s->len, i = s->pos;
    while (i < n && (b[i] == '!' || b[i] == '?') && i - s->pos < 3)
        i++;
    if (i >= n && !s->eof)
        return TOK_NEED_MORE;
    static const char *const glyphs[] = {"!", "?", "!!", "??", "!?", "?!"};
    size_t len = i - s->pos;
    for (int g = 0; g < 6; g++) {
        if (strlen(glyphs[g]) == len && memcmp(b + s->pos, glyphs[g], len) == 0) {
            t->value = g + 1;
            return finish_on_line(s, t, TOK_NAG, i);
        }
    }
    return finish(s, t, TOK_BAD_CHAR, i);
}

static int scan_nag(Scanner *s, Token *t)
{
    const char *b = s->buf;
    size_t n = s->len, i = s->pos + 1;
    int value = 0;
    while (i < n && b[i] >= '0' && b[i] <= '9') {
        value = value < 100000 ? value * 10 + (b[i] - '0') : value;
        i++;
    }
    if (i >= n && !s->eof)
        return TOK_NEED_MORE;
    if (i == s->pos + 1)
        return finish(s, t, TOK_BAD_CHAR, i);
    t->value = value;
    return finish_on_line(s, t, TOK_NAG, i);
}

/* A token starting at byte i: where it is (line, column, first on its line) and nothing else yet. */
static inline void token_begin(const Scanner *s, Token *t, size_t i)
{
    t->start = i;
    t->line = s->line;
    t->line_at = s->line_start_abs;
    t->line_start = s->line != s->last_token_line;
    t->value = 0;
    t->a = t->alen = t->b = t->blen = 0;
}

/* The token at a '{' that tok_scan reached (no space, byte order mark or escape line before it)
 * and could not end on its line: the token tok_next_slow would make, without its detour. */
int tok_comment(Scanner *s, Token *t)
{
    token_begin(s, t, s->pos);
    return scan_brace_comment(s, t);
}

/* Where the first of '"', '\\', LF, CR is in b[j..n) (n when none): a tag value's end, unless it
 * holds an escape or runs off its line (scan_tag then reads it). */
static inline size_t tag_value_stop(const unsigned char *b, size_t j, size_t n)
{
    return tok_first_of4(b, j, n, '"', '\\', '\n', '\r');
}

/* The next tag line of a tag section, `[Name "value"]` alone on the line after line ends (every
 * tag line but a stray one; the blank line before a game's first tag too), read in one pass: the
 * token and scanner state tok_next gives it (scan_tag's clean case). Anything else goes to
 * tok_next, past those line ends (the movetext after the blank line: its "1." by the short cut). */
int tok_next_tag(Scanner *s, Token *t)
{
    const unsigned char *b = (const unsigned char *)s->buf;
    size_t i = s->pos, n = s->len, open = i;
    int64_t line = s->line;
    while (open + 1 < n && (b[open] == '\n' || (b[open] == '\r' && b[open + 1] == '\n'))) {
        open += b[open] == '\r' ? 2 : 1;
        line++;
    }
    if (open == i)
        return tok_next(s, t);
    if (open >= n || b[open] != '[') { /* as tok_next_slow's skip of the blank lines leaves it */
        s->pos = open;
        s->line = line;
        s->line_start_abs = s->base + (int64_t)open;
        return tok_next(s, t);
    }
    size_t j = open + 1;
    while (j < n && TAG_NAME[b[j]])
        j++;
    if (j == open + 1 || j + 2 >= n || b[j] != ' ' || b[j + 1] != '"')
        return tok_next(s, t);
    size_t value = j + 2, close = tag_value_stop(b, value, n);
    if (close + 2 >= n || b[close] != '"' || b[close + 1] != ']' || (b[close + 2] != '\n' && b[close + 2] != '\r'))
        return tok_next(s, t);
    s->line = line;
    s->line_start_abs = s->base + (int64_t)open;
    t->kind = TOK_TAG;
    t->value = 0;
    t->line_start = line != s->last_token_line;
    t->start = open;
    t->len = close + 2 - open;
    t->a = open + 1;
    t->alen = j - (open + 1);
    t->b = value;
    t->blen = close - value;
    t->line = line;
    t->line_at = s->line_start_abs;
    s->pos = close + 2;
    s->last_token_line = line;
    return TOK_TAG;
}

int tok_next_slow(Scanner *s, Token *t)
{
    const unsigned char *b = (const unsigned char *)s->buf;
    size_t n = s->len;
    for (;;) {
        size_t i = s->pos;
        while (i < n && SPACE[b[i]]) {
            if (b[i] == '\n' || (b[i] == '\r' && (i + 1 >= n || b[i + 1] != '\n'))) {
                s->line++;
                s->line_start_abs = s->base + (int64_t)(i + 1);
            }
            i++;
        }
        s->pos = i;
        if (i >= n)
            return t->kind = s->eof ? TOK_END : TOK_NEED_MORE;
        if (b[i] == 0xEF) { /* a UTF-8 byte order mark, also mid-stream (concatenated files) */
            if (i + 3 > n && !s->eof)
                return t->kind = TOK_NEED_MORE;
            if (i + 3 <= n && b[i + 1] == 0xBB && b[i + 2] == 0xBF) {
                s->pos = i + 3;
                continue;
            }
        }
        if (b[i] == '%' && s->base + (int64_t)i == s->line_start_abs) { /* escape line: ignored by the standard */
            size_t j = i;
            while (j < n && b[j] != '\n' && b[j] != '\r')
                j++;
            if (j >= n && !s->eof)
                return t->kind = TOK_NEED_MORE;
            s->pos = j;
            continue;
        }
        break;
    }
    size_t i = s->pos;
    token_begin(s, t, i);
    switch (b[i]) {
    case '[': return scan_tag(s, t);
    case '{': return scan_brace_comment(s, t);
    case ';': return scan_line_comment(s, t);
    case '(': return finish_on_line(s, t, TOK_VAR_OPEN, i + 1);
    case ')': return finish_on_line(s, t, TOK_VAR_CLOSE, i + 1);
    case '$': return scan_nag(s, t);
    case '!':
    case '?': return scan_glyph(s, t);
    case '}':
    case ']':
    case '"': return finish(s, t, TOK_BAD_CHAR, i + 1);
    default: return scan_word(s, t);
    }
}
