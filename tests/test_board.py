"""Board state: clocks, game status, draw rules, outcome, copy, and a coordinate-input flow."""
from __future__ import annotations

import pytest

import pgntools

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


def play(board, sans):
    for san in sans:
        board.push_san(san)
    return board


# --------------------------------------------------------------------------------------
# Clocks and turn
# --------------------------------------------------------------------------------------

# (SAN, halfmove clock after it, fullmove number after it, side to move after it)
CLOCK_SEQUENCE = [
    ("Nf3", 1, 1, "b"),
    ("Nf6", 2, 2, "w"),
    ("Ng1", 3, 2, "b"),
    ("Ng8", 4, 3, "w"),
    ("e4", 0, 3, "b"),      # pawn move resets
    ("d5", 0, 4, "w"),
    ("e5", 0, 4, "b"),
    ("f5", 0, 5, "w"),
    ("exf6", 0, 5, "b"),    # en passant resets
    ("Nxf6", 0, 6, "w"),    # piece capture resets
    ("Bb5+", 1, 6, "b"),
    ("c6", 0, 7, "w"),
    ("Bxc6+", 0, 7, "b"),
    ("bxc6", 0, 8, "w"),
    ("Nf3", 1, 8, "b"),
    ("Bg4", 2, 9, "w"),
    ("O-O", 3, 9, "b"),     # castling does not reset
    ("Qd6", 4, 10, "w"),
    ("Re1", 5, 10, "b"),
]


def test_clocks_and_turn_through_a_game():
    board = pgntools.Board()
    assert (board.halfmove_clock, board.fullmove_number, board.turn) == (0, 1, "w")
    for san, halfmove, fullmove, turn in CLOCK_SEQUENCE:
        board.push_san(san)
        assert (board.halfmove_clock, board.fullmove_number, board.turn) == (halfmove, fullmove, turn), san
    assert board.fen() == "rn2kb1r/p3p1pp/2pq1n2/3p4/6b1/5N2/PPPP1PPP/RNBQR1K1 b kq - 5 10"


@pytest.mark.parametrize(
    "fen, san",
    [
        pytest.param("8/4P3/8/8/8/8/8/k1K5 w - - 7 40", "e8=Q", id="promotion"),
        pytest.param("3r3k/4P3/8/8/8/8/8/K7 w - - 12 50", "exd8=N", id="capture-promotion"),
        pytest.param("4k3/8/8/8/8/8/3q4/4K3 w - - 33 60", "Kxd2", id="king-capture"),
        pytest.param("rnbqkbnr/1pp1pppp/p7/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 9 3", "exd6", id="en-passant"),
        pytest.param("4k3/8/8/8/8/8/4P3/4K3 w - - 21 30", "e3", id="pawn-single-step"),
    ],
)
def test_halfmove_clock_resets(fen, san):
    board = pgntools.Board.from_fen(fen)
    assert board.halfmove_clock > 0
    board.push_san(san)
    assert board.halfmove_clock == 0


def test_halfmove_clock_increments_on_quiet_moves():
    board = pgntools.Board.from_fen("4k3/8/8/8/8/8/8/R3K3 w - - 10 20")
    board.push_san("Ra7")
    assert board.halfmove_clock == 11
    assert board.fullmove_number == 20
    board.push_san("Kf8")
    assert board.halfmove_clock == 12
    assert board.fullmove_number == 21


def test_halfmove_clock_stops_at_the_largest_value_a_fen_may_give():
    """65535 is the largest clock a FEN may hold: a quiet move keeps it there (no wrap to 0,
    which would undo the 75-move rule)."""
    board = pgntools.Board.from_fen("k7/8/8/8/8/8/8/KQ6 w - - 65535 1")
    board.push_uci("a1a2")
    assert board.halfmove_clock == 65535
    assert board.fen() == "k7/8/8/8/8/8/K7/1Q6 b - - 65535 1"
    assert board.is_seventyfive_moves()


