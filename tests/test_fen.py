"""FEN input and output: round trips, defaults, validation, en passant styles, Chess960."""
from __future__ import annotations

import pytest

import pgntools

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"

ROUND_TRIP = [
    START,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",   # legal ep (exf6)
    "rnbqkbnr/pppp1ppp/8/8/3Pp3/8/PPP1PPPP/RNBQKBNR b KQkq d3 0 3",   # legal ep (exd3)
    "rnbqkb1r/pppppppp/5n2/8/8/5N2/PPPPPPPP/RNBQKB1R w KQkq - 2 2",
    "r3k2r/8/8/8/8/8/8/R3K2R b Kq - 3 19",
    "4k3/8/8/8/8/8/8/4K2R w K - 42 77",
    "8/8/8/8/8/8/8/k1K5 b - - 99 150",
    "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
]


@pytest.mark.parametrize("fen", ROUND_TRIP)
def test_fen_round_trip(fen):
    board = pgntools.Board.from_fen(fen)
    assert board.fen() == fen
    assert board.fen(en_passant="fen") == fen  # each ep square above is a double step
    assert pgntools.Board.from_fen(board.fen()).fen() == fen


def test_round_trip_table_agrees_with_python_chess(chess_oracle):
    for fen in ROUND_TRIP:
        assert chess_oracle.Board(fen).fen() == fen


def test_start_position_from_fen_equals_constructor():
    assert pgntools.Board.from_fen(START).fen() == pgntools.Board().fen() == START


@pytest.mark.parametrize(
    "four_fields",
    [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq -",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 b - -",
    ],
)
def test_four_field_fen_gets_default_clocks(four_fields):
    board = pgntools.Board.from_fen(four_fields)
    assert board.halfmove_clock == 0
    assert board.fullmove_number == 1
    assert board.fen() == four_fields + " 0 1"


# --------------------------------------------------------------------------------------
# Validation
# --------------------------------------------------------------------------------------

SINGLE_PROBLEM = [
    ("4k3/8/8/8/8/8/8/8 w - - 0 1", "missing_white_king"),
    ("8/8/8/8/8/8/8/4K3 w - - 0 1", "missing_black_king"),
    ("4k3/8/8/8/8/8/8/3KK3 w - - 0 1", "too_many_kings"),
    ("3kk3/8/8/8/8/8/8/4K3 w - - 0 1", "too_many_kings"),
    ("4k2P/8/8/8/8/8/8/4K3 w - - 0 1", "pawn_on_back_rank"),
    ("4k3/8/8/8/8/8/8/p3K3 w - - 0 1", "pawn_on_back_rank"),
    ("4k3/8/8/8/8/8/8/4R1K1 w - - 0 1", "opposite_check"),        # black in check, white to move
    ("4k3/8/8/8/8/8/8/4K3 w K - 0 1", "bad_castling_rights"),      # no rook on h1
    ("r3k2r/8/8/8/8/8/8/R4K1R w KQkq - 0 1", "bad_castling_rights"),  # king off e1
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 1", "bad_en_passant"),  # no pawn on e5
    ("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e3 0 1", "bad_en_passant"),  # wrong side
]


@pytest.mark.parametrize("fen, problem", SINGLE_PROBLEM, ids=[f"{p}@{i}" for i, (_, p) in enumerate(SINGLE_PROBLEM)])
def test_invalid_fen_single_problem(fen, problem):
    with pytest.raises(pgntools.InvalidFenError) as info:
        pgntools.Board.from_fen(fen)
    err = info.value
    assert isinstance(err, ValueError)
    assert err.problems == [problem]
    _assert_message_lists(err)


MULTIPLE_PROBLEMS = [
    ("4k3/8/8/8/8/8/8/P7 w - - 0 1", {"missing_white_king", "pawn_on_back_rank"}),
    ("P7/8/8/8/8/8/8/4K3 w k - 0 1", {"missing_black_king", "pawn_on_back_rank", "bad_castling_rights"}),
    ("4k2P/8/8/8/8/8/8/4R1K1 w - - 0 1", {"pawn_on_back_rank", "opposite_check"}),
    ("4k3/8/8/8/8/8/8/4K3 w Kq e6 0 1", {"bad_castling_rights", "bad_en_passant"}),
]


