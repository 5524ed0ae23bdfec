#include "batch_arrow.h"

#include <stdlib.h>
#include <string.h>

static long live; /* shared batches not yet freed (shared_batch_live) */

long shared_batch_live(void) { return __atomic_load_n(&live, __ATOMIC_RELAXED); }

SharedBatch *shared_batch_new(void)
{
    SharedBatch *s = malloc(sizeof *s);
    if (!s)
        return NULL;
    if (!batch_init(&s->b)) {
        batch_free(&s->b);
        free(s);
        return NULL;
    }
    s->refs = 1;
    __atomic_fetch_add(&live, 1, __ATOMIC_RELAXED);
    return s;
}

static void shared_batch_retain(SharedBatch *s) { __atomic_fetch_add(&s->refs, 1, __ATOMIC_RELAXED); }

void shared_batch_release(SharedBatch *s)
{
    if (s && __atomic_sub_fetch(&s->refs, 1, __ATOMIC_ACQ_REL) == 0) {
        batch_free(&s->b);
        free(s);
        __atomic_fetch_sub(&live, 1, __ATOMIC_RELAXED);
    }
}

/* An exported array's own part: the reference it holds and its buffer pointers. */
typedef struct {
    SharedBatch *owner;
    const void *buffers[3];
} Exported;

static void release_array(struct ArrowArray *array)
{
    Exported *e = array->private_data;
    shared_batch_release(e->owner);
    free(e);
    array->release = NULL;
}

/* The schema's strings are static: nothing to free. */
static void release_schema(struct ArrowSchema *schema) { schema->release = NULL; }

/* The Arrow format of a batch column's struct-module format (batch.h's BATCH_COLUMNS). */
static const char *arrow_format(const char *fmt)
{
    switch (fmt[0]) {
    case 'B': return "C";
    case 'h': return "s";
    case 'H': return "S";
    case 'i': return "i";
    case 'q': return "l";
    case 'Q': return "L";
    case 'd': return "g";
    default: return NULL;
    }
}

static const int64_t NO_VALUES[1]; /* an empty column's buffers (the interface wants pointers) */

static bool export_array(SharedBatch *s, const char *format, const char *name, int64_t length, const void *values,
                   const void *data, struct ArrowSchema *schema, struct ArrowArray *array)
{
    Exported *e = malloc(sizeof *e);
    if (!e)
        return false;
    shared_batch_retain(s);
    e->owner = s;
    e->buffers[0] = NULL; /* no validity bitmap: the batch's columns have no nulls */
    e->buffers[1] = values ? values : NO_VALUES;
    e->buffers[2] = data ? data : NO_VALUES;
    *schema = (struct ArrowSchema){.format = format, .name = name, .flags = ARROW_FLAG_NULLABLE,
                                   .release = release_schema};
    *array = (struct ArrowArray){.length = length, .n_buffers = data ? 3 : 2, .buffers = e->buffers,
                                 .release = release_array, .private_data = e};
    return true;
}

bool batch_export_column(SharedBatch *s, int id, struct ArrowSchema *schema, struct ArrowArray *array)
{
    const char *format = arrow_format(batch_column_format(id));
    if (!format)
        return false;
    const Column *c = &s->b.cols[id];
    return export_array(s, format, batch_column_name(id), (int64_t)c->len, c->len ? c->data : NULL, NULL, schema, array);
}

bool batch_export_strings(SharedBatch *s, int id, struct ArrowSchema *schema, struct ArrowArray *array)
{
    const StrCol *c = &s->b.strs[id]; /* offsets start with a 0 (strcol_init), data is never NULL */
    return export_array(s, "u", batch_string_name(id), (int64_t)strcol_count(c), c->offsets.data, c->data.data, schema,
                  array);
}
