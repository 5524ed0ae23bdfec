/* The PGN scanner over arbitrary bytes.
 *
 * Checks: every token lies inside the buffer and moves the scanner forward; putting a token back
 * and reading it again gives the same token and scanner state; and scanning a prefix of the
 * input that is not the end of the stream (as the reader does before a refill) gives the same
 * tokens as the whole input, up to a TOK_NEED_MORE, never reading past the prefix. */
#include "common.h"
#include "tokenizer.h"

typedef struct {
    size_t len, pos;
    int64_t line, line_start_abs, last_token_line;
} ScanState;

static ScanState state_of(const Scanner *s)
{
    ScanState st = {s->len, s->pos, s->line, s->line_start_abs, s->last_token_line};
    return st;
}

static void scanner_init(Scanner *s, const char *buf, size_t len, bool eof)
{
    memset(s, 0, sizeof *s);
    s->buf = buf;
    s->len = len;
    s->eof = eof;
    s->line = 1; /* as gr_new leaves it */
}

static bool same_token(const Token *a, const Token *b)
{
    return a->kind == b->kind && a->value == b->value && a->line_start == b->line_start && a->start == b->start &&
           a->len == b->len && a->a == b->a && a->alen == b->alen &&
           (a->kind != TOK_TAG || (a->b == b->b && a->blen == b->blen)) && /* (b: TOK_TAG's payload) */
           a->line == b->line && a->line_at == b->line_at;
}

static void check_token(const Token *t, size_t len, size_t prev_pos, const Scanner *s)
{
    CHECK(t->len > 0, "empty token of kind %d at %zu", t->kind, t->start);
    CHECK(t->start >= prev_pos && t->start + t->len <= len, "token [%zu, +%zu) outside [%zu, %zu)", t->start, t->len,
          prev_pos, len);
    CHECK(s->pos == t->start + t->len, "scanner at %zu after a token ending at %zu", s->pos, t->start + t->len);
    /* the payloads the kinds document (a move number's is not one) */
    bool has_a = t->kind == TOK_TAG || t->kind == TOK_MOVE || t->kind == TOK_COMMENT ||
                 t->kind == TOK_UNTERMINATED_COMMENT;
    if (has_a)
        CHECK(t->a >= t->start && t->a + t->alen <= t->start + t->len, "payload a outside its token");
    if (t->kind == TOK_TAG)
        CHECK(t->b >= t->start && t->b + t->blen <= t->start + t->len, "payload b outside its token");
    CHECK(t->line >= 1 && tok_column(s, t) >= 1, "token at line %lld column %lld", (long long)t->line,
          (long long)tok_column(s, t));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tok_init();
    char *buf = exact_copy(data, size);
    size_t cap = size + 1;
    Token *tokens = malloc(cap * sizeof *tokens);
    size_t n = 0;
    Scanner s;
    Token t;

    /* The whole input as the end of the stream. */
    scanner_init(&s, buf, size, true);
    int64_t last_line = 1;
    for (;;) {
        size_t prev = s.pos;
        int k = tok_next(&s, &t);
        CHECK(k == t.kind, "returned kind %d, token kind %d", k, t.kind);
        if (k == TOK_END)
            break;
        CHECK(k != TOK_NEED_MORE, "TOK_NEED_MORE at the end of the stream (pos %zu)", s.pos);
        check_token(&t, size, prev, &s);
        CHECK(t.line >= last_line, "line went back from %lld to %lld", (long long)last_line, (long long)t.line);
        last_line = t.line;
        CHECK(n < cap, "more tokens than bytes");
        tokens[n++] = t;

        /* Put back and read again: the same token, and the scanner where it was. */
        ScanState after = state_of(&s);
        Token again;
        tok_unread(&s, &t);
        tok_next(&s, &again);
        ScanState after_again = state_of(&s);
        CHECK(same_token(&t, &again) && memcmp(&after, &after_again, sizeof after) == 0,
              "token at %zu differs when read again after tok_unread", t.start);
    }

    /* Prefixes that are not the end of the stream, in their own exact-size buffers. */
    size_t cuts[2] = {size ? (size_t)data[0] * size / 256 : 0, size ? size - 1 : 0};
    for (int c = 0; c < 2; c++) {
        size_t cut = cuts[c];
        char *prefix = exact_copy(data, cut);
        scanner_init(&s, prefix, cut, false);
        for (size_t i = 0;; i++) {
            int k = tok_next(&s, &t);
            CHECK(k != TOK_END, "TOK_END before the end of the stream (prefix of %zu bytes)", cut);
            if (k == TOK_NEED_MORE)
                break;
            CHECK(i < n, "prefix of %zu bytes has more tokens than the whole input", cut);
            CHECK(same_token(&t, &tokens[i]),
                  "token %zu of a %zu-byte prefix differs from the whole input's: kind %d at %zu+%zu vs kind %d at "
                  "%zu+%zu",
                  i, cut, t.kind, t.start, t.len, tokens[i].kind, tokens[i].start, tokens[i].len);
        }
        free(prefix);
    }

    free(tokens);
    free(buf);
    return 0;
}
