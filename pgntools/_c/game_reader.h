/* The game reader's state, shared by the files that read a game: game.c (the game loop and the
 * game record), tags.c (the tag section) and replay.c (the start position, the movetext and its
 * replay, the automatic ends and the result). Internal: the C API is game.h. */
#ifndef PGNT_GAME_READER_H
#define PGNT_GAME_READER_H

#include "fen.h" /* FEN_MAX */
#include "game.h"

enum { HISTORY_SLOTS = 256 };

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
    int64_t skipped_bytes; /* text between games that is no game (prose, junk): skipped, counted */
    int64_t pgn_games;     /* games that show the input is PGN: a legal mainline move, tags and no
                            * unreadable text, or dropped by the tag filter (undecided); random bytes
                            * and prose have none */
    VEC(uint64_t) history; /* mainline hashes, for repetitions */
    uint32_t history_last[HISTORY_SLOTS]; /* by the low bits of a hash: the latest history index + 1
                                           * with those bits (replay.h, note_history), 0: none */
    VEC(Level) levels;
    ByteVec movetext;
    Emitter em;
    bool skipping; /* inside an oversized game: looking for the next one */
    Position start;                /* the standard start, made once (most games have no FEN) */
    char start_fen[2][FEN_MAX];    /* and its FEN in the output's style: standard, Chess960 */
    size_t start_fen_len[2];
    I32Vec tag_set;                /* see tags_has: slots holding tag-name rows + 1 (0: empty) */
    size_t tag_set_first, tag_set_rows; /* it holds the rows [first, rows) of the current game */
    char repaired_fen[176];        /* the current game's start FEN as repaired (Game.fen_repaired) */
    size_t repaired_fen_len;
    bool filter_tags;              /* opt.tag_filter is decided: the tags it reads are recorded */
    int64_t batch_filtered;        /* games the tag filter dropped since the batch began (counted only) */
    int64_t last_offset;           /* stream offset of the last game read, recorded or dropped (-1: none) */
    VEC(Position) ply_positions;   /* with opt.position_rows: the mainline's start position and the one after each move */
};

/* A move just made, as a recorder sees it. */
typedef struct {
    const Token *token;
    Level *level;       /* the position after the move, and its undo record */
    move_t move;        /* (MOVE_NULL: a null move) */
    int ply;
    int status;         /* pos_check_status after it: 0, 1 check, 2 checkmate */
    bool took, material_changed;
    const char *san;    /* its SAN with the check marker, when the recorders read it */
    size_t san_len;
} PlayedMove;

typedef struct GameState Game;
/* What a game records of each move it makes (a move row, the PGN written, the mainline key, ...):
 * chosen once a game in replay_start, the way a sink says what it needs. */
typedef void (*MoveRecorder)(GameReader *r, Game *g, const PlayedMove *pm);
enum { MAX_RECORDERS = 8 };
typedef struct {
    MoveRecorder fn[MAX_RECORDERS];
    uint8_t n;
    bool san; /* one of them reads the move's SAN */
} Recorders;

/* What one game needs while it is read. */
struct GameState {
    bool latin1;
    int depth;
    int ply;
    bool replaying;  /* the start position is valid and moves are being replayed */
    bool playing;    /* replaying and not stopped: the moves are made (replay_start sets it, an error or
                      * a cut clears it) */
    Recorders recorders[2]; /* what each move records: [0] the mainline's, [1] the variations' */
    bool filtered;   /* its tags fail opt.tag_filter: read past (skip_movetext), counted, not recorded */
    bool stopped;    /* an error stopped the replay */
    bool need_number;
    bool pending;    /* a mainline move row still open for its comments */
    int pending_ply; /* its ply (the clock table's row) */
    uint16_t first_move; /* G_FIRST_MOVE */
    bool has_tags, has_content;
    int n_errors, n_tags;
    int outcome, outcome_ply;  /* the end the position is at now (an automatic draw played on clears it) */
    int automatic_end, automatic_end_ply; /* the first automatic draw reached (G_AUTOMATIC_END) */
    bool played_on;  /* a mainline move came after it (AUTO_END_NOTE) */
    bool cut;        /* AUTO_END_TRUNCATE cut the game there: the rest of the movetext is dropped */
    int n_fixes;     /* rows in the fix table */
    bool truncated;  /* repair_truncate cut the game at its bad move (the game's one error) */
    bool fen_repaired; /* the start FEN was repaired: -o writes GameReader.repaired_fen */
    size_t cut_at, marker_at; /* where the dropped move text starts; the termination marker */
    bool claim_fifty, claim_threefold;
    Derived derived; /* the derived fields (mainline_facts.h) */
    uint8_t speed;   /* SPEED_* of the TimeControl tag */
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
    uint8_t rules;   /* VARIANT_* of the Variant tag (chess.h) */
    bool set_up;     /* replay_start ran (a game may end before its movetext) */
    bool move_syntax; /* something in the movetext reads as a move (else prose is no game) */
    bool unreadable;  /* a syntax error or a move in no notation: with no legal move, no sign of PGN */
    int64_t last_tag_line;
    uint64_t tag_bits;      /* a bit (tags.c, tag_bit) for each tag name in the game's rows */
    int32_t tag_slot[TAG_COLUMN_COUNT]; /* with opt.tag_columns: see G_TAG_SLOTS */
    uint8_t opening;        /* OPENING_* (openings.h): 0 when not classifying */
    int16_t opening_ply;    /* the ply of the deepest named position (OPENING_NAMED) */
    int opening_row;        /* its row in the table */
    uint64_t mainline_key[2]; /* the mainline's key so far (game_hash.h; --dedup, movetext_hash) */
    const BatchMark *mark; /* the batch where the game starts: gr_fill's, where it checks the */
                           /* batch's size (a pointer: the Game is cleared for every game) */
};

/* findings.c: the game record's errors, notes, fixes and text columns */
void game_push_text(GameReader *r, int strcol, const char *s, size_t n, bool latin1);
/* An error of the game (the first max_errors are kept); t: where (NULL: the game's end). */
void game_add_error(GameReader *r, Game *g, int kind, int ply, const Token *t, int32_t detail);
/* A note: counted per kind, the first ply and token of each kept. */
void game_add_note(Game *g, int kind, int ply, const Token *t);
/* A fix (a row of the fix table; the game becomes `fixed` unless it is invalid): what it concerns
 * (a tag name, a FEN field, a rule), the text as read and what was made of it. */
void game_add_fix(GameReader *r, Game *g, int kind, int ply, const char *field, size_t field_len,
                  const char *from, size_t from_len, const char *to, size_t to_len);
/* At most `max` bytes of a text for a report, not cutting a UTF-8 sequence in two. */
size_t game_text_prefix(const char *s, size_t n, size_t max, bool latin1);
/* The notes counted so far, a row each kind, at the game's end. */
void game_push_notes(GameReader *r, Game *g);

/* positions_dataset.c: the game's rows of the positions dataset, at its end (G_POSITION_START always) */
void positions_dataset_finish(GameReader *r, Game *g, int status, const char *eco, size_t eco_len);

#endif
