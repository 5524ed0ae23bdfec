"""Perft node counts of the rules core against published reference values.

Standard positions and counts: chessprogramming wiki, "Perft Results"
    https://www.chessprogramming.org/Perft_Results
Chess960 positions and counts: chessprogramming wiki, "Chess960 Perft Results"
    https://www.chessprogramming.org/Chess960_Perft_Results
(the first entries of that page's list; castling fields are Shredder-FEN rook files).

The default run stays well under a minute; the deep counts are marked ``slow``.
"""
from __future__ import annotations

import pytest

import pgntools

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
# The wiki gives Kiwipete and position 3 without clocks: also exercises 4-field FEN input.
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq -"
POSITION_3 = "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - -"
POSITION_4 = "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1"
POSITION_4_MIRRORED = "r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1"
POSITION_5 = "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8"
POSITION_6 = "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10"

# name -> (fen, {depth: nodes}); every count is copied from the "Perft Results" page.
STANDARD = {
    "start": (START, {1: 20, 2: 400, 3: 8_902, 4: 197_281, 5: 4_865_609, 6: 119_060_324}),
    "kiwipete": (KIWIPETE, {1: 48, 2: 2_039, 3: 97_862, 4: 4_085_603, 5: 193_690_690}),
    "position3": (POSITION_3, {1: 14, 2: 191, 3: 2_812, 4: 43_238, 5: 674_624, 6: 11_030_083}),
    "position4": (POSITION_4, {1: 6, 2: 264, 3: 9_467, 4: 422_333, 5: 15_833_292}),
    "position4-mirrored": (POSITION_4_MIRRORED, {1: 6, 2: 264, 3: 9_467, 4: 422_333, 5: 15_833_292}),
    "position5": (POSITION_5, {1: 44, 2: 1_486, 3: 62_379, 4: 2_103_487, 5: 89_941_194}),
    "position6": (POSITION_6, {1: 46, 2: 2_079, 3: 89_890, 4: 3_894_594, 5: 164_075_551}),
}
# Deepest depth run by default for each position; anything deeper is marked slow.
DEFAULT_MAX_DEPTH = {
    "start": 5,
    "kiwipete": 4,
    "position3": 5,
    "position4": 4,
    "position4-mirrored": 4,
    "position5": 4,
    "position6": 4,
}

# Chess960: the first eight positions of the wiki's "Chess960 Perft Results" list.
CHESS960 = [
    ("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
     {1: 21, 2: 528, 3: 12_189, 4: 326_672, 5: 8_146_062}),
    ("2nnrbkr/p1qppppp/8/1ppb4/6PP/3PP3/PPP2P2/BQNNRBKR w HEhe - 1 9",
     {1: 21, 2: 807, 3: 18_002, 4: 667_366, 5: 16_253_601}),
    ("b1q1rrkb/pppppppp/3nn3/8/P7/1PPP4/4PPPP/BQNNRKRB w GE - 1 9",
     {1: 20, 2: 479, 3: 10_471, 4: 273_318, 5: 6_417_013}),
    ("qbbnnrkr/2pp2pp/p7/1p2pp2/8/P3PP2/1PPP1KPP/QBBNNR1R w hf - 0 9",
     {1: 22, 2: 593, 3: 13_440, 4: 382_958, 5: 9_183_776}),
    ("1nbbnrkr/p1p1ppp1/3p4/1p3P1p/3Pq2P/8/PPP1P1P1/QNBBNRKR w HFhf - 0 9",
     {1: 28, 2: 1_120, 3: 31_058, 4: 1_171_749, 5: 34_030_312}),
    ("qnbnr1kr/ppp1b1pp/4p3/3p1p2/8/2NPP3/PPP1BPPP/QNB1R1KR w HEhe - 1 9",
     {1: 29, 2: 899, 3: 26_578, 4: 824_055, 5: 24_851_983}),
    ("q1bnrkr1/ppppp2p/2n2p2/4b1p1/2NP4/8/PPP1PPPP/QNB1RRKB w ge - 1 9",
     {1: 30, 2: 860, 3: 24_566, 4: 732_757, 5: 21_093_346}),
    ("qbn1brkr/ppp1p1p1/2n4p/3p1p2/P7/6PP/QPPPPP2/1BNNBRKR w HFhf - 0 9",
     {1: 25, 2: 635, 3: 17_054, 4: 465_806, 5: 13_203_304}),
]
CHESS960_DEFAULT_MAX_DEPTH = 4


