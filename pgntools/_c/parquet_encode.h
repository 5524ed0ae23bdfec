/* Parquet column encoding for `pgntools export`: one encoder per leaf column collects a row
 * group's values batch by batch (straight from the reader's batch buffers) and then gives the
 * bodies of its dictionary page and its one data page (format v1), uncompressed. The file layout
 * (the footer) is written in Python (pgntools/parquet/part_file.py); the pages with their headers
 * come from _core.encode_row_group, one call a row group, compressed by a Python codec (zstandard).
 *
 * Why not pyarrow's writer: building Arrow tables of the batches and encoding them took 0.6 s of
 * the 0.76 s an export of the 30,000 master games took, on the writer thread that bounded the run.
 *
 * Encodings (parquet-format Encodings.md): dictionary columns keep a per-row-group dictionary
 * (PLAIN dictionary page) and write indices as RLE_DICTIONARY (a bit-width byte, then the
 * RLE/bit-packed hybrid); plain columns write PLAIN values; repetition and definition levels use
 * the hybrid with a 4-byte length prefix. A flat column has max_rep 0 and max_def 0 (required)
 * or 1 (optional); a list's leaf has max_rep 1. */
#ifndef PGNT_PARQUET_ENCODE_H
#define PGNT_PARQUET_ENCODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buffers.h"

typedef enum {
    PQ_DICT_FIXED,   /* INT32/INT64/DOUBLE values, dictionary-encoded (value_width 4 or 8 bytes) */
    PQ_DICT_STRING,  /* BYTE_ARRAY, dictionary-encoded */
    PQ_PLAIN_FIXED,  /* INT32/INT64/DOUBLE values, PLAIN */
    PQ_PLAIN_STRING,
    PQ_PLAIN_BOOL,
} PqKind;

/* Element types of the batch columns values come from. PQ_CODE: a byte that is the index in a
 * fixed dictionary (pq_fix_dictionary) as it is. */
typedef enum { PQ_U8, PQ_I16, PQ_U16, PQ_I32, PQ_I64, PQ_BITS64, PQ_CODE } PqSource;

typedef VEC(uint32_t) U32Vec;
typedef VEC(uint8_t) U8Vec;
enum { PQ_SMALL = 1024 };

typedef struct {
    uint64_t key;    /* a fixed value, or a string's key (see string_key) */
    uint32_t index;  /* dictionary index + 1; 0 = empty slot */
    uint32_t offset; /* strings: where the string's PLAIN entry starts in dict_page */
} PqSlot;

typedef struct {
    PqKind kind;
    int max_def, max_rep;
    int value_width;    /* fixed kinds: 4 or 8 bytes a value */
    bool failed;        /* an allocation failed; the encoder must not be used further */

    /* the row group so far */
    size_t rows, values, nulls; /* values: level entries; nulls: entries without a value */
    U8Vec def_levels, rep_levels;
    U32Vec indices;     /* dictionary kinds */
    ByteVec plain;      /* plain kinds: PLAIN values (booleans: bit-packed, `bits` of them) */
    size_t bits;
    int64_t min, max;   /* fixed kinds: over the values */
    bool range_in_dictionary; /* some values were added without min/max: their range is the
                                 dictionary's (pq_data_page merges it in) */

    /* the dictionary: reset per row group, unless fixed at creation (fixed_entries) */
    ByteVec dict_page;  /* PLAIN values in index order */
    uint32_t dict_count, fixed_entries;
    PqSlot *table;
    size_t table_cap;   /* a power of two, at least twice dict_count */
    uint32_t *small;    /* PQ_DICT_FIXED: fixed values 0 .. PQ_SMALL - 1 (squares, plies): index + 1, no
                           hashing. On the heap, for that kind only: an export with --partition-by
                           keeps many files' encoders, and 4 KB an encoder was most of their memory */
    uint64_t last_key;  /* fast path: the same value as the last one (game_id runs) */
    uint32_t last_index;
} PqColumn;

bool pq_init(PqColumn *c, PqKind kind, int max_def, int max_rep, int value_width);
void pq_free(PqColumn *c);
/* PQ_DICT_STRING only: dictionary entries kept in every row group, added before any value; the
 * column then takes codes (pq_add_codes, PQ_CODE entries) only. */
bool pq_fix_dictionary(PqColumn *c, const char *const *names, int n);

