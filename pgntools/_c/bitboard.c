#include "bitboard.h"

const char PIECE_LETTERS[8] = {' ', 'P', 'N', 'B', 'R', 'Q', 'K', ' '};

bb_t BB_KNIGHT[64], BB_KING[64], BB_PAWN_ATTACKS[2][64];
bb_t BB_BETWEEN[64][64], BB_LINE[64][64];
bb_t BB_RAYS[8][64];
bb_t BB_BISHOP_PSEUDO[64], BB_ROOK_PSEUDO[64];
bb_t BB_PIECE_PSEUDO[8][64];
LineMask BB_LINE_MASKS[4][64];

static const int DIR_DF[8] = {0, 1, 1, -1, 0, -1, -1, 1};
static const int DIR_DR[8] = {1, 0, 1, 1, -1, 0, -1, -1};

static bb_t step_set(int sq, const int (*steps)[2], int n)
{
    bb_t b = 0;
    for (int i = 0; i < n; i++) {
        int f = FILE_OF(sq) + steps[i][0], r = RANK_OF(sq) + steps[i][1];
        if (f >= 0 && f < 8 && r >= 0 && r < 8)
            b |= BB(SQ(f, r));
    }
    return b;
}

void bb_init(void)
{
    static bool done = false;
    if (done)
        return;
    static const int knight[8][2] = {{1, 2}, {2, 1}, {2, -1}, {1, -2}, {-1, -2}, {-2, -1}, {-2, 1}, {-1, 2}};
    static const int king[8][2] = {{1, 0}, {1, 1}, {0, 1}, {-1, 1}, {-1, 0}, {-1, -1}, {0, -1}, {1, -1}};
    static const int wpawn[2][2] = {{-1, 1}, {1, 1}};
    static const int bpawn[2][2] = {{-1, -1}, {1, -1}};
    for (int sq = 0; sq < 64; sq++) {
        BB_KNIGHT[sq] = step_set(sq, knight, 8);
        BB_KING[sq] = step_set(sq, king, 8);
        BB_PAWN_ATTACKS[WHITE][sq] = step_set(sq, wpawn, 2);
        BB_PAWN_ATTACKS[BLACK][sq] = step_set(sq, bpawn, 2);
        for (int d = 0; d < 8; d++) {
            bb_t ray = 0;
            int f = FILE_OF(sq) + DIR_DF[d], r = RANK_OF(sq) + DIR_DR[d];
            for (; f >= 0 && f < 8 && r >= 0 && r < 8; f += DIR_DF[d], r += DIR_DR[d])
                ray |= BB(SQ(f, r));
            BB_RAYS[d][sq] = ray;
        }
        static const int line_dirs[4][2] = {{DIR_N, DIR_S}, {DIR_E, DIR_W}, {DIR_NE, DIR_SW}, {DIR_NW, DIR_SE}};
        for (int l = 0; l < 4; l++) {
            LineMask *m = &BB_LINE_MASKS[l][sq];
            m->upper = BB_RAYS[line_dirs[l][0]][sq]; /* N, E, NE, NW rays run to higher squares */
            m->lower = BB_RAYS[line_dirs[l][1]][sq];
            m->line = m->upper | m->lower;
        }
        BB_ROOK_PSEUDO[sq] = BB_RAYS[DIR_N][sq] | BB_RAYS[DIR_E][sq] | BB_RAYS[DIR_S][sq] | BB_RAYS[DIR_W][sq];
        BB_BISHOP_PSEUDO[sq] = BB_RAYS[DIR_NE][sq] | BB_RAYS[DIR_NW][sq] | BB_RAYS[DIR_SE][sq] | BB_RAYS[DIR_SW][sq];
        BB_PIECE_PSEUDO[KNIGHT][sq] = BB_KNIGHT[sq];
        BB_PIECE_PSEUDO[BISHOP][sq] = BB_BISHOP_PSEUDO[sq];
        BB_PIECE_PSEUDO[ROOK][sq] = BB_ROOK_PSEUDO[sq];
        BB_PIECE_PSEUDO[QUEEN][sq] = BB_BISHOP_PSEUDO[sq] | BB_ROOK_PSEUDO[sq];
    }
    for (int a = 0; a < 64; a++) {
        for (int d = 0; d < 8; d++) {
            bb_t ray = BB_RAYS[d][a];
            int opposite = (d + 4) & 7;
            while (ray) {
                int b = bb_pop(&ray);
                BB_BETWEEN[a][b] = BB_RAYS[d][a] & BB_RAYS[opposite][b];
                BB_LINE[a][b] = BB_RAYS[d][a] | BB_RAYS[opposite][a] | BB(a);
            }
        }
    }
    done = true;
}
