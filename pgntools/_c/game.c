#include <stdio.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "fen.h"
#include "game_hash.h"
#include "game_reader.h"
#include "replay.h"
#include "result.h"
#include "tags.h"

static void push_keys(GameReader *r, Game *g, const Position *final);

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
    if (r->opt.tag_filter) { /* its leaves on tags read the tag values (not those on the speed, constants) */
        r->filter_tags = true;
        for (size_t i = 0; i < r->opt.tag_filter->n; i++) {
            int op = r->opt.tag_filter->clauses[i].op;
            if (op < TF_SPEED && (!r->opt.tag_columns || r->opt.skip_tag_values))
                r->filter_tags = false;
        }
    }
    r->sc.line = 1;
    r->last_offset = -1;
    tok_init();
    for (int c960 = 0; c960 < 2; c960++) {
        pos_init_start(&r->start);
        r->start.chess960 = c960;
        r->start_fen_len[c960] = fen_format(&r->start, r->start_fen[c960], r->opt.fen_options);
    }
    em_init(&r->em, &r->movetext);
    em_shape(&r->em, r->opt.pgn_shape, r->opt.line_length);
    em_window(&r->em, r->opt.drop_plies, r->opt.max_plies);
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
    VEC_FREE(r->ply_positions);
    VEC_FREE(r->levels);
    VEC_FREE(r->tag_set);
    VEC_FREE(r->movetext);
    em_free(&r->em);
    free(r);
}

Scanner *gr_scanner(GameReader *r) { return &r->sc; }
Batch *gr_batch(GameReader *r) { return &r->batch; }
int64_t gr_games_read(const GameReader *r) { return r->games; }
int64_t gr_skipped_bytes(const GameReader *r) { return r->skipped_bytes; }
int64_t gr_pgn_games(const GameReader *r) { return r->pgn_games; }
int64_t gr_last_offset(const GameReader *r) { return r->last_offset; }
int64_t gr_batch_filtered(const GameReader *r) { return r->batch_filtered; }

int64_t gr_take_filtered(GameReader *r)
{
    int64_t n = r->batch_filtered;
    r->batch_filtered = 0;
    return n;
}
void gr_set_games_read(GameReader *r, int64_t games) { r->games = games; }

void gr_swap_batch(GameReader *r, Batch *other)
{
    Batch full = r->batch;
    r->batch = *other;
    *other = full;
}

/* ---------------------------------------------------------------- the game record */

/* The game's tag values with its FEN tag's as repaired (a start FEN fix; rare): a copy in *copy,
 * the rows at the same indexes as the batch's names (rows before the game's left empty). */
static bool with_repaired_fen(GameReader *r, const Game *g, StrCol *copy, StrCol **values, size_t *first)
{
    const StrCol *names = &r->batch.strs[S_TAG_NAME], *src = &r->batch.strs[S_TAG_VALUE];
    if (!strcol_init(copy))
        return false;
    bool ok = true, replaced = false;
    for (size_t i = 0; i < strcol_count(src) && ok; i++) {
        int32_t a = src->offsets.data[i], z = src->offsets.data[i + 1];
        int32_t na = names->offsets.data[i], nz = names->offsets.data[i + 1];
        bool fen = i >= *first && !replaced && nz - na == 3 && memcmp(names->data.data + na, "FEN", 3) == 0;
        if (fen)
            replaced = true;
        ok = i < *first ? strcol_end(copy)
             : fen      ? strcol_push(copy, r->repaired_fen, r->repaired_fen_len)
                        : strcol_push(copy, src->data.data + a, (size_t)(z - a));
    }
    (void)g;
    *values = copy;
    return ok;
}

/* --repair truncate's comment at the cut: the error and the first of the move text dropped. */
static void cut_comment(GameReader *r, Game *g)
{
    const char *b = r->sc.buf;
    size_t end = g->marker_at > g->cut_at ? g->marker_at : g->end;
    size_t n = end > g->cut_at ? end - g->cut_at : 0;
    const char *kind = game_error_name(COL_AT(&r->batch, E_KIND, uint8_t, g->mark->cols[E_KIND]));
    char text[320];
    int k = snprintf(text, sizeof text, "pgntools: truncated at ply %d (%s), dropped: ", g->ply + 1, kind);
    size_t room = sizeof text - (size_t)k - 4;
    size_t take = game_text_prefix(b + g->cut_at, n, room, g->latin1);
    memcpy(text + k, b + g->cut_at, take);
    for (size_t i = (size_t)k; i < (size_t)k + take; i++) /* the dropped text's own comments, as (...) */
        if (text[i] == '{' || text[i] == '}')
            text[i] = text[i] == '{' ? '(' : ')';
    size_t len = (size_t)k + take;
    if (take < n)
        memcpy(text + len, "...", 3), len += 3;
    em_comment(&r->em, text, len, g->latin1);
}

