/* Games out of the scanner: tags, start position, replay of the mainline and its variations,
 * annotations, result checks, and the batch record (plus export-format PGN when asked).
 * game.c holds the game loop and the record, tags.c the tag section, replay.c the replay;
 * game_reader.h is the state they share. */
#ifndef PGNT_GAME_H
#define PGNT_GAME_H

#include "annotations.h"
#include "batch.h"
#include "openings.h"
#include "mainline_facts.h"
#include "speed.h"
#include "pgn_writer.h"
#include "position.h"
#include "positions_dataset.h"
#include "san.h"
#include "tag_filter.h"
#include "tokenizer.h"

/* Error kinds: the SAN ones first (same numbers as san.h), then the game's own. */
enum {
    ERR_INVALID_START_POSITION = SAN_ERROR_COUNT,
    ERR_UNSUPPORTED_VARIANT,
    ERR_MOVE_AFTER_GAME_END,
    ERR_RESULT_MISMATCH,
    ERR_RESULT_CONTRADICTS_POSITION,
    ERR_SYNTAX,
    ERR_UNTERMINATED_COMMENT,
    ERR_UNTERMINATED_VARIATION,
    ERR_NONSTANDARD_NOTATION,
    ERR_GAME_TOO_LARGE,
    ERR_COUNT
};

/* Note kinds: the SAN normalisations first (bit indexes of san.h), then the game's own. */
enum {
    NOTE_LATIN1 = NOTE_COUNT,
    NOTE_FEN_WITHOUT_SETUP,
    NOTE_DUPLICATE_TAG,
    NOTE_MISSING_RESULT_TAG,
    NOTE_FIFTY_MOVE_CLAIMABLE,
    NOTE_THREEFOLD_CLAIMABLE,
    NOTE_INVALID_TAG_VALUE, /* a WhiteElo/BlackElo that is not a number: null in its column */
    NOTE_PLAY_AFTER_AUTOMATIC_END, /* the mainline went on after a dead position, fivefold, 75 moves */
    NOTE_NESTED_COMMENT,           /* { a { b } c }: read to the matching brace */
    NOTE_MISSING_RESULT,           /* moves and no termination marker (the next game's tags, or the end) */
    NOTE_OPENING_TAGS_DIFFER,      /* --classify: the game's ECO or Opening tag is not the table's */
    NOTE_COMMENT_IN_TAGS,          /* a comment between tag lines: read past (PGN has none there) */
    NOTE_KIND_COUNT
};

/* Fix kinds (the fix table's rows; the result's fixes are G_FIXES bits, result.h). */
enum {
    FIXK_TRUNCATED_AT_AUTOMATIC_END, /* --automatic-ends truncate: the moves after it dropped */
    /* a tag line read past its damage: FIXK_TAG_* = the scanner's TAG_* (tokenizer.h) */
    FIXK_TAG_DOUBLED_QUOTES = TAG_DOUBLED_QUOTES,
    FIXK_TAG_UNESCAPED_QUOTES,
    FIXK_TAG_MISSING_BRACKET,
    FIXK_TAG_MISSING_QUOTE,
    FIXK_TAG_WITHOUT_VALUE,
    FIXK_TAG_TRAILING_BACKSLASH,
    FIXK_TAG_TRAILING_TEXT,
    FIXK_FEN_CASTLING,  /* start FEN: castling rights the position cannot have, dropped */
    FIXK_FEN_EN_PASSANT, /* an en-passant square that cannot be right, cleared */
    FIXK_FEN_FULLMOVE,  /* fullmove 0, made 1 */
    FIX_KIND_COUNT
};

/* What a move after an automatic draw (dead position, fivefold, 75 moves) does. */
enum {
    AUTO_END_NOTE,     /* the game goes on, noted (NOTE_PLAY_AFTER_AUTOMATIC_END) */
    AUTO_END_ENFORCE,  /* move_after_game_end, an error */
    AUTO_END_TRUNCATE, /* the game ends there, with the rule's result: a fix */
};

