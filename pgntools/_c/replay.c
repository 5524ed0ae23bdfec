#include <string.h>

#include "fen.h"
#include "game_hash.h"
#include "replay.h"
#include "result.h"

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

int classify_variant(const char *v, size_t n)
{
    static const struct {
        const char *name;
        int rules;
    } names[] = {
        {"", VARIANT_STANDARD}, {"standard", VARIANT_STANDARD}, {"from position", VARIANT_STANDARD},
        {"normal", VARIANT_STANDARD}, {"chess", VARIANT_STANDARD}, {"classical", VARIANT_STANDARD},
        {"chess960", PLAYED_AS_CHESS960}, {"chess 960", PLAYED_AS_CHESS960}, {"fischerandom", PLAYED_AS_CHESS960},
        {"fischer random", PLAYED_AS_CHESS960}, {"freestyle", PLAYED_AS_CHESS960}, {"960", PLAYED_AS_CHESS960},
        {"frc", PLAYED_AS_CHESS960},
        {"king of the hill", VARIANT_KING_OF_THE_HILL}, {"kingofthehill", VARIANT_KING_OF_THE_HILL},
        {"koth", VARIANT_KING_OF_THE_HILL},
        {"three-check", VARIANT_THREE_CHECK}, {"three check", VARIANT_THREE_CHECK}, {"threecheck", VARIANT_THREE_CHECK},
        {"three check chess", VARIANT_THREE_CHECK}, {"3-check", VARIANT_THREE_CHECK}, {"3 check", VARIANT_THREE_CHECK},
        {"3check", VARIANT_THREE_CHECK},
        {"racing kings", VARIANT_RACING_KINGS}, {"racingkings", VARIANT_RACING_KINGS}, {"racing", VARIANT_RACING_KINGS},
        {"race", VARIANT_RACING_KINGS}, {"horde", VARIANT_HORDE}, {"horde chess", VARIANT_HORDE},
        {"antichess", VARIANT_ANTICHESS}, {"anti chess", VARIANT_ANTICHESS}, {"anti", VARIANT_ANTICHESS},
        {"giveaway", VARIANT_ANTICHESS | STARTS_WITH_CASTLING},
        {"giveaway chess", VARIANT_ANTICHESS | STARTS_WITH_CASTLING},
        {"give away", VARIANT_ANTICHESS | STARTS_WITH_CASTLING},
        {"give away chess", VARIANT_ANTICHESS | STARTS_WITH_CASTLING},
        {"atomic", VARIANT_ATOMIC}, {"atomic chess", VARIANT_ATOMIC}, {"atom", VARIANT_ATOMIC},
        {"crazyhouse", VARIANT_CRAZYHOUSE}, {"crazy house", VARIANT_CRAZYHOUSE}, {"house", VARIANT_CRAZYHOUSE},
        {"zh", VARIANT_CRAZYHOUSE},
    };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (variant_is(v, n, names[i].name))
            return names[i].rules;
    return -1;
}

/* ---------------------------------------------------------------- start FEN repairs */

enum { FEN_FIELDS = 6, FEN_REPAIR_MAX = 160 };

/* The FEN text's fields (at most FEN_FIELDS: more is no FEN this repairs); their count. */
static int fen_fields(const char *s, size_t n, const char *f[FEN_FIELDS], size_t len[FEN_FIELDS])
{
    int k = 0;
    for (size_t i = 0; i < n;) {
        while (i < n && s[i] == ' ')
            i++;
        if (i >= n)
            break;
        if (k == FEN_FIELDS)
            return -1;
        f[k] = s + i;
        while (i < n && s[i] != ' ')
            i++;
        len[k] = (size_t)(s + i - f[k]);
        k++;
    }
    return k;
}

static size_t fen_join(char *out, const char *f[FEN_FIELDS], const size_t len[FEN_FIELDS], int k)
{
    size_t o = 0;
    for (int i = 0; i < k; i++) {
        if (i)
            out[o++] = ' ';
        memcpy(out + o, f[i], len[i]);
        o += len[i];
    }
    return o;
}

static bool all_zeros(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != '0')
            return false;
    return n > 0;
}

/* A start FEN whose only problems are castling rights the position cannot have, an en-passant
 * square that cannot be right, or fullmove 0: repaired into pos (a fix for each field, with the
 * field before and after). Returns the problems left: 0 when repaired, else `problems` as read
 * (a position that is not legal is no repair's business). */
