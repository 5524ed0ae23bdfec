/* A game's speed from its TimeControl tag (the G_SPEED column, --where speed, stats by speed),
 * by Lichess's rule. */
#ifndef PGNT_SPEED_H
#define PGNT_SPEED_H

#include <stddef.h>

/* The speed codes of the G_SPEED column (0: null, no or an unreadable TimeControl). */
enum { SPEED_NONE = 0, SPEED_ULTRABULLET, SPEED_BULLET, SPEED_BLITZ, SPEED_RAPID, SPEED_CLASSICAL,
       SPEED_CORRESPONDENCE, SPEED_COUNT };

/* Lichess's rule on a TimeControl value: estimated seconds = base + 40 x increment (of the first
 * period: "40/7200:3600" is 7200, "*180" 180, "300" 300); < 30 ultrabullet, < 180 bullet, < 480
 * blitz, < 1500 rapid, else classical; "-" is correspondence; anything else SPEED_NONE. */
int speed_of_time_control(const char *s, size_t n);
const char *speed_name(int code); /* "" for SPEED_NONE */

#endif