/* ---------------------------------------------------------------- the opening (openings.h) */

/* Whether the game's tags hold `name` with a value other than `value`. */
static bool tag_differs(GameReader *r, const Game *g, const char *name, const char *value, size_t len)
{
    const StrCol *names = &r->batch.strs[S_TAG_NAME], *values = &r->batch.strs[S_TAG_VALUE];
    size_t n = strlen(name);
    for (size_t i = g->mark->strs[S_TAG_NAME]; i < strcol_count(names); i++) {
        int32_t a = names->offsets.data[i], va = values->offsets.data[i];
        if ((size_t)(names->offsets.data[i + 1] - a) == n && memcmp(names->data.data + a, name, n) == 0 &&
            ((size_t)(values->offsets.data[i + 1] - va) != len || memcmp(values->data.data + va, value, len) != 0))
            return true;
    }
    return false;
}

/* The opening's columns; with --classify, a note when the game's own ECO or Opening tag says
 * otherwise. */
static void push_opening(GameReader *r, Game *g, const char **eco, size_t *eco_len, const char **name,
                         size_t *name_len)
{
    *eco = *name = "";
    *eco_len = *name_len = 0;
    if (g->opening == OPENING_NAMED) {
        openings_row(r->opt.openings, g->opening_row, eco, eco_len, name, name_len);
        if (r->opt.opening_tags != OPENING_TAGS_NONE &&
            (tag_differs(r, g, "ECO", *eco, *eco_len) || tag_differs(r, g, "Opening", *name, *name_len)))
            game_add_note(g, NOTE_OPENING_TAGS_DIFFER, g->opening_ply, NULL);
    }
    COL_PUSH(&r->batch, G_OPENING, uint8_t, g->opening);
    COL_PUSH(&r->batch, G_OPENING_PLY, int16_t, g->opening == OPENING_NAMED ? g->opening_ply : 0);
    game_push_text(r, S_OPENING_ECO, *eco, *eco_len, false);
    game_push_text(r, S_OPENING_NAME, *name, *name_len, false);
}

/* The export format of a valid or fixed game: the movetext emitted while replaying, behind the
 * tag section (pgn_writer.c); with --classify, the opening's ECO and Opening tags; with
 * --add-tags, PlyCount and HashCode. */