static int repair_start_fen(GameReader *r, Game *g, Position *pos, int problems)
{
    const char *f[FEN_FIELDS];
    size_t len[FEN_FIELDS];
    int k = g->fen_len <= FEN_REPAIR_MAX ? fen_fields(g->fen, g->fen_len, f, len) : -1;
    if (g->rules == VARIANT_THREE_CHECK && k >= 5 && memchr(f[4], '+', len[4])) /* (the fields are others') */
        return problems;
    bool zero_fullmove = k == 6 && all_zeros(f[5], len[5]);
    /* --strict: castling and en passant stay errors; fullmove 0, always read as 1, is a fix there too */
    if ((r->opt.strict && problems) || k < 4 || (problems & ~(FEN_BAD_CASTLING_RIGHTS | FEN_BAD_EN_PASSANT)) ||
        (!problems && !zero_fullmove))
        return problems;
    const char *orig[FEN_FIELDS];
    size_t orig_len[FEN_FIELDS];
    memcpy(orig, f, sizeof f);
    memcpy(orig_len, len, sizeof len);
    char kept[16], text[FEN_REPAIR_MAX + 8];
    size_t n_kept = 0;
    if (problems & FEN_BAD_CASTLING_RIGHTS) { /* each right alone, kept when the position has it */
        Position probe;
        f[3] = "-", len[3] = 1; /* (en passant apart: probed below) */
        for (size_t i = 0; i < orig_len[2] && n_kept < sizeof kept; i++) {
            if (memchr(kept, orig[2][i], n_kept))
                continue;
            f[2] = orig[2] + i, len[2] = 1;
            if (!(fen_parse_variant(&probe, text, fen_join(text, f, len, k), g->chess960, g->rules, NULL) &
                  FEN_BAD_CASTLING_RIGHTS))
                kept[n_kept++] = orig[2][i];
        }
        f[2] = n_kept ? kept : "-", len[2] = n_kept ? n_kept : 1;
        f[3] = orig[3], len[3] = orig_len[3];
    }
    if (problems & FEN_BAD_EN_PASSANT)
        f[3] = "-", len[3] = 1;
    if (zero_fullmove)
        f[5] = "1", len[5] = 1;
    size_t text_len = fen_join(text, f, len, k);
    if (fen_parse_variant(pos, text, text_len, g->chess960, g->rules, NULL)) /* the problems as read: */
        return fen_parse_variant(pos, g->fen, g->fen_len, g->chess960, g->rules, NULL);
    _Static_assert(sizeof r->repaired_fen >= sizeof text, "room for a repaired FEN");
    memcpy(r->repaired_fen, text, text_len);
    r->repaired_fen_len = text_len;
    g->fen_repaired = true;
    static const char *const names[] = {"castling", "en_passant", "fullmove"};
    static const int kinds[] = {FIXK_FEN_CASTLING, FIXK_FEN_EN_PASSANT, FIXK_FEN_FULLMOVE};
    for (int i = 2; i < k; i++)
        if (i != 4 && (len[i] != orig_len[i] || memcmp(f[i], orig[i], len[i])))
            game_add_fix(r, g, kinds[i == 2 ? 0 : i == 3 ? 1 : 2], 0, names[i == 2 ? 0 : i == 3 ? 1 : 2],
                         strlen(names[i == 2 ? 0 : i == 3 ? 1 : 2]), orig[i], orig_len[i], f[i], len[i]);
    return 0;
}

/* The FEN tag's line as a token, for its errors: from its '[' to its ']' (or the line's end). */
static void fen_tag_token(const GameReader *r, const Game *g, Token *t)
{
    const char *b = r->sc.buf;
    size_t at = (size_t)(g->fen - b), a = at, z = at + g->fen_len;
    /* (an empty FEN value may end the buffer: b[at] is then past it) */
    while (a > g->start && b[a - 1] != '\n' && b[a - 1] != '\r' && (a >= r->sc.len || b[a] != '['))
        a--;
    while (z < r->sc.len && b[z] != '\n' && b[z] != '\r' && (z == at || b[z - 1] != ']'))
        z++;
    memset(t, 0, sizeof *t);
    t->start = t->a = a;
    t->len = t->alen = z - a;
    t->line = g->line;
    size_t line_start = g->start;
    for (size_t i = g->start; i < a; i++)
        if (b[i] == '\n') {
            t->line++;
            line_start = i + 1;
        }
    t->line_at = r->sc.base + (int64_t)line_start;
}

static void choose_recorders(GameReader *r, Game *g);

