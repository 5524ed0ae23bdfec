/* The PGN standard's export format: tag section in order, movetext wrapped under 80 columns. */
#ifndef PGNT_PGN_WRITER_H
#define PGNT_PGN_WRITER_H

#include "buffers.h"
#include "position.h"

#define PGN_MAX_LINE 79

/* How the written PGN is shaped (pgn-extract's output options; GameOptions.pgn_shape). */
enum {
    PGN_STRIP_NAGS = 1,      /* --strip-nags: no $n */
    PGN_NO_CHECK_MARKS = 2,  /* --no-check-marks: SAN without + and # */
    PGN_NO_MOVE_NUMBERS = 4, /* --no-move-numbers */
    PGN_NO_RESULTS = 8,      /* --no-results: no result after the moves (the Result tag stays) */
    PGN_NO_TAGS = 16,        /* --no-tags: the movetext alone */
    PGN_ADD_PLYCOUNT = 32,   /* --add-tags plycount: PlyCount, the mainline's plies */
    PGN_ADD_HASHCODE = 64,   /* --add-tags hashcode: HashCode, the final position's Polyglot key in hex */
    PGN_FEN_COMMENTS = 128,  /* --fen-comments: a comment after each move, the FEN after it */
    PGN_KEY_COMMENTS = 256,  /* --key-comments: a comment after each move, the Polyglot key after it (hex) */
    PGN_UCI = 512,           /* --notation uci: the moves as UCI (pgn-extract -Wuci) */
    PGN_LAN = 1024,          /* --notation lan: long algebraic, Ng1-f3, e4xd5, e7-e8=Q (pgn-extract -Wxolalg) */
};

/* Movetext emitter: units (a move, a number, a comment word, a NAG) are separated by one space
 * and wrapped; '(' sticks to the next unit, ')' and '}' to the previous one. Each unit is written
 * straight into `out` behind a space; when it ends (the next one starts), the space before it
 * becomes a line end if the unit does not fit on the line. */
typedef struct {
    ByteVec *out;
    size_t unit_at;  /* where the current unit starts in out */
    int col;         /* the column after the last unit ended (0: none yet) */
    int open_parens; /* '(' waiting for the next unit */
    bool in_unit;    /* a unit is being written (it ends out) */
    bool failed;
    int max_line;    /* the longest line (PGN_MAX_LINE; INT_MAX: a game on one line) */
    unsigned shape;  /* PGN_STRIP_NAGS, ... */
    /* --drop-plies, --max-plies: the mainline's plies (drop_plies, max_plies] are written, with
     * what stands beside them (comments, NAGs, variations); outside that window nothing is */
    bool windowed, muted;
    int drop_plies, max_plies;
    bool has_start, has_last;
    Position start;  /* the position after ply drop_plies: the written game's start (its FEN tag) */
    Position last;   /* the position after ply max_plies: the written game's end */
} Emitter;

void em_init(Emitter *e, ByteVec *out);
void em_free(Emitter *e);
void em_reset(Emitter *e, ByteVec *out);
/* The shape of what is written (PGN_* bits) and the longest line (0: PGN_MAX_LINE; -1: a game
 * on one line). */
void em_shape(Emitter *e, unsigned shape, int line_length);
/* --drop-plies D, --max-plies M (-1: no limit): the mainline plies (D, M] are written. */
void em_window(Emitter *e, int drop_plies, int max_plies);
void em_wrap_bracket(Emitter *e);                       /* (a wrapped unit that starts with '[') */
void em_comment(Emitter *e, const char *s, size_t n, bool latin1);
void em_nag(Emitter *e, int nag);
void em_open_variation(Emitter *e);
void em_close_variation(Emitter *e);
void em_finish(Emitter *e);                             /* writes the last unit */
/* --fen-comments, --key-comments (the emitter's shape): comments with the position after a move. */
void em_position_comments(Emitter *e, const Position *after, int fen_options);

/* A mainline move made (ply: its ply, after: the position after it): whether it is written
 * (inside the window); the positions at the window's ends are kept. */
static inline bool em_mainline_ply(Emitter *e, int ply, const Position *after)
{
    if (!e->windowed)
        return true;
    if (ply == e->drop_plies) {
        e->start = *after;
        e->has_start = true;
    }
    if (ply == e->max_plies) {
        e->last = *after;
        e->has_last = true;
    }
    e->muted = ply <= e->drop_plies || ply > e->max_plies;
    return !e->muted;
}

/* A move in long algebraic notation (at out, room for 16): the piece's letter but a pawn's, the
 * from-square, '-' or 'x', the target, =Q for a promotion; castling as O-O, O-O-O (the king's
 * file against the rook's, so Chess960 too). No check marker (the writer adds it). */
size_t pgn_lan(char *out, int piece, int from, int to, bool capture, int promo, bool castle);

/* Room for n more bytes in the emitter's output. */
static inline bool em_room(Emitter *e, size_t n)
{
    ByteVec *v = e->out;
    if (v->len + n <= v->cap || VEC_RESERVE(*v, n))
        return true;
    e->failed = true;
    return false;
}

