# Declarations of the C core (pgntools/_c). Only `cdef extern` blocks here; logic lives in _core.pyx.
from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t, int16_t, int32_t, int64_t

cdef extern from "chess.h":
    ctypedef uint64_t bb_t
    ctypedef uint16_t move_t
    int NO_SQ
    int VARIANT_STANDARD, VARIANT_COUNT
    int WHITE, BLACK
    int MT_CASTLE
    int mv_type(move_t m)

cdef extern from "position.h":
    ctypedef struct Position:
        bb_t by_type[7]
        bb_t by_color[2]
        uint8_t board[64]
        uint8_t turn
        uint8_t ep
        uint8_t ep_hashed
        uint8_t castle[2][2]
        uint8_t chess960
        uint16_t halfmove
        uint8_t variant
        uint8_t checks_left
        uint32_t fullmove
        uint64_t hash
        bb_t checkers
    ctypedef struct PosState:
        uint8_t turn, ep, ep_hashed, chess960
        uint8_t castle[2][2]
        uint16_t halfmove
        uint32_t fullmove
        uint64_t hash
        bb_t checkers
    ctypedef struct Undo:
        PosState state
        move_t move
        uint8_t captured
    void pos_make_undo(Position *p, move_t m, Undo *u)
    void pos_unmake(Position *p, const Undo *u)
    void pos_rehash(Position *p)
    void pos_init_start(Position *p) nogil
    bint pos_in_check(const Position *p)
    void pos_make(Position *p, move_t m) nogil
    bint pos_is_insufficient_material(const Position *p)
    int pos_repetition_count(const uint64_t *history, int n, int halfmove)
    uint64_t pos_key(const Position *p)
    void pos_set_variant(Position *p, int variant)
    int pos_variant_end(const Position *p)
    int VARIANT_END_NONE, VARIANT_END_WIN, VARIANT_END_LOSS, VARIANT_END_DRAW

cdef extern from "movegen.h":
    ctypedef struct MoveList:
        move_t moves[256]
        int n
    int GEN_ALL
    void pos_gen_legal(const Position *p, MoveList *ml, int gen, bb_t from_mask, bb_t to_mask)
    bint pos_has_legal_move(const Position *p)
    uint64_t pos_perft(const Position *p, int depth) nogil
    bint pos_is_checkmate(const Position *p)
    bint pos_is_stalemate(const Position *p)
    int pos_check_status(const Position *p)

cdef extern from "polyglot_random.h":
    int POLYGLOT_RANDOM_COUNT
    const uint64_t POLYGLOT_RANDOM[781]

cdef extern from "fen.h":
    int FEN_EP_ALWAYS, FEN_SHREDDER, FEN_MAX, FEN_PROBLEM_COUNT
    int fen_parse(Position *p, const char *text, size_t len, bint chess960)
    ctypedef struct FenWhy:
        char text[10][128]  # [FEN_PROBLEM_COUNT]
    int fen_parse_why(Position *p, const char *text, size_t len, bint chess960, FenWhy *why)
    int fen_parse_variant(Position *p, const char *text, size_t len, bint chess960, int variant, FenWhy *why)
    const char *fen_problem_name(int bit_index)
    size_t fen_format(const Position *p, char *out, int options)

cdef extern from "san.h":
    int SAN_OK, SAN_INVALID, SAN_ILLEGAL, SAN_AMBIGUOUS, SAN_INVALID_PROMOTION, NOTE_COUNT, NOTE_MISSING_CHECK_MARKER, NOTE_WRONG_CHECK_MARKER
    int SAN_KIND_MOVE, SAN_KIND_CASTLE_KING
    ctypedef struct SanMove:
        uint8_t kind, piece, to, promo, capture, check, san_len
        signed char from_file, from_rank
        uint16_t notes
    int san_parse(const char *text, size_t len, SanMove *out)
    int san_to_move(const Position *p, const char *text, size_t len, move_t *out, uint16_t *notes) nogil
    int san_resolve(const Position *p, SanMove *sm, move_t *out)
    int san_read(const Position *p, const char *text, size_t len, SanMove *sm, move_t *out)
    int san_read_general(const Position *p, const char *text, size_t len, SanMove *sm, move_t *out)
    size_t san_format_base(const Position *p, move_t m, char *out)
    size_t san_format(const Position *p, move_t m, char *out)
    size_t uci_format(const Position *p, move_t m, char *out)
    int uci_to_move(const Position *p, const char *text, size_t len, move_t *out)
    const char *san_error_name(int kind)
    const char *san_note_name(int bit_index)
    uint16_t san_check_notes(int written, int actual)