void replay_start(GameReader *r, Game *g, const Token *first_move_token)
{
    Level *L = &r->levels.data[0];
    g->set_up = true;
    r->levels.len = 1;
    L->has_move = false;
    L->ply = 0;
    int variant = g->variant ? classify_variant(g->variant, g->variant_len) : 0;
    g->chess960 = variant >= 0 && (variant & PLAYED_AS_CHESS960);
    g->rules = variant >= 0 ? (uint8_t)(variant & ~(PLAYED_AS_CHESS960 | STARTS_WITH_CASTLING)) : VARIANT_STANDARD;
    g->replaying = r->opt.replay;
    if (r->filter_tags) {
        const StrCol *values = &r->batch.strs[S_TAG_VALUE], *names = &r->batch.strs[S_TAG_NAME];
        TagView tags = {g->tag_slot, values->offsets.data, values->data.data, names->offsets.data, names->data.data,
                        g->mark->strs[S_TAG_NAME], strcol_count(names), g->speed};
        if (!tag_filter_pass(r->opt.tag_filter, &tags)) { /* a tag filter decides before the replay */
            g->filtered = true; /* not replayed, not recorded: nothing more to set up */
            g->replaying = false;
            return;
        }
    }
    if (variant < 0) {
        game_add_error(r, g, ERR_UNSUPPORTED_VARIANT, 0, first_move_token, 0);
        g->replaying = false;
    }
    if (g->fen) {
        int problems = repair_start_fen(r, g, &L->pos, fen_parse_variant(&L->pos, g->fen, g->fen_len, g->chess960, g->rules, NULL));
        if (problems) { /* located at the FEN tag */
            Token fen_tag;
            fen_tag_token(r, g, &fen_tag);
            game_add_error(r, g, ERR_INVALID_START_POSITION, 0, &fen_tag, problems);
            g->replaying = false;
        }
        if (!g->has_setup)
            game_add_note(g, NOTE_FEN_WITHOUT_SETUP, 0, NULL);
    } else {
        L->pos = r->start;
        L->pos.chess960 = g->chess960;
        if (g->rules != VARIANT_STANDARD)
            pos_set_variant(&L->pos, g->rules);
        if (variant > 0 && (variant & STARTS_WITH_CASTLING)) { /* (Giveaway: chess's castling rights) */
            memcpy(L->pos.castle, r->start.castle, sizeof L->pos.castle);
            pos_rehash(&L->pos);
        }
    }
    if (!g->fen && g->rules != VARIANT_STANDARD) { /* (the variant's own start FEN) */
        char fen[FEN_MAX];
        game_push_text(r, S_START_FEN, fen, fen_format(&L->pos, fen, r->opt.fen_options), false);
    } else if (!g->fen) {
        game_push_text(r, S_START_FEN, r->start_fen[g->chess960], r->start_fen_len[g->chess960], false);
    } else if (g->replaying) { /* the start position as FEN, in the output's FEN style */
        char fen[FEN_MAX];
        game_push_text(r, S_START_FEN, fen, fen_format(&L->pos, fen, r->opt.fen_options), false);
    } else {
        game_push_text(r, S_START_FEN, g->fen, g->fen_len, g->latin1);
    }
    if (r->opt.openings) /* the table names positions of standard chess reached from its start */
        g->opening = variant == VARIANT_STANDARD && (!g->fen || openings_is_start(&L->pos)) ? OPENING_UNNAMED : OPENING_CUSTOM_START;
    if (g->replaying && r->opt.movetext_hash)
        gh_start(&L->pos, g->chess960, g->mainline_key);
    r->history.len = 0;
    r->ply_positions.len = 0;
    memset(r->history_last, 0, sizeof r->history_last);
    note_history(r, &L->pos);
    if (g->replaying) {
        derived_start(&g->derived, &L->pos, r->opt.positions, r->opt.materials);
        if (r->opt.position_rows) /* (the positions before each move: the start, then after each) */
            VEC_PUSH_OR_FAIL(r->ply_positions, L->pos, r->batch.failed);
        choose_recorders(r, g);
    }
    g->playing = g->replaying;
    g->need_number = true;
    if (r->opt.pgn) {
        r->movetext.len = 0;
        em_reset(&r->em, &r->movetext);
    }
}

/* ---------------------------------------------------------------- moves */

/* The outcome (OUTCOME_VARIANT_*) of a variant's own end in p, or 0. */
static int variant_outcome(const Position *p)
{
    int end = p->variant != VARIANT_STANDARD ? pos_variant_end(p) : VARIANT_END_NONE;
    _Static_assert(OUTCOME_VARIANT_LOSS - OUTCOME_VARIANT_WIN == VARIANT_END_LOSS - VARIANT_END_WIN &&
                       OUTCOME_VARIANT_DRAW - OUTCOME_VARIANT_WIN == VARIANT_END_DRAW - VARIANT_END_WIN,
                   "the variants' ends in the same order");
    return end ? OUTCOME_VARIANT_WIN + end - VARIANT_END_WIN : 0;
}

static bool emitting(const GameReader *r, const Game *g)
{
    return r->opt.pgn && !g->cut && !(g->depth > 0 && (r->opt.strip_variations || r->opt.reduced));
}

void add_move_notes(GameReader *r, Game *g, uint16_t notes, int ply, const Token *t)
{
    for (int i = 0; notes; i++, notes >>= 1) {
        if (!(notes & 1))
            continue;
        game_add_note(g, i, ply, t);
        if (r->opt.strict)
            game_add_error(r, g, ERR_NONSTANDARD_NOTATION, ply, t, i);
    }
}

/* The annotation columns (M_HAS .. M_EVAL_MATE) up to `rows` rows, the rows not yet written as
 * zeros: they are written only for a move whose comment had an annotation (finish_pending), and
 * filled up when the game ends (replay_finish). Their room is the move rows'. */
static void fill_annotations(Batch *b, size_t rows)
{
    if (b->cols[M_HAS].len == rows) /* (they all have the same length: nothing to fill) */
        return;
    for (int id = M_HAS; id <= M_EVAL_MATE; id++) {
        Column *c = &b->cols[id];
        memset((char *)c->data + c->len * c->item, 0, (rows - c->len) * c->item);
        c->len = rows;
    }
}

/* Closes the open mainline move row: its annotations and comment text. (g->ann is all zeros
 * while ann.has is 0: every value ann_parse sets sets a bit.) */
static void finish_pending_row(GameReader *r, Game *g)
{
    Batch *b = &r->batch;
    if (r->opt.clock_rows && (g->ann.has & HAS_CLOCK)) {
        COL_PUSH(b, K_PLY, int16_t, g->pending_ply);
        COL_PUSH(b, K_CLOCK, double, g->ann.clock);
    }
    if (r->opt.moves) {
        if (g->ann.has) { /* (the row is the last one; push_move_row made room) */
            fill_annotations(b, COL_LEN(b, M_PLY) - 1);
            COL_PUT(b, M_HAS, uint8_t, g->ann.has);
            COL_PUT(b, M_CLOCK, double, g->ann.clock);
            COL_PUT(b, M_EMT, double, g->ann.emt);
            COL_PUT(b, M_EVAL_CP, int32_t, g->ann.eval_cp);
            COL_PUT(b, M_EVAL_MATE, int16_t, g->ann.eval_mate);
        }
        if (r->opt.comments && !strcol_end(&b->strs[S_COMMENT]))
            b->failed = true;
    }
    memset(&g->ann, 0, sizeof g->ann);
}

