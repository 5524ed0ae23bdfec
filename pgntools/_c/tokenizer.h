/* The PGN scanner: turns a byte buffer into tokens (kind, offset, length) without copying.
 * It never allocates; a token that runs past the end of the buffer before end of input is
 * reported as TOK_NEED_MORE so the caller can refill and rescan from the game's start. */
#ifndef PGNT_TOKENIZER_H
#define PGNT_TOKENIZER_H

#include "chess.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

enum {
    TOK_END,          /* end of input */
    TOK_NEED_MORE,    /* the buffer ends inside a token, and more input follows */
    TOK_TAG,          /* [Name "value"]: a = name, b = raw value (escapes not yet undone); value:
                       * TAG_CLEAN, or the TAG_* damage a tag line at a line start was read past */
    TOK_BAD_TAG,      /* a line starting with '[' that is not a well-formed tag */
    TOK_MOVE_NUMBER,  /* 12. or 12... (value = the number) */
    TOK_MOVE,         /* any move-like word: SAN, LAN, UCI, --, ... (a = the text) */
    TOK_NAG,          /* $n, or !, ?, !!, ??, !?, ?! as NAGs 1-6 (value) */
    TOK_COMMENT,      /* {text} or ;text (a = the text); value 1: nested braces, read to the match */
    TOK_UNTERMINATED_COMMENT, /* '{' with no '}' before end of input or before a tag line */
    TOK_VAR_OPEN,
    TOK_VAR_CLOSE,
    TOK_RESULT,       /* value: RESULT_* */
    TOK_BAD_CHAR,     /* a byte that starts no token (e.g. a stray '}') */
};

/* A tag line's damage that the scanner reads past (the value it takes is in b): [White ""X""]
 * → X, [Event "The "Big" Open"] → The "Big" Open, [Event "x" or [Event "x] → x, [Round] → "". */
enum { TAG_CLEAN, TAG_DOUBLED_QUOTES, TAG_UNESCAPED_QUOTES, TAG_MISSING_BRACKET, TAG_MISSING_QUOTE,
       TAG_WITHOUT_VALUE, TAG_TRAILING_BACKSLASH, TAG_TRAILING_TEXT, TAG_DAMAGE_COUNT }; /* [Event "x \"] → x \ */

enum { RESULT_NONE = 0, RESULT_WHITE, RESULT_BLACK, RESULT_DRAW, RESULT_UNKNOWN }; /* none, 1-0, 0-1, 1/2-1/2, * */

typedef struct {
    const char *buf;
    size_t len;
    size_t pos;
    bool eof;            /* buf[len] is the end of the input */
    int64_t line;        /* 1-based line of buf[pos] */
    int64_t line_start_abs; /* stream offset where that line starts */
    int64_t last_token_line; /* line on which the previous token ended */
    int64_t base;        /* stream offset of buf[0] */
} Scanner;

typedef struct {
    int kind;
    int value;
    bool line_start;     /* first token on its line */
    size_t start, len;   /* the whole token */
    size_t a, alen;      /* payload (see kinds) */
    size_t b, blen;      /* TOK_TAG's value (the short cut's tokens leave them as they were) */
    int64_t line;        /* 1-based line of its first byte */
    int64_t line_at;     /* stream offset where that line starts (tok_column: the column) */
} Token;

/* The 1-based column of t's first byte: worked out only where it is needed (an error, a token
 * put back), not for every token. */
static inline int64_t tok_column(const Scanner *s, const Token *t)
{
    return s->base + (int64_t)t->start - t->line_at + 1;
}

/* Skips whitespace, BOMs and % escape lines; returns the next token. */
static inline int tok_next(Scanner *s, Token *t);
/* tok_next for the movetext reader, which does nothing with a move number but extend the game
 * to its end: a move number that a move follows on the short cut ("12. Nf3", "12.Nf3",
 * "12... Nf6") is passed over without a token, and the move's token returned (the game still
 * ends where it did: at the move or after it). */
static inline int tok_next_movetext(Scanner *s, Token *t);
/* tok_next for any input (tok_next itself only takes the common tokens' short cut). */
int tok_next_slow(Scanner *s, Token *t);
/* tok_next_slow at a '{' (tok_scan sends a comment here when it does not end on its line with no
 * brace inside: those take the short cut). */
int tok_comment(Scanner *s, Token *t);
/* tok_next in a tag section: a tag line alone on the line after the last token's line end (most
 * of them) read in one pass, anything else by tok_next (the same token and scanner state). */
