#include "fen.h"
#include "game.h"
#include "result.h"

static const char *const ERROR_NAMES[ERR_COUNT] = {
    "ok", "invalid_san", "illegal_move", "ambiguous_move", "invalid_promotion", "null_move", "drop",
    "invalid_start_position", "unsupported_variant", "move_after_game_end", "result_mismatch",
    "result_contradicts_position", "syntax_error", "unterminated_comment", "unterminated_variation",
    "nonstandard_notation", "game_too_large",
};
static const char *const GAME_NOTE_NAMES[NOTE_KIND_COUNT - NOTE_COUNT] = {
    "latin1_encoding", "fen_without_setup", "duplicate_tag", "missing_result_tag", "fifty_move_claimable",
    "threefold_claimable",
};

const char *game_error_name(int kind) { return kind > 0 && kind < ERR_COUNT ? ERROR_NAMES[kind] : "unknown"; }
const char *game_note_name(int kind)
{
    if (kind >= 0 && kind < NOTE_COUNT)
        return san_note_name(kind);
    return kind < NOTE_KIND_COUNT ? GAME_NOTE_NAMES[kind - NOTE_COUNT] : "unknown";
}

static const char *const TAG_COLUMN_NAMES[TAG_COLUMN_COUNT] = {
    "Event", "Site", "Date", "Round", "White", "Black", "Result", "WhiteElo", "BlackElo",
    "TimeControl", "ECO", "Opening", "Termination", "UTCDate", "UTCTime", "Variant",
};

const char *game_tag_column_name(int i) { return i >= 0 && i < TAG_COLUMN_COUNT ? TAG_COLUMN_NAMES[i] : "unknown"; }

typedef struct {
    Position pos;
    Undo undo;  /* this level's last move: taking it back gives where a variation starts */
    bool has_move;
    int ply;   /* the game ply of this level's last move (variations count from their branch point) */
    int ended; /* in a variation: the automatic end it reached (OUTCOME_*), or 0 */
} Level;

struct GameReader {
    Scanner sc;
    GameOptions opt;
    Batch batch;
    int64_t games;
    VEC(uint64_t) history; /* mainline hashes, for repetitions */
    VEC(Level) levels;
    ByteVec movetext;
    Emitter em;
    bool skipping; /* inside an oversized game: looking for the next one */
    Position start;                /* the standard start, made once (most games have no FEN) */
    char start_fen[2][FEN_MAX];    /* and its FEN in the output's style: standard, Chess960 */
    size_t start_fen_len[2];
    I32Vec tag_set;                /* see has_tag: slots holding tag-name rows + 1 (0: empty) */
    size_t tag_set_first, tag_set_rows; /* it holds the rows [first, rows) of the current game */
};

/* What one game needs while it is read. */
typedef struct {
    bool latin1;
    int depth;
    int ply;
    bool replaying;  /* the start position is valid and moves are being replayed */
    bool stopped;    /* an error stopped the replay */
    bool need_number;
    bool pending;    /* a mainline move row still open for its comments */
    bool has_tags, has_content;
    int n_errors, n_tags;
    int outcome, outcome_ply;
    bool claim_fifty, claim_threefold;
    int result_tag, result_marker, result;
    uint8_t fixes;
    Annotations ann;
    size_t start, end;
    int64_t line;
    uint32_t note_kinds; /* bit k: note_count[k] > 0 */
    int32_t note_ply[NOTE_KIND_COUNT], note_count[NOTE_KIND_COUNT];
    size_t note_at[NOTE_KIND_COUNT], note_len[NOTE_KIND_COUNT];
    const char *fen, *variant;
    size_t fen_len, variant_len;
    bool has_setup;
    bool chess960;
    bool set_up;     /* setup_start ran (a game may end before its movetext) */
    bool move_syntax; /* something in the movetext reads as a move (else prose is no game) */
    int64_t last_tag_line;
    int32_t tag_slot[TAG_COLUMN_COUNT]; /* with opt.tag_columns: see G_TAG_SLOTS */
    const BatchMark *mark; /* the batch where the game starts: gr_fill's, where it checks the */
                           /* batch's size (a pointer: the Game is cleared for every game) */
} Game;

/* ---------------------------------------------------------------- reader lifecycle */

GameReader *gr_new(const GameOptions *opt)
{
    GameReader *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->opt = *opt;
    if (r->opt.max_games <= 0)
        r->opt.max_games = 1024;
    if (r->opt.max_batch_bytes == 0)
        r->opt.max_batch_bytes = 1 << 20;
    if (r->opt.max_errors <= 0)
        r->opt.max_errors = 16;
    if (r->opt.pgn)
        r->opt.skip_tag_values = false;
    r->sc.line = 1;
    tok_init();
    for (int c960 = 0; c960 < 2; c960++) {
        pos_init_start(&r->start);
        r->start.chess960 = c960;
        r->start_fen_len[c960] = fen_format(&r->start, r->start_fen[c960], r->opt.fen_options);
    }
    em_init(&r->em, &r->movetext);
    if (!batch_init(&r->batch) || !VEC_RESERVE(r->levels, 16)) {
        gr_free(r);
        return NULL;
    }
    return r;
}

void gr_free(GameReader *r)
{
    if (!r)
        return;
    batch_free(&r->batch);
    VEC_FREE(r->history);
    VEC_FREE(r->levels);
    VEC_FREE(r->tag_set);
    VEC_FREE(r->movetext);
    em_free(&r->em);
    free(r);
}