/* (inline: most rows have no comment, and nothing to close then) */
static inline void finish_pending(GameReader *r, Game *g)
{
    if (g->pending && (g->ann.has || r->opt.comments))
        finish_pending_row(r, g);
    g->pending = false;
}

/* A move row's UCI (as uci_format_squares), inline: no call a ply. */
static inline size_t uci_text(int from, int to, int promo, char *out)
{
    out[0] = (char)('a' + FILE_OF(from));
    out[1] = (char)('1' + RANK_OF(from));
    out[2] = (char)('a' + FILE_OF(to));
    out[3] = (char)('1' + RANK_OF(to));
    out[4] = promo ? (char)(PIECE_LETTERS[promo] + 32) : 0;
    return 4 + (promo != 0);
}

/* The square UCI gives a move's target: castling goes to the king's square (Chess960: king takes
 * rook); the king stands there now. */
static inline int uci_target(const Position *after, const Undo *u)
{
    return mv_type(u->move) == MT_CASTLE && !after->chess960 && !mv_is_drop(u->move) ? pos_king(after, u->state.turn)
                                                                                     : mv_to(u->move);
}

/* A move row's values but its annotations (finish_pending's). */
typedef struct {
    int16_t ply;
    uint8_t from, to, piece, captured, promotion, flags;
    uint16_t halfmove;
    int32_t nag_start;
} MoveRow;

/* Appends the row to the move columns M_PLY .. M_HALFMOVE and M_NAG_START (batch_reserve_move_row
 * made room; the annotations are finish_pending's). The columns' pointers are read before any
 * store: a byte store may alias the batch's fields, and COL_PUT would reload them at each. */
static inline void put_move_row(Batch *b, const MoveRow *v)
{
    _Static_assert(M_HALFMOVE - M_PLY == 7 && M_NAG_START == M_EVAL_MATE + 1 && M_HAS == M_HALFMOVE + 1,
                   "the move columns");
    Column *c = b->cols;
    void *ply = c[M_PLY].data, *from = c[M_FROM].data, *to = c[M_TO].data, *piece = c[M_PIECE].data;
    void *captured = c[M_CAPTURED].data, *promotion = c[M_PROMOTION].data, *flags = c[M_FLAGS].data;
    void *halfmove = c[M_HALFMOVE].data, *nag_start = c[M_NAG_START].data;
    size_t row = c[M_PLY].len;
    ((int16_t *)ply)[row] = v->ply;
    ((uint8_t *)from)[row] = v->from;
    ((uint8_t *)to)[row] = v->to;
    ((uint8_t *)piece)[row] = v->piece;
    ((uint8_t *)captured)[row] = v->captured;
    ((uint8_t *)promotion)[row] = v->promotion;
    ((uint8_t *)flags)[row] = v->flags;
    ((uint16_t *)halfmove)[row] = v->halfmove;
    ((int32_t *)nag_start)[row] = v->nag_start;
    for (int id = M_PLY; id <= M_HALFMOVE; id++)
        c[id].len = row + 1;
    c[M_NAG_START].len = row + 1;
}

/* Whether the FEN after `ply` is recorded (fen_every_ply): to-fen --ply N and --every-ply's window
 * ask for a few, and formatting a FEN is most of what recording a ply costs. */
static bool fen_wanted(const GameOptions *o, int ply)
{
    if (ply < o->fen_first_ply || (o->fen_last_ply && ply > o->fen_last_ply))
        return false;
    if (!o->fen_plies)
        return true;
    size_t lo = 0, hi = o->n_fen_plies;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (o->fen_plies[mid] < ply)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < o->n_fen_plies && o->fen_plies[lo] == ply;
}