@pytest.mark.parametrize("fen, problems", MULTIPLE_PROBLEMS)
def test_invalid_fen_reports_every_problem_at_once(fen, problems):
    with pytest.raises(pgntools.InvalidFenError) as info:
        pgntools.Board.from_fen(fen)
    err = info.value
    assert set(err.problems) == problems
    assert len(err.problems) == len(set(err.problems)), "a problem is listed twice"
    _assert_message_lists(err)


def _assert_message_lists(err):
    message = str(err).lower()
    for problem in err.problems:
        assert problem in message or problem.replace("_", " ") in message, (problem, message)


MALFORMED = [
    pytest.param("", id="empty"),
    pytest.param("hello world", id="garbage"),
    pytest.param("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1", id="seven-ranks"),
    pytest.param("rnbqkbnr/pppppppp/8/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", id="nine-ranks"),
    pytest.param("rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", id="rank-too-long"),
    pytest.param("rnbqkbnr/ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", id="rank-too-short"),
    pytest.param("rnbqkbnx/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", id="bad-piece"),
    pytest.param("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", id="bad-side"),
    pytest.param("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1", id="bad-halfmove"),
    pytest.param("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 x", id="bad-fullmove"),
    pytest.param("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 extra", id="too-many-fields"),
]


@pytest.mark.parametrize("fen", MALFORMED)
def test_malformed_fen(fen):
    with pytest.raises(pgntools.InvalidFenError) as info:
        pgntools.Board.from_fen(fen)
    assert "malformed" in info.value.problems
    assert isinstance(info.value, ValueError)


def test_invalid_fen_in_chess960_mode():
    with pytest.raises(pgntools.InvalidFenError) as info:
        pgntools.Board.from_fen("8/8/8/8/8/8/8/1R3KR1 w GB - 0 1", chess960=True)
    assert "missing_black_king" in info.value.problems


@pytest.mark.parametrize(
    "fen",
    [
        # Valid, if odd: side to move in check, ep square without a legal capture, no castling.
        "rnbqkbnr/ppppp1pp/8/5p1Q/4P3/8/PPPP1PPP/RNB1KBNR b KQkq - 1 2",
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
        "8/8/8/8/8/8/8/k1K5 w - - 0 1",
    ],
)
def test_valid_fens_are_accepted(fen):
    pgntools.Board.from_fen(fen)


def test_validation_table_agrees_with_python_chess(chess_oracle):
    chess = chess_oracle
    names = {
        chess.STATUS_NO_WHITE_KING: "missing_white_king",
        chess.STATUS_NO_BLACK_KING: "missing_black_king",
        chess.STATUS_TOO_MANY_KINGS: "too_many_kings",
        chess.STATUS_PAWNS_ON_BACKRANK: "pawn_on_back_rank",
        chess.STATUS_OPPOSITE_CHECK: "opposite_check",
        chess.STATUS_BAD_CASTLING_RIGHTS: "bad_castling_rights",
        chess.STATUS_INVALID_EP_SQUARE: "bad_en_passant",
    }
    cases = [(fen, {p}) for fen, p in SINGLE_PROBLEM] + MULTIPLE_PROBLEMS
    for fen, expected in cases:
        status = chess.Board(fen).status()
        assert {name for flag, name in names.items() if status & flag} == expected, fen


# --------------------------------------------------------------------------------------
# En passant field: "legal" (default) vs "fen"
# --------------------------------------------------------------------------------------

@pytest.mark.parametrize(
    "sans, legal, fen_style",
    [
        pytest.param(["e4"], "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
                     "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1", id="e4"),
        pytest.param(["e4", "a6", "e5", "d5"], "rnbqkbnr/1pp1pppp/p7/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3",
                     "rnbqkbnr/1pp1pppp/p7/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3", id="capturable"),
        pytest.param(["e4", "Nf6"], "rnbqkb1r/pppppppp/5n2/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 1 2",
                     "rnbqkb1r/pppppppp/5n2/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 1 2", id="cleared"),
        pytest.param(["e4", "d5", "e5", "f5"], "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
                     "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3", id="f6-not-d6"),
        pytest.param(["d4", "c5", "d5", "e5"], "rnbqkbnr/pp1p1ppp/8/2pPp3/8/8/PPP1PPPP/RNBQKBNR w KQkq e6 0 3",
                     "rnbqkbnr/pp1p1ppp/8/2pPp3/8/8/PPP1PPPP/RNBQKBNR w KQkq e6 0 3", id="latest-double-step"),
    ],
)
def test_en_passant_styles(sans, legal, fen_style):
    board = pgntools.Board()
    for san in sans:
        board.push_san(san)
    assert board.fen() == legal
    assert board.fen(en_passant="legal") == legal
    assert board.fen(en_passant="fen") == fen_style


