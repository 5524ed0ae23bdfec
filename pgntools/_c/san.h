/* SAN (and the long-algebraic / UCI forms found in real files): parse the text without a board,
 * resolve it against a position, and format moves as canonical SAN and UCI. */
#ifndef PGNT_SAN_H
#define PGNT_SAN_H

#include "movegen.h"

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

enum { SAN_KIND_MOVE, SAN_KIND_CASTLE_KING, SAN_KIND_CASTLE_QUEEN, SAN_KIND_NULL, SAN_KIND_DROP };

typedef struct {
    uint8_t kind;
    uint8_t piece;       /* PAWN..KING */
    int8_t from_file;    /* -1 when not given */
    int8_t from_rank;    /* -1 when not given */
    uint8_t to;
    uint8_t promo;       /* 0, or the piece letter's type (may be KING or PAWN: rejected on resolve) */
    uint8_t capture;     /* 'x' or ':' written */
    uint8_t check;       /* 0 none, 1 '+', 2 '#' */
    uint8_t san_len;     /* the text's length without its suffixes (check marker, !?, e.p.) when it
                          * is spelt as SAN spells (not ':', zeros, a dash or UCI); else 0 */
    uint16_t notes;
} SanMove;

extern const uint8_t SAN_PIECE_OF_LETTER[256]; /* PAWN..KING by letter, else NO_TYPE */

/* The shapes most moves have, read into *out (every field): e4, Nf3, exd5, Nxd5, Nbd7, R1xe2, Kf1,
 * O-O, O-O-O, with one check marker or none, no promotion. False for any other text. */
static inline bool san_shape(const char *s, size_t n, SanMove *out)
{
    bool plus = n && s[n - 1] == '+', mate = n && s[n - 1] == '#';
    size_t k = n - (plus | mate); /* the text without its check marker */
    if (k < 2 || k > 5 || s[k - 1] < '1' || s[k - 1] > '8' || s[k - 2] < 'a' || s[k - 2] > 'h') {
        /* O-O, O-O-O (byte by byte: memcmp of a length not known here is a call) */
        if ((k != 3 && k != 5) || s[0] != 'O' || s[1] != '-' || s[2] != 'O' || (k == 5 && (s[3] != '-' || s[4] != 'O')))
            return false;
        *out = (SanMove){.kind = k == 3 ? SAN_KIND_CASTLE_KING : SAN_KIND_CASTLE_QUEEN, .piece = KING,
                         .from_file = -1, .from_rank = -1, .check = (uint8_t)(plus + 2 * mate), .san_len = (uint8_t)k};
        return true;
    }
    SanMove m = {.kind = SAN_KIND_MOVE, .piece = PAWN, .from_file = -1, .from_rank = -1,
                 .to = (uint8_t)SQ(s[k - 2] - 'a', s[k - 1] - '1'), .check = (uint8_t)(plus + 2 * mate),
                 .san_len = (uint8_t)k};
    if (k > 2) {
        int piece = SAN_PIECE_OF_LETTER[(unsigned char)s[0]];
        bool capture = s[k - 3] == 'x';
        if (piece > PAWN) {
            size_t origin = k - 3 - capture; /* the bytes between the letter and the 'x' or the target */
            char c = s[1];
            if (origin == 1 && c >= 'a' && c <= 'h')
                m.from_file = (int8_t)(c - 'a');
            else if (origin == 1 && c >= '1' && c <= '8')
                m.from_rank = (int8_t)(c - '1');
            else if (origin != 0)
                return false;
            m.piece = (uint8_t)piece;
        } else if (k == 4 && capture && s[0] >= 'a' && s[0] <= 'h') {
            m.from_file = (int8_t)(s[0] - 'a');
        } else {
            return false;
        }
        m.capture = capture;
    }
    if (m.piece == PAWN && (s[k - 1] == '1' || s[k - 1] == '8')) /* (a promotion, or no pawn move) */
        return false;
    *out = m;
    return true;
}