/* The move row, from the position after the move and what the move changed (u). */
static void push_move_row(GameReader *r, Game *g, const Position *after, const Undo *u,
                          const char *san, size_t san_len, int status)
{
    Batch *b = &r->batch;
    move_t m = u->move;
    bool null = m == MOVE_NULL;
    bool drop = mv_is_drop(m); /* (crazyhouse: from the pocket to `to`, its from the same square) */
    int from = drop ? mv_to(m) : mv_from(m), to = mv_to(m), type = null || drop ? MT_NORMAL : mv_type(m), us = u->state.turn;
    uint8_t captured = mv_is_en_passant(m) ? PAWN : PIECE_TYPE(u->captured); /* castling: none */
    uint8_t flags = (uint8_t)((captured ? MF_CAPTURE : 0) | (status ? MF_CHECK : 0) | (status == 2 ? MF_MATE : 0) |
                              (type == MT_CASTLE ? MF_CASTLE : 0) | (mv_is_en_passant(m) ? MF_EN_PASSANT : 0) |
                              (null ? MF_NULL : 0) | (drop ? MF_DROP : 0));
    int uci_to = null ? to : uci_target(after, u);
    int piece = type == MT_CASTLE ? KING : mv_promo(m) ? PAWN : PIECE_TYPE(after->board[to]); /* (a drop's too) */
    if (!piece && !null) /* (atomic: the capturer exploded) */
        piece = PIECE_TYPE(u->mover);
    if (null) {       /* a null move: the king stands still (the moves table has a piece and */
        piece = KING; /* squares for every row); its SAN is --, its UCI 0000 */
        from = uci_to = pos_king(after, us);
    }
    char text[FEN_MAX];
    finish_pending(r, g);
    if (!batch_reserve_move_row(b)) {
        b->failed = true;
        return;
    }
    MoveRow row = {g->ply, (uint8_t)from, (uint8_t)uci_to, (uint8_t)piece, captured, (uint8_t)mv_promo(m), flags,
                   after->halfmove, (int32_t)COL_LEN(b, N_NAG)};
    put_move_row(b, &row);
    size_t uci_len = null ? 4 : drop ? uci_format_drop(mv_drop_piece(m), to, text) : uci_text(from, uci_to, mv_promo(m), text);
    if (null)
        memcpy(text, "0000", 4);
    if (!strcol_push_short(&b->strs[S_SAN], san, san_len) || !strcol_push_short(&b->strs[S_UCI], text, uci_len))
        b->failed = true;
    if (r->opt.fen_every_ply) /* (a ply not asked for: an empty FEN, the column stays one a move) */
        game_push_text(r, S_FEN, text, fen_wanted(&r->opt, g->ply) ? fen_format(after, text, r->opt.fen_options) : 0,
                       false);
    if (r->opt.keys_every_ply) /* (not a move column batch_reserve_move_row grows: checked push) */
        COL_PUSH(b, M_KEY, uint64_t, pos_key(after));
    g->pending = true;
    g->pending_ply = g->ply;
}

static void stop_replay(GameReader *r, Game *g, int kind, int ply, const Token *t, int detail)
{
    game_add_error(r, g, kind, ply, t, detail);
    g->stopped = true;
    g->playing = false;
    /* --repair truncate: a bad mainline move after at least one good one cuts the game there */
    if (r->opt.repair_truncate && g->depth == 0 && kind > 0 && kind < SAN_ERROR_COUNT && ply > 1 &&
        g->n_errors == 1) {
        g->truncated = g->cut = true;
        g->cut_at = t->start;
    }
}

static bool is_automatic_draw(int outcome)
{
    return outcome == OUTCOME_INSUFFICIENT || outcome == OUTCOME_SEVENTYFIVE || outcome == OUTCOME_FIVEFOLD;
}

/* Keeps the first automatic draw the mainline reaches (G_AUTOMATIC_END), whatever follows it. */
static void note_automatic_end(Game *g)
{
    if (!g->automatic_end && is_automatic_draw(g->outcome)) {
        g->automatic_end = g->outcome;
        g->automatic_end_ply = g->outcome_ply;
    }
}

static const char *automatic_end_name(int outcome)
{
    return outcome == OUTCOME_INSUFFICIENT ? "insufficient_material"
           : outcome == OUTCOME_SEVENTYFIVE ? "seventyfive_moves"
                                            : "fivefold_repetition";
}

/* A mainline move t after the automatic draw the game is at: true when it is to be replayed
 * (AUTO_END_NOTE: noted once, and the position decides the end again from here). Otherwise the
 * game ends before t: an error (enforce), or cut there with a fix (truncate). */
static bool play_after_automatic_end(GameReader *r, Game *g, const Token *t, int ply)
{
    if (r->opt.automatic_ends == AUTO_END_ENFORCE) {
        stop_replay(r, g, ERR_MOVE_AFTER_GAME_END, ply, t, g->outcome);
        return false;
    }
    if (r->opt.automatic_ends == AUTO_END_TRUNCATE) {
        const char *rule = automatic_end_name(g->outcome);
        game_add_fix(r, g, FIXK_TRUNCATED_AT_AUTOMATIC_END, g->outcome_ply, rule, strlen(rule),
                     r->sc.buf + t->a, t->alen, "", 0);
        g->cut = g->stopped = true; /* the rest of the movetext is read, not replayed or written */
        g->playing = false;
        return false;
    }
    if (!g->played_on) {
        g->played_on = true;
        game_add_note(g, NOTE_PLAY_AFTER_AUTOMATIC_END, g->automatic_end_ply, t);
    }
    g->outcome = g->outcome_ply = 0;
    return true;
}

/* The automatic ends (FIDE 9.6) after a mainline move; checkmate is found by the caller. A move
 * that takes or promotes (material_changed) sets the half-move clock to 0: only such a move can
 * leave too little material, and only the others can repeat a position or reach 50 or 75 moves
 * (the same tests in the same order as asking everything after every move). Out of line: the
 * plies that can change anything here (track_mainline_end, replay.h). */
