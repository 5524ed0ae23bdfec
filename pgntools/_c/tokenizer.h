/* The PGN scanner: turns a byte buffer into tokens (kind, offset, length) without copying.
 * It never allocates; a token that runs past the end of the buffer before end of input is
 * reported as TOK_NEED_MORE so the caller can refill and rescan from the game's start. */
#ifndef PGNT_TOKENIZER_H
#define PGNT_TOKENIZER_H

#include "chess.h"

enum {
    TOK_END,          /* end of input */
    TOK_NEED_MORE,    /* the buffer ends inside a token, and more input follows */
    TOK_TAG,          /* [Name "value"]: a = name, b = raw value (escapes not yet undone) */
    TOK_BAD_TAG,      /* a line starting with '[' that is not a well-formed tag */
    TOK_MOVE_NUMBER,  /* 12. or 12... (value = the number) */
    TOK_MOVE,         /* any move-like word: SAN, LAN, UCI, --, ... (a = the text) */
    TOK_NAG,          /* $n, or !, ?, !!, ??, !?, ?! as NAGs 1-6 (value) */
    TOK_COMMENT,      /* {text} or ;text (a = the text) */
    TOK_UNTERMINATED_COMMENT, /* '{' with no '}' before end of input or before a tag line */
    TOK_VAR_OPEN,
    TOK_VAR_CLOSE,
    TOK_RESULT,       /* value: RESULT_* */
    TOK_BAD_CHAR,     /* a byte that starts no token (e.g. a stray '}') */
};

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
    size_t b, blen;
    int64_t line, col;
} Token;

/* Skips whitespace, BOMs and % escape lines; returns the next token. */
int tok_next(Scanner *s, Token *t);
/* Moves to buf[end], counting the lines passed. */
void tok_skip_to(Scanner *s, size_t end);
/* Puts a token back: the next tok_next returns it again. */
void tok_unread(Scanner *s, const Token *t);
/* Builds the byte-class table; called once before scanning. */
void tok_init(void);
/* Whether buf[i..] (at a line start) looks like a tag line: '[' name whitespace '"'. Sets
 * *need_more when the buffer ends before that can be decided. */
bool tok_looks_like_tag(const Scanner *s, size_t i, bool *need_more);

#endif