/* ---- flat columns: one row per value. `has`, when not NULL, holds a byte per row: the value
 * is null unless has[i] & has_bit. */
void pq_add_fixed(PqColumn *c, const void *values, PqSource source, size_t n, const uint8_t *has, uint8_t has_bit);
/* first, first + 1, ..., first + n - 1 */
void pq_add_sequence(PqColumn *c, int64_t first, size_t n);
/* Game ids for move rows: game g of the batch owns rows starts[g] .. starts[g + 1] - 1. */
void pq_add_game_ids(PqColumn *c, const int32_t *starts, size_t n_games, size_t n_rows, int64_t first_game);
void pq_add_strings(PqColumn *c, const int32_t *offsets, const char *data, size_t n, const uint8_t *has,
                    uint8_t has_bit);
void pq_add_repeated_string(PqColumn *c, const char *s, uint32_t len, size_t n);
/* Row i is string slots[i * stride] - 1 of (offsets, data), or null when that slot is 0. as_int:
 * the string's value as an integer when it is 1 to 9 digits, else null (Elo tags). stride: 1 for
 * one tag's slots, TAG_COLUMN_COUNT for a batch's own (game by game) tag_slots. */
void pq_add_slotted(PqColumn *c, const int32_t *slots, size_t stride, size_t n, const int32_t *offsets,
                    const char *data, bool as_int);
/* PQ_DICT_STRING with a fixed dictionary: code < base is null, code k is entry k - base. */
void pq_add_codes(PqColumn *c, const uint8_t *codes, size_t n, int base);
void pq_add_flag_bits(PqColumn *c, const uint8_t *flags, size_t n, uint8_t bit);

/* ---- list leaves: row i's entries are starts[i] .. starts[i + 1] - 1 (starts: n_rows + 1), but
 * those with keep[k] == 0 when keep is given. An empty list's level is empty_def (0 for a
 * required list, 1 for an optional one); an entry's is max_def, or max_def - 1 when its value is
 * null (zero_is_null: a fixed value 0). */
typedef struct {
    PqSource source;
    const void *values;                    /* fixed values or codes, or */
    const int32_t *offsets; const char *data; /* strings */
    bool zero_is_null;
    const uint8_t *keep;
} PqEntries;
void pq_add_lists(PqColumn *c, const int32_t *starts, size_t n_rows, int empty_def, const PqEntries *entries);

/* PQ_DICT_STRING without a fixed dictionary: the smallest and largest string of the row group
 * (byte-wise, as Parquet orders UTF-8 strings) as offsets of their PLAIN entries (4-byte length,
 * then the bytes) in the dictionary page; false when the row group has none. */
bool pq_string_range(const PqColumn *c, size_t *low, size_t *high);

/* Bytes the row group so far holds (what ends a row group early: rows of huge strings). */
size_t pq_buffered_bytes(const PqColumn *c);

/* The data page body of the row group (levels, then values) appended to `out`, and the
 * dictionary page body (NULL for plain columns); then pq_reset for the next row group. */
bool pq_data_page(PqColumn *c, ByteVec *out);
const ByteVec *pq_dictionary_page(const PqColumn *c);
void pq_reset(PqColumn *c);

/* A page's PageHeader in the Thrift compact protocol (as parquet.thrift declares it) into out
(PQ_PAGE_HEADER_MAX bytes there are writable); returns its length. A data page (format v1) has
`count` level entries, values in `encoding` (PLAIN 0 or RLE_DICTIONARY 8), levels in RLE; a
dictionary page `count` PLAIN entries. */
enum { PQ_PAGE_HEADER_MAX = 64 };
size_t pq_page_header(char *out, bool dictionary, uint32_t uncompressed, uint32_t compressed, uint32_t count,
                      int encoding);

/* A page appended to out: its header (`uncompressed`: the body's size before compression), then
its `len` bytes of body as they are; header_len: the header's size. False when out of memory. */
bool pq_put_page(ByteVec *out, bool dictionary, uint32_t uncompressed, const char *body, size_t len, uint32_t count,
                 int encoding, size_t *header_len);

/* The RLE/bit-packed hybrid encoding of n values of `width` bits (exposed for tests). */
bool pq_hybrid(const uint32_t *v, size_t n, int width, ByteVec *out);

#endif
