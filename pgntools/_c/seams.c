/* Likely game starts in a PGN stream (seams.h). One memchr per line: ~0.1 s a GB. */
#include "seams.h"

#include <string.h>

/* Bytes a line may hold and still be blank (as Python's bytes.strip of " \t\r\n" and the BOM's bytes). */
static int blank_byte(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == 0xEF || c == 0xBB || c == 0xBF;
}

/* Whether the last non-blank line ending at or before buf[end] (a line end) starts a game's
 * movetext side: neither '[' nor '%' first. A buffer of blank lines before end: no. */
static int after_movetext(const unsigned char *b, size_t end)
{
    for (;;) {
        size_t begin = end;
        while (begin > 0 && b[begin - 1] != '\n')
            begin--;
        size_t i = begin;
        while (i < end && blank_byte(b[i]))
            i++;
        if (i < end)
            return b[i] != '[' && b[i] != '%';
        if (begin == 0)
            return 0;
        end = begin - 1;
    }
}

int64_t seam_find(const char *buf, size_t len, size_t from)
{
    const unsigned char *b = (const unsigned char *)buf;
    size_t i = from, line = from;
    int whole = from == 0 || b[from - 1] == '\n'; /* the line at `line` is seen from its start */
    int known = 0;           /* a whole non-blank line was seen: last_first is its first byte ... */
    unsigned char last_first = 0; /* ... so a movetext line (3-4 kB on Lichess) is not read backwards */
    for (;;) {
        const unsigned char *nl = i < len ? memchr(b + i, '\n', len - i) : NULL;
        if (nl == NULL)
            return -1;
        size_t at = (size_t)(nl - b), j = at + 1, k = line;
        while (k < at && blank_byte(b[k]))
            k++;
        if (k < at && whole) {
            known = 1;
            last_first = b[k];
        }
        while (j < len && (b[j] == ' ' || b[j] == '\t'))
            j++;
        if (j < len && b[j] == '\r')
            j++;
        if (j + 1 < len && b[j] == '\n' && b[j + 1] == '[' &&
            (known ? last_first != '[' && last_first != '%' : after_movetext(b, at)))
            return (int64_t)(j + 1);
        i = line = at + 1;
        whole = 1;
    }
}
