/* A batch's columns as Arrow arrays through the Arrow C Data Interface
 * (https://arrow.apache.org/docs/format/CDataInterface.html): each exported array points at the
 * batch's own buffers (no copy) and holds a reference on the batch; the array's release
 * callback drops it, and the last reference frees the buffers. Any thread may release. */
#ifndef PGNT_BATCH_ARROW_H
#define PGNT_BATCH_ARROW_H

#include <stdint.h>

#include "batch.h"

/* The C Data Interface's structs, as its specification declares them (an ABI, not a library). */
#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE
#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4

struct ArrowSchema {
    const char *format;
    const char *name;
    const char *metadata;
    int64_t flags;
    int64_t n_children;
    struct ArrowSchema **children;
    struct ArrowSchema *dictionary;
    void (*release)(struct ArrowSchema *);
    void *private_data;
};

struct ArrowArray {
    int64_t length;
    int64_t null_count;
    int64_t offset;
    int64_t n_buffers;
    int64_t n_children;
    const void **buffers;
    struct ArrowArray **children;
    struct ArrowArray *dictionary;
    void (*release)(struct ArrowArray *);
    void *private_data;
};
#endif

/* A batch shared by the reader's Python object and the Arrow arrays exported from it. */
typedef struct {
    Batch b;
    long refs;
} SharedBatch;

SharedBatch *shared_batch_new(void); /* one reference; NULL when out of memory */
void shared_batch_release(SharedBatch *s);
long shared_batch_live(void); /* how many are not yet freed: what the leak tests count */

/* Column `id` of the batch (BATCH_COLUMNS) as a primitive array, or string column `id`
 * (BATCH_STRINGS) as a utf8 array; false when out of memory (nothing to release then). */
bool batch_export_column(SharedBatch *s, int id, struct ArrowSchema *schema, struct ArrowArray *array);
bool batch_export_strings(SharedBatch *s, int id, struct ArrowSchema *schema, struct ArrowArray *array);

#endif