cdef extern from "tokenizer.h":
    ctypedef struct Scanner:
        const char *buf
        size_t len
        size_t pos
        bint eof
        int64_t line
        int64_t line_start_abs
        int64_t base

cdef extern from "batch.h":
    int BATCH_NCOLS, BATCH_NSTRS, G_TAG_SLOTS
    ctypedef struct Batch:
        size_t n_games
        bint failed
    const void *batch_col_data(const Batch *b, int id, size_t *nbytes) nogil
    const int32_t *batch_str_offsets(const Batch *b, int id, size_t *count) nogil
    const char *batch_str_data(const Batch *b, int id, size_t *nbytes) nogil
    const char *batch_column_name(int id)
    const char *batch_column_format(int id)
    const char *batch_string_name(int id)
    ctypedef struct BatchName:
        int value
        const char *name
    int NAMES_STATUS, NAMES_OUTCOME, NAMES_PIECE, NAMES_MOVE_FLAG, NAMES_HAS, NAMES_FIX, NAMES_VARIANT
    const BatchName *batch_names(int set, size_t *count)
    void batch_clear(Batch *b)
    bint batch_init(Batch *b)
    void batch_free(Batch *b)

cdef extern from "batch_arrow.h":
    struct ArrowSchema:
        pass
    struct ArrowArray:
        pass
    ctypedef struct SharedBatch:
        Batch b
    SharedBatch *shared_batch_new()
    void shared_batch_release(SharedBatch *s)
    long shared_batch_live()
    bint batch_export_column(SharedBatch *s, int id, ArrowSchema *schema, ArrowArray *array)
    bint batch_export_strings(SharedBatch *s, int id, ArrowSchema *schema, ArrowArray *array)


cdef extern from "openings.h":
    ctypedef struct COpeningTable "OpeningTable":
        pass
    int OPENING_MAX_PLY, OPENING_NAMED, OPENING_UNNAMED, OPENING_CUSTOM_START
    int OPENING_TAGS_NONE, OPENING_TAGS_MISSING, OPENING_TAGS_OVERWRITE
    COpeningTable *openings_build(const char *text, size_t len, char *err, size_t err_len)
    void openings_free(COpeningTable *t)
    size_t openings_count(const COpeningTable *t)
    int openings_find(const COpeningTable *t, const Position *p, uint64_t key)
    uint64_t openings_key(const Position *p)
    void openings_row(const COpeningTable *t, int row, const char **eco, size_t *eco_len, const char **name,
                      size_t *name_len)
cdef extern from "positions_dataset.h":
    ctypedef struct PositionRowOptions:
        int sample_plies
        int min_ply, max_ply
        uint64_t seed
        bint planes
    int PH_RESULT, PH_WHITE_ELO, PH_BLACK_ELO, PH_CLOCK, PH_EVAL_CP, PH_EVAL_MATE, PH_EP_FILE, PH_ECO
    uint64_t positions_dataset_mix(uint64_t game_id, uint64_t seed)


cdef extern from "speed.h":
    int SPEED_COUNT
    const char *speed_name(int code)
    int speed_of_time_control(const char *s, size_t n)

cdef extern from "mainline_facts.h":
    int DERIVED_HAS_CLOCK, DERIVED_HAS_EVAL, DERIVED_REACHED_POSITION, DERIVED_REACHED_MATERIAL
    ctypedef struct PositionTargets:
        size_t n
        const uint64_t *keys
        const Position *positions
    ctypedef struct MaterialSignature:
        uint8_t count[2][7]
        bint at_least[2]
    ctypedef struct MaterialSignatures:
        size_t n
        const MaterialSignature *signatures


