/* SAN (and the long-algebraic / UCI forms found in real files): parse the text without a board,
 * resolve it against a position, and format moves as canonical SAN and UCI. */
#ifndef PGNT_SAN_H
#define PGNT_SAN_H

#include "position.h"

/* Error kinds, shared with the game replay: stable, and named in san_error_name. */
enum {
    SAN_OK = 0,
    SAN_INVALID,           /* invalid_san: not a move in any notation we know */
    SAN_ILLEGAL,           /* illegal_move */
    SAN_AMBIGUOUS,         /* ambiguous_move */
    SAN_INVALID_PROMOTION, /* invalid_promotion: bare e8, =K, =P, promotion off the last rank */
    SAN_NULL_MOVE,         /* null_move: --, Z0, 0000, @@@@ */
    SAN_DROP,              /* drop: P@e4 */
    SAN_ERROR_COUNT
};

/* Normalisations a move needed to be read (bit flags; "notes" in reports). */
enum {
    NOTE_CASTLING_WITH_ZEROS = 1 << 0,  /* 0-0 */
    NOTE_LONG_ALGEBRAIC = 1 << 1,       /* e2e4, e2-e4, Ng1-f3, e7e8=Q */
    NOTE_UCI_NOTATION = 1 << 2,         /* e7e8q */
    NOTE_PROMOTION_WITHOUT_EQUALS = 1 << 3, /* e8Q */
    NOTE_OVER_DISAMBIGUATION = 1 << 4,  /* Ngf3 where Nf3 is unique */
    NOTE_MISSING_CHECK_MARKER = 1 << 5,
    NOTE_WRONG_CHECK_MARKER = 1 << 6,
    NOTE_EN_PASSANT_SUFFIX = 1 << 7,    /* exd6 e.p. */
    NOTE_MISSING_CAPTURE_MARKER = 1 << 8, /* ed5, Nf3 taking */
    NOTE_LOWERCASE_PROMOTION = 1 << 9,  /* e8=q */
    NOTE_WRONG_CAPTURE_MARKER = 1 << 10, /* Nxf3 to an empty square */
    NOTE_COUNT = 11
};

enum { SAN_KIND_MOVE, SAN_KIND_CASTLE_KING, SAN_KIND_CASTLE_QUEEN };

typedef struct {
    uint8_t kind;
    uint8_t piece;       /* PAWN..KING */
    int8_t from_file;    /* -1 when not given */
    int8_t from_rank;    /* -1 when not given */
    uint8_t to;
    uint8_t promo;       /* 0, or the piece letter's type (may be KING or PAWN: rejected on resolve) */
    uint8_t capture;     /* 'x' or ':' written */
    uint8_t check;       /* 0 none, 1 '+', 2 '#' */
    uint16_t notes;
} SanMove;

/* Syntax only. Returns SAN_OK, SAN_INVALID, SAN_NULL_MOVE or SAN_DROP. */
int san_parse(const char *text, size_t len, SanMove *out);

extern const uint8_t SAN_PIECE_OF_LETTER[256]; /* PAWN..KING by letter, else NO_TYPE */

/* san_parse, with the shapes most moves have (e4, Nf3, exd5, Nxd5: no suffix) read inline where
 * the move is replayed; the same answer as san_parse for every text. */
static inline int san_parse_inline(const char *s, size_t n, SanMove *out)
{
    if (n < 2 || n > 4 || s[n - 1] < '1' || s[n - 1] > '8' || s[n - 2] < 'a' || s[n - 2] > 'h')
        return san_parse(s, n, out);
    SanMove m = {.kind = SAN_KIND_MOVE, .from_file = -1, .from_rank = -1};
    int piece = SAN_PIECE_OF_LETTER[(unsigned char)s[0]];
    m.to = (uint8_t)SQ(s[n - 2] - 'a', s[n - 1] - '1');
    if (n == 2) {
        m.piece = PAWN;
    } else if (n == 3 && piece > PAWN) {
        m.piece = (uint8_t)piece;
    } else if (n == 4 && s[1] == 'x' && piece > PAWN) {
        m.piece = (uint8_t)piece;
        m.capture = 1;
    } else if (n == 4 && s[1] == 'x' && s[0] >= 'a' && s[0] <= 'h') {
        m.piece = PAWN;
        m.capture = 1;
        m.from_file = (int8_t)(s[0] - 'a');
    } else {
        return san_parse(s, n, out);
    }
    *out = m;
    return SAN_OK;
}
/* Whether a resolved move's text (its token, n bytes) is canonical SAN already, but for its check
 * marker: e4, Nf3, exd5 or Nxd5 (at most a '+' or '#' after it) that san_resolve took without a
 * note (so the capture mark is right, and no origin was needed). *core: its length without the
 * marker. Writing the text then skips formatting the move again (most moves of real games). */
static inline bool san_text_is_canonical(const SanMove *sm, const char *s, size_t n, size_t *core)
{
    if (n && (s[n - 1] == '+' || s[n - 1] == '#'))
        n--;
    if (sm->notes || sm->kind != SAN_KIND_MOVE || sm->promo || sm->from_rank >= 0)
        return false;
    bool pawn = sm->piece == PAWN, capture = sm->capture != 0;
    size_t want = pawn ? (capture ? 4 : 2) : 3 + (size_t)capture; /* (":" for "x", "ee4": other lengths) */
    if (n != want || (capture && s[1] != 'x') || (sm->from_file >= 0) != (pawn && capture))
        return false;
    *core = n;
    return true;
}

/* The notes an origin written for a piece (Nbd7, R1e2) needs: over-disambiguation when the file
 * or rank written was not needed to tell the move from the others (the pieces of its type that
 * could legally go to the same square), as canonical SAN decides it (san_format_base). */