def test_clock_of_42_survives_fen_out_and_in():
    fen = "4k3/8/8/8/8/8/8/4K2R w K - 42 77"
    board = pgntools.Board.from_fen(fen)
    assert board.halfmove_clock == 42
    assert board.fullmove_number == 77
    assert board.fen() == fen
    board.push_san("Rh2")
    assert board.fen() == "4k3/8/8/8/8/8/7R/4K3 b - - 43 77"
    again = pgntools.Board.from_fen(board.fen())
    assert again.halfmove_clock == 43
    assert again.fullmove_number == 77
    assert again.turn == "b"
    again.push_san("Kd8")
    assert again.fen().endswith(" w - - 44 78")


# --------------------------------------------------------------------------------------
# Status
# --------------------------------------------------------------------------------------

def test_start_position_status():
    board = pgntools.Board()
    assert not board.is_check()
    assert not board.is_checkmate()
    assert not board.is_stalemate()
    assert not board.is_insufficient_material()
    assert board.outcome() is None
    assert len(board.legal_moves()) == 20


def test_check_that_is_not_mate():
    board = play(pgntools.Board(), ["e4", "f5", "Qh5+"])
    assert board.is_check()
    assert not board.is_checkmate()
    assert board.outcome() is None
    assert sorted(board.legal_moves()) == ["g7g6"]


def test_fools_mate():
    board = play(pgntools.Board(), ["f3", "e5", "g4", "Qh4#"])
    assert board.is_check()
    assert board.is_checkmate()
    assert not board.is_stalemate()
    assert board.legal_moves() == []
    assert board.outcome() == "checkmate"


def test_stalemate_from_fen():
    board = pgntools.Board.from_fen("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")
    assert board.is_stalemate()
    assert not board.is_check()
    assert not board.is_checkmate()
    assert board.legal_moves() == []
    assert board.outcome() == "stalemate"


def test_stalemate_after_a_move():
    board = pgntools.Board.from_fen("7k/8/6K1/8/8/8/8/5Q2 w - - 0 1")
    assert board.outcome() is None
    assert board.push_san("Qf7") == "f1f7"
    assert board.is_stalemate()
    assert board.outcome() == "stalemate"


INSUFFICIENT = [
    ("4k3/8/8/8/8/8/8/4K3 w - - 0 1", True, "K-v-K"),
    ("4k3/8/8/8/8/8/8/4KN2 w - - 0 1", True, "KN-v-K"),
    ("4kn2/8/8/8/8/8/8/4K3 w - - 0 1", True, "K-v-KN"),
    ("4k3/8/8/8/8/8/8/4KB2 w - - 0 1", True, "KB-v-K"),
    ("4kb2/8/8/8/8/8/8/4K3 b - - 0 1", True, "K-v-KB"),
    ("2b1k3/8/8/8/8/8/8/4KB2 w - - 0 1", True, "KB-v-KB-same-colour"),   # f1 and c8 are light
    ("4kb2/8/8/8/8/8/8/4KB2 w - - 0 1", False, "KB-v-KB-opposite-colour"),  # f8 is dark
    ("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", False, "KP-v-K"),
    ("4k3/8/8/8/8/8/4p3/4K3 w - - 0 1", False, "K-v-KP"),
    ("4kn2/8/8/8/8/8/8/4KN2 w - - 0 1", False, "KN-v-KN"),
    ("4kn2/8/8/8/8/8/8/4KB2 w - - 0 1", False, "KB-v-KN"),
    ("4k3/8/8/8/8/8/8/4KNN1 w - - 0 1", False, "KNN-v-K"),
    ("4k3/8/8/8/8/8/8/R3K3 w - - 0 1", False, "KR-v-K"),
    ("3qk3/8/8/8/8/8/8/4K3 w - - 0 1", False, "K-v-KQ"),
    (START, False, "start"),
]