/* The current unit ends: the space before it stays, or becomes a line end when the unit does
 * not fit on the line (an empty unit is dropped with its space). */
static inline void em_end_unit(Emitter *e)
{
    ByteVec *v = e->out;
    int n = (int)(v->len - e->unit_at);
    e->in_unit = false;
    if (n == 0) {
        v->len -= e->col > 0;
    } else if (e->col == 0) { /* the first unit: no space before it */
        e->col = n;
    } else if ((int64_t)e->col + 1 + n <= e->max_line) {
        e->col += 1 + n;
    } else {
        v->data[e->unit_at - 1] = '\n';
        e->col = n;
        if (v->data[e->unit_at] == '[')
            em_wrap_bracket(e);
    }
}

/* Starts a new unit (the current one ends) with its leading space and the '(' waiting for it;
 * room for `n` more bytes of it. False when out of memory. */
static inline bool em_begin(Emitter *e, size_t n)
{
    if (e->in_unit)
        em_end_unit(e);
    if (!em_room(e, n + 1 + (size_t)e->open_parens))
        return false;
    ByteVec *v = e->out;
    if (e->col > 0)
        v->data[v->len++] = ' ';
    e->unit_at = v->len;
    e->in_unit = true;
    for (; e->open_parens > 0; e->open_parens--)
        v->data[v->len++] = '(';
    return true;
}

/* A new unit of the n bytes at s. */
static inline void em_unit(Emitter *e, const char *s, size_t n)
{
    if (em_begin(e, n) && n) {
        memcpy(e->out->data + e->out->len, s, n);
        e->out->len += n;
    }
}

/* Extends the current unit (or starts one, without the waiting '('). */
static inline void em_append(Emitter *e, const char *s, size_t n)
{
    if (!e->in_unit) {
        int parens = e->open_parens;
        e->open_parens = 0;
        bool ok = em_begin(e, 0);
        e->open_parens = parens;
        if (!ok)
            return;
    }
    if (n && em_room(e, n)) {
        memcpy(e->out->data + e->out->len, s, n);
        e->out->len += n;
    }
}

/* A move's SAN (at most 16 bytes at s16, which has room for 16), behind its number when asked:
 * "12." for White, "12..." for Black. The hot path of writing PGN: one room check, the number's
 * unit decided at once (nothing is ever added to it), fixed-size copies. */
static inline void em_move(Emitter *e, bool numbered, uint32_t fullmove, bool black, const char *s16, size_t n)
{
    if (e->in_unit)
        em_end_unit(e);
    if (!em_room(e, 48 + (size_t)e->open_parens))
        return;
    if (e->shape & PGN_NO_MOVE_NUMBERS)
        numbered = false;
    if (e->shape & PGN_NO_CHECK_MARKS)
        while (n > 0 && (s16[n - 1] == '+' || s16[n - 1] == '#'))
            n--;
    ByteVec *v = e->out;
    char *o = v->data + v->len;
    int col = e->col;
    if (numbered) {
        char *sep = o;
        if (col > 0)
            *o++ = ' ';
        char *start = o;
        for (; e->open_parens > 0; e->open_parens--)
            *o++ = '(';
        if (fullmove < 10) { /* (nearly every move number: no division loop) */
            *o++ = (char)('0' + fullmove);
        } else if (fullmove < 100) {
            *o++ = (char)('0' + fullmove / 10);
            *o++ = (char)('0' + fullmove % 10);
        } else {
            o += format_uint(o, fullmove);
        }
        memcpy(o, "...", 3);
        o += black ? 3 : 1;
        int u = (int)(o - start);
        if (col == 0) {
            col = u;
        } else if ((int64_t)col + 1 + u <= e->max_line) {
            col += 1 + u;
        } else {
            *sep = '\n';
            col = u;
        }
    }
    if (col > 0)
        *o++ = ' ';
    e->unit_at = (size_t)(o - v->data);
    for (; e->open_parens > 0; e->open_parens--)
        *o++ = '(';
    memcpy(o, s16, 16);
    v->len = (size_t)(o - v->data) + n;
    e->col = col;
    e->in_unit = true;
}

/* Appends text, transcoding Windows-1252 (Latin-1) to UTF-8 when asked. */
bool bytes_add_text(ByteVec *v, const char *s, size_t n, bool latin1);
/* Appends a tag value with \ and " escaped. */
bool bytes_add_escaped(ByteVec *v, const char *s, size_t n);

/* A tag the writer adds to the game's own (validate --classify's ECO and Opening): kept out when
 * the game has a tag of that name, unless `replace` (then it takes the place of the game's). */
typedef struct {
    const char *name, *value;
    size_t name_len, value_len;
    bool replace;
} PgnTag;

/* Appends a whole game in the export format: its tag section (none with `no_tags`), then the
 * movetext. `extra`: tags to add, sorted by name (n_extra of them; not in the reduced format). */
bool pgn_write_game(ByteVec *out, const StrCol *names, const StrCol *values, size_t first, size_t count,
                    const char *result, bool add_setup, bool reduced, bool no_tags, const ByteVec *movetext,
                    const PgnTag *extra, size_t n_extra);

#endif
