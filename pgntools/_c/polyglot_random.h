/* The Polyglot book format's published random numbers (the table is in polyglot_random.c). */
#ifndef PGNT_POLYGLOT_RANDOM_H
#define PGNT_POLYGLOT_RANDOM_H

#include <stdint.h>

#define POLYGLOT_RANDOM_COUNT 781
#define POLYGLOT_CASTLE 768   /* white short, white long, black short, black long */
#define POLYGLOT_EP 772       /* + the en-passant file */
#define POLYGLOT_TURN 780     /* white to move */

extern const uint64_t POLYGLOT_RANDOM[POLYGLOT_RANDOM_COUNT];

#endif