@pytest.mark.parametrize("fen, expected", [pytest.param(f, e, id=i) for f, e, i in INSUFFICIENT])
def test_insufficient_material(fen, expected):
    board = pgntools.Board.from_fen(fen)
    assert board.is_insufficient_material() is expected
    assert (board.outcome() == "insufficient_material") is expected


def test_capture_leading_to_bare_kings_ends_the_game():
    board = pgntools.Board.from_fen("4k3/8/8/8/8/8/3q4/4K3 w - - 0 1")
    assert board.outcome() is None
    board.push_san("Kxd2")
    assert board.is_insufficient_material()
    assert board.outcome() == "insufficient_material"


# --------------------------------------------------------------------------------------
# Fifty / seventy-five moves
# --------------------------------------------------------------------------------------

def test_seventyfive_move_rule_from_fen():
    board = pgntools.Board.from_fen("4k3/8/8/8/8/8/8/R3K3 w - - 150 100")
    assert board.is_seventyfive_moves()
    assert board.can_claim_fifty_moves()
    assert board.outcome() == "seventyfive_moves"


def test_seventyfive_move_rule_reached_by_a_move():
    board = pgntools.Board.from_fen("4k3/8/8/8/8/8/8/R3K3 w - - 149 100")
    assert not board.is_seventyfive_moves()
    assert board.outcome() is None
    board.push_san("Ra2")
    assert board.halfmove_clock == 150
    assert board.is_seventyfive_moves()
    assert board.outcome() == "seventyfive_moves"


def test_checkmate_on_the_150th_halfmove_is_checkmate():
    board = pgntools.Board.from_fen("k7/8/1K6/8/8/8/8/7R w - - 149 120")
    board.push_san("Rh8#")
    assert board.halfmove_clock == 150
    assert board.is_checkmate()
    assert board.outcome() == "checkmate"


@pytest.mark.parametrize("clock, claimable", [(0, False), (50, False), (98, False), (100, True), (120, True)])
def test_fifty_move_claim(clock, claimable):
    board = pgntools.Board.from_fen(f"4k3/8/8/8/8/8/8/R3K3 w - - {clock} 80")
    assert board.can_claim_fifty_moves() is claimable
    assert not board.is_seventyfive_moves()
    assert board.outcome() is None  # a claim is not an automatic end


def test_pawn_move_removes_fifty_move_claim():
    board = pgntools.Board.from_fen("4k3/8/8/8/8/8/4P3/4K3 w - - 100 80")
    assert board.can_claim_fifty_moves()
    board.push_san("e4")
    assert not board.can_claim_fifty_moves()


# --------------------------------------------------------------------------------------
# Repetition
# --------------------------------------------------------------------------------------

KNIGHT_SHUFFLE = ["Nf3", "Nf6", "Ng1", "Ng8"]


@pytest.mark.parametrize(
    "cycles, threefold, fivefold",
    [(0, False, False), (1, False, False), (2, True, False), (3, True, False), (4, True, True)],
)
def test_repetition_by_shuffling_knights(cycles, threefold, fivefold):
    # After n cycles the start position has occurred n + 1 times.
    board = play(pgntools.Board(), KNIGHT_SHUFFLE * cycles)
    assert board.fen().split()[:4] == START.split()[:4]
    assert board.can_claim_threefold_repetition() is threefold
    assert board.is_fivefold_repetition() is fivefold
    assert board.outcome() == ("fivefold_repetition" if fivefold else None)


def test_repetition_counts_castling_rights():
    # The first Rh2 loses the K right; the very first position is never repeated, so the
    # position with rights "Qq" is only seen a third time after three full cycles.
    board = pgntools.Board.from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    shuffle = ["Rh2", "Rh7", "Rh1", "Rh8"]
    play(board, shuffle * 2)
    assert board.fen() == "r3k2r/8/8/8/8/8/8/R3K2R w Qq - 8 5"
    assert not board.can_claim_threefold_repetition()
    play(board, shuffle)
    assert board.can_claim_threefold_repetition()