Scanner *gr_scanner(GameReader *r) { return &r->sc; }
Batch *gr_batch(GameReader *r) { return &r->batch; }
int64_t gr_games_read(const GameReader *r) { return r->games; }
void gr_set_games_read(GameReader *r, int64_t games) { r->games = games; }

void gr_swap_batch(GameReader *r, Batch *other)
{
    Batch full = r->batch;
    r->batch = *other;
    *other = full;
}

/* ---------------------------------------------------------------- errors and notes */

static void push_text(GameReader *r, int strcol, const char *s, size_t n, bool latin1)
{
    StrCol *c = &r->batch.strs[strcol];
    if (!bytes_add_text(&c->data, s, n, latin1) || !strcol_end(c))
        r->batch.failed = true;
}

/* At most `max` bytes of a token for a report, not cutting a UTF-8 sequence in two. */
static size_t token_prefix(const char *s, size_t n, size_t max, bool latin1)
{
    if (n <= max)
        return n;
    while (!latin1 && max > 0 && ((unsigned char)s[max] & 0xC0) == 0x80)
        max--;
    return max;
}

static void add_error(GameReader *r, Game *g, int kind, int ply, const Token *t, int32_t detail)
{
    if (g->n_errors++ >= r->opt.max_errors)
        return;
    Batch *b = &r->batch;
    COL_PUSH(b, E_KIND, uint8_t, kind);
    COL_PUSH(b, E_PLY, int32_t, ply);
    COL_PUSH(b, E_OFFSET, int64_t, t ? r->sc.base + (int64_t)t->start : r->sc.base + (int64_t)g->end);
    COL_PUSH(b, E_LINE, int64_t, t ? t->line : r->sc.line);
    COL_PUSH(b, E_COLUMN, int64_t, t ? t->col : 0);
    COL_PUSH(b, E_DETAIL, int32_t, detail);
    const char *text = t ? r->sc.buf + t->start : "";
    push_text(r, S_ERROR_TOKEN, text, token_prefix(text, t ? t->len : 0, 80, g->latin1), g->latin1);
}

static void add_note(Game *g, int kind, int ply, const Token *t)
{
    if (g->note_count[kind]++ == 0) {
        g->note_kinds |= 1u << kind;
        g->note_ply[kind] = ply;
        g->note_at[kind] = t ? t->start : 0;
        g->note_len[kind] = t ? t->len : 0;
    }
}

static void add_move_notes(GameReader *r, Game *g, uint16_t notes, int ply, const Token *t)
{
    for (int i = 0; notes; i++, notes >>= 1) {
        if (!(notes & 1))
            continue;
        add_note(g, i, ply, t);
        if (r->opt.strict)
            add_error(r, g, ERR_NONSTANDARD_NOTATION, ply, t, i);
    }
}

static void push_notes(GameReader *r, Game *g)
{
    Batch *b = &r->batch;
    for (uint32_t kinds = g->note_kinds; kinds; kinds &= kinds - 1) { /* most games have none */
        int k = __builtin_ctz(kinds);
        COL_PUSH(b, O_KIND, uint8_t, k);
        COL_PUSH(b, O_PLY, int32_t, g->note_ply[k]);
        COL_PUSH(b, O_COUNT, int32_t, g->note_count[k]);
        const char *text = r->sc.buf + g->note_at[k];
        push_text(r, S_NOTE_TOKEN, text, token_prefix(text, g->note_len[k], 80, g->latin1), g->latin1);
    }
}

/* ---------------------------------------------------------------- tags */

static bool name_is(const char *s, size_t n, const char *name) { return strlen(name) == n && memcmp(s, name, n) == 0; }

static int tag_column_of(const char *name, size_t n)
{
    for (int i = 0; i < TAG_COLUMN_COUNT; i++)
        if (name_is(name, n, TAG_COLUMN_NAMES[i]))
            return i;
    return -1;
}

static bool tag_row_is(const StrCol *names, size_t row, const char *name, size_t n)
{
    int32_t a = names->offsets.data[row], z = names->offsets.data[row + 1];
    const char *s = names->data.data + a;
    /* the first byte before memcmp (a call): a game's names of one length mostly differ there
     * (Event, White, Black, Round; Site, Date) */
    return (size_t)(z - a) == n && (n == 0 || (s[0] == name[0] && memcmp(s, name, n) == 0));
}

/* Tag-name lookups of a game with many tags go through a hash set of its rows: a scan of the
 * rows per tag made a game of n tags cost n^2 (200,000 tags, 2 MB of input: a minute). The set
 * is brought up to date with the game's rows before each lookup, and rebuilt when the rows are
 * not those it holds (a new game, a rollback). Games of a few tags keep the plain scan. */
enum { TAG_SCAN_MAX = 32 };

static uint64_t tag_hash(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
    return h;
}

static void tag_set_insert(GameReader *r, const StrCol *names, size_t row)
{
    int32_t a = names->offsets.data[row], z = names->offsets.data[row + 1];
    size_t mask = r->tag_set.len - 1, i = tag_hash(names->data.data + a, (size_t)(z - a)) & mask;
    while (r->tag_set.data[i])
        i = (i + 1) & mask;
    r->tag_set.data[i] = (int32_t)row + 1;
}