void decide_mainline_end(Game *g, const GameReader *r, const Position *p, bool maybe_dead, bool seen)
{
    if (maybe_dead) {
        if (!g->outcome && pos_is_insufficient_material(p))
            g->outcome = OUTCOME_INSUFFICIENT;
    } else if (p->halfmove >= 4 && !(g->played_on && p->halfmove > 150)) {
        /* (a move that took or promoted set the clock to 0: only the others get here) */
        /* (played on past 75 moves the clock grows without bound, and a repetition scan over it
         * made a long game quadratic: the claims were noted by then) */
        if (p->halfmove >= 100)
            g->claim_fifty = true;
        int reps = seen ? pos_repetition_count(r->history.data, (int)r->history.len, p->halfmove) : 1;
        if (reps > g->derived.max_repetitions) /* (a repetition needs 4 reversible plies) */
            g->derived.max_repetitions = (uint16_t)reps;
        g->claim_threefold |= reps >= 3;
        /* once played on (AUTO_END_NOTE), only a dead position ends the game again: the players
         * went on past a repetition or the clock, and how it ended is theirs */
        if (reps >= 5 && !g->outcome && !g->played_on)
            g->outcome = OUTCOME_FIVEFOLD;
        if (!g->outcome && p->halfmove >= 150 && !g->played_on)
            g->outcome = OUTCOME_SEVENTYFIVE;
    }
    if (g->outcome && !g->outcome_ply)
        g->outcome_ply = g->ply;
    note_automatic_end(g);
}

/* The deepest position the opening table names, of the mainline's first OPENING_MAX_PLY plies. */
static inline void note_opening(GameReader *r, Game *g, const Position *p)
{
    uint64_t key = openings_key(p);
    if (!openings_may_name(r->opt.openings, key)) /* most plies: inline, no call */
        return;
    int row = openings_find(r->opt.openings, p, key);
    if (row >= 0) {
        g->opening = OPENING_NAMED;
        g->opening_row = row;
        g->opening_ply = (int16_t)g->ply;
    }
}

/* ---------------------------------------------------------------- the recorders
 * Each records one thing of a move just made (after_move, replay.h); choose_recorders picks the
 * ones the options ask for, once a game. */

static void record_key(GameReader *r, Game *g, const PlayedMove *pm) /* --dedup moves, movetext_hash */
{
    (void)r;
    gh_move(g->mainline_key, pm->move == MOVE_NULL ? MOVE_NONE : pm->move);
}

static void record_counters(GameReader *r, Game *g, const PlayedMove *pm)
{
    (void)r;
    derived_count(&g->derived, &pm->level->pos, pm->move, pm->took, pm->status);
}

static void record_opening(GameReader *r, Game *g, const PlayedMove *pm) /* --classify, ECO columns */
{
    if ((g->opening & (OPENING_NAMED | OPENING_UNNAMED)) && pm->ply <= OPENING_MAX_PLY)
        note_opening(r, g, &pm->level->pos);
}

static void record_targets(GameReader *r, Game *g, const PlayedMove *pm) /* --where-position, --material */
{
    derived_reached(&g->derived, &pm->level->pos, pm->material_changed, r->opt.positions, r->opt.materials);
}

static void record_row(GameReader *r, Game *g, const PlayedMove *pm) /* the moves table */
{
    push_move_row(r, g, &pm->level->pos, &pm->level->undo, pm->san, pm->san_len, pm->status);
}

static void record_clock(GameReader *r, Game *g, const PlayedMove *pm) /* the clock rows alone (stats) */
{
    (void)pm;
    finish_pending(r, g);
    g->pending = true; /* the comments after the move are read for a [%clk] */
    g->pending_ply = g->ply;
}

static void record_position(GameReader *r, Game *g, const PlayedMove *pm) /* the positions dataset */
{
    (void)g;
    VEC_PUSH_OR_FAIL(r->ply_positions, pm->level->pos, r->batch.failed);
}

static void record_pgn(GameReader *r, Game *g, const PlayedMove *pm) /* the PGN written */
{
    const PosState *before = &pm->level->undo.state;
    bool black = before->turn == BLACK;
    if (g->depth == 0 ? !em_mainline_ply(&r->em, pm->ply, &pm->level->pos) : r->em.muted)
        return; /* --drop-plies, --max-plies: outside the plies written */
    if (r->opt.pgn_shape & PGN_UCI) { /* --notation uci: the move as UCI (a null move 0000) */
        const Undo *u = &pm->level->undo;
        char uci[16] = "0000";
        size_t n = u->move == MOVE_NULL        ? 4
                   : mv_is_drop(u->move) ? uci_format_drop(mv_drop_piece(u->move), mv_to(u->move), uci)
                                         : uci_text(mv_from(u->move), uci_target(&pm->level->pos, u), mv_promo(u->move), uci);
        em_move(&r->em, !black || g->need_number, before->fullmove, black, uci, n);
    } else if (r->opt.pgn_shape & PGN_LAN && pm->move != MOVE_NULL) { /* --notation lan: Ng1-f3 */
        const Undo *u = &pm->level->undo;
        int type = mv_type(u->move), to = mv_to(u->move);
        char lan[24];
        size_t n = pgn_lan(lan, type == MT_PROMOTION ? PAWN : PIECE_TYPE(pm->level->pos.board[to]), mv_from(u->move),
                           to, pm->took, mv_promo(u->move), type == MT_CASTLE);
        if (pm->status)
            lan[n++] = pm->status == 2 ? '#' : '+';
        em_move(&r->em, !black || g->need_number, before->fullmove, black, lan, n);
    } else {
        em_move(&r->em, !black || g->need_number, before->fullmove, black, pm->san, pm->san_len);
    }
    g->need_number = false;
    if (r->opt.pgn_shape & (PGN_FEN_COMMENTS | PGN_KEY_COMMENTS)) {
        em_position_comments(&r->em, &pm->level->pos, r->opt.fen_options);
        g->need_number = true; /* (Black's move after a comment takes its number: 12... Nf6) */
    }
}