def test_uncapturable_en_passant_square_does_not_make_a_position_different():
    # After 1. e4 the e3 square cannot be used (no black pawn on d4/f4), so the position
    # after 1. e4 is the same position every time the knights come back to it.
    board = play(pgntools.Board(), ["e4"] + ["Nf6", "Nf3", "Ng8", "Ng1"] * 4)
    assert board.is_fivefold_repetition()
    assert board.outcome() == "fivefold_repetition"


def test_capturable_en_passant_square_makes_a_position_different():
    # After 2... d5 exd6 e.p. is possible: that first occurrence is a different position
    # from the later ones, where the right has lapsed.
    board = play(pgntools.Board(), ["e4", "a6", "e5", "d5"] + ["Nf3", "Nf6", "Ng1", "Ng8"] * 4)
    assert not board.is_fivefold_repetition()
    assert board.outcome() is None
    play(board, ["Nf3", "Nf6", "Ng1", "Ng8"])
    assert board.is_fivefold_repetition()


def test_copy_keeps_repetition_history():
    board = play(pgntools.Board(), KNIGHT_SHUFFLE * 2)
    clone = board.copy()
    assert clone.can_claim_threefold_repetition()
    play(clone, KNIGHT_SHUFFLE * 2)
    assert clone.is_fivefold_repetition()
    assert not board.is_fivefold_repetition()


def test_copy_is_independent():
    board = pgntools.Board()
    clone = board.copy()
    clone.push_san("e4")
    assert board.fen() == START
    assert clone.fen() != START
    assert board.turn == "w" and clone.turn == "b"


# --------------------------------------------------------------------------------------
# A "game program": coordinate input typed by a user, fed through push_san
# --------------------------------------------------------------------------------------

# (typed input, UCI it must play, canonical SAN of that move)
SCHOLARS_MATE_TYPED = [
    ("e2e4", "e2e4", "e4"),
    ("e7e5", "e7e5", "e5"),
    ("f1c4", "f1c4", "Bc4"),
    ("b8c6", "b8c6", "Nc6"),
    ("d1h5", "d1h5", "Qh5"),
    ("g8f6", "g8f6", "Nf6"),
    ("h5f7", "h5f7", "Qxf7#"),
]

PROMOTION_TYPED = [
    ("e7e8=Q", "e7e8q", "e8=Q"),
    ("f3g2", "f3g2", "Kg2"),
    ("e8-e2", "e8e2", "Qe2+"),
    ("g2g1", "g2g1", "Kg1"),
    ("e2f2", "e2f2", "Qf2+"),
]


@pytest.mark.parametrize(
    "fen, typed, outcome",
    [
        pytest.param(START, SCHOLARS_MATE_TYPED, "checkmate", id="scholars-mate"),
        pytest.param("8/4P3/8/8/8/5k2/8/4K3 w - - 0 1", PROMOTION_TYPED, None, id="promotion"),
    ],
)
def test_game_program_flow_with_coordinate_input(fen, typed, outcome):
    board = pgntools.Board.from_fen(fen)
    for text, uci, san in typed:
        assert uci in board.legal_moves()
        assert board.san(uci) == san
        assert board.push_san(text) == uci
        assert board.last_notes, f"{text!r} is not canonical SAN and should carry a note"
    assert board.outcome() == outcome


def test_game_program_flow_final_positions():
    board = play(pgntools.Board(), [t for t, _, _ in SCHOLARS_MATE_TYPED])
    assert board.fen() == "r1bqkb1r/pppp1Qpp/2n2n2/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 0 4"
    board = play(pgntools.Board.from_fen("8/4P3/8/8/8/5k2/8/4K3 w - - 0 1"), [t for t, _, _ in PROMOTION_TYPED])
    assert board.fen() == "8/8/8/8/8/8/5Q2/4K1k1 b - - 4 3"
    assert board.is_check()