typedef struct {
    bool replay;          /* false: scan only (tags and tokens, no moves replayed) */
    bool moves;           /* fill the move table (squares, SAN, UCI, clocks, ...) */
    bool clock_rows;      /* fill the clock table (K_*): each mainline [%clk] (pgntools stats) */
    bool comments;        /* the per-move comment column */
    bool fen_every_ply;   /* the per-move FEN column */
    const int32_t *fen_plies; /* with fen_every_ply: the FEN made only at these plies (ascending; owned by the */
    size_t n_fen_plies;       /* caller), an empty string at the others (to-fen --ply); NULL: at every ply */
    int fen_first_ply, fen_last_ply; /* ... and only at plies [first, last]: last 0 for no limit (a zeroed
                                      * GameOptions records every ply), -1 none (to-fen --every-ply's window) */
    bool keys_every_ply;  /* the per-move Polyglot key column (M_KEY) */
    bool final_fen;
    bool movetext_hash;   /* the mainline key at every ply: G_MOVETEXT_HASH(2) (movetext_hash, --dedup moves) */
    bool position_hash;   /* the final position's key: G_POSITION_HASH(2) (--dedup position); G_HASHED with either */
    bool counters;        /* the per-ply counters: G_CAPTURES, G_CHECKS, G_UNDERPROMOTIONS, G_MAX_HALFMOVE_CLOCK and
                           * G_DERIVED's clock and eval bits. Off: those columns are not filled (left empty), the
                           * bits stay 0; a run that reads none of them does not pay for them */
    bool pgn;             /* export-format PGN per game (valid and fixed games) */
    bool raw_invalid;     /* the input bytes of invalid games (for --rejects) */
    bool raw_all;         /* the input bytes of every game (for `filter`, which writes them) */
    const TagFilter *tag_filter; /* NULL, or games whose tags fail it are not replayed nor recorded,
                                  * only counted (gr_take_filtered); the others get G_GAME_NUMBER
                                  * (needs tag_columns and tag values); owned by the caller */
    bool strict;          /* notation normalisations are errors */
    bool fix_results;
    bool strip_comments, strip_variations, reduced;
    unsigned pgn_shape;   /* the written PGN's shape: PGN_STRIP_NAGS, ... (pgn_writer.h) */
    int line_length;      /* the written PGN's longest line; 0: PGN_MAX_LINE (79), -1: a game on one line */
    int drop_plies, max_plies; /* the written PGN's mainline plies (drop, max]: 0, 0 for all (a zeroed
                                * GameOptions writes every ply); max_plies -1: none */
    bool tag_columns;     /* G_TAG_SLOTS: where each of the TAG_COLUMN_COUNT tags is, per game */
    bool skip_tag_values; /* every tag value an empty string (the rows stay), for outputs that show
                           * no tags (validate): no value is copied. Ignored with pgn, which writes them */
    int fen_options;      /* FEN_EP_ALWAYS | FEN_SHREDDER */
    int max_games;        /* games per batch */
    size_t max_batch_bytes; /* a batch also ends once it holds this much (games with huge comments) */
    int max_errors;       /* errors kept per game */
    int automatic_ends;   /* AUTO_END_* */
    bool allow_null_moves; /* --, Z0, 0000, @@@@: the side to move passes (else null_move, an error) */
    bool repair_truncate; /* --repair truncate: a game stopped by a bad mainline move is kept as its
                           * legal prefix (STATUS_TRUNCATED), Result *, a comment at the cut */
    const OpeningTable *openings; /* NULL, or each game classified (G_OPENING...); owned by the caller */
    int opening_tags;     /* OPENING_TAGS_*: the PGN output's ECO and Opening tags from the table */
    const PositionTargets *positions;     /* --where-position (NULL: none); owned by the caller */
    const MaterialSignatures *materials;  /* --material (NULL: none); owned by the caller */
    const PositionRowOptions *position_rows; /* the positions dataset's rows (NULL: none; needs moves) */
} GameOptions;

enum { GR_FULL, GR_NEED_MORE, GR_END, GR_NO_MEMORY };

typedef struct GameReader GameReader;

GameReader *gr_new(const GameOptions *opt);
void gr_free(GameReader *r);
Scanner *gr_scanner(GameReader *r);
Batch *gr_batch(GameReader *r);
/* Reads games from the scanner's buffer into the batch until it is full (GR_FULL), the buffer
 * ends inside a game (GR_NEED_MORE: the scanner is back at that game's first byte, so the
 * caller keeps buf[pos..], refills and calls again) or the input ends (GR_END). */
int gr_fill(GameReader *r);
int64_t gr_games_read(const GameReader *r);
/* Bytes of text between games (or before the first) that held no game: skipped so far. */
int64_t gr_skipped_bytes(const GameReader *r);
/* Games read so far that show the input is PGN: a legal mainline move, or tags and no syntax
 * error or unreadable move (or dropped by the tag filter, not replayed); an input with games but
 * none of these is not PGN. */
int64_t gr_pgn_games(const GameReader *r);
/* The stream offset of the last game read (recorded, or dropped by the tag filter); -1: none. */
int64_t gr_last_offset(const GameReader *r);
/* The games the tag filter dropped since the last gr_take_filtered (read with the batch being
 * filled): gr_batch_filtered says how many, gr_take_filtered also starts the count again (when
 * the batch is taken). */
int64_t gr_batch_filtered(const GameReader *r);
int64_t gr_take_filtered(GameReader *r);
/* Numbers the next game (for a chunk cut from a larger stream). */
void gr_set_games_read(GameReader *r, int64_t games);
/* Between batches: hands the batch read so far to *other and goes on in other's buffers (an
 * empty batch), so that the caller can read the games while the reader fills the next one. */
void gr_swap_batch(GameReader *r, Batch *other);
/* The game at the scanner's position does not fit the largest buffer allowed: record it as a
 * game_too_large error and skip its bytes (the next gr_fill calls look for the next game). */
void gr_skip_oversized(GameReader *r, int64_t limit);

/* The tags that get a column of their own in exports (G_TAG_SLOTS holds one slot per name). */
enum { TAG_COLUMN_COUNT = 16 };
const char *game_tag_column_name(int i);
bool game_tag_column_is_integer(int i); /* WhiteElo, BlackElo: int32 columns */
bool game_tag_text_in_map(int i);       /* Date: its column is typed, its text stays in the tags map */

const char *game_error_name(int kind);
const char *game_note_name(int kind);
const char *game_fix_name(int kind);

#endif