void record_move(GameReader *r, Game *g, const Recorders *rec, const PlayedMove *pm)
{
    if (rec->san && pm->status) /* (room: san has 16 bytes, a SAN at most 7 without it) */
        ((char *)pm->san)[((PlayedMove *)pm)->san_len++] = pm->status == 2 ? '#' : '+';
    for (int i = 0; i < rec->n; i++)
        rec->fn[i](r, g, pm);
}

static void add_recorder(Recorders *rs, MoveRecorder fn)
{
    rs->fn[rs->n++] = fn;
}

static void choose_recorders(GameReader *r, Game *g)
{
    const GameOptions *o = &r->opt;
    Recorders *mainline = &g->recorders[0], *variations = &g->recorders[1];
    if (o->movetext_hash)
        add_recorder(mainline, record_key);
    if (o->counters)
        add_recorder(mainline, record_counters);
    if (g->opening & (OPENING_NAMED | OPENING_UNNAMED))
        add_recorder(mainline, record_opening);
    if (o->positions || o->materials)
        add_recorder(mainline, record_targets);
    if (o->moves)
        add_recorder(mainline, record_row);
    else if (o->clock_rows)
        add_recorder(mainline, record_clock);
    if (o->position_rows)
        add_recorder(mainline, record_position);
    if (o->pgn) {
        add_recorder(mainline, record_pgn);
        if (!o->strip_variations && !o->reduced)
            add_recorder(variations, record_pgn);
    }
    mainline->san = o->pgn || o->moves;
    variations->san = variations->n > 0;
}

/* ---------------------------------------------------------------- moves that are not made */

/* A move that is no legal move where it is played: illegal (no legal move at all: the game had
 * ended there), ambiguous, or text that is no move. */
static void refuse_move(GameReader *r, Game *g, const Token *t, int rc)
{
    const Position *p = &r->levels.data[g->depth].pos;
    int ply = r->levels.data[g->depth].ply + 1;
    if (rc == SAN_ILLEGAL && !pos_has_legal_move(p)) {
        int end = variant_outcome(p);
        end = end ? end : pos_in_check(p) ? OUTCOME_CHECKMATE : OUTCOME_STALEMATE;
        if (g->depth == 0) {
            g->outcome = end;
            g->outcome_ply = g->ply;
        }
        stop_replay(r, g, ERR_MOVE_AFTER_GAME_END, ply, t, end);
    } else {
        stop_replay(r, g, rc, ply, t, 0);
    }
}

void replay_move_otherwise(GameReader *r, Game *g, const Token *t)
{
    const char *text = r->sc.buf + t->a;
    if (t->alen == 4 && memcmp(text, "e.p.", 4) == 0) { /* "exd6 e.p." written apart: no move */
        if (g->playing && r->levels.data[g->depth].has_move)
            add_move_notes(r, g, NOTE_EN_PASSANT_SUFFIX, g->ply, t);
        return;
    }
    g->has_content = true;
    SanMove sm;
    if (!g->playing) { /* (not replayed: whether the movetext holds a move at all is all there is to know) */
        if (!g->move_syntax)
            g->move_syntax = san_parse(text, t->alen, &sm) != SAN_INVALID;
        return;
    }
    int parsed = san_parse(text, t->alen, &sm);
    g->move_syntax |= parsed != SAN_INVALID;
    Level *L = &r->levels.data[g->depth];
    bool mainline = g->depth == 0;
    int ended = mainline ? g->outcome : L->ended;
    if (ended && !mainline && r->opt.automatic_ends != AUTO_END_ENFORCE) {
        L->ended = 0; /* a variation plays on after a dead position or 75 moves too */
    } else if (ended && (!is_automatic_draw(ended) || !play_after_automatic_end(r, g, t, L->ply + 1))) {
        if (!is_automatic_draw(ended)) /* after checkmate no legal move exists */
            stop_replay(r, g, ERR_MOVE_AFTER_GAME_END, L->ply + 1, t, ended);
        return;
    }
    if (parsed == SAN_NULL_MOVE && r->opt.allow_null_moves) /* (resolved as a pass) */
        parsed = SAN_OK;
    if (parsed == SAN_DROP && L->pos.variant == VARIANT_CRAZYHOUSE) /* (elsewhere a drop is an error) */
        parsed = SAN_OK;
    move_t m;
    int rc = parsed == SAN_OK ? san_resolve(&L->pos, &sm, &m) : parsed;
    if (rc != SAN_OK)
        refuse_move(r, g, t, rc);
    else
        play_move(r, g, L, t, &sm, m, mainline);
}

void decide_variant_end(Game *g, const Position *p, int ply)
{
    int end = variant_outcome(p);
    if (end) {
        g->outcome = end;
        g->outcome_ply = ply;
    }
}

/* The automatic ends of FIDE 9.6 in a variation too (a dead position, 75 moves): checkmate ends
 * none of them but the line itself. */
void decide_variation_end(Level *L, bool material_changed, int status)
{
    if (material_changed && pos_is_insufficient_material(&L->pos))
        L->ended = OUTCOME_INSUFFICIENT;
    else if (L->pos.halfmove >= 150 && status != 2)
        L->ended = OUTCOME_SEVENTYFIVE;
}