int tok_next_tag(Scanner *s, Token *t);
/* Moves to buf[end], counting the lines passed. */
void tok_skip_to(Scanner *s, size_t end);
/* Puts a token back: the next tok_next returns it again. */
void tok_unread(Scanner *s, const Token *t);
/* Builds the byte-class table; called once before scanning. */
void tok_init(void);
/* Whether buf[i..] (at a line start) looks like a tag line: '[' name whitespace '"'. Sets
 * *need_more when the buffer ends before that can be decided. */
bool tok_looks_like_tag(const Scanner *s, size_t i, bool *need_more);

/* The value of the digits at b[j..end) (capped: a move number never needs more) in *number;
 * returns where the digits end. */
static inline size_t tok_digits(const unsigned char *b, size_t j, size_t end, int64_t *number)
{
    for (; j < end && b[j] >= '0' && b[j] <= '9'; j++)
        *number = *number < 100000000 ? *number * 10 + (b[j] - '0') : *number;
    return j;
}

/* Byte classes for tok_next's short cut (filled by tok_init). */
enum {
    TOKC_DELIM = 1, /* ends a move-like word */
    TOKC_WORD = 2,  /* starts a word that is a move whatever follows (a letter, or any byte >= 'A'
                     * that tok_next_slow sends to its word scan: not [ ] { } DEL or a BOM's first) */
    TOKC_DIGIT = 4, /* 1-9: starts a move number, a result or a word like 1e4 */
};
extern uint8_t tok_class[256];

/* The first delimiter at or after j (n if none before the end). Words are short and mostly far
 * from the buffer's end: there, four bytes per bound test. */
static inline size_t tok_word_end(const unsigned char *b, size_t j, size_t n)
{
    for (; j + 4 <= n; j += 4) {
        if (tok_class[b[j]] & TOKC_DELIM)
            return j;
        if (tok_class[b[j + 1]] & TOKC_DELIM)
            return j + 1;
        if (tok_class[b[j + 2]] & TOKC_DELIM)
            return j + 2;
        if (tok_class[b[j + 3]] & TOKC_DELIM)
            return j + 3;
    }
    while (j < n && !(tok_class[b[j]] & TOKC_DELIM))
        j++;
    return j;
}

/* A token of the short cut at b[i..end) on the scanner's line, its payload b[a..a+alen): a move, a
 * number the caller keeps, a comment on one line; the scanner moves past it. */
static inline int tok_short(Scanner *s, Token *t, int kind, int value, size_t i, size_t end, size_t a,
                            size_t alen, int64_t line, int64_t line_at)
{
    t->kind = kind;
    t->value = value;
    t->line_start = line != s->last_token_line;
    t->start = i;
    t->len = end - i;
    t->a = a;
    t->alen = alen;
    /* (b and blen are TOK_TAG's: not written) */
    t->line = line;
    t->line_at = line_at;
    s->pos = end;
    s->last_token_line = line;
    return kind;
}

/* Where the first of the bytes c0..c3 is in b[j..n) (n when none). One pass, 16 bytes a step:
 * for the ~30 bytes of a Lichess move comment or a tag value, four memchr calls cost more. */
static inline size_t tok_first_of4(const unsigned char *b, size_t j, size_t n, char c0, char c1, char c2, char c3)
{
#if defined(__SSE2__)
    const __m128i v0 = _mm_set1_epi8(c0), v1 = _mm_set1_epi8(c1), v2 = _mm_set1_epi8(c2), v3 = _mm_set1_epi8(c3);
    for (; j + 16 <= n; j += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(b + j));
        __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, v0), _mm_cmpeq_epi8(v, v1)),
                                   _mm_or_si128(_mm_cmpeq_epi8(v, v2), _mm_cmpeq_epi8(v, v3)));
        int mask = _mm_movemask_epi8(hit);
        if (mask)
            return j + (size_t)__builtin_ctz((unsigned)mask);
    }
#endif
    for (; j < n; j++)
        if (b[j] == (unsigned char)c0 || b[j] == (unsigned char)c1 || b[j] == (unsigned char)c2 ||
            b[j] == (unsigned char)c3)
            return j;
    return n;
}

/* Where the first byte outside ' '..'z' is in b[j..n) (n when none): a one-line comment's end
 * '}' is one, and so are the '{', LF and CR that make it a longer scan, but the bytes of a
 * Lichess comment ("[%eval 0.3] [%clk 0:01:00]") are not. Three vector steps a 16 bytes against
 * tok_first_of4's seven; the caller looks at which byte it found. */
static inline size_t tok_printable_end(const unsigned char *b, size_t j, size_t n)
{
#if defined(__SSE2__)
    const __m128i space = _mm_set1_epi8(' '), past_z = _mm_set1_epi8('z' + 1 - ' ');
    for (; j + 16 <= n; j += 16) {
        __m128i v = _mm_sub_epi8(_mm_loadu_si128((const __m128i *)(const void *)(b + j)), space);
        int mask = _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_max_epu8(v, past_z), v)); /* v - ' ' >= past_z */
        if (mask)
            return j + (size_t)__builtin_ctz((unsigned)mask);
    }
