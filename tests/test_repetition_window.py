"""The repetition look-up of the replay (replay.h, note_history: a position is looked for only
when a position with the same low hash bits came since the last capture or pawn move) against
python-chess's counts: long shuffles with many positions (bucket collisions), windows reset by a
pawn move, a FEN start with the clock already high. The lean path (no move table: validate's)
and the general one (with the move table) must agree with each other on the repetition count
and the automatic ends (fivefold, 75 moves), and with python-chess on the count."""
from __future__ import annotations

import collections
import random

import pytest

import pgntools
from pgn_helpers import CHESS_REASON, write

chess = pytest.importorskip("chess", reason=CHESS_REASON)

COLUMNS = ("max_repetitions", "outcome", "outcome_ply", "ply_count")


def shuffle_game(fen: str, plies: int, seed: int) -> tuple:
    """A random game from fen without captures or pawn moves (all reversible: one long window),
    until python-chess's board reaches an automatic end or `plies`; its SAN and max repetitions.
    Half the moves take back the side's move before (repetitions, at distances of 4 plies and
    more)."""
    rng = random.Random(seed)
    board = chess.Board(fen)
    seen = collections.Counter([board._transposition_key()])
    sans = []
    for _ in range(plies):
        moves = [m for m in board.legal_moves if not board.is_capture(m) and
                 board.piece_type_at(m.from_square) != chess.PAWN]
        if not moves or board.is_fivefold_repetition() or board.is_seventyfive_moves():
            break
        back = [m for m in moves if len(board.move_stack) >= 2 and
                (m.from_square, m.to_square) == (board.move_stack[-2].to_square, board.move_stack[-2].from_square)]
        move = back[0] if back and rng.random() < 0.5 else rng.choice(moves)
        sans.append(board.san(move))
        board.push(move)
        seen[board._transposition_key()] += 1
    return sans, max(seen.values())


def pgn(fen: str, sans) -> str:
    return f'[FEN "{fen}"]\n[SetUp "1"]\n[Result "*"]\n\n' + " ".join(sans) + " *\n\n"


def read_columns(path, **options) -> list:
    rows = []
    for batch in pgntools.iter_batches(str(path), **options):
        cols = {name: list(batch.column(name)) for name in COLUMNS}
        rows += [{name: cols[name][g] for name in COLUMNS} for g in range(batch.read_count())]
    return rows


FENS = ["4k3/8/8/8/8/8/8/R3K2R w - - 0 1",  # rooks and kings: many positions, a long window
        "r3k3/8/8/8/8/8/8/4K2R w - - 90 50",  # the clock near 100 at the start (window before the game)
        "4k3/pppppppp/8/8/8/8/PPPPPPPP/RN2K1NR w - - 0 1"]  # knights and rooks behind pawns: short cycles


@pytest.mark.parametrize("fen", FENS)
def test_repetitions_match_python_chess_on_long_shuffles(tmp_path, fen):
    games = [shuffle_game(fen, 400, seed) for seed in range(12)]
    path = write(tmp_path, "".join(pgn(fen, sans) for sans, _ in games))
    lean = read_columns(path, movetext_hash=False, counters=True)
    general = read_columns(path, moves=True, counters=True)
    assert lean == general
    assert [row["max_repetitions"] for row in lean] == [reps for _, reps in games]
    assert [row["ply_count"] for row in lean] == [len(sans) for sans, _ in games]


@pytest.mark.parametrize("moves", [
    "Nf3 Nf6 Ng1 Ng8",  # the start position once more: the first position of the window
    "e4 Nc6 Nf3 Nb8 Ng1",  # the position after the pawn move once more (the clock was 0 there)
    "Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1 Ng8 e4 Nc6 Nf3 Nb8 Ng1 Nc6 Nf3 Nb8 Ng1",  # a cycle, a pawn move, a cycle
    "e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7 Re1 b5 Bb3 d6 Nc3 Nb8 Nb1 Nc6 Nc3 Nb8 Nb1",  # after castling
])
def test_window_starts_after_a_capture_or_pawn_move(tmp_path, moves):
    """Positions after the last capture or pawn move repeat among themselves, the first of them
    too; the repetition count as python-chess counts it, on the lean path and the general one."""
    board = chess.Board()
    seen = collections.Counter([board._transposition_key()])
    for san in moves.split():
        board.push_san(san)
        seen[board._transposition_key()] += 1
    path = write(tmp_path, '[Result "*"]\n\n' + moves + " *\n\n")
    for options in ({}, {"moves": True}):
        assert [row["max_repetitions"] for row in read_columns(path, counters=True, **options)] == \
            [max(seen.values())]