cdef extern from "pgn_writer.h":
    unsigned PGN_STRIP_NAGS, PGN_NO_CHECK_MARKS, PGN_NO_MOVE_NUMBERS, PGN_NO_RESULTS, PGN_NO_TAGS
    unsigned PGN_ADD_PLYCOUNT, PGN_ADD_HASHCODE, PGN_FEN_COMMENTS, PGN_KEY_COMMENTS, PGN_UCI, PGN_LAN

cdef extern from "game.h":
    int TF_LT, TF_LE, TF_EQ, TF_NE, TF_GT, TF_GE, TF_IN, TF_LIKE, TF_ILIKE, TF_IS_NULL, TF_NOT_NULL
    int TF_SPEED, TF_CONST, TF_UNKNOWN, TF_NOT, TF_AND, TF_OR, TF_OP_COUNT
    int TV_STRING, TV_DATE_STRING, TV_NUMBER, TV_DATE, TV_YEAR, TV_MONTH, TV_KIND_COUNT, TRUTH_FALSE, TRUTH_NULL, TRUTH_TRUE, TRUTH_ANY
    ctypedef struct TagClause:
        int op
        int tag
        int tag2
        int kind
        double value
        uint32_t true_mask
        uint32_t null_mask
        int truth
        const char *text
        size_t len
        const char *name
        size_t name_len
        const int32_t *item_ends
        const double *numbers
        size_t n_items
    ctypedef struct TagFilter:
        size_t n
        const TagClause *clauses
        uint8_t *stack
    ctypedef struct GameOptions:
        bint replay
        bint moves
        bint clock_rows
        bint comments
        bint fen_every_ply
        const int32_t *fen_plies
        size_t n_fen_plies
        int fen_first_ply, fen_last_ply
        bint keys_every_ply
        bint final_fen
        bint movetext_hash
        bint position_hash
        bint counters
        bint pgn
        bint raw_invalid
        bint raw_all
        const TagFilter *tag_filter
        bint strict
        bint fix_results
        bint strip_comments
        bint strip_variations
        bint reduced
        unsigned pgn_shape
        int line_length
        int drop_plies, max_plies
        bint tag_columns
        bint skip_tag_values
        int fen_options
        int max_games
        size_t max_batch_bytes
        int max_errors
        int automatic_ends
        bint allow_null_moves
        bint repair_truncate
        const COpeningTable *openings
        int opening_tags
        const PositionTargets *positions
        const MaterialSignatures *materials
        const PositionRowOptions *position_rows
    ctypedef struct GameReader:
        pass
    int GR_FULL, GR_NEED_MORE, GR_END, GR_NO_MEMORY
    int ERR_COUNT, NOTE_KIND_COUNT, TAG_COLUMN_COUNT, FIX_KIND_COUNT
    int AUTO_END_NOTE, AUTO_END_ENFORCE, AUTO_END_TRUNCATE
    GameReader *gr_new(const GameOptions *opt)
    void gr_free(GameReader *r)
    Scanner *gr_scanner(GameReader *r)
    Batch *gr_batch(GameReader *r)
    int gr_fill(GameReader *r) nogil
    int64_t gr_games_read(const GameReader *r)
    int64_t gr_skipped_bytes(const GameReader *r)
    int64_t gr_pgn_games(const GameReader *r)
    int64_t gr_last_offset(const GameReader *r)
    int64_t gr_take_filtered(GameReader *r)
    int64_t gr_batch_filtered(const GameReader *r)
    void gr_skip_oversized(GameReader *r, int64_t limit)
    void gr_set_games_read(GameReader *r, int64_t games)
    void gr_swap_batch(GameReader *r, Batch *other)
    const char *game_error_name(int kind)
    const char *game_tag_column_name(int i)
    bint game_tag_column_is_integer(int i)
    bint game_tag_text_in_map(int i)
    const char *game_note_name(int kind)
    const char *game_fix_name(int kind)