/* Makes the set hold exactly the rows [first, count); false when out of memory. */
static bool tag_set_sync(GameReader *r, const StrCol *names, size_t first, size_t count)
{
    size_t size = r->tag_set.len;
    bool rebuild = r->tag_set_first != first || r->tag_set_rows > count || 2 * (count - first) >= size;
    if (rebuild) {
        size = 64;
        while (size < 4 * (count - first)) /* at most half full until the next rebuild */
            size *= 2;
        r->tag_set.len = 0;
        if (!VEC_RESERVE(r->tag_set, size))
            return false;
        r->tag_set.len = size;
        memset(r->tag_set.data, 0, size * sizeof *r->tag_set.data);
        r->tag_set_first = r->tag_set_rows = first;
    }
    for (; r->tag_set_rows < count; r->tag_set_rows++)
        tag_set_insert(r, names, r->tag_set_rows);
    return true;
}

/* Whether this game already has a tag of that name. */
static bool has_tag(GameReader *r, const Game *g, const char *name, size_t n)
{
    const StrCol *names = &r->batch.strs[S_TAG_NAME];
    size_t first = g->mark->strs[S_TAG_NAME], count = strcol_count(names);
    if (count - first > TAG_SCAN_MAX && tag_set_sync(r, names, first, count)) {
        size_t mask = r->tag_set.len - 1;
        for (size_t i = tag_hash(name, n) & mask; r->tag_set.data[i]; i = (i + 1) & mask)
            if (tag_row_is(names, (size_t)r->tag_set.data[i] - 1, name, n))
                return true;
        return false;
    }
    for (size_t i = first; i < count; i++) /* few tags (or no memory for the set) */
        if (tag_row_is(names, i, name, n))
            return true;
    return false;
}

static void push_tag_value(GameReader *r, const Game *g, const char *s, size_t n)
{
    StrCol *c = &r->batch.strs[S_TAG_VALUE];
    size_t i = 0;
    while (i < n) { /* undo \" and \\ */
        const char *bs = memchr(s + i, '\\', n - i);
        size_t run = bs ? (size_t)(bs - (s + i)) : n - i;
        if (!bytes_add_text(&c->data, s + i, run, g->latin1))
            r->batch.failed = true;
        i += run;
        if (bs) {
            bool escape = i + 1 < n && (s[i + 1] == '"' || s[i + 1] == '\\');
            if (!bytes_add_text(&c->data, s + i + escape, 1, false))
                r->batch.failed = true;
            i += 1 + escape;
        }
    }
    if (!strcol_end(c))
        r->batch.failed = true;
}

/* `duplicate`: the game already has a tag of this name (has_tag, asked once by the caller). */
static void on_tag(GameReader *r, Game *g, const Token *t, bool duplicate)
{
    const char *name = r->sc.buf + t->a, *value = r->sc.buf + t->b;
    if (duplicate) {
        add_note(g, NOTE_DUPLICATE_TAG, 0, t);
        return; /* the first value stands */
    }
    if (r->opt.tag_columns) {
        int column = tag_column_of(name, t->alen);
        if (column >= 0)
            g->tag_slot[column] = (int32_t)strcol_count(&r->batch.strs[S_TAG_NAME]) + 1;
        COL_PUSH(&r->batch, T_IN_MAP, uint8_t, column < 0);
    }
    push_text(r, S_TAG_NAME, name, t->alen, false);
    if (!r->opt.skip_tag_values)
        push_tag_value(r, g, value, t->blen);
    else if (!strcol_end(&r->batch.strs[S_TAG_VALUE]))
        r->batch.failed = true;
    g->n_tags++;
    if (name_is(name, t->alen, "Result")) {
        g->result_tag = result_parse(value, t->blen);
    } else if (name_is(name, t->alen, "FEN")) {
        g->fen = value;
        g->fen_len = t->blen;
    } else if (name_is(name, t->alen, "SetUp")) {
        g->has_setup = true;
    } else if (name_is(name, t->alen, "Variant")) {
        g->variant = value;
        g->variant_len = t->blen;
    }
}

/* In a tag section, a repeated tag name (`duplicate`) begins a new game (the one before had no
 * movetext, as broadcasts and studies export them): at the first tag after a blank line if there
 * was one, else at a second Event. */
static bool starts_next_game(GameReader *r, const Token *t, bool duplicate, bool after_gap)
{
    return duplicate && (after_gap || name_is(r->sc.buf + t->a, t->alen, "Event"));
}

/* ---------------------------------------------------------------- start position */

static bool variant_is(const char *v, size_t n, const char *name)
{
    if (strlen(name) != n)
        return false;
    for (size_t i = 0; i < n; i++)
        if ((v[i] | 0x20) != name[i])
            return false;
    return true;
}

/* 0 standard, 1 Chess960, -1 unsupported. */
static int classify_variant(const char *v, size_t n)
{
    static const char *const standard[] = {"", "standard", "from position", "normal", "chess"};
    static const char *const c960[] = {"chess960", "chess 960", "fischerandom", "fischer random", "freestyle",
                                       "960", "frc"};
    for (size_t i = 0; i < sizeof standard / sizeof *standard; i++)
        if (variant_is(v, n, standard[i]))
            return 0;
    for (size_t i = 0; i < sizeof c960 / sizeof *c960; i++)
        if (variant_is(v, n, c960[i]))
            return 1;
    return -1;
}

