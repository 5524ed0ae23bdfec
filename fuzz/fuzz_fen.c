/* FEN parsing over arbitrary bytes, in standard and Chess960 mode.
 *
 * Checks: formatting whatever was read fits FEN_MAX (the reader formats the final position of a
 * game whose FEN tag is invalid too); and when the FEN parses cleanly, format -> parse is the
 * identity in every output style, the incrementally kept state matches a recomputation, and
 * every position one legal move away round-trips the same way, as do the SAN and UCI of every
 * legal move. fen_parse_why finds the same problems and explains each of them (and only those). */
#include "common.h"

static const int STYLES[] = {0, FEN_EP_ALWAYS, FEN_SHREDDER, FEN_EP_ALWAYS | FEN_SHREDDER};

static size_t format_checked(const Position *p, char *out, int style)
{
    size_t n = fen_format(p, out, style);
    CHECK(n < FEN_MAX && strlen(out) == n, "FEN of length %zu (buffer %d)", n, FEN_MAX);
    return n;
}

/* A valid position written in every style reads back as itself and writes the same text. */
static void check_round_trip(const Position *p, const char *what)
{
    for (size_t i = 0; i < sizeof STYLES / sizeof *STYLES; i++) {
        char text[FEN_MAX], again[FEN_MAX];
        size_t n = format_checked(p, text, STYLES[i]);
        Position q;
        int problems = fen_parse(&q, text, n, p->chess960);
        CHECK(problems == 0, "%s: '%s' (style %d) does not parse back: problems %#x", what, text, STYLES[i],
              problems);
        CHECK(pos_same(p, &q, STYLES[i] & FEN_EP_ALWAYS), "%s: '%s' (style %d) parses to another position", what,
              text, STYLES[i]);
        format_checked(&q, again, STYLES[i]);
        CHECK(strcmp(text, again) == 0, "%s: '%s' formats again as '%s'", what, text, again);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = exact_copy(data, size);
    for (int chess960 = 0; chess960 < 2; chess960++) {
        Position p;
        char out[FEN_MAX];
        int problems = fen_parse(&p, text, size, chess960);
        CHECK(problems >= 0 && problems < (1 << FEN_PROBLEM_COUNT), "problem bits %#x", problems);
        /* the reasons: the same bits, and a text for each problem and none for the others */
        Position q;
        FenWhy why;
        CHECK(fen_parse_why(&q, text, size, chess960, &why) == problems, "fen_parse_why: other problem bits");
        for (int i = 0; i < FEN_PROBLEM_COUNT; i++)
            CHECK((why.text[i][0] != 0) == ((problems >> i) & 1), "problem %d: text '%s' for bits %#x", i,
                  why.text[i], problems);
        for (size_t i = 0; i < sizeof STYLES / sizeof *STYLES; i++)
            format_checked(&p, out, STYLES[i]);
        if (problems)
            continue;

        check_incremental_state(&p, "after fen_parse");
        check_round_trip(&p, "parsed position");
        MoveList ml;
        pos_gen_legal(&p, &ml, GEN_ALL, ~0ULL, ~0ULL);
        for (int i = 0; i < ml.n; i++) {
            Position child = p;
            pos_make(&child, ml.moves[i]);
            check_incremental_state(&child, "after a legal move");
            check_round_trip(&child, "position after a legal move");
        }
        check_move_round_trips(&p);
    }
    free(text);
    return 0;
}