/* Every form but the common shapes (castling, promotions, suffixes, long algebraic, null moves,
 * drops): out of line. */
int san_parse_general(const char *text, size_t len, SanMove *out);

/* The move text's syntax, without a board (PGN standard 8.2.3; the other notations of real files
 * with a note each). Returns SAN_OK, SAN_INVALID, SAN_NULL_MOVE (kind SAN_KIND_NULL) or SAN_DROP (kind
 * SAN_KIND_DROP: its piece and target read; san_resolve plays it in crazyhouse). */
static inline int san_parse(const char *s, size_t n, SanMove *out)
{
    return san_shape(s, n, out) ? SAN_OK : san_parse_general(s, n, out);
}

/* Which of the origin's file and rank SAN writes for a move of a piece from `from` when `rivals`
 * (the other pieces of its type that may legally go to the same square) exist (PGN standard
 * 8.2.3.4: the file if it tells them apart, else the rank, else both). */
static inline void san_disambiguation(int from, bb_t rivals, bool *file, bool *rank)
{
    *file = *rank = false;
    if (!rivals)
        return;
    bool same_file = (rivals & (FILE_A << FILE_OF(from))) != 0;
    bool same_rank = (rivals & (RANK_1 << (8 * RANK_OF(from)))) != 0;
    *file = !same_file || same_rank;
    *rank = same_file;
}

/* Castling on `side` (0 king side, 1 queen side) where it is legal (FIDE 3.8.2): SAN_OK with *out,
 * else SAN_ILLEGAL. */
int san_castle(const Position *p, int side, move_t *out);

/* The one legal move of sm's piece to its target from the origin written, among the few pieces of
 * that type that may go there (movegen.h's narrowed searches; a variant's from its move list); sm is an ordinary move (not
 * castling, a null move or coordinate notation), its promotion checked. SAN_OK with *out,
 * SAN_ILLEGAL or SAN_AMBIGUOUS. The notes the text needs against the board are decided here
 * (a capture marker missing or wrong, an origin not needed: PGN standard 8.2.3). */
static inline __attribute__((always_inline)) int san_find(const Position *p, SanMove *sm, move_t *out)
{
    int to = sm->to, piece = sm->piece;
    bool file_written = sm->from_file >= 0, rank_written = sm->from_rank >= 0;
    bb_t from_mask = file_written ? FILE_A << sm->from_file : ~0ULL;
    if (rank_written)
        from_mask &= RANK_1 << (8 * sm->from_rank);
    bb_t legal, origins; /* the pieces of the type that may legally go to `to`; those written */
    if (piece == PAWN) {
        if (!file_written)
            from_mask = FILE_A << FILE_OF(to); /* a pawn move without origin file is a push */
        legal = origins = pos_pawn_origins(p, to, from_mask);
    } else if (piece == KING) {
        legal = pos_king_step_legal(p, to) ? pos_pieces(p, p->turn, KING) : 0;
        origins = legal & from_mask;
    } else {
        legal = pos_piece_origins(p, piece, to);
        origins = legal & from_mask;
    }
    if (__builtin_expect(p->variant != VARIANT_STANDARD, 0)) { /* a variant's legal moves: its move list */
        legal = pos_legal_origins(p, piece, to, sm->promo);
        origins = legal & from_mask;
        legal = piece == PAWN ? origins : legal;
    }
    if (!origins)
        return SAN_ILLEGAL;
    if (origins & (origins - 1))
        return SAN_AMBIGUOUS;
    int from = bb_lsb(origins);
    bool en_passant = piece == PAWN && to == p->ep;
    *out = mv_make(from, to, en_passant ? MT_EN_PASSANT : sm->promo ? MT_PROMOTION : MT_NORMAL, sm->promo);
    /* (the long forms write no capture marker) */
    bool capture = (p->board[to] != 0) | en_passant;
    bool written_long = sm->notes & (NOTE_LONG_ALGEBRAIC | NOTE_UCI_NOTATION);
    if ((capture != (sm->capture != 0)) & !(capture & written_long))
        sm->notes |= capture ? NOTE_MISSING_CAPTURE_MARKER : NOTE_WRONG_CAPTURE_MARKER;
    if ((piece != PAWN) & !written_long & (file_written | rank_written)) {
        bool need_file = false, need_rank = false;
        if (piece != KING)
            san_disambiguation(from, legal & ~BB(from), &need_file, &need_rank);
        if ((file_written && !need_file) || (rank_written && !need_rank))
            sm->notes |= NOTE_OVER_DISAMBIGUATION;
    }
    return SAN_OK;
}