static void setup_start(GameReader *r, Game *g, const Token *first_move_token)
{
    Level *L = &r->levels.data[0];
    g->set_up = true;
    r->levels.len = 1;
    L->has_move = false;
    L->ply = 0;
    int variant = g->variant ? classify_variant(g->variant, g->variant_len) : 0;
    g->chess960 = variant == 1;
    g->replaying = r->opt.replay;
    if (variant < 0) {
        add_error(r, g, ERR_UNSUPPORTED_VARIANT, 0, first_move_token, 0);
        g->replaying = false;
    }
    if (g->fen) {
        int problems = fen_parse(&L->pos, g->fen, g->fen_len, g->chess960);
        if (problems) {
            add_error(r, g, ERR_INVALID_START_POSITION, 0, first_move_token, problems);
            g->replaying = false;
        }
        if (!g->has_setup)
            add_note(g, NOTE_FEN_WITHOUT_SETUP, 0, NULL);
    } else {
        L->pos = r->start;
        L->pos.chess960 = g->chess960;
    }
    if (!g->fen) {
        push_text(r, S_START_FEN, r->start_fen[g->chess960], r->start_fen_len[g->chess960], false);
    } else if (g->replaying) { /* the start position as FEN, in the output's FEN style */
        char fen[FEN_MAX];
        push_text(r, S_START_FEN, fen, fen_format(&L->pos, fen, r->opt.fen_options), false);
    } else {
        push_text(r, S_START_FEN, g->fen, g->fen_len, g->latin1);
    }
    r->history.len = 0;
    VEC_PUSH(r->history, L->pos.hash, r->batch.failed);
    g->need_number = true;
    if (r->opt.pgn) {
        r->movetext.len = 0;
        em_reset(&r->em, &r->movetext);
    }
}

/* ---------------------------------------------------------------- moves */

static bool emitting(const GameReader *r, const Game *g)
{
    return r->opt.pgn && !(g->depth > 0 && (r->opt.strip_variations || r->opt.reduced));
}

/* Closes the open mainline move row: its annotations and comment text. */
static void finish_pending(GameReader *r, Game *g)
{
    if (!g->pending)
        return;
    Batch *b = &r->batch; /* push_move_row made room for the row's annotations */
    COL_PUT(b, M_HAS, uint8_t, g->ann.has);
    COL_PUT(b, M_CLOCK, double, g->ann.clock);
    COL_PUT(b, M_EMT, double, g->ann.emt);
    COL_PUT(b, M_EVAL_CP, int32_t, g->ann.eval_cp);
    COL_PUT(b, M_EVAL_MATE, int16_t, g->ann.eval_mate);
    if (r->opt.comments && !strcol_end(&b->strs[S_COMMENT]))
        b->failed = true;
    memset(&g->ann, 0, sizeof g->ann);
    g->pending = false;
}

/* The move row, from the position after the move and what the move changed (u). */
static void push_move_row(GameReader *r, Game *g, const Position *after, const Undo *u,
                          const char san[16], size_t san_len, int status)
{
    Batch *b = &r->batch;
    move_t m = u->move;
    int from = mv_from(m), to = mv_to(m), type = mv_type(m), us = u->state.turn;
    uint8_t captured = type == MT_EN_PASSANT ? PAWN : PIECE_TYPE(u->captured); /* castling: none */
    uint8_t flags = (uint8_t)((captured ? MF_CAPTURE : 0) | (status ? MF_CHECK : 0) | (status == 2 ? MF_MATE : 0) |
                              (type == MT_CASTLE ? MF_CASTLE : 0) | (type == MT_EN_PASSANT ? MF_EN_PASSANT : 0));
    /* castling goes to the king's square, as UCI has it (Chess960: king takes rook); the king
     * stands there now */
    int uci_to = type == MT_CASTLE && !after->chess960 ? pos_king(after, us) : to;
    int piece = type == MT_CASTLE ? KING : type == MT_PROMOTION ? PAWN : PIECE_TYPE(after->board[to]);
    char text[FEN_MAX];
    finish_pending(r, g);
    if (!batch_reserve_move_row(b)) {
        b->failed = true;
        return;
    }
    COL_PUT(b, M_PLY, int16_t, g->ply);
    COL_PUT(b, M_FROM, uint8_t, from);
    COL_PUT(b, M_TO, uint8_t, uci_to);
    COL_PUT(b, M_PIECE, uint8_t, piece);
    COL_PUT(b, M_CAPTURED, uint8_t, captured);
    COL_PUT(b, M_PROMOTION, uint8_t, mv_promo(m));
    COL_PUT(b, M_FLAGS, uint8_t, flags);
    COL_PUT(b, M_HALFMOVE, uint16_t, after->halfmove);
    COL_PUT(b, M_NAG_START, int32_t, COL_LEN(b, N_NAG));
    size_t uci_len = uci_format_squares(from, uci_to, mv_promo(m), text);
    if (!strcol_push_short(&b->strs[S_SAN], san, san_len) || !strcol_push_short(&b->strs[S_UCI], text, uci_len))
        b->failed = true;
    if (r->opt.fen_every_ply)
        push_text(r, S_FEN, text, fen_format(after, text, r->opt.fen_options), false);
    g->pending = true;
}

/* The automatic ends (FIDE 9.6) after a mainline move; checkmate is found by the caller. A move
 * that takes or promotes (material_changed) sets the half-move clock to 0: only such a move can
 * leave too little material, and only the others can repeat a position or reach 50 or 75 moves
 * (the same tests in the same order as asking everything after every move). */