/* has_clock, has_eval: a comment after a mainline move holds a [%clk] / [%eval] that reads (as
 * the moves table's clock and eval columns; with that table on, ann_parse has read it). */
static void note_clock_and_eval(Game *g, const char *text, size_t n)
{
    enum { BOTH = DERIVED_HAS_CLOCK | DERIVED_HAS_EVAL };
    if ((g->derived.flags & BOTH) == BOTH)
        return;
    uint8_t has = 0;
    if (g->pending) {
        has = g->ann.has;
    } else {
        for (const char *at = memchr(text, '[', n); at; at = memchr(at + 1, '[', (size_t)(text + n - at - 1)))
            if (at + 1 < text + n && at[1] == '%') { /* an embedded command: read them all */
                Annotations a;
                memset(&a, 0, sizeof a);
                ann_parse(text, n, &a);
                has = a.has;
                break;
            }
    }
    g->derived.flags |= (has & HAS_CLOCK ? DERIVED_HAS_CLOCK : 0) |
                        (has & (HAS_EVAL_CP | HAS_EVAL_MATE) ? DERIVED_HAS_EVAL : 0);
}

void replay_comment(GameReader *r, Game *g, const Token *t) /* (what it reads: replay_reads_comments) */
{
    const char *text = r->sc.buf + t->a;
    if (g->cut) /* after the cut: dropped with the moves */
        return;
    if (g->depth == 0 && g->pending) {
        ann_parse(text, t->alen, &g->ann);
        if (r->opt.comments && r->opt.moves) {
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
    if (g->depth == 0 && g->ply > 0 && r->opt.counters)
        note_clock_and_eval(g, text, t->alen);
    if (emitting(r, g) && !r->opt.strip_comments && !r->opt.reduced) {
        em_comment(&r->em, text, t->alen, g->latin1);
        g->need_number = true;
    }
}

void replay_nag(GameReader *r, Game *g, const Token *t)
{
    if (t->value > 255) {
        game_add_error(r, g, ERR_SYNTAX, g->ply, t, 0);
        return;
    }
    if (g->depth == 0 && g->pending && !g->cut && r->opt.moves)
        COL_PUSH(&r->batch, N_NAG, uint8_t, t->value);
    if (emitting(r, g) && !r->opt.reduced)
        em_nag(&r->em, t->value);
}

void replay_open_variation(GameReader *r, Game *g, const Token *t)
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

void replay_close_variation(GameReader *r, Game *g, const Token *t)
{
    if (g->depth == 0) {
        game_add_error(r, g, ERR_SYNTAX, g->ply, t, 2); /* ')' without '(' */
        return;
    }
    if (emitting(r, g)) {
        em_close_variation(&r->em);
        g->need_number = true;
    }
    g->depth--;
    r->levels.len = (size_t)g->depth + 1;
}

/* ---------------------------------------------------------------- game end: automatic ends, result */

static void check_result(GameReader *r, Game *g, const Position *final)
{
    ResultCheck rc;
    int by_position = result_of_outcome(g->outcome, final->turn);
    /* a cut game takes the rule's result whatever --no-fix-results says: truncate asked for it */
    result_check(g->result_tag, g->result_marker, by_position, r->opt.fix_results || g->cut, g->n_errors > 0, &rc);
    g->result = g->truncated ? RESULT_UNKNOWN : rc.result; /* a cut game's result is unknown */
    g->fixes = g->truncated ? 0 : rc.fixes;
    if (rc.error)
        game_add_error(r, g, rc.error, 0, NULL, rc.detail);
    if (rc.missing_tag)
        game_add_note(g, NOTE_MISSING_RESULT_TAG, 0, NULL);
}

static void final_outcome(GameReader *r, Game *g, const Position *p)
{
    (void)r;
    if (!g->replaying || g->stopped || g->outcome)
        return;
    int variant_end = variant_outcome(p);
    if (variant_end)
        g->outcome = variant_end;
    else if (!pos_has_legal_move(p))
        g->outcome = pos_in_check(p) ? OUTCOME_CHECKMATE : OUTCOME_STALEMATE;
    else if (pos_is_insufficient_material(p))
        g->outcome = OUTCOME_INSUFFICIENT;
    else if (p->halfmove >= 150 && !g->played_on)
        g->outcome = OUTCOME_SEVENTYFIVE;
    if (g->outcome)
        g->outcome_ply = g->ply;
    note_automatic_end(g);
}

void replay_finish(GameReader *r, Game *g)
{
    const Position *final = &r->levels.data[0].pos;
    finish_pending(r, g);
    if (r->opt.moves)
        fill_annotations(&r->batch, COL_LEN(&r->batch, M_PLY));
    if (g->depth > 0)
        game_add_error(r, g, ERR_UNTERMINATED_VARIATION, g->ply, NULL, g->depth);
    final_outcome(r, g, final);
    check_result(r, g, final);
    if (g->n_errors == 0 && g->result == RESULT_DRAW) {
        if (g->claim_fifty)
            game_add_note(g, NOTE_FIFTY_MOVE_CLAIMABLE, g->ply, NULL);
        if (g->claim_threefold)
            game_add_note(g, NOTE_THREEFOLD_CLAIMABLE, g->ply, NULL);
    }
}
