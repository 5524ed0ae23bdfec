/* Where a parallel run may cut a PGN stream between games without running the scanner: a likely
 * game start ("seam"), found at memory speed (pgntools/runner/chunks.py; a worker checks each
 * seam with the scanner, and a seam that does not hold is dropped). */
#ifndef PGNT_SEAMS_H
#define PGNT_SEAMS_H

#include <stddef.h>
#include <stdint.h>

/* The offset of the first seam in buf[from..len): a '[' that starts a line after a blank line
 * (spaces, tabs and a CR allowed on it), where the last non-blank line before the blank one,
 * within buf, starts with neither '[' (a tag section goes on) nor '%' (an escape line). -1 when
 * there is none. */
int64_t seam_find(const char *buf, size_t len, size_t from);

#endif