static void track_mainline_end(GameReader *r, Game *g, const Position *p, bool material_changed)
{
    VEC_PUSH(r->history, p->hash, r->batch.failed);
    if (material_changed) {
        if (!g->outcome && pos_is_insufficient_material(p))
            g->outcome = OUTCOME_INSUFFICIENT;
    } else if (p->halfmove >= 8) {
        if (p->halfmove >= 100)
            g->claim_fifty = true;
        int reps = pos_repetition_count(r->history.data, (int)r->history.len, p->halfmove);
        g->claim_threefold |= reps >= 3;
        if (reps >= 5 && !g->outcome)
            g->outcome = OUTCOME_FIVEFOLD;
        if (!g->outcome && p->halfmove >= 150)
            g->outcome = OUTCOME_SEVENTYFIVE;
    }
    if (g->outcome && !g->outcome_ply)
        g->outcome_ply = g->ply;
}

static void stop_replay(GameReader *r, Game *g, int kind, int ply, const Token *t, int detail)
{
    add_error(r, g, kind, ply, t, detail);
    g->stopped = true;
}

static void on_move(GameReader *r, Game *g, const Token *t)
{
    const char *text = r->sc.buf + t->a;
    if (t->alen == 4 && memcmp(text, "e.p.", 4) == 0) { /* "exd6 e.p." written apart */
        if (g->replaying && !g->stopped && r->levels.data[g->depth].has_move)
            add_move_notes(r, g, NOTE_EN_PASSANT_SUFFIX, g->ply, t);
        return;
    }
    g->has_content = true;
    if (!g->move_syntax) {
        SanMove probe;
        g->move_syntax = san_parse(text, t->alen, &probe) != SAN_INVALID;
    }
    if (!g->replaying || g->stopped)
        return;

    Level *L = &r->levels.data[g->depth];
    bool mainline = g->depth == 0;
    int ply = L->ply + 1;
    int ended = mainline ? g->outcome : L->ended;
    if (ended) {
        stop_replay(r, g, ERR_MOVE_AFTER_GAME_END, ply, t, ended);
        return;
    }
    SanMove sm;
    move_t m = MOVE_NONE;
    int rc = san_parse(text, t->alen, &sm);
    if (rc == SAN_OK)
        rc = san_resolve(&L->pos, &sm, &m);
    if (rc != SAN_OK) {
        if (rc == SAN_ILLEGAL && !pos_has_legal_move(&L->pos)) {
            int end = pos_in_check(&L->pos) ? OUTCOME_CHECKMATE : OUTCOME_STALEMATE;
            if (mainline) {
                g->outcome = end;
                g->outcome_ply = g->ply;
            }
            stop_replay(r, g, ERR_MOVE_AFTER_GAME_END, ply, t, end);
        } else {
            stop_replay(r, g, rc, ply, t, 0);
        }
        return;
    }

    char san[16];
    size_t san_len = 0;
    bool want_san = r->opt.pgn || (mainline && r->opt.moves);
    if (want_san)
        san_len = san_format_base(&L->pos, m, san);
    pos_make_undo(&L->pos, m, &L->undo);
    bool material_changed = L->undo.captured || mv_type(m) == MT_EN_PASSANT || mv_type(m) == MT_PROMOTION;
    L->has_move = true;
    L->ply = ply;
    int status = pos_check_status(&L->pos);
    if (want_san && status)
        san[san_len++] = status == 2 ? '#' : '+';
    uint16_t notes = sm.notes | san_check_notes(sm.check, status);
    if (notes) /* most moves need none */
        add_move_notes(r, g, notes, ply, t);

    if (emitting(r, g)) {
        bool black = L->undo.state.turn == BLACK;
        if (!black || g->need_number)
            em_move_number(&r->em, L->undo.state.fullmove, black);
        em_unit(&r->em, san, san_len);
        g->need_number = false;
    }
    if (!mainline) { /* the dead-position and 75-move ends apply in variations too */
        if (material_changed && pos_is_insufficient_material(&L->pos))
            L->ended = OUTCOME_INSUFFICIENT;
        else if (L->pos.halfmove >= 150 && status != 2)
            L->ended = OUTCOME_SEVENTYFIVE;
    }
    if (mainline) {
        g->ply++;
        if (status == 2) {
            g->outcome = OUTCOME_CHECKMATE;
            g->outcome_ply = g->ply;
        }
        track_mainline_end(r, g, &L->pos, material_changed);
        if (r->opt.moves)
            push_move_row(r, g, &L->pos, &L->undo, san, san_len, status);
    }
}

static void on_comment(GameReader *r, Game *g, const Token *t)
{
    const char *text = r->sc.buf + t->a;
    if (g->depth == 0 && g->pending) {
        ann_parse(text, t->alen, &g->ann);
        if (r->opt.comments) {
            size_t a = 0, z = t->alen; /* stored trimmed; several comments joined by a space */
            while (a < z && (text[a] == ' ' || text[a] == '\n' || text[a] == '\r' || text[a] == '\t'))
                a++;
            while (z > a && (text[z - 1] == ' ' || text[z - 1] == '\n' || text[z - 1] == '\r' || text[z - 1] == '\t'))
                z--;
            StrCol *c = &r->batch.strs[S_COMMENT];
            if ((g->ann.has & HAS_COMMENT) && !strcol_addc(c, ' '))
                r->batch.failed = true;
            if (!bytes_add_text(&c->data, text + a, z - a, g->latin1))
                r->batch.failed = true;
        }
        g->ann.has |= HAS_COMMENT;
    }
    if (emitting(r, g) && !r->opt.strip_comments && !r->opt.reduced) {
        em_comment(&r->em, text, t->alen, g->latin1);
        g->need_number = true;
    }
}