static void write_pgn(GameReader *r, Game *g, const char *eco, size_t eco_len, const char *name, size_t name_len)
{
    bool replace = r->opt.opening_tags == OPENING_TAGS_OVERWRITE;
    bool opening = g->opening == OPENING_NAMED && r->opt.opening_tags != OPENING_TAGS_NONE;
    unsigned shape = r->opt.pgn_shape;
    Emitter *em = &r->em;
    /* --drop-plies, --max-plies: the written game starts after ply drop (its FEN; a game that
     * short, at its end, with a note) and ends after ply max (unfinished there: result *) */
    const Position *final = &r->levels.data[0].pos, *start = NULL;
    bool dropped = em->windowed && em->drop_plies > 0, cut = em->windowed && g->ply > em->max_plies;
    if (dropped)
        start = em->has_start ? &em->start : final;
    if (cut && em->has_last)
        final = &em->last;
    int first_ply = dropped ? (g->ply < em->drop_plies ? g->ply : em->drop_plies) : 0;
    int written = (cut ? em->max_plies : g->ply) - first_ply;
    em->muted = false;
    char plies[16], key[24], fen[FEN_MAX];
    PgnTag extra[6]; /* sorted by name: ECO, FEN, HashCode, Opening, PlyCount, SetUp; computed ones replace the game's */
    size_t n_extra = 0;
    if (opening)
        extra[n_extra++] = (PgnTag){"ECO", eco, 3, eco_len, replace};
    if (start)
        extra[n_extra++] = (PgnTag){"FEN", fen, 3, (size_t)fen_format(start, fen, r->opt.fen_options), true};
    if (shape & PGN_ADD_HASHCODE) {
        int n = snprintf(key, sizeof key, "%016llx", (unsigned long long)pos_key(final));
        extra[n_extra++] = (PgnTag){"HashCode", key, 8, (size_t)n, true};
    }
    if (opening)
        extra[n_extra++] = (PgnTag){"Opening", name, 7, name_len, replace};
    if (shape & PGN_ADD_PLYCOUNT) {
        int n = snprintf(plies, sizeof plies, "%d", written);
        extra[n_extra++] = (PgnTag){"PlyCount", plies, 8, (size_t)n, true};
    }
    if (start)
        extra[n_extra++] = (PgnTag){"SetUp", "1", 5, 1, true};
    StrCol *out = &r->batch.strs[S_PGN];
    size_t first = g->mark->strs[S_TAG_NAME];
    const char *result = cut ? "*" : result_string(g->result);
    if (dropped && g->ply < em->drop_plies) {
        char note[96];
        int n = snprintf(note, sizeof note, "pgntools: the game has %d plies, --drop-plies %d: written from its final "
                         "position", g->ply, em->drop_plies);
        em_comment(em, note, (size_t)n, false);
    }
    if (g->truncated) /* the cut: what stopped the game, and the move text dropped */
        cut_comment(r, g);
    if (!(r->opt.pgn_shape & PGN_NO_RESULTS))
        em_unit(&r->em, result, strlen(result));
    em_finish(&r->em);
    StrCol *values = &r->batch.strs[S_TAG_VALUE], repaired;
    size_t values_first = first;
    bool ok = !g->fen_repaired || with_repaired_fen(r, g, &repaired, &values, &values_first);
    ok = ok && !r->em.failed &&
         pgn_write_game(&out->data, &r->batch.strs[S_TAG_NAME], values, first,
                        strcol_count(&r->batch.strs[S_TAG_NAME]) - first, result, g->fen && !g->has_setup && !start,
                        r->opt.reduced, r->opt.pgn_shape & PGN_NO_TAGS, &r->movetext, extra, n_extra) &&
         strcol_end(out);
    if (g->fen_repaired)
        strcol_free(&repaired);
    if (!ok)
        r->batch.failed = true;
}

/* Whether the 64 bytes at s are all ASCII (by SSE2: 4 loads and one byte mask for the lot). */
static inline bool ascii64(const unsigned char *s)
{
#if defined(__SSE2__)
    const __m128i *v = (const __m128i *)(const void *)s;
    __m128i any = _mm_or_si128(_mm_or_si128(_mm_loadu_si128(v), _mm_loadu_si128(v + 1)),
                               _mm_or_si128(_mm_loadu_si128(v + 2), _mm_loadu_si128(v + 3)));
    return _mm_movemask_epi8(any) == 0;
#else
    uint64_t w[8];
    memcpy(w, s, 64);
    return !((w[0] | w[1] | w[2] | w[3] | w[4] | w[5] | w[6] | w[7]) & 0x8080808080808080ULL);
#endif
}