#endif
    for (; j < n; j++)
        if (b[j] < ' ' || b[j] > 'z')
            return j;
    return n;
}

/* tok_next_slow from b[i]: the short cut leaves the scanner's position to here, where it gives up. */
static inline int tok_slow_at(Scanner *s, Token *t, size_t i)
{
    s->pos = i;
    return tok_next_slow(s, t);
}

/* The comment at b[i] == '{' when it ends on its line with no brace inside ({[%clk 0:03:00]}, one
 * after every move of a Lichess export): its first '}', found in one pass, ends it. Anything
 * else goes to tok_comment. */
static inline int tok_short_comment(Scanner *s, Token *t, size_t i, int64_t line, int64_t line_at)
{
    const unsigned char *b = (const unsigned char *)s->buf;
    size_t stop = tok_printable_end(b, i + 1, s->len);
    if (stop < s->len && b[stop] != '}') /* a tab, a byte of UTF-8 text...: the exact search from there */
        stop = tok_first_of4(b, stop, s->len, '}', '{', '\n', '\r');
    if (stop >= s->len || b[stop] != '}') { /* nested, on more lines, or cut by the buffer's end */
        s->pos = i;
        return tok_comment(s, t);
    }
    return tok_short(s, t, TOK_COMMENT, 0, i, stop + 1, i + 1, stop - (i + 1), line, line_at);
}

/* The bulk of movetext is "12. Nf3 Nc6 " or "12.Nf3 Nc6\r\n" -- a move or a move number after
 * at most one space or line end, ending inside the buffer. Those are scanned here, inline in the
 * caller, giving exactly the token (and scanner state) tok_next_slow would; anything else, and
 * any word reaching the buffer's end (it may continue in the next chunk), goes to tok_next_slow.
 * A move number's value is only worked out when it is returned as a token. (Always inlined: as a
 * call, its prologue and the token's stores through memory cost more than the scan.) */
static inline __attribute__((always_inline)) int tok_scan(Scanner *s, Token *t, bool skip_numbers)
{
    const unsigned char *b = (const unsigned char *)s->buf;
    size_t i = s->pos, n = s->len;
    int64_t line = s->line, line_at = s->line_start_abs;
    if (i + 1 < n) {
        if (b[i] == ' ') {
            i++;
        } else if (b[i] == '\n' || (b[i] == '\r' && b[i + 1] == '\n')) {
            i += b[i] == '\r' ? 2 : 1;
            s->line = ++line;
            s->line_start_abs = line_at = s->base + (int64_t)i;
        }
    }
    if (i >= n || !(tok_class[b[i]] & (TOKC_WORD | TOKC_DIGIT)))
        return i < n && b[i] == '{' ? tok_short_comment(s, t, i, line, line_at) : tok_slow_at(s, t, i);
    size_t j = i + 1;
    if (tok_class[b[i]] & TOKC_DIGIT) { /* digits, then dots or nothing: a move number */
        while (j < n && b[j] >= '0' && b[j] <= '9')
            j++;
        if (j < n && b[j] != '.' && !(tok_class[b[j]] & TOKC_DELIM))
            return tok_slow_at(s, t, i); /* a result, or digits glued to other bytes */
        while (j < n && b[j] == '.')
            j++;
        size_t next = j < n && b[j] == ' ' ? j + 1 : j;
        if (!skip_numbers || next >= n || !(tok_class[b[next]] & TOKC_WORD)) {
            /* "12.Nf3": the number ends at j; its payload is the whole word, as the slow scan has it */
            size_t word = tok_word_end(b, j, n);
            if (word >= n)
                return tok_slow_at(s, t, i);
            int64_t number = 0;
            tok_digits(b, i, j, &number);
            return tok_short(s, t, TOK_MOVE_NUMBER, (int)number, i, j, i, word - i, line, line_at);
        }
        s->last_token_line = line; /* (the number may be the line's first token: the move is not) */
        i = next; /* the move after it, on the number's line */
        j = i + 1;
    }
    j = tok_word_end(b, j, n);
    if (j >= n)
        return tok_slow_at(s, t, i);
    return tok_short(s, t, TOK_MOVE, 0, i, j, i, j - i, line, line_at);
}

static inline int tok_next(Scanner *s, Token *t) { return tok_scan(s, t, false); }
static inline int tok_next_movetext(Scanner *s, Token *t) { return tok_scan(s, t, true); }

#endif