cdef extern from "result.h":
    const char *result_string(int result)

cdef extern from "parquet_encode.h":
    ctypedef struct ByteVec:
        char *data
        size_t len
        size_t cap
    ctypedef enum PqKind:
        PQ_DICT_FIXED, PQ_DICT_STRING, PQ_PLAIN_FIXED, PQ_PLAIN_STRING, PQ_PLAIN_BOOL
    ctypedef enum PqSource:
        PQ_U8, PQ_I16, PQ_U16, PQ_I32, PQ_I64, PQ_BITS64, PQ_CODE
    ctypedef struct PqColumn:
        bint failed
        size_t rows, values, nulls
        uint32_t dict_count
        int64_t min, max
    ctypedef struct PqEntries:
        PqSource source
        const void *values
        const int32_t *offsets
        const char *data
        bint zero_is_null
        const uint8_t *keep
    bint pq_init(PqColumn *c, PqKind kind, int max_def, int max_rep, int value_width)
    void pq_free(PqColumn *c)
    bint pq_fix_dictionary(PqColumn *c, const char *const *names, int n)
    void pq_add_fixed(PqColumn *c, const void *values, PqSource source, size_t n, const uint8_t *has,
                      uint8_t has_bit) nogil
    void pq_add_sequence(PqColumn *c, int64_t first, size_t n) nogil
    void pq_add_game_ids(PqColumn *c, const int32_t *starts, size_t n_games, size_t n_rows, int64_t first_game) nogil
    void pq_add_strings(PqColumn *c, const int32_t *offsets, const char *data, size_t n, const uint8_t *has,
                        uint8_t has_bit) nogil
    void pq_add_repeated_string(PqColumn *c, const char *s, uint32_t len, size_t n) nogil
    void pq_add_slotted(PqColumn *c, const int32_t *slots, size_t stride, size_t n, const int32_t *offsets,
                        const char *data, bint as_int) nogil
    void pq_add_codes(PqColumn *c, const uint8_t *codes, size_t n, int base) nogil
    void pq_add_flag_bits(PqColumn *c, const uint8_t *flags, size_t n, uint8_t bit) nogil
    void pq_add_lists(PqColumn *c, const int32_t *starts, size_t n_rows, int empty_def, const PqEntries *entries) nogil
    bint pq_data_page(PqColumn *c, ByteVec *out) nogil
    size_t pq_buffered_bytes(const PqColumn *c)
    bint pq_string_range(const PqColumn *c, size_t *low, size_t *high)
    const ByteVec *pq_dictionary_page(const PqColumn *c)
    void pq_reset(PqColumn *c)
    bint pq_hybrid(const uint32_t *v, size_t n, int width, ByteVec *out) nogil
    enum: PQ_PAGE_HEADER_MAX
    size_t pq_page_header(char *out, bint dictionary, uint32_t uncompressed, uint32_t compressed, uint32_t count,
                          int encoding) nogil
    bint pq_put_page(ByteVec *out, bint dictionary, uint32_t uncompressed, const char *body, size_t len,
                     uint32_t count, int encoding, size_t *header_len) nogil

cdef extern from "keyset.h":
    ctypedef struct KeySet:
        size_t cap
        size_t used
    int64_t KEYSET_MAX_ID
    void keyset_free(KeySet *s)
    int keyset_add_many(KeySet *s, const int64_t *a, const int64_t *b, const uint8_t *valid, const int64_t *ids,
                        size_t n, int64_t *first) nogil
    size_t keyset_bytes(const KeySet *s)

