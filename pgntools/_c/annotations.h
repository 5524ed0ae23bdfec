/* Embedded commands in comments: [%clk h:mm:ss(.f)], [%emt ...], [%eval ±x.xx] / [%eval #±n]. */
#ifndef PGNT_ANNOTATIONS_H
#define PGNT_ANNOTATIONS_H

#include "chess.h"

typedef struct {
    uint8_t has; /* HAS_* bits from batch.h */
    double clock, emt;
    int32_t eval_cp;
    int16_t eval_mate;
} Annotations;

/* Adds what the comment text holds to `a` (later commands override earlier ones). */
void ann_parse(const char *text, size_t n, Annotations *a);

#endif