def test_push_uci_flow():
    board = pgntools.Board()
    for uci in ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6", "e1g1"]:
        assert uci in board.legal_moves()
        assert board.push_uci(uci) is None
    assert board.fen() == "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQ1RK1 b kq - 5 4"


def test_status_agrees_with_python_chess(chess_oracle):
    """The hand-written status expectations above match python-chess."""
    chess = chess_oracle
    for fen, expected, _ in INSUFFICIENT:
        assert chess.Board(fen).is_insufficient_material() is expected, fen
    b = chess.Board()
    for san, halfmove, fullmove, _turn in CLOCK_SEQUENCE:
        b.push_san(san)
        assert (b.halfmove_clock, b.fullmove_number) == (halfmove, fullmove), san
    for fen, typed in [(START, SCHOLARS_MATE_TYPED), ("8/4P3/8/8/8/5k2/8/4K3 w - - 0 1", PROMOTION_TYPED)]:
        b = chess.Board(fen)
        for _text, uci, san in typed:
            move = chess.Move.from_uci(uci)
            assert b.san(move) == san
            b.push(move)


# --------------------------------------------------------------------------------------
# python-chess's conventions (issue 22): Board(fen), pop, piece_at, str, repr, errors
# --------------------------------------------------------------------------------------

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"


def test_board_takes_a_fen_positionally():
    assert pgntools.Board(KIWIPETE).fen() == KIWIPETE
    assert pgntools.Board(KIWIPETE) == pgntools.Board.from_fen(KIWIPETE)
    assert pgntools.Board().fen() == START and pgntools.Board(None).fen() == START
    c960 = pgntools.Board("1r3kr1/8/8/8/8/8/8/1R3KR1 w GBgb - 0 1", chess960=True)
    assert c960.chess960 and "O-O-O" in [c960.san(m) for m in c960.legal_moves()]
    with pytest.raises(TypeError):
        pgntools.Board(42)
    with pytest.raises(pgntools.InvalidFenError):
        pgntools.Board("not a fen")


