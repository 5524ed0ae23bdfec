/* `pgntools book`'s counts: for each (position key, Polyglot move) seen, the points its mover
 * scored (2 a win, 1 a draw) and the times it was played. Open addressing with linear probing in
 * a power-of-two table kept at most 3/4 full, 24 bytes a slot: a book of N distinct (position,
 * move) pairs holds 32 to 64 bytes each (96 while the table doubles). */
#ifndef PGNT_BOOK_TABLE_H
#define PGNT_BOOK_TABLE_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint64_t key;
    uint64_t points;
    uint32_t count; /* 0: an empty slot */
    uint16_t move;
    uint16_t pad;
} BookSlot;

typedef struct {
    BookSlot *slots;
    size_t cap; /* a power of two (0: none yet) */
    size_t used;
} BookTable;

/* The standard start position's Polyglot key. */
#define BOOK_START_KEY 0x463B96181691FC9CULL

void book_table_free(BookTable *t);

/* Adds the positions dataset's rows of one batch (positions_dataset.h): n_games per-game row starts,
 * then per row its ply, key, has bits, result (the mover's score), UCI and SAN (Arrow offsets
 * and bytes). Only rows of games whose first row is the standard start (ply 0) and whose result
 * is known count. Returns 0, or -1 when memory ran out. */
int book_table_add_rows(BookTable *t, size_t n_games, const int32_t *starts, size_t n_rows, const int16_t *ply,
                        const uint64_t *key, const uint8_t *has, const double *result, const int32_t *uci_offsets,
                        const char *uci, const int32_t *san_offsets, const char *san);

/* Adds slots as book_table_slots wrote them (another table's: a worker's part). */
int book_table_add_slots(BookTable *t, const BookSlot *slots, size_t n);

/* The used slots, packed into out (room for t->used); returns how many. */
size_t book_table_slots(const BookTable *t, BookSlot *out);

/* The Polyglot entries (16 bytes each, big-endian) of the pairs played at least min_count times
 * with points > 0, weights = points (scaled by one factor, rounding up, when the largest exceeds
 * 65535), sorted by key, weight from the highest, move. out has room for t->used entries;
 * returns how many were written, or (size_t)-1 when memory ran out. */
size_t book_table_polyglot(const BookTable *t, uint32_t min_count, unsigned char *out);

/* The Polyglot move of a UCI move of a game from the standard start (castling as the king
 * taking its rook: from that start the castling rook stands on the a or h file). */
uint16_t book_polyglot_move(const char *uci, size_t uci_len, const char *san, size_t san_len);

#endif