static void on_nag(GameReader *r, Game *g, const Token *t)
{
    if (t->value > 255) {
        add_error(r, g, ERR_SYNTAX, g->ply, t, 0);
        return;
    }
    if (g->depth == 0 && g->pending)
        COL_PUSH(&r->batch, N_NAG, uint8_t, t->value);
    if (emitting(r, g) && !r->opt.reduced)
        em_nag(&r->em, t->value);
}

static void on_open_variation(GameReader *r, Game *g, const Token *t)
{
    Level *L = &r->levels.data[g->depth];
    if (g->replaying && !g->stopped && !L->has_move) {
        stop_replay(r, g, ERR_SYNTAX, g->ply, t, 1); /* a variation before any move */
    }
    if (!VEC_RESERVE(r->levels, 1)) {
        r->batch.failed = true;
        return;
    }
    L = &r->levels.data[g->depth]; /* the reserve may have moved it */
    Level *V = &r->levels.data[++g->depth];
    r->levels.len = (size_t)g->depth + 1;
    V->pos = L->pos;
    if (L->has_move)
        pos_unmake(&V->pos, &L->undo);
    V->has_move = false;
    V->ply = L->ply - 1;
    V->ended = 0;
    if (emitting(r, g)) {
        em_open_variation(&r->em);
        g->need_number = true;
    }
}

static void on_close_variation(GameReader *r, Game *g, const Token *t)
{
    if (g->depth == 0) {
        add_error(r, g, ERR_SYNTAX, g->ply, t, 2); /* ')' without '(' */
        return;
    }
    if (emitting(r, g)) {
        em_close_variation(&r->em);
        g->need_number = true;
    }
    g->depth--;
    r->levels.len = (size_t)g->depth + 1;
}

/* ---------------------------------------------------------------- game end */

static void check_result(GameReader *r, Game *g, const Position *final)
{
    ResultCheck rc;
    int by_position = result_of_outcome(g->outcome, final->turn);
    result_check(g->result_tag, g->result_marker, by_position, r->opt.fix_results, g->n_errors > 0, &rc);
    g->result = rc.result;
    g->fixes = rc.fixes;
    if (rc.error)
        add_error(r, g, rc.error, 0, NULL, rc.detail);
    if (rc.missing_tag)
        add_note(g, NOTE_MISSING_RESULT_TAG, 0, NULL);
}

static void final_outcome(GameReader *r, Game *g, const Position *p)
{
    (void)r;
    if (!g->replaying || g->stopped || g->outcome)
        return;
    if (!pos_has_legal_move(p))
        g->outcome = pos_in_check(p) ? OUTCOME_CHECKMATE : OUTCOME_STALEMATE;
    else if (pos_is_insufficient_material(p))
        g->outcome = OUTCOME_INSUFFICIENT;
    else if (p->halfmove >= 150)
        g->outcome = OUTCOME_SEVENTYFIVE;
    if (g->outcome)
        g->outcome_ply = g->ply;
}

/* The export format of a valid or fixed game: the movetext emitted while replaying, behind the
 * tag section (pgn_writer.c). */
static void write_pgn(GameReader *r, Game *g)
{
    StrCol *out = &r->batch.strs[S_PGN];
    size_t first = g->mark->strs[S_TAG_NAME];
    const char *result = result_string(g->result);
    em_unit(&r->em, result, strlen(result));
    em_finish(&r->em);
    bool ok = !r->em.failed &&
              pgn_write_game(&out->data, &r->batch.strs[S_TAG_NAME], &r->batch.strs[S_TAG_VALUE], first,
                             strcol_count(&r->batch.strs[S_TAG_NAME]) - first, result, g->fen && !g->has_setup,
                             r->opt.reduced, &r->movetext) &&
              strcol_end(out);
    if (!ok)
        r->batch.failed = true;
}

static bool valid_utf8(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        if (i + 64 <= n) { /* ASCII runs (nearly all of a game) 64 bytes at a time */
            uint64_t w[8];
            memcpy(w, s + i, 64);
            if (!((w[0] | w[1] | w[2] | w[3] | w[4] | w[5] | w[6] | w[7]) & 0x8080808080808080ULL)) {
                i += 64;
                continue;
            }
        }
        if (i + 8 <= n) {
            uint64_t w;
            memcpy(&w, s + i, 8);
            if (!(w & 0x8080808080808080ULL)) {
                i += 8;
                continue;
            }
        }
        unsigned char c = s[i];
        size_t len = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
        if (!len || i + len > n || (len == 2 && c < 0xC2))
            return false;
        /* What Python's decoder (RFC 3629) also refuses: overlong 3- and 4-byte forms, UTF-16
         * surrogates, code points past U+10FFFF. Accepting them made the batch undecodable. */
        if (len > 2) {
            unsigned char c1 = s[i + 1];
            if ((c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 > 0x9F) || (c == 0xF0 && c1 < 0x90) ||
                (c == 0xF4 && c1 > 0x8F) || c > 0xF4)
                return false;
        }
        for (size_t k = 1; k < len; k++)
            if ((s[i + k] & 0xC0) != 0x80)
                return false;
        i += len;
    }
    return true;
}

