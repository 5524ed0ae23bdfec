/* The game record's findings: its errors, notes and fixes (their names, and adding them to the
 * game and the batch), and the text columns they and the record write. Used by every file that
 * reads a game (game.c, tags.c, replay.c); calls none of them. */
#include "game_reader.h"

static const char *const ERROR_NAMES[ERR_COUNT] = {
    "ok", "invalid_san", "illegal_move", "ambiguous_move", "invalid_promotion", "null_move", "drop",
    "invalid_start_position", "unsupported_variant", "move_after_game_end", "result_mismatch",
    "result_contradicts_position", "syntax_error", "unterminated_comment", "unterminated_variation",
    "nonstandard_notation", "game_too_large",
};
static const char *const GAME_NOTE_NAMES[NOTE_KIND_COUNT - NOTE_COUNT] = {
    "latin1_encoding", "fen_without_setup", "duplicate_tag", "missing_result_tag", "fifty_move_claimable",
    "threefold_claimable", "invalid_tag_value", "play_after_automatic_end", "nested_comment",
    "missing_result", "opening_tags_differ", "comment_in_tags",
};
static const char *const FIX_NAMES[FIX_KIND_COUNT] = {
    "truncated_at_automatic_end", "tag_doubled_quotes", "tag_unescaped_quotes", "tag_missing_bracket",
    "tag_missing_quote", "tag_without_value", "tag_trailing_backslash", "tag_trailing_text", "fen_castling",
    "fen_en_passant", "fen_fullmove",
};
_Static_assert((int)FIXK_TAG_TRAILING_TEXT == (int)TAG_TRAILING_TEXT &&
                   (int)TAG_DAMAGE_COUNT == (int)FIXK_FEN_CASTLING,
               "a tag fix for each damage the scanner reads past");

const char *game_error_name(int kind) { return kind > 0 && kind < ERR_COUNT ? ERROR_NAMES[kind] : "unknown"; }
const char *game_note_name(int kind)
{
    if (kind >= 0 && kind < NOTE_COUNT)
        return san_note_name(kind);
    return kind < NOTE_KIND_COUNT ? GAME_NOTE_NAMES[kind - NOTE_COUNT] : "unknown";
}

const char *game_fix_name(int kind) { return kind >= 0 && kind < FIX_KIND_COUNT ? FIX_NAMES[kind] : "unknown"; }

void game_push_text(GameReader *r, int strcol, const char *s, size_t n, bool latin1)
{
    StrCol *c = &r->batch.strs[strcol];
    if (!bytes_add_text(&c->data, s, n, latin1) || !strcol_end(c))
        r->batch.failed = true;
}

/* At most `max` bytes of a token for a report, not cutting a UTF-8 sequence in two. */
size_t game_text_prefix(const char *s, size_t n, size_t max, bool latin1)
{
    if (n <= max)
        return n;
    while (!latin1 && max > 0 && ((unsigned char)s[max] & 0xC0) == 0x80)
        max--;
    return max;
}

void game_add_error(GameReader *r, Game *g, int kind, int ply, const Token *t, int32_t detail)
{
    if (kind == ERR_SYNTAX || kind == SAN_INVALID)
        g->unreadable = true;
    if (g->n_errors++ >= r->opt.max_errors)
        return;
    Batch *b = &r->batch;
    COL_PUSH(b, E_KIND, uint8_t, kind);
    COL_PUSH(b, E_PLY, int32_t, ply);
    COL_PUSH(b, E_OFFSET, int64_t, t ? r->sc.base + (int64_t)t->start : r->sc.base + (int64_t)g->end);
    COL_PUSH(b, E_LINE, int64_t, t ? t->line : r->sc.line);
    COL_PUSH(b, E_COLUMN, int64_t, t ? tok_column(&r->sc, t) : 0);
    COL_PUSH(b, E_DETAIL, int32_t, detail);
    const char *text = t ? r->sc.buf + t->start : "";
    game_push_text(r, S_ERROR_TOKEN, text, game_text_prefix(text, t ? t->len : 0, 80, g->latin1), g->latin1);
}

void game_add_note(Game *g, int kind, int ply, const Token *t)
{
    if (g->note_count[kind]++ == 0) {
        g->note_kinds |= 1u << kind;
        g->note_ply[kind] = ply;
        g->note_at[kind] = t ? t->start : 0;
        g->note_len[kind] = t ? t->len : 0;
    }
}

void game_add_fix(GameReader *r, Game *g, int kind, int ply, const char *field, size_t field_len,
                  const char *from, size_t from_len, const char *to, size_t to_len)
{
    Batch *b = &r->batch;
    g->n_fixes++;
    COL_PUSH(b, F_KIND, uint8_t, kind);
    COL_PUSH(b, F_PLY, int32_t, ply);
    game_push_text(r, S_FIX_FIELD, field, field_len, g->latin1);
    game_push_text(r, S_FIX_FROM, from, game_text_prefix(from, from_len, 200, g->latin1), g->latin1);
    game_push_text(r, S_FIX_TO, to, to_len, g->latin1);
}

void game_push_notes(GameReader *r, Game *g)
{
    Batch *b = &r->batch;
    for (uint32_t kinds = g->note_kinds; kinds; kinds &= kinds - 1) { /* most games have none */
        int k = __builtin_ctz(kinds);
        COL_PUSH(b, O_KIND, uint8_t, k);
        COL_PUSH(b, O_PLY, int32_t, g->note_ply[k]);
        COL_PUSH(b, O_COUNT, int32_t, g->note_count[k]);
        const char *text = r->sc.buf + g->note_at[k];
        game_push_text(r, S_NOTE_TOKEN, text, game_text_prefix(text, g->note_len[k], 80, g->latin1), g->latin1);
    }
}
