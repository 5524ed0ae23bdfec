"""The one move path (san_read: san_shape + san_find for the common shapes, san_parse_general +
san_resolve for the rest; pos_make_undo; pos_unmake), exhaustively: at every node of each
position's move tree, every text of the common shapes to every square (e4, Nf3, Nxf3, exf3) and
castling (O-O, O-O-O), bare and with a check marker (e4+, Nf3#, O-O+).
The shapes' front must read every text exactly as the general parser does (every field, the notes
and the answer too); the answer must be what the whole legal move list says (the one move, illegal
or ambiguous); the state pos_make keeps as it goes (hash, checkers, en passant) must be what a
recomputation gives, pos_unmake must restore the position to the bit, and a text taken as SAN
(no note) must be san_format_base's SAN.

The positions: the perft positions of tests/test_perft.py (pins, checks, en passant, promotions,
castling rights lost by captures), Chess960 starts, and a few made for the cases the path must
decline (double check, a pinned piece, an en-passant capture, two knights that reach a square).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from pgntools import _core, read_games

CASES = [
    ("start", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 3),
    ("kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 2),
    ("position3", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 4),
    ("position4", "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 3),
    ("position4-mirrored", "r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1", 3),
    ("position5", "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", 2),
    ("position6", "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", 2),
    ("en-passant-pinned", "8/8/8/KPp4r/8/8/8/7k w - c6 0 2", 3),
    ("double-check", "4k3/8/8/8/8/5n2/8/r3K2R w K - 0 1", 3),
    ("two-knights", "4k3/8/8/8/8/8/1N3N2/4K3 w - - 0 1", 3),
    ("rook-pinned-on-file", "4r1k1/8/8/8/8/8/4R3/4K2R w K - 0 1", 3),
    ("halfmove-at-limit", "4k3/8/8/8/8/8/8/R3K2R w KQ - 65535 4294967295", 2),
]
CHESS960 = [
    ("960-1", "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9", 2),
    ("960-4", "qbbnnrkr/2pp2pp/p7/1p2pp2/8/P3PP2/1PPP1KPP/QBBNNR1R w hf - 0 9", 2),
    ("960-7", "q1bnrkr1/ppppp2p/2n2p2/4b1p1/2NP4/8/PPP1PPPP/QNB1RRKB w ge - 1 9", 2),
]


@pytest.mark.parametrize("fen, depth", [pytest.param(f, d, id=n) for n, f, d in CASES])
def test_move_path_against_the_legal_moves(fen, depth):
    texts, made = _core.check_move_path(fen, depth)
    assert texts > 0
    assert made > 0  # the path was taken: the comparison is not vacuous


@pytest.mark.parametrize("fen, depth", [pytest.param(f, d, id=n) for n, f, d in CHESS960])
def test_move_path_against_the_legal_moves_chess960(fen, depth):
    texts, made = _core.check_move_path(fen, depth, chess960=True)
    assert made > 0


def test_move_path_in_double_check():
    # double check: only the king may move (Rh2, Rxa1 are illegal)
    texts, made = _core.check_move_path("4k3/8/8/8/8/5n2/8/r3K2R w K - 0 1", 1)
    assert texts == 64 * 19 * 3 + 6  # (and O-O, O-O-O: bare, + and #)
    assert made >= 1  # a king step out of both checks


# castling in one pass: rights on either side or both, a crossed square attacked, the king in
# check, a piece between, Chess960 starts (king or rook already on its target), checks by the rook
CASTLING_CASES = [
    ("both-sides", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", 3),
    ("crossed-square-attacked", "r3k2r/8/8/8/8/8/5q2/R3K2R w KQkq - 0 1", 2),
    ("b-file-attacked", "1r2k2r/8/8/8/8/8/8/R3K2R w KQk - 0 1", 2),
    ("in-check", "r3k2r/8/8/8/8/8/8/R3K1rR w KQkq - 0 1", 2),
    ("piece-between", "rn2k1nr/8/8/8/8/8/8/RN2K1NR b KQkq - 0 1", 2),
    ("rook-gives-check", "5k2/8/8/8/8/8/8/4K2R w K - 0 1", 2),
    ("mate-by-castling", "8/8/8/8/8/8/7R/1k2K2R w K - 0 1", 1),
]
CHESS960_CASTLING = [
    ("960-king-on-g", "1r4kr/8/8/8/8/8/8/1R4KR w HBhb - 0 1", 2),
    ("960-rook-shield", "q5k1/8/8/8/8/8/8/3RKR2 w FD - 0 1", 2),
    ("960-adjacent", "rk5r/8/8/8/8/8/8/RK5R w HAha - 0 1", 2),
]


@pytest.mark.parametrize("fen, depth", [pytest.param(f, d, id=n) for n, f, d in CASTLING_CASES])
def test_move_path_castling(fen, depth):
    texts, made = _core.check_move_path(fen, depth)
    assert made > 0


@pytest.mark.parametrize("fen, depth", [pytest.param(f, d, id=n) for n, f, d in CHESS960_CASTLING])
def test_move_path_castling_chess960(fen, depth):
    texts, made = _core.check_move_path(fen, depth, chess960=True)
    assert made > 0


def test_move_path_castles():
    # the castling texts alone: O-O and O-O-O, each bare, with + and with #, are made in one pass
    # where both are legal, and declined where the king is in check or the rights are gone
    assert _core.check_move_path("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", 1, castling_only=True) == (6, 6)
    assert _core.check_move_path("r3k2r/8/8/8/8/8/8/R3K1rR w KQkq - 0 1", 1, castling_only=True) == (6, 0)
    assert _core.check_move_path("r3k2r/8/8/8/8/8/8/R3K2R w Kkq - 0 1", 1, castling_only=True) == (6, 3)


# an origin written (Nbd7, R1xe2): the move, and whether the origin was needed (the
# over-disambiguation note), as san_resolve has them
ORIGIN_CASES = [
    ("two-knights", "4k3/8/8/8/8/8/1N3N2/4K3 w - - 0 1", 2),
    ("rooks-on-a-file", "4k3/8/8/R7/8/8/8/R3K3 w - - 0 1", 2),
    ("three-queens", "4k3/8/8/8/8/Q1Q5/8/Q3K3 w - - 0 1", 2),
    ("pinned-rival", "4k3/4r3/8/8/8/2N5/4N3/4K3 w - - 0 1", 2),
    ("kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 1),
    ("position4", "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 2),
]


@pytest.mark.parametrize("fen, depth", [pytest.param(f, d, id=n) for n, f, d in ORIGIN_CASES])
def test_move_path_with_an_origin(fen, depth):
    texts, made = _core.check_move_path(fen, depth, origins=True)
    assert made > 0


# ---------------------------------------------------------------- through the reader

from corpora_dir import CORPORA_DIR as CORPORA  # noqa: E402
DATA = Path(__file__).resolve().parent / "data"


def _files(*dirs):
    return sorted(p for d in dirs if d.exists() for p in d.rglob("*.pgn"))


def _game_facts(game):
    return (game.index, game.status, game.result, game.outcome, game.outcome_ply, game.ply_count, game.final_fen,
            game.automatic_end, game.automatic_end_ply, repr(game.errors), repr(game.notes), repr(game.fixes))


def _agree(path, **options):
    """The reader without a move table (the one-pass path's short mainline path: validate, to-fen)
    and with one (what the differential tests compare with python-chess) say the same of every game."""
    fast = [_game_facts(g) for g in read_games(str(path), moves=False, comments=False, final_fen=True, **options)]
    general = [_game_facts(g) for g in read_games(str(path), moves=True, comments=False, final_fen=True, **options)]
    assert fast == general


READER_OPTIONS = [
    pytest.param({}, id="default"),
    pytest.param({"strict": True}, id="strict"),
    pytest.param({"allow_null_moves": True, "repair": "truncate", "automatic_ends": "truncate"}, id="lenient"),
]
SMALL = [p for p in _files(CORPORA / "edge", DATA) if p.stat().st_size <= 400_000]
LARGE = [p for p in _files(CORPORA) if p not in SMALL]


@pytest.mark.parametrize("options", READER_OPTIONS)
def test_reader_without_moves_agrees_with_the_general_path(options):
    assert SMALL, "no corpus files found"
    for path in SMALL:
        _agree(path, **options)


@pytest.mark.slow
@pytest.mark.parametrize("options", READER_OPTIONS)
@pytest.mark.parametrize("path", [pytest.param(p, id=p.name) for p in LARGE])
def test_reader_without_moves_agrees_with_the_general_path_on_every_corpus_game(path, options):
    _agree(path, **options)


def _assert_canonical_san(games):
    """Each move row's SAN is what the formatter (san_format, its own path) writes for its UCI."""
    for game in games:
        if not game.start_fen:
            continue
        board = _core.Board.from_fen(game.start_fen, chess960=bool(game.chess960))
        for move in game.moves:
            assert move.san == board.san(move.uci), (game.index, move)
            board.push_uci(move.uci)


def test_move_rows_take_the_text_as_san_only_when_it_is_canonical(tmp_path):
    """The move rows of the one-pass path: the text without its check marker when the move needed
    no note (e4, exd5, Nbd2 where the file is needed), formatted again when it did (Ngf3 where Nf3
    is unique, N1d2 where the file tells, Ne5 taking), the marker from the position."""
    path = tmp_path / "shapes.pgn"
    path.write_text("1. e4+ d5 2. ed5 Nf6 3. Ngf3 Nxd5 4. d3 e5 5. N1d2 Nc6 6. Ne5 Nxe5 7. Nf3 Nxf3 8. gxf3+ *\n")
    (game,) = read_games(str(path), moves=True)
    assert [m.san for m in game.moves] == ["e4", "d5", "exd5", "Nf6", "Nf3", "Nxd5", "d3", "e5", "Nbd2", "Nc6",
                                           "Nxe5", "Nxe5", "Nf3", "Nxf3+", "gxf3"]
    _assert_canonical_san([game])


def test_move_rows_san_is_canonical_on_every_small_corpus_game():
    assert SMALL, "no corpus files found"
    for path in SMALL:
        _assert_canonical_san(read_games(str(path), moves=True, comments=False))