static inline uint16_t san_origin_notes(int from, bb_t others, bool file_written)
{
    bool need_file = false, need_rank = false;
    if (others) {
        bool same_file = (others & (FILE_A << FILE_OF(from))) != 0;
        bool same_rank = (others & (RANK_1 << (8 * RANK_OF(from)))) != 0;
        need_file = !same_file || same_rank;
        need_rank = same_file;
    }
    return (file_written ? need_file : need_rank) ? 0 : NOTE_OVER_DISAMBIGUATION;
}

/* O-O and O-O-O (n bytes, the check marker taken off; zeros are san_parse's, with their note)
 * for san_play_inline: castling made in one pass, or MOVE_NONE, p untouched. */
static inline move_t san_play_castle_inline(Position *p, const char *s, size_t n, Undo *u, uint16_t *notes,
                                            int *check, int marker)
{
    /* (byte by byte: memcmp of a length not known here is a call) */
    if ((n != 3 && n != 5) || s[0] != 'O' || s[1] != '-' || s[2] != 'O' || (n == 5 && (s[3] != '-' || s[4] != 'O')))
        return MOVE_NONE;
    *notes = 0;
    *check = marker;
    return pos_play_castle(p, n == 5, u);
}

/* The common SAN shapes (e4, exd5, Nf3, Nxd5, and with one origin Nbd7, R1xe2), with or without
 * one check marker (+ or #), resolved and made in one pass (pos_play_*): the move, made on p and
 * recorded in u, with the notes san_resolve would give it (a capture marker missing or wrong, an
 * origin not needed) in *notes and the marker written (0, 1 '+', 2 '#') in *check; MOVE_NONE,
 * p untouched, for any other text, or when it is not one legal plain move (san_parse and
 * san_resolve then read it, and say what it is). */
static inline move_t san_play_inline(Position *p, const char *s, size_t n, Undo *u, uint16_t *notes, int *check)
{
    /* the marker taken off without a branch (a check is as good as random) */
    bool plus = s[n - 1] == '+', mate = s[n - 1] == '#';
    n -= plus | mate;
    if (n < 2 || n > 5 || s[n - 1] < '1' || s[n - 1] > '8' || s[n - 2] < 'a' || s[n - 2] > 'h')
        return san_play_castle_inline(p, s, n, u, notes, check, plus + 2 * mate);
    int to = SQ(s[n - 2] - 'a', s[n - 1] - '1');
    *notes = 0;
    *check = plus + 2 * mate;
    if (n == 2)
        return pos_play_pawn_push(p, to, u);
    int piece = SAN_PIECE_OF_LETTER[(unsigned char)s[0]];
    bool capture = s[n - 3] == 'x';
    if (piece > PAWN) {
        size_t origin = n - 3 - capture; /* bytes between the letter and the 'x' or the target */
        move_t m;
        if (origin == 0) {
            m = piece == KING ? pos_play_king(p, to, u) : pos_play_piece(p, piece, to, u);
        } else if (origin == 1 && piece != KING) {
            char c = s[1];
            bool file = c >= 'a' && c <= 'h';
            if (!file && (c < '1' || c > '8'))
                return MOVE_NONE;
            bb_t others, mask = file ? FILE_A << (c - 'a') : RANK_1 << (8 * (c - '1'));
            m = pos_play_piece_from(p, piece, to, mask, u, &others);
            if (m != MOVE_NONE)
                *notes = san_origin_notes(mv_from(m), others, file);
        } else {
            return MOVE_NONE;
        }
        if (m != MOVE_NONE && (u->captured != 0) != capture)
            *notes |= capture ? NOTE_WRONG_CAPTURE_MARKER : NOTE_MISSING_CAPTURE_MARKER;
        return m;
    }
    if (n == 4 && capture && s[0] >= 'a' && s[0] <= 'h')
        return pos_play_pawn_capture(p, s[0] - 'a', to, u);
    return MOVE_NONE;
}
/* Finds the one legal move; on success may add notes (over-disambiguation, check markers). */
int san_resolve(const Position *p, SanMove *sm, move_t *out);
/* Both steps. */
int san_to_move(const Position *p, const char *text, size_t len, move_t *out, uint16_t *notes);

/* Canonical SAN without the check suffix (callers that make the move anyway add it). */
size_t san_format_base(const Position *p, move_t m, char *out);
/* The same for a move san_resolve found from `sm` (faster: what the resolution proved is not
 * searched for again). */
size_t san_format_resolved(const Position *p, move_t m, const SanMove *sm, char *out);
/* Canonical SAN with +/#; returns the length written (max 8 + NUL). */
size_t san_format(const Position *p, move_t m, char *out);
/* UCI; Chess960 castling as king-takes-rook, standard castling as e1g1. Returns the length. */
size_t uci_format(const Position *p, move_t m, char *out);
/* UCI from its parts (the target already the king's square for standard castling). */
size_t uci_format_squares(int from, int to, int promo, char *out);
/* Parses UCI text (e1g1 and e1h1 both castle in standard chess). SAN_OK or an error kind. */
int uci_to_move(const Position *p, const char *text, size_t len, move_t *out);

/* Notes for a check marker that was written (0, 1 '+', 2 '#') against the actual status. */
static inline uint16_t san_check_notes(int written, int actual)
{
    if (written == actual)
        return 0;
    return written == 0 ? NOTE_MISSING_CHECK_MARKER : NOTE_WRONG_CHECK_MARKER;
}

const char *san_error_name(int kind);
const char *san_note_name(int bit_index);

#endif