# (FEN, problem, what the message must say about the field)
FEN_FIELD_MESSAGES = [
    ("rnbqkbnrr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "malformed", "placement: rank 8 has 9 squares"),
    ("rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "malformed", "placement: rank 6 has 9 squares"),
    ("rnbqkbnr/ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "malformed", "placement: rank 7 has 7 squares"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1", "malformed", "placement: 7 ranks, not 8"),
    ("rnbqkbnr/pppppppp/8/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "malformed", "placement: more than 8 ranks"),
    ("rnbqkbnx/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "malformed", "placement: 'x' on rank 8"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", "malformed", "side to move: 'x'"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1", "malformed", "halfmove clock: 'x'"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 70000 1", "malformed", "halfmove clock: '70000'"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 x", "malformed", "fullmove number: 'x'"),
    ("hello world", "malformed", "fields: 2, not 6"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 extra", "malformed", "fields: more than 6"),
    ("4k3/8/8/8/8/8/8/4K3 w K - 0 1", "bad_castling_rights", "castling: 'K' but no white rook"),
    ("r3k2r/8/8/8/8/8/8/R4K1R w KQkq - 0 1", "bad_castling_rights", "castling: 'K' but the white king is not on e1"),
    ("4k3/8/8/8/8/8/8/4K2R w KX - 0 1", "bad_castling_rights", "castling: 'X' is not a castling right"),
    ("4k3/8/8/8/8/8/8/4K2R w KK - 0 1", "bad_castling_rights", "castling: the white king-side right twice"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 1", "bad_en_passant",
     "en passant: e6 but no black pawn on e5"),
    ("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e3 0 1", "bad_en_passant",
     "en passant: e3 is not on the 6th rank (white to move)"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e9 0 1", "bad_en_passant", "en passant: 'e9' is neither"),
    ("4k3/8/8/8/8/8/8/8 w - - 0 1", "missing_white_king", "placement: no white king"),
    ("4k3/8/8/8/8/8/8/3KK3 w - - 0 1", "too_many_kings", "placement: 2 white kings"),
    ("4k3/8/8/8/8/8/8/P3K3 w - - 0 1", "pawn_on_back_rank", "placement: a pawn on a1"),
    ("4k3/8/8/8/8/8/8/4R1K1 w - - 0 1", "opposite_check", "black is in check but it is white's move"),
]


@pytest.mark.parametrize("fen, problem, said", FEN_FIELD_MESSAGES, ids=[m[2][:40] for m in FEN_FIELD_MESSAGES])
def test_a_bad_fen_names_the_field_and_the_problem(fen, problem, said):
    with pytest.raises(pgntools.InvalidFenError) as info:
        pgntools.Board(fen)
    err = info.value
    assert problem in err.problems
    assert len(err.details) == len(err.problems) and all(err.details), err.details
    assert said in err.details[err.problems.index(problem)], err.details
    assert said in str(err) and not str(err).endswith(": malformed")


def test_a_bad_fen_tag_is_explained_in_the_report(tmp_path):
    import json
    import subprocess
    import sys
    from pathlib import Path

    path = tmp_path / "bad.pgn"
    path.write_text('[FEN "rnbqkbnrr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"]\n[SetUp "1"]\n\n1. e4 *\n')
    proc = subprocess.run([sys.executable, "-m", "pgntools", "validate", str(path), "--report", "-"],
                          capture_output=True, text=True, cwd=Path(__file__).resolve().parents[1], timeout=60)
    assert proc.returncode == 1, proc.stderr
    error, = json.loads(proc.stdout.splitlines()[0])["errors"]
    assert error["kind"] == "invalid_start_position"
    assert "placement: rank 8 has 9 squares" in error["message"]


@pytest.mark.parametrize("text", ["zz", "e2", "e2e4e5", "e2e9", "e7e8x", "Nf3"])
def test_push_uci_says_invalid_uci(text):
    board = pgntools.Board()
    with pytest.raises(pgntools.InvalidMoveError) as info:
        board.push_uci(text)
    assert info.value.kind == "invalid_uci"
    assert str(info.value).startswith(f"invalid UCI {text!r}")
    with pytest.raises(pgntools.InvalidMoveError, match="invalid UCI"):
        board.san(text)
    assert board.fen() == START and board.move_stack == []


def test_push_uci_keeps_the_other_kinds():
    with pytest.raises(pgntools.IllegalMoveError):
        pgntools.Board().push_uci("e2e5")
    with pytest.raises(pgntools.InvalidMoveError) as info:
        pgntools.Board().push_uci("0000")
    assert info.value.kind == "null_move"


@pytest.mark.parametrize("depth", [-1, -100, 13, 40])
def test_perft_refuses_a_depth_out_of_range(depth):
    with pytest.raises(ValueError, match=r"0\.\.12"):
        pgntools.Board().perft(depth)


def test_perft_accepts_the_range():
    assert pgntools.Board().perft(0) == 1
    assert pgntools.Board().perft(2) == 400


def test_pop_takes_back_moves():
    board = pgntools.Board()
    fens = [board.fen(en_passant="fen")]  # the en-passant square after every double step
    for san in ["e4", "d5", "exd5", "Qxd5", "Nc3", "Qa5", "d4", "c6", "Nf3", "Bf5", "Bc4", "e6", "O-O"]:
        board.push_san(san)
        fens.append(board.fen(en_passant="fen"))
    assert board.move_stack[:3] == ["e2e4", "d7d5", "e4d5"] and board.move_stack[-1] == "e1g1"
    popped = []
    while board.move_stack:
        popped.append(board.pop())
        fens.pop()
        assert board.fen(en_passant="fen") == fens[-1]
    assert popped[0] == "e1g1" and popped[-1] == "e2e4"
    assert board.fen() == START
    with pytest.raises(IndexError):
        board.pop()


def test_pop_restores_repetitions_and_notes():
    board = pgntools.Board()
    play(board, ["Nf3", "Nf6", "Ng1", "Ng8"] * 2)
    assert board.repetition_count() == 3
    board.pop()
    assert board.repetition_count() == 2 and board.last_notes == []  # after Nf3 Nf6 Ng1, twice
    board.push_san("Ng8")
    assert board.can_claim_threefold_repetition()


def test_pop_on_a_board_from_a_fen_and_on_a_copy():
    board = pgntools.Board(KIWIPETE)
    with pytest.raises(IndexError):
        board.pop()
    board.push_san("O-O")
    copy = board.copy()
    assert copy.pop() == "e1g1" and copy.fen() == KIWIPETE
    assert board.move_stack == ["e1g1"] and board.fen() != KIWIPETE


def test_pop_agrees_with_python_chess(chess_oracle):
    import random

    rng = random.Random(22)
    for _ in range(20):
        ours, theirs = pgntools.Board(), chess_oracle.Board()
        for _ in range(rng.randrange(1, 60)):
            moves = sorted(ours.legal_moves())
            if not moves:
                break
            uci = rng.choice(moves)
            ours.push_uci(uci)
            theirs.push_uci(uci)
        while theirs.move_stack:
            assert ours.pop() == theirs.pop().uci()
            assert ours.fen() == theirs.fen()
            assert ours.can_claim_threefold_repetition() == theirs.is_repetition(3)
        assert ours.fen() == START


@pytest.mark.parametrize("square, piece", [("e1", "K"), ("E1", "K"), (4, "K"), (0, "R"), ("a1", "R"), (63, "r"),
                                           ("h8", "r"), ("d8", "q"), ("b2", "P"), (49, "p"), ("e4", None), (36, None)])
def test_piece_at(square, piece):
    assert pgntools.Board().piece_at(square) == piece


@pytest.mark.parametrize("square, exc", [("z9", ValueError), ("e", ValueError), (64, ValueError), (-1, ValueError),
                                         (True, TypeError), (4.0, TypeError), (None, TypeError)])
def test_piece_at_refuses_what_is_not_a_square(square, exc):
    with pytest.raises(exc):
        pgntools.Board().piece_at(square)


def test_piece_at_agrees_with_python_chess(chess_oracle):
    theirs = chess_oracle.Board(KIWIPETE)
    ours = pgntools.Board(KIWIPETE)
    for sq in range(64):
        piece = theirs.piece_at(sq)
        assert ours.piece_at(sq) == (piece.symbol() if piece else None)
        assert ours.piece_at(chess_oracle.square_name(sq)) == ours.piece_at(sq)


def test_str_is_a_diagram_rank_8_first():
    board = pgntools.Board()
    board.push_san("e4")
    assert str(board) == "\n".join([
        "r n b q k b n r",
        "p p p p p p p p",
        ". . . . . . . .",
        ". . . . . . . .",
        ". . . . P . . .",
        ". . . . . . . .",
        "P P P P . P P P",
        "R N B Q K B N R",
    ])


def test_str_agrees_with_python_chess(chess_oracle):
    assert str(pgntools.Board(KIWIPETE)) == str(chess_oracle.Board(KIWIPETE))


def test_repr_gives_the_board_back():
    for board in (pgntools.Board(KIWIPETE), pgntools.Board("1r3kr1/8/8/8/8/8/8/1R3KR1 w GBgb - 0 1", chess960=True)):
        again = eval(repr(board), {"Board": pgntools.Board})
        assert again == board and again.chess960 == board.chess960
    assert repr(pgntools.Board()) == f"Board({START!r})"