static void finish_game(GameReader *r, Game *g)
{
    Batch *b = &r->batch;
    const Position *final = &r->levels.data[0].pos;
    finish_pending(r, g);
    if (g->depth > 0)
        add_error(r, g, ERR_UNTERMINATED_VARIATION, g->ply, NULL, g->depth);
    final_outcome(r, g, final);
    check_result(r, g, final);
    if (g->n_errors == 0 && g->result == RESULT_DRAW) {
        if (g->claim_fifty)
            add_note(g, NOTE_FIFTY_MOVE_CLAIMABLE, g->ply, NULL);
        if (g->claim_threefold)
            add_note(g, NOTE_THREEFOLD_CLAIMABLE, g->ply, NULL);
    }
    if (g->latin1)
        add_note(g, NOTE_LATIN1, 0, NULL);
    int status = g->n_errors ? STATUS_INVALID : g->fixes ? STATUS_FIXED : STATUS_VALID;
    if (r->opt.final_fen) {
        char fen[FEN_MAX];
        push_text(r, S_FINAL_FEN, fen, fen_format(final, fen, r->opt.fen_options), false);
    }
    if (r->opt.pgn) {
        if (status == STATUS_INVALID)
            push_text(r, S_PGN, "", 0, false);
        else
            write_pgn(r, g);
    }
    if (r->opt.raw_invalid)
        push_text(r, S_RAW, r->sc.buf + g->start, status == STATUS_INVALID ? g->end - g->start : 0, false);
    push_notes(r, g);
    COL_PUSH(b, G_OFFSET, int64_t, r->sc.base + (int64_t)g->start);
    COL_PUSH(b, G_LENGTH, int64_t, (int64_t)(g->end - g->start));
    COL_PUSH(b, G_LINE, int64_t, g->line);
    COL_PUSH(b, G_TAG_START, int32_t, g->mark->strs[S_TAG_NAME]);
    COL_PUSH(b, G_MOVE_START, int32_t, g->mark->cols[M_FROM]);
    COL_PUSH(b, G_ERROR_START, int32_t, g->mark->cols[E_KIND]);
    COL_PUSH(b, G_NOTE_START, int32_t, g->mark->cols[O_KIND]);
    COL_PUSH(b, G_PLY_COUNT, int32_t, g->ply);
    COL_PUSH(b, G_STATUS, uint8_t, status);
    COL_PUSH(b, G_RESULT, uint8_t, g->result);
    COL_PUSH(b, G_RESULT_TAG, uint8_t, g->result_tag);
    COL_PUSH(b, G_RESULT_MARKER, uint8_t, g->result_marker);
    COL_PUSH(b, G_OUTCOME, uint8_t, g->outcome);
    COL_PUSH(b, G_OUTCOME_PLY, int32_t, g->outcome_ply);
    COL_PUSH(b, G_FIXES, uint8_t, g->fixes);
    COL_PUSH(b, G_CHESS960, uint8_t, g->chess960);
    COL_PUSH(b, G_REPLAYED, uint8_t, g->replaying);
    if (r->opt.tag_columns)
        for (int i = 0; i < TAG_COLUMN_COUNT; i++)
            COL_PUSH(b, G_TAG_SLOTS, int32_t, g->tag_slot[i]);
    b->n_games++;
    r->games++;
}

/* ---------------------------------------------------------------- the game loop */

enum { GAME_DONE, GAME_NEED_MORE, GAME_NONE, GAME_SKIPPED, GAME_RETRY_LATIN1 };