def test_en_passant_square_kept_from_input_in_fen_style():
    fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"
    board = pgntools.Board.from_fen(fen)
    assert board.fen(en_passant="fen") == fen
    assert board.fen() == fen.replace(" e3 ", " - ")


def test_en_passant_table_agrees_with_python_chess(chess_oracle):
    b = chess_oracle.Board()
    for san in ["e4"]:
        b.push_san(san)
    assert b.fen() == "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    assert b.fen(en_passant="fen") == "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"


# --------------------------------------------------------------------------------------
# Chess960: X-FEN (default) and Shredder-FEN
# --------------------------------------------------------------------------------------

# (input fen, X-FEN output, Shredder-FEN output)
CHESS960_FENS = [
    ("bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1",
     "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1",
     "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1"),
    ("bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1",
     "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1",
     "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1"),
    (START, START, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1",
     START, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1"),
    ("1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w GBgb - 0 1",
     "1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w KQkq - 0 1",
     "1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w GBgb - 0 1"),
    # The f1 rook holds the right although h1 holds a rook farther out: X-FEN must name it.
    ("4k3/8/8/8/8/8/8/4KR1R w F - 0 1", "4k3/8/8/8/8/8/8/4KR1R w F - 0 1", "4k3/8/8/8/8/8/8/4KR1R w F - 0 1"),
    ("4k3/8/8/8/8/8/8/4KR1R w K - 0 1", "4k3/8/8/8/8/8/8/4KR1R w K - 0 1", "4k3/8/8/8/8/8/8/4KR1R w H - 0 1"),
    ("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
     "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w KQkq - 2 9",
     "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9"),
    ("qbbnnrkr/2pp2pp/p7/1p2pp2/8/P3PP2/1PPP1KPP/QBBNNR1R w hf - 0 9",
     "qbbnnrkr/2pp2pp/p7/1p2pp2/8/P3PP2/1PPP1KPP/QBBNNR1R w kq - 0 9",
     "qbbnnrkr/2pp2pp/p7/1p2pp2/8/P3PP2/1PPP1KPP/QBBNNR1R w hf - 0 9"),
]


@pytest.mark.parametrize("fen, xfen, shredder", CHESS960_FENS)
def test_chess960_xfen_and_shredder(fen, xfen, shredder):
    board = pgntools.Board.from_fen(fen, chess960=True)
    assert board.fen() == xfen
    assert board.fen(shredder=True) == shredder
    assert pgntools.Board.from_fen(shredder, chess960=True).fen() == xfen
    assert pgntools.Board.from_fen(xfen, chess960=True).fen(shredder=True) == shredder


def test_chess960_castling_rights_follow_rook_moves():
    board = pgntools.Board.from_fen("bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1", chess960=True)
    for san in ["h4", "h5", "Rh3", "Rh6"]:
        board.push_san(san)
    assert board.fen(shredder=True) == "bbqnnrk1/ppppppp1/7r/7p/7P/7R/PPPPPPP1/BBQNNRK1 w Ff - 2 3"
    assert board.fen() == "bbqnnrk1/ppppppp1/7r/7p/7P/7R/PPPPPPP1/BBQNNRK1 w Qq - 2 3"


def test_standard_mode_shredder_output():
    assert pgntools.Board().fen(shredder=True) == "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1"


def test_chess960_table_agrees_with_python_chess(chess_oracle):
    chess = chess_oracle
    for fen, xfen, shredder in CHESS960_FENS:
        b = chess.Board(fen, chess960=True)
        assert b.fen() == xfen, fen
        assert b.fen(shredder=True) == shredder, fen
    b = chess.Board("bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1", chess960=True)
    for san in ["h4", "h5", "Rh3", "Rh6"]:
        b.push_san(san)
    assert b.fen(shredder=True) == "bbqnnrk1/ppppppp1/7r/7p/7P/7R/PPPPPPP1/BBQNNRK1 w Ff - 2 3"