cdef extern from "stats.h":
    int SF_COUNT, SV_COUNT, OS_COUNT, SA_COUNT, STATS_CLOCK_BINS, STATS_MAX_MOVE
    ctypedef struct StatsStrings:
        const int32_t *offsets
        const char *data
    ctypedef struct StatsBatch:
        size_t n_games, n_clocks, n_errors, n_notes, n_fixes
        const uint8_t *status
        const uint8_t *result
        const uint8_t *outcome
        const uint8_t *automatic_end
        const uint8_t *fixes
        const uint8_t *speed
        const uint8_t *variant
        const uint8_t *opening_state
        const int32_t *ply_count
        const int32_t *clock_start
        const uint16_t *first_move
        const int64_t *length
        const int32_t *tag_slots
        size_t tag_stride, game_stride
        StatsStrings tag_values, start_fen, opening_eco, opening_name
        const int16_t *clock_ply
        const double *clock
        const uint8_t *error_kind
        const uint8_t *note_kind
        const uint8_t *fix_kind
    ctypedef struct StatsEntry:
        char *key
        uint32_t len
        int64_t count
    ctypedef struct StatsValues:
        StatsEntry *slots
        size_t n_slots, used, capacity
        int64_t error, total
        bint failed
    ctypedef struct Stats:
        int n_families
        char family[8][24]
        int64_t family_games[8]
    bint stats_init(Stats *s, size_t capacity)
    void stats_free(Stats *s)
    bint stats_add(Stats *s, const StatsBatch *b) nogil
    bint stats_values_add(StatsValues *v, const char *key, size_t len, int64_t count)
    bint stats_values_fold(StatsValues *v)
    int64_t *stats_array(Stats *s, int which, size_t *n)
    const char *stats_array_name(int which)
    StatsValues *stats_values(Stats *s, int which)
    double stats_clock_edge(int bin)
    int stats_family_slot(Stats *s, const char *name, size_t len)
    int64_t *stats_family_clocks(Stats *s, int slot)
    enum: STATS_FAMILY_CELLS

cdef extern from "fen_rows.h":
    ctypedef struct FenStrings:
        const int32_t *offsets
        const char *data
    ctypedef struct FenRowsInput:
        size_t n_games, n_moves
        const uint8_t *status
        const uint8_t *replayed
        const int32_t *ply_count
        const int32_t *move_start
        const int16_t *ply
        FenStrings san, fen, start_fen, final_fen
        const int64_t *ids
        int64_t first_game
        bint every_ply
        const int32_t *plies
        size_t n_plies
        int32_t first_ply, last_ply
        bint include_invalid
        uint8_t invalid_status
    ctypedef struct FenRowsSize:
        size_t rows, san_bytes, fen_bytes
    FenRowsSize fen_rows_size(const FenRowsInput *inp) nogil
    void fen_rows_fill(const FenRowsInput *inp, int64_t *game_id, int16_t *ply, int32_t *san_offsets, char *san_data,
                       int32_t *fen_offsets, char *fen_data) nogil
cdef extern from "book_table.h":
    ctypedef struct BookSlot:
        pass
    ctypedef struct BookTable:
        size_t used
    void book_table_free(BookTable *t)
    int book_table_add_rows(BookTable *t, size_t n_games, const int32_t *starts, size_t n_rows, const int16_t *ply,
                            const uint64_t *key, const uint8_t *has, const double *result,
                            const int32_t *uci_offsets, const char *uci, const int32_t *san_offsets,
                            const char *san) nogil
    int book_table_add_slots(BookTable *t, const BookSlot *slots, size_t n) nogil
    size_t book_table_slots(const BookTable *t, BookSlot *out) nogil
    size_t book_table_polyglot(const BookTable *t, uint32_t min_count, unsigned char *out) nogil

cdef extern from "seams.h":
    int64_t seam_find(const char *buf, size_t len, size_t start) nogil

cdef extern from "replay.h":
    int PLAYED_AS_CHESS960, STARTS_WITH_CASTLING
    int classify_variant(const char *v, size_t n)

cdef extern from "pgn_date.h":
    ctypedef struct PgnDate:
        int year, month, day
    bint pgn_date_read(const char *s, size_t n, PgnDate *d) nogil
    PgnDate pgn_year_date(const char *first, size_t n1, const char *second, size_t n2) nogil
    bint pgn_date_is_day(PgnDate d) nogil
    int32_t pgn_days_from_civil(PgnDate d) nogil
    bint pgn_time_read(const char *s, size_t n, int32_t *seconds) nogil