static int read_game(GameReader *r, const BatchMark *mark, bool latin1)
{
    Scanner *sc = &r->sc;
    Scanner start_state = *sc;
    Game g, at_gap;
    Token t, gap_token;
    BatchMark gap_mark;
    bool have_gap = false;
    memset(&g, 0, sizeof g);
    g.latin1 = latin1;
    g.mark = mark;
    r->levels.len = 1;
    r->tag_set_rows = r->tag_set_first = SIZE_MAX; /* the tag set holds no rows of this game */

    int k;
    for (;;) { /* the tag section: tags, possibly with blank lines between them */
        k = tok_next(sc, &t);
        if (k == TOK_NEED_MORE)
            goto need_more;
        if (k == TOK_END)
            break;
        if (!g.has_tags && !g.has_content && g.start == 0 && g.line == 0) {
            g.start = t.start;
            g.line = t.line;
        }
        if (k == TOK_TAG && g.has_tags && !have_gap && t.line > g.last_tag_line + 1) {
            at_gap = g; /* a blank line inside a tag section: maybe the next game starts here */
            gap_token = t;
            batch_mark(&r->batch, &gap_mark);
            have_gap = true;
        }
        /* a game without tags yet has no tag rows: no lookup */
        bool duplicate = k == TOK_TAG && g.has_tags && has_tag(r, &g, sc->buf + t.a, t.alen);
        if (starts_next_game(r, &t, duplicate, have_gap)) {
            if (have_gap) { /* the next game began at the first tag after the blank line */
                g = at_gap;
                batch_rollback(&r->batch, &gap_mark);
                tok_unread(sc, &gap_token);
            } else {
                tok_unread(sc, &t);
            }
            goto done; /* the game before had tags only */
        }
        if (k == TOK_TAG) {
            on_tag(r, &g, &t, duplicate);
            g.last_tag_line = t.line;
            g.has_tags = g.has_content = true;
        } else if (k == TOK_BAD_TAG) {
            add_error(r, &g, ERR_SYNTAX, 0, &t, 3);
            g.has_content = true;
        } else {
            break;
        }
        g.end = t.start + t.len;
    }
    if (k == TOK_END && !g.has_content)
        return GAME_NONE;
    setup_start(r, &g, k == TOK_END ? NULL : &t);

    for (;;) {
        switch (k) {
        case TOK_END: goto done;
        case TOK_NEED_MORE: goto need_more;
        case TOK_TAG: tok_unread(sc, &t); goto done;
        case TOK_BAD_TAG:
            if (t.line_start) {
                tok_unread(sc, &t);
                goto done;
            }
            add_error(r, &g, ERR_SYNTAX, g.ply, &t, 3);
            break;
        case TOK_RESULT:
            if (g.depth == 0) {
                g.result_marker = t.value;
                g.has_content = true;
                g.end = t.start + t.len;
                goto done;
            }
            add_error(r, &g, ERR_SYNTAX, g.ply, &t, 4); /* a result inside a variation */
            break;
        case TOK_MOVE: on_move(r, &g, &t); break;
        case TOK_MOVE_NUMBER: break;
        case TOK_NAG: on_nag(r, &g, &t); break;
        case TOK_UNTERMINATED_COMMENT: add_error(r, &g, ERR_UNTERMINATED_COMMENT, g.ply, &t, 0); /* fall through */
        case TOK_COMMENT: on_comment(r, &g, &t); break;
        case TOK_VAR_OPEN: on_open_variation(r, &g, &t); break;
        case TOK_VAR_CLOSE: on_close_variation(r, &g, &t); break;
        default: add_error(r, &g, ERR_SYNTAX, g.ply, &t, 5); break; /* a stray character */
        }
        g.end = t.start + t.len;
        k = tok_next(sc, &t);
    }

done:
    if (!g.has_tags && !g.move_syntax)
        g.has_content = false; /* prose, comments or a stray marker between games: no tags, no moves */
    if (g.has_content && !g.set_up)
        setup_start(r, &g, NULL); /* a tag-only game */
    if (!g.has_content) { /* only comments or stray text between games: not a game */
        batch_rollback(&r->batch, g.mark);
        return GAME_SKIPPED;
    }
    if (!latin1 && !valid_utf8((const unsigned char *)sc->buf + g.start, g.end - g.start)) {
        batch_rollback(&r->batch, g.mark);
        *sc = start_state;
        return GAME_RETRY_LATIN1;
    }
    finish_game(r, &g);
    return GAME_DONE;

need_more:
    batch_rollback(&r->batch, g.mark);
    *sc = start_state;
    return GAME_NEED_MORE;
}

void gr_skip_oversized(GameReader *r, int64_t limit)
{
    Game g;
    BatchMark mark;
    Scanner *sc = &r->sc;
    size_t first = sc->pos; /* the game's first byte: past the blank lines before it */
    while (first < sc->len && (sc->buf[first] == ' ' || sc->buf[first] == '\t' || sc->buf[first] == '\n' ||
                               sc->buf[first] == '\r'))
        first++;
    tok_skip_to(sc, first);
    memset(&g, 0, sizeof g);
    batch_mark(&r->batch, &mark);
    g.mark = &mark;
    g.start = g.end = first;
    g.line = r->sc.line;
    setup_start(r, &g, NULL);
    g.replaying = false;
    add_error(r, &g, ERR_GAME_TOO_LARGE, 0, NULL, (int32_t)(limit >> 20));
    finish_game(r, &g);
    r->skipping = true;
}

/* Skips to the next tag line that follows a blank line. Returns false when the buffer ends
 * first (the last bytes are kept, in case a boundary straddles the refill). */
static bool skip_to_next_game(GameReader *r)
{
    Scanner *sc = &r->sc;
    const char *b = sc->buf;
    size_t i = sc->pos, n = sc->len;
    const char *nl;
    while ((nl = memchr(b + i, '\n', n - i)) != NULL) {
        size_t at = (size_t)(nl - b), next = at + 1;
        bool blank = at >= 1 && (b[at - 1] == '\n' || (b[at - 1] == '\r' && at >= 2 && b[at - 2] == '\n'));
        bool need_more = false;
        if (blank && tok_looks_like_tag(sc, next, &need_more)) {
            tok_skip_to(sc, next);
            r->skipping = false;
            return true;
        }
        if (need_more)
            break;
        i = next;
    }
    if (sc->eof) {
        tok_skip_to(sc, n);
        r->skipping = false;
        return true;
    }
    if (n - sc->pos > 256)
        tok_skip_to(sc, n - 256);
    return false;
}

int gr_fill(GameReader *r)
{
    BatchMark mark; /* the batch where the next game starts; batch_mark also gives its size */
    while (r->batch.n_games < (size_t)r->opt.max_games && batch_mark(&r->batch, &mark) < r->opt.max_batch_bytes) {
        if (r->batch.failed)
            return GR_NO_MEMORY;
        if (r->skipping && !skip_to_next_game(r))
            return GR_NEED_MORE;
        int rc = read_game(r, &mark, false);
        if (rc == GAME_RETRY_LATIN1)
            rc = read_game(r, &mark, true);
        if (rc == GAME_NEED_MORE)
            return GR_NEED_MORE;
        if (rc == GAME_NONE)
            return GR_END;
    }
    return r->batch.failed ? GR_NO_MEMORY : GR_FULL;
}