def _standard_cases():
    for name, (fen, counts) in STANDARD.items():
        for depth, nodes in sorted(counts.items()):
            marks = [pytest.mark.slow] if depth > DEFAULT_MAX_DEPTH[name] else []
            yield pytest.param(fen, depth, nodes, id=f"{name}-d{depth}", marks=marks)


def _chess960_cases():
    for number, (fen, counts) in enumerate(CHESS960, start=1):
        for depth, nodes in sorted(counts.items()):
            if depth < 3:
                continue  # depths 1-2 are implied by depth 3 and 4 below
            marks = [pytest.mark.slow] if depth > CHESS960_DEFAULT_MAX_DEPTH else []
            yield pytest.param(fen, depth, nodes, id=f"960-{number}-d{depth}", marks=marks)


@pytest.mark.parametrize("fen, depth, nodes", list(_standard_cases()))
def test_perft_standard(fen, depth, nodes):
    board = pgntools.Board.from_fen(fen)
    assert board.perft(depth) == nodes


@pytest.mark.parametrize("fen, depth, nodes", list(_chess960_cases()))
def test_perft_chess960(fen, depth, nodes):
    board = pgntools.Board.from_fen(fen, chess960=True)
    assert board.perft(depth) == nodes


@pytest.mark.parametrize("fen, counts", [pytest.param(f, c, id=f"960-{i}") for i, (f, c) in enumerate(CHESS960, 1)])
def test_chess960_depth_one_is_number_of_legal_moves(fen, counts):
    board = pgntools.Board.from_fen(fen, chess960=True)
    moves = board.legal_moves()
    assert len(moves) == counts[1]
    assert len(set(moves)) == len(moves), "legal_moves() lists a move twice"


@pytest.mark.parametrize("name", list(STANDARD))
def test_depth_one_equals_legal_move_count(name):
    fen, counts = STANDARD[name]
    board = pgntools.Board.from_fen(fen)
    moves = board.legal_moves()
    assert len(moves) == counts[1]
    assert len(set(moves)) == len(moves), "legal_moves() lists a move twice"


def test_start_position_constructor_matches_start_fen():
    assert pgntools.Board().perft(3) == 8_902
    assert pgntools.Board().fen() == START


def test_perft_depth_zero_is_one():
    # The wiki's table starts at depth 0 with one node: the position itself.
    assert pgntools.Board().perft(0) == 1
    assert pgntools.Board.from_fen(KIWIPETE).perft(0) == 1


@pytest.mark.parametrize(
    "fen, chess960",
    [
        pytest.param(KIWIPETE, False, id="kiwipete"),
        pytest.param(POSITION_4, False, id="position4"),
        pytest.param(CHESS960[0][0], True, id="960-1"),
    ],
)
def test_perft_leaves_the_board_unchanged(fen, chess960):
    board = pgntools.Board.from_fen(fen, chess960=chess960)
    before_fen = board.fen(en_passant="fen")
    before_moves = sorted(board.legal_moves())
    board.perft(3)
    assert board.fen(en_passant="fen") == before_fen
    assert sorted(board.legal_moves()) == before_moves
    assert board.perft(2) == board.perft(2)


def test_perft_after_moves_matches_divide():
    # Sum over the children of the start position must equal perft(3) of the parent.
    board = pgntools.Board()
    total = 0
    for uci in board.legal_moves():
        child = board.copy()
        child.push_uci(uci)
        total += child.perft(2)
    assert total == 8_902
    assert board.fen() == START