/* The one legal move the parsed text means in p (FIDE 3): castling, a null move (SAN_KIND_NULL,
 * resolved only where the caller allows it: MOVE_NULL, illegal in check and where no move
 * exists), coordinate notation (the board names the piece), a promotion (FIDE 3.7e), and every
 * ordinary move through san_find. SAN_OK with *out, SAN_ILLEGAL, SAN_AMBIGUOUS or
 * SAN_INVALID_PROMOTION; on success sm->notes gains the notes the text needed against the board;
 * the check marker's are the caller's (san_check_notes), who sees the position after the move. */
int san_resolve(const Position *p, SanMove *sm, move_t *out);
/* san_read's other texts: parsed by san_parse_general, resolved by san_resolve. */
int san_read_general(const Position *p, const char *text, size_t len, SanMove *sm, move_t *out);

/* Text to move in one step: san_parse, then san_resolve (a parse error as san_parse gives it).
 * Inline for the common shapes, which go straight to san_find. */
static inline int san_read(const Position *p, const char *s, size_t n, SanMove *sm, move_t *out)
{
    if (san_shape(s, n, sm))
        return sm->kind == SAN_KIND_MOVE ? san_find(p, sm, out) : san_castle(p, sm->kind == SAN_KIND_CASTLE_QUEEN, out);
    SanMove general; /* (its own object: sm stays in registers for the common shapes) */
    int rc = san_read_general(p, s, n, &general, out);
    *sm = general;
    return rc;
}
/* san_read with the notes alone. */
int san_to_move(const Position *p, const char *text, size_t len, move_t *out, uint16_t *notes);


/* Canonical SAN without the check suffix (callers that make the move anyway add it). */
size_t san_format_base(const Position *p, move_t m, char *out);
/* The same for a move san_resolve found (origin_written: whether its text wrote an origin, or was
 * castling: else no rival is looked for, the resolution found none). */
size_t san_format_resolved(const Position *p, move_t m, bool origin_written, char *out);
/* The SAN of a move san_resolve found from `sm`, without its check marker: the text itself when it
 * is spelt as SAN and needed no note (most moves), else formatted. `can_read_8`: the 8 bytes from
 * `text` may be read (one copy instead of a loop). */
static inline size_t san_of_resolved(const Position *p, move_t m, const SanMove *sm, const char *text,
                                     bool can_read_8, char out[16])
{
    if (sm->notes || !sm->san_len)
        return san_format_resolved(p, m, sm->kind != SAN_KIND_MOVE || sm->from_file >= 0 || sm->from_rank >= 0, out);
    if (can_read_8)
        memcpy(out, text, 8); /* (the bytes past san_len are not part of the SAN) */
    else
        for (size_t i = 0; i < sm->san_len; i++)
            out[i] = text[i];
    return sm->san_len;
}
/* Canonical SAN with +/#; returns the length written (max 8 + NUL). */
size_t san_format(const Position *p, move_t m, char *out);
/* UCI; Chess960 castling as king-takes-rook, standard castling as e1g1. Returns the length. */
size_t uci_format(const Position *p, move_t m, char *out);
/* UCI from its parts (the target already the king's square for standard castling). */
size_t uci_format_squares(int from, int to, int promo, char *out);
/* A drop's UCI (N@f3, P@e4). Returns the length. */
size_t uci_format_drop(int piece, int to, char *out);
/* Parses UCI text (e1g1 and e1h1 both castle in standard chess; N@f3 a drop). SAN_OK or an error kind. */
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
