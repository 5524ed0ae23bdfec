/* Parquet column encoding for `pgntools export`'s moves table: one encoder per column collects a
 * row group's values batch by batch (straight from the reader's batch buffers) and then gives the
 * bodies of its dictionary page and its one data page (format v1), uncompressed. The file layout
 * (page headers, footer) is written in Python (pgntools/sinks/parquet_file.py); compression too.
 *
 * Why not pyarrow's writer: building Arrow tables of the moves and encoding them took 0.5 s of the
 * 0.76 s an export of the 30,000 master games took, on the writer thread that bounded the run.
 *
 * Encodings (parquet-format Encodings.md): dictionary columns keep a per-row-group dictionary
 * (PLAIN dictionary page) and write indices as RLE_DICTIONARY (a bit-width byte, then the
 * RLE/bit-packed hybrid); plain columns write PLAIN values; definition and repetition levels use
 * the hybrid with a 4-byte length prefix. */
#ifndef PGNT_PARQUET_ENCODE_H
#define PGNT_PARQUET_ENCODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buffers.h"

typedef enum {
    PQ_DICT_FIXED,  /* INT32/INT64/DOUBLE values, dictionary-encoded (value_width 4 or 8) */
    PQ_DICT_STRING, /* BYTE_ARRAY, dictionary-encoded */
    PQ_PLAIN_STRING,
    PQ_PLAIN_BOOL,
    PQ_PLAIN_LIST,  /* a required list of optional INT32 elements (levels: rep 0/1, def 0..2) */
} PqKind;

/* Source element types of fixed-width batch columns. */
typedef enum { PQ_U8, PQ_I16, PQ_U16, PQ_I32, PQ_I64, PQ_BITS64 } PqSource;

typedef VEC(uint32_t) U32Vec;
enum { PQ_SMALL = 1024 };
typedef VEC(uint8_t) U8Vec;

typedef struct {
    uint64_t key;    /* a fixed value, or a string's hash */
    uint32_t index;  /* dictionary index + 1; 0 = empty slot */
    uint32_t offset; /* strings: where the string's PLAIN entry starts in dict_page */
} PqSlot;

typedef struct {
    PqKind kind;
    bool optional;      /* has definition levels (0 = null, 1 = value) */
    int value_width;    /* PQ_DICT_FIXED: 4 or 8 bytes per dictionary value */
    bool failed;        /* an allocation failed; the encoder must not be used further */

    /* the row group so far */
    size_t rows, values, nulls; /* values: level entries (rows, or list entries); nulls: def 0 */
    U8Vec def_levels, rep_levels;
    U32Vec indices;     /* dictionary columns */
    ByteVec plain;      /* plain columns: PLAIN values (booleans: bit-packed, `bits` of them) */
    size_t bits;
    int64_t min, max;   /* PQ_DICT_FIXED: over the non-null values */

    /* the dictionary (reset per row group, except `fixed_entries` entries given at creation) */
    ByteVec dict_page;  /* PLAIN values in index order */
    uint32_t dict_count, fixed_entries;
    PqSlot *table;
    uint32_t small[PQ_SMALL]; /* values 0 .. PQ_SMALL - 1 (squares, plies, clocks): index + 1, without hashing */
    size_t table_cap;   /* a power of two, at least twice dict_count */
    uint64_t last_key;  /* fast path: the same value as the last one (game_id runs, empty NAGs) */
    uint32_t last_index;
} PqColumn;

bool pq_init(PqColumn *c, PqKind kind, bool optional, int value_width);
void pq_free(PqColumn *c);
/* PQ_DICT_STRING only: dictionary entries that stay in every row group, before any value. */
bool pq_fix_dictionary(PqColumn *c, const char *const *names, int n);

/* Adding values. `has`, when not NULL, holds one byte per row: the value is null unless
 * has[i] & has_bit. */
void pq_add_fixed(PqColumn *c, const void *values, PqSource source, size_t n, const uint8_t *has, uint8_t has_bit);
/* Game ids for move rows: game g of the batch owns rows starts[g] .. starts[g + 1] - 1. */
void pq_add_game_ids(PqColumn *c, const int32_t *starts, size_t n_games, size_t n_rows, int64_t first_game);
void pq_add_strings(PqColumn *c, const int32_t *offsets, const char *data, size_t n, const uint8_t *has,
                    uint8_t has_bit);
/* PQ_DICT_STRING with a fixed dictionary: code 0 is null, code k is dictionary entry k - 1. */
void pq_add_codes(PqColumn *c, const uint8_t *codes, size_t n);
void pq_add_flag_bits(PqColumn *c, const uint8_t *flags, size_t n, uint8_t bit);
/* Row i's list is values[starts[i] .. starts[i + 1]) (starts has n + 1 entries). */
void pq_add_lists(PqColumn *c, const int32_t *starts, const uint8_t *values, size_t n);

/* The data page body of the row group (levels, then values) into `out` (appended), and the
 * dictionary page body (NULL for plain columns); then pq_reset for the next row group. */
bool pq_data_page(PqColumn *c, ByteVec *out);
const ByteVec *pq_dictionary_page(const PqColumn *c);
void pq_reset(PqColumn *c);

/* The RLE/bit-packed hybrid encoding of n values of `width` bits (exposed for tests). */
bool pq_hybrid(const uint32_t *v, size_t n, int width, ByteVec *out);

#endif