static bool valid_utf8(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        if (i + 64 <= n && ascii64(s + i)) { /* ASCII runs (nearly all of a game) 64 bytes at a time */
            i += 64;
            continue;
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
    replay_finish(r, g);
    const char *eco, *name;
    size_t eco_len, name_len;
    push_opening(r, g, &eco, &eco_len, &name, &name_len);
    if (g->latin1)
        game_add_note(g, NOTE_LATIN1, 0, NULL);
    /* moves and no termination marker: the game ran into the next one (or the input's end; which
     * one a chunk of a parallel run cannot tell). The marker is filled in as for any game. */
    if (g->move_syntax && g->result_marker == RESULT_NONE)
        game_add_note(g, NOTE_MISSING_RESULT, g->ply, NULL);
    int status = g->truncated && g->n_errors == 1 ? STATUS_TRUNCATED
                 : g->n_errors                        ? STATUS_INVALID
                 : g->fixes || g->n_fixes             ? STATUS_FIXED
                                                      : STATUS_VALID;
    if (r->opt.final_fen) {
        char fen[FEN_MAX];
        game_push_text(r, S_FINAL_FEN, fen, fen_format(final, fen, r->opt.fen_options), false);
    }
    if (r->opt.pgn) {
        if (status == STATUS_INVALID)
            game_push_text(r, S_PGN, "", 0, false);
        else
            write_pgn(r, g, eco, eco_len, name, name_len);
    }
    if (r->opt.raw_invalid || r->opt.raw_all) {  /* --rejects takes truncated games' bytes too */
        bool keep = r->opt.raw_all || status == STATUS_INVALID || status == STATUS_TRUNCATED;
        game_push_text(r, S_RAW, r->sc.buf + g->start, keep ? g->end - g->start : 0, false);
    }
    game_push_notes(r, g);
    COL_PUSH(b, G_OFFSET, int64_t, r->sc.base + (int64_t)g->start);
    COL_PUSH(b, G_LENGTH, int64_t, (int64_t)(g->end - g->start));
    COL_PUSH(b, G_LINE, int64_t, g->line);
    COL_PUSH(b, G_TAG_START, int32_t, g->mark->strs[S_TAG_NAME]);
    COL_PUSH(b, G_MOVE_START, int32_t, g->mark->cols[M_FROM]);
    COL_PUSH(b, G_ERROR_START, int32_t, g->mark->cols[E_KIND]);
    COL_PUSH(b, G_NOTE_START, int32_t, g->mark->cols[O_KIND]);
    COL_PUSH(b, G_PLY_COUNT, int32_t, g->ply);
    COL_PUSH(b, G_FINAL_KEY, uint64_t, pos_key(final));
    COL_PUSH(b, G_STATUS, uint8_t, status);
    COL_PUSH(b, G_RESULT, uint8_t, g->result);
    COL_PUSH(b, G_RESULT_TAG, uint8_t, g->result_tag);
    COL_PUSH(b, G_RESULT_MARKER, uint8_t, g->result_marker);
    COL_PUSH(b, G_OUTCOME, uint8_t, g->outcome);
    COL_PUSH(b, G_OUTCOME_PLY, int32_t, g->outcome_ply);
    COL_PUSH(b, G_FIXES, uint8_t, g->fixes);
    COL_PUSH(b, G_CHESS960, uint8_t, g->chess960);
    COL_PUSH(b, G_VARIANT, uint8_t, g->rules);
    COL_PUSH(b, G_REPLAYED, uint8_t, g->replaying);
    COL_PUSH(b, G_AUTOMATIC_END, uint8_t, g->automatic_end);
    COL_PUSH(b, G_AUTOMATIC_END_PLY, int32_t, g->automatic_end_ply);
    COL_PUSH(b, G_FIX_START, int32_t, g->mark->cols[F_KIND]);
    COL_PUSH(b, G_SPEED, uint8_t, g->speed);
    COL_PUSH(b, G_DERIVED, uint8_t, g->derived.flags);
    if (r->opt.counters) { /* (else not counted: the columns stay empty) */
        COL_PUSH(b, G_CAPTURES, uint8_t, g->derived.captures);
        COL_PUSH(b, G_CHECKS, int32_t, g->derived.checks);
        COL_PUSH(b, G_UNDERPROMOTIONS, uint8_t, g->derived.underpromotions);
        COL_PUSH(b, G_MAX_HALFMOVE_CLOCK, uint16_t, g->derived.max_halfmove_clock);
    }
    COL_PUSH(b, G_MAX_REPETITIONS, uint16_t, g->derived.max_repetitions);
    COL_PUSH(b, G_FIRST_MOVE, uint16_t, g->first_move);
    COL_PUSH(b, G_CLOCK_START, int32_t, g->mark->cols[K_PLY]);
    if (r->filter_tags) /* games the filter drops leave gaps in the numbers (and say it was decided) */
        COL_PUSH(b, G_GAME_NUMBER, int64_t, r->games);
    r->last_offset = r->sc.base + (int64_t)g->start;
    if (r->opt.tag_columns)
        for (int i = 0; i < TAG_COLUMN_COUNT; i++)
            COL_PUSH(b, G_TAG_SLOTS, int32_t, g->tag_slot[i]);
    push_keys(r, g, final);
    positions_dataset_finish(r, g, status, eco, eco_len);
    b->n_games++;
    r->games++;
}

/* The game's keys (game_hash.h) when its mainline was replayed to its end (or to where a fix cut
 * it): not after an error stopped the replay, nor when it was not replayed. Only the keys a run
 * reads (GameOptions.movetext_hash, position_hash): the others' columns stay empty. */
static void push_keys(GameReader *r, Game *g, const Position *final)
{
    Batch *b = &r->batch;
    bool hashed = g->replaying && (!g->stopped || g->cut);
    if (r->opt.movetext_hash || r->opt.position_hash)
        COL_PUSH(b, G_HASHED, uint8_t, hashed);
    if (r->opt.movetext_hash) {
        uint64_t moves[2] = {0, 0};
        if (hashed) {
            moves[0] = g->mainline_key[0], moves[1] = g->mainline_key[1];
            gh_finish(moves, g->ply);
        }
        COL_PUSH(b, G_MOVETEXT_HASH, int64_t, (int64_t)moves[0]);
        COL_PUSH(b, G_MOVETEXT_HASH2, int64_t, (int64_t)moves[1]);
    }
    if (r->opt.position_hash) {
        uint64_t position[2] = {0, 0};
        if (hashed)
            gh_position(final, position);
        COL_PUSH(b, G_POSITION_HASH, int64_t, (int64_t)position[0]);
        COL_PUSH(b, G_POSITION_HASH2, int64_t, (int64_t)position[1]);
    }
}

/* ---------------------------------------------------------------- the game loop */

enum { GAME_DONE, GAME_NEED_MORE, GAME_NONE, GAME_SKIPPED, GAME_RETRY_LATIN1 };

/* read_tag_section's answer when a repeated tag begins the next game inside the section. */
enum { TAGS_NEXT_GAME = -1 };

static void begin_game(GameReader *r, Game *g, const BatchMark *mark, bool latin1)
{
    memset(g, 0, sizeof *g);
    g->latin1 = latin1;
    g->mark = mark;
    r->levels.len = 1;
    r->tag_set_rows = r->tag_set_first = SIZE_MAX; /* the tag set holds no rows of this game */
}

/* A comment in the tag section (*t): when a tag line of this game follows it ([Event "x"] {c}
 * [Site "y"], more comments between them too), the comment sits between tag lines, where PGN has none: read past it with a note
 * (the tags after it stay this game's, as other readers keep them) and return TOK_TAG with the
 * scanner at that tag. Otherwise the movetext begins with the comment: *t and the scanner as
 * they were, and TOK_COMMENT (or TOK_NEED_MORE: decided when more of the input is there). */
static int comment_between_tags(GameReader *r, Game *g, Token *t, bool have_gap)
{
    Scanner *sc = &r->sc;
    Scanner after_comment = *sc;
    Token comment = *t;
    int next;
    do /* past more comments: {x} {y} [Site "y"] */
        next = tok_next(sc, t);
    while (next == TOK_COMMENT);
    if (next == TOK_NEED_MORE)
        return next;
    bool ours = next == TOK_TAG
        && !tags_start_next_game(r, t, g->has_tags && tags_has(r, g, sc->buf + t->a, t->alen), have_gap);
    *sc = after_comment;
    *t = comment;
    if (!ours)
        return TOK_COMMENT;
    game_add_note(g, NOTE_COMMENT_IN_TAGS, 0, t);
    return TOK_TAG;
}

/* The tag section: tags, possibly with blank lines between them. Returns the kind of the token
 * in *t that ends it (the first movetext token, TOK_END or TOK_NEED_MORE), or TAGS_NEXT_GAME
 * when a repeated tag begins the next game (the scanner is back at that game's first tag). */
static int read_tag_section(GameReader *r, Game *g, Token *t)
{
    Scanner *sc = &r->sc;
    Game at_gap;
    Token gap_token;
    BatchMark gap_mark;
    bool have_gap = false;
    for (;;) {
        int k = tok_next_tag(sc, t);
        if (k == TOK_NEED_MORE || k == TOK_END)
            return k;
        if (k == TOK_TAG && t->value && r->opt.strict)
            k = TOK_BAD_TAG; /* a damaged tag line: with --strict an error, as it always was */
        if (!g->has_tags && !g->has_content && g->start == 0 && g->line == 0) {
            g->start = t->start;
            g->line = t->line;
        }
        if (k == TOK_TAG && g->has_tags && !have_gap && t->line > g->last_tag_line + 1) {
            at_gap = *g; /* a blank line inside a tag section: maybe the next game starts here */
            gap_token = *t;
            batch_mark(&r->batch, &gap_mark);
            have_gap = true;
        }
        /* a game without tags yet has no tag rows: no lookup */
        bool duplicate = k == TOK_TAG && g->has_tags && tags_has(r, g, sc->buf + t->a, t->alen);
        if (tags_start_next_game(r, t, duplicate, have_gap)) {
            if (have_gap) { /* the next game began at the first tag after the blank line */
                *g = at_gap;
                batch_rollback(&r->batch, &gap_mark);
                tok_unread(sc, &gap_token);
            } else {
                tok_unread(sc, t);
            }
            return TAGS_NEXT_GAME; /* the game before had tags only */
        }
        if (k == TOK_TAG) {
            tags_read(r, g, t, duplicate);
            if (t->value) { /* read past its damage (recover_tag): a fix naming the tag */
                size_t vlen;
                const char *value = tags_value(r, t, &vlen);
                game_add_fix(r, g, t->value, 0, sc->buf + t->a, t->alen, sc->buf + t->start, t->len, value, vlen);
            }
            g->last_tag_line = t->line;
            g->has_tags = g->has_content = true;
        } else if (k == TOK_BAD_TAG) {
            game_add_error(r, g, ERR_SYNTAX, 0, t, 3);
            g->has_content = true;
        } else if (k == TOK_COMMENT && g->has_tags && !r->opt.strict) {
            int next = comment_between_tags(r, g, t, have_gap);
            if (next != TOK_TAG)
                return next; /* the movetext begins with the comment (or the buffer ended) */
        } else {
            return k;
        }
        g->end = t->start + t->len;
    }
}

/* The movetext from its first token (k, *t) up to the termination marker, the next game's tag
 * section or the end of input. Returns false when the buffer ends first. */
static bool read_movetext(GameReader *r, Game *g, Token *t, int k)
{
    Scanner *sc = &r->sc;
    const bool comments = replay_reads_comments(&r->opt);
    size_t end = g->end; /* g->end, kept here and stored on the way out (nothing reads it before) */
    for (;;) {
        if (k == TOK_MOVE) /* (most tokens: tested before the switch's jump table) */
            replay_move(r, g, t);
        else switch (k) {
        case TOK_END: g->end = end; return true;
        case TOK_NEED_MORE: return false;
        case TOK_TAG: tok_unread(sc, t); g->end = end; return true;
        case TOK_BAD_TAG:
            if (t->line_start) {
                tok_unread(sc, t);
                g->end = end;
                return true;
            }
            game_add_error(r, g, ERR_SYNTAX, g->ply, t, 3);
            break;
        case TOK_RESULT:
            if (g->depth == 0) {
                g->result_marker = t->value;
                g->marker_at = t->start;
                g->has_content = true;
                g->end = t->start + t->len;
                return true;
            }
            game_add_error(r, g, ERR_SYNTAX, g->ply, t, 4); /* a result inside a variation */
            break;
        case TOK_MOVE_NUMBER: break;
        case TOK_NAG: replay_nag(r, g, t); break;
        case TOK_UNTERMINATED_COMMENT: game_add_error(r, g, ERR_UNTERMINATED_COMMENT, g->ply, t, 0); /* fall through */
        case TOK_COMMENT:
            if (t->value) { /* nested braces, read to the match: a note, with --strict an error */
                game_add_note(g, NOTE_NESTED_COMMENT, g->ply, t);
                if (r->opt.strict)
                    game_add_error(r, g, ERR_SYNTAX, g->ply, t, 6);
            }
            if (comments)
                replay_comment(r, g, t);
            break;
        case TOK_VAR_OPEN: replay_open_variation(r, g, t); break;
        case TOK_VAR_CLOSE: replay_close_variation(r, g, t); break;
        default: game_add_error(r, g, ERR_SYNTAX, g->ply, t, 5); break; /* a stray character */
        }
        end = sc->pos; /* the token's end: every token leaves the scanner there */
        k = tok_next_movetext(sc, t); /* (move numbers, which need nothing here, mostly passed over) */
    }
}

/* The movetext of a game the tag filter dropped, read as read_movetext reads it (the same end:
 * the termination marker outside variations, the next tag section, the input's end) but not
 * replayed: only what decides whether it is a game (a move) and where it ends is kept. */
static bool skip_movetext(GameReader *r, Game *g, Token *t, int k)
{
    Scanner *sc = &r->sc;
    for (;;) {
        switch (k) {
        case TOK_END: return true;
        case TOK_NEED_MORE: return false;
        case TOK_TAG: tok_unread(sc, t); return true;
        case TOK_BAD_TAG:
            if (t->line_start) {
                tok_unread(sc, t);
                return true;
            }
            break;
        case TOK_RESULT:
            if (g->depth == 0) {
                g->has_content = true;
                g->end = t->start + t->len;
                return true;
            }
            break;
        case TOK_MOVE:
            if (!g->move_syntax && !(t->alen == 4 && memcmp(sc->buf + t->a, "e.p.", 4) == 0)) {
                SanMove probe; /* (as replay_move: "e.p." written apart is no move) */
                g->has_content = true;
                g->move_syntax = san_parse(sc->buf + t->a, t->alen, &probe) != SAN_INVALID;
            }
            break;
        case TOK_VAR_OPEN: g->depth++; break;
        case TOK_VAR_CLOSE:
            if (g->depth > 0)
                g->depth--;
            break;
        default: break;
        }
        g->end = t->start + t->len;
        k = tok_next(sc, t);
    }
}

/* Undoes what the game added to the batch and puts the scanner back at its first byte. */
static int give_back(GameReader *r, const Game *g, const Scanner *start_state, int rc)
{
    batch_rollback(&r->batch, g->mark);
    r->sc = *start_state;
    return rc;
}

/* The game is read: recorded, or not a game at all (prose between games), or to be read again
 * as Latin-1 (it is not UTF-8). */
static int end_game(GameReader *r, Game *g, const Scanner *start_state)
{
    if (!g->has_tags && !g->move_syntax)
        g->has_content = false; /* prose, comments or a stray marker between games: no tags, no moves */
    if (g->has_content && !g->set_up)
        replay_start(r, g, NULL); /* a tag-only game */
    if (!g->has_content) { /* only comments or stray text between games: not a game */
        batch_rollback(&r->batch, g->mark);
        if (g->end > g->start)
            r->skipped_bytes += (int64_t)(g->end - g->start);
        return GAME_SKIPPED;
    }
    if (!g->latin1 && !valid_utf8((const unsigned char *)r->sc.buf + g->start, g->end - g->start))
        return give_back(r, g, start_state, GAME_RETRY_LATIN1); /* (the filter decides again on its tags) */
    if (g->filtered) { /* its tags fail the tag filter: counted, its number taken, nothing recorded */
        r->pgn_games++;
        batch_rollback(&r->batch, g->mark);
        r->last_offset = r->sc.base + (int64_t)g->start;
        r->batch_filtered++;
        r->games++;
        return GAME_DONE;
    }
    finish_game(r, g);
    /* (Markdown quoting a tag line is no PGN; scan replays nothing: a move's syntax is its sign) */
    if (g->ply > 0 || (g->has_tags && !g->unreadable) || (!r->opt.replay && g->move_syntax))
        r->pgn_games++;
    return GAME_DONE;
}

static int read_game(GameReader *r, const BatchMark *mark, bool latin1)
{
    Scanner start_state = r->sc;
    Game g;
    Token t;
    begin_game(r, &g, mark, latin1);
    int k = read_tag_section(r, &g, &t);
    if (k == TOK_NEED_MORE)
        return give_back(r, &g, &start_state, GAME_NEED_MORE);
    if (k != TAGS_NEXT_GAME) {
        if (k == TOK_END && !g.has_content)
            return GAME_NONE;
        replay_start(r, &g, k == TOK_END ? NULL : &t);
        if (!(g.filtered ? skip_movetext(r, &g, &t, k) : read_movetext(r, &g, &t, k)))
            return give_back(r, &g, &start_state, GAME_NEED_MORE);
    }
    return end_game(r, &g, &start_state);
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
    bool filter = r->filter_tags; /* recorded whatever its tags: it was not read */
    r->filter_tags = false;
    replay_start(r, &g, NULL);
    r->filter_tags = filter;
    g.replaying = false;
    game_add_error(r, &g, ERR_GAME_TOO_LARGE, 0, NULL, (int32_t)(limit >> 20));
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

enum { FILTERED_PER_BATCH = 16 };

int gr_fill(GameReader *r)
{
    BatchMark mark; /* the batch where the next game starts; batch_mark also gives its size */
    /* games the tag filter drops cost no room, but a batch that holds few games still ends after
     * reading FILTERED_PER_BATCH x max_games (progress, --limit and the selection see it) */
    while (r->batch.n_games < (size_t)r->opt.max_games &&
           r->batch_filtered < (int64_t)FILTERED_PER_BATCH * r->opt.max_games &&
           batch_mark(&r->batch, &mark) < r->opt.max_batch_bytes) {
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
