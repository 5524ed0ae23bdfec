"""Differential test of the rules core against python-chess on real games.

For every PGN file under ``../shared/corpora`` (beside the repository), python-chess reads the
games; each clean standard or Chess960 game is replayed on a ``pgntools.Board`` by feeding the
SAN python-chess writes for each mainline move. After every ply the two must agree on:

* the UCI that ``push_san`` returns (king-takes-rook castling in Chess960 mode),
* ``san(uci)`` computed before the move,
* ``fen()`` (legal-only en passant square, X-FEN castling in Chess960 mode),
* ``is_check()``,
* ``key`` (the Polyglot key) against ``chess.polyglot.zobrist_hash``;

and at the end of the game on checkmate, stalemate and the set of legal moves.

The default run replays a deterministic sample of each file (see ``conftest.in_sample``);
``-m slow`` replays every game.
"""
from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import pytest

import pgntools
from conftest import CHESS_REASON, corpus_id, corpus_pgn_files, iter_games, require_corpora

chess = pytest.importorskip("chess", reason=CHESS_REASON)
pytest.importorskip("chess.pgn", reason=CHESS_REASON)
polyglot = pytest.importorskip("chess.polyglot", reason=CHESS_REASON)

MAX_REPORTED = 10

_FILES = corpus_pgn_files()
FILE_PARAMS = [pytest.param(p, id=corpus_id(p)) for p in _FILES] or [pytest.param(None, id="no-corpora")]


class Mismatch(Exception):
    pass


def _describe(path: Path, index: int, game, ply: int, detail: str) -> str:
    h = game.headers
    who = f"{h.get('White', '?')} - {h.get('Black', '?')}, {h.get('Event', '?')} {h.get('Round', '')}".strip()
    return f"{corpus_id(path)} game #{index} ({who}) ply {ply}: {detail}"


def _start_board(game, pc_board) -> "pgntools.Board":
    chess960 = pc_board.chess960
    header_fen = game.headers.get("FEN")
    if header_fen:
        return pgntools.Board.from_fen(header_fen.strip(), chess960=chess960)
    if chess960:
        return pgntools.Board.from_fen(pc_board.fen(), chess960=True)
    return pgntools.Board()


def _expect(ply_label: str, what: str, ours, theirs) -> None:
    if ours != theirs:
        raise Mismatch(f"{what}: pgntools {ours!r} != python-chess {theirs!r} ({ply_label})")


def replay(game) -> Optional[int]:
    """Replay one game; return the number of plies compared, or None if the game is not
    eligible (python-chess reported errors, other variant, invalid start position,
    null moves).
    Raises Mismatch (with ``.ply``) on the first disagreement."""
    if game.errors:
        return None  # python-chess found the game broken: nothing to compare against
    try:
        pc_board = game.board()
    except ValueError:
        return None
    if type(pc_board) is not chess.Board or not pc_board.is_valid():
        return None
    if any(not move for move in game.mainline_moves()):
        return None  # null moves ("--"): pgntools rejects them by design (kind "null_move")

    ply = 0
    try:
        ours = _start_board(game, pc_board)
        _expect("start", "fen", ours.fen(), pc_board.fen())
        _expect("start", "key", ours.key, polyglot.zobrist_hash(pc_board))
        for ply, move in enumerate(game.mainline_moves(), start=1):
            fen_before = pc_board.fen()
            san = pc_board.san(move)
            uci = pc_board.uci(move)  # king-takes-rook for castling when chess960
            label = f"{san} / {uci} from {fen_before}"
            _expect(label, "san(uci)", ours.san(uci), san)
            _expect(label, "push_san(san)", ours.push_san(san), uci)
            pc_board.push(move)
            _expect(label, "fen after", ours.fen(), pc_board.fen())
            _expect(label, "is_check after", ours.is_check(), pc_board.is_check())
            _expect(label, "key after", ours.key, polyglot.zobrist_hash(pc_board))
        final = f"final position {pc_board.fen()}"
        _expect(final, "is_checkmate", ours.is_checkmate(), pc_board.is_checkmate())
        _expect(final, "is_stalemate", ours.is_stalemate(), pc_board.is_stalemate())
        _expect(final, "legal_moves", sorted(ours.legal_moves()), sorted(pc_board.uci(m) for m in pc_board.legal_moves))
    except Mismatch as exc:
        exc.ply = ply
        raise
    except Exception as exc:  # a pgntools error (or crash) where python-chess had none
        mismatch = Mismatch(f"pgntools raised {type(exc).__name__}: {exc}")
        mismatch.ply = ply
        raise mismatch from exc
    return ply


def run_file(path: Optional[Path], full: bool) -> None:
    require_corpora()
    assert path is not None
    compared = plies = skipped = 0
    problems: List[str] = []
    for index, game in iter_games(path, full=full):
        try:
            result = replay(game)
        except Mismatch as exc:
            compared += 1
            problems.append(_describe(path, index, game, exc.ply, str(exc)))
            continue
        if result is None:
            skipped += 1
        else:
            compared += 1
            plies += result
    if compared == 0:
        pytest.skip(f"{corpus_id(path)}: nothing to compare; all {skipped} games are ineligible (python-chess "
                    f"errors, another variant, an invalid start position, or null moves)")
    if problems:
        shown = "\n".join(problems[:MAX_REPORTED])
        more = f"\n... and {len(problems) - MAX_REPORTED} more" if len(problems) > MAX_REPORTED else ""
        pytest.fail(f"{len(problems)} of {compared} games disagree with python-chess "
                    f"({plies} plies agreed in the others):\n{shown}{more}", pytrace=False)


@pytest.mark.parametrize("pgn_path", FILE_PARAMS)
def test_sampled_games_agree_with_python_chess(pgn_path):
    run_file(pgn_path, full=False)


@pytest.mark.slow
@pytest.mark.parametrize("pgn_path", FILE_PARAMS)
def test_every_game_agrees_with_python_chess(pgn_path):
    run_file(pgn_path, full=True)


# --------------------------------------------------------------------------------------
# Random playouts: positions real games rarely reach (under-promotions, odd en passant,
# Chess960 castling), compared with python-chess after every ply. Seeded, so deterministic.
# --------------------------------------------------------------------------------------

PLAYOUT_STARTS = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "4k3/pppppppp/8/8/8/8/PPPPPPPP/4K3 w - - 0 1",
    "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
]
# Chess960 start positions by Scharnagl number (518 is the standard array).
PLAYOUT_960 = [0, 1, 37, 100, 215, 333, 404, 518, 600, 737, 850, 959]
PLAYOUT_PLIES = 160
PLAYOUTS_PER_START = 5

_TERMINATION_NAMES = {
    "CHECKMATE": "checkmate",
    "STALEMATE": "stalemate",
    "INSUFFICIENT_MATERIAL": "insufficient_material",
    "SEVENTYFIVE_MOVES": "seventyfive_moves",
    "FIVEFOLD_REPETITION": "fivefold_repetition",
}


def _oracle_outcome(pc_board):
    outcome = pc_board.outcome()
    return None if outcome is None else _TERMINATION_NAMES[outcome.termination.name]


def _pick(rng, pc_board, moves):
    """Random move, biased towards the rare kinds so that they get exercised."""
    special = [m for m in moves if m.promotion or pc_board.is_castling(m) or pc_board.is_en_passant(m)]
    if special and rng.random() < 0.6:
        return rng.choice(special)
    return rng.choice(moves)


def _compare_position(ours, pc_board, label, full):
    expected_moves = sorted(pc_board.uci(m) for m in pc_board.legal_moves)
    _expect(label, "legal_moves", sorted(ours.legal_moves()), expected_moves)
    _expect(label, "fen", ours.fen(), pc_board.fen())
    _expect(label, "fen(en_passant='fen')", ours.fen(en_passant="fen"), pc_board.fen(en_passant="fen"))
    _expect(label, "fen(shredder=True)", ours.fen(shredder=True), pc_board.fen(shredder=True))
    _expect(label, "is_check", ours.is_check(), pc_board.is_check())
    _expect(label, "key", ours.key, polyglot.zobrist_hash(pc_board))
    _expect(label, "is_checkmate", ours.is_checkmate(), pc_board.is_checkmate())
    _expect(label, "is_stalemate", ours.is_stalemate(), pc_board.is_stalemate())
    _expect(label, "is_insufficient_material", ours.is_insufficient_material(), pc_board.is_insufficient_material())
    _expect(label, "outcome", ours.outcome(), _oracle_outcome(pc_board))
    if full:
        for move in pc_board.legal_moves:
            uci = pc_board.uci(move)
            _expect(label, f"san({uci})", ours.san(uci), pc_board.san(move))
        fresh = pgntools.Board.from_fen(pc_board.fen(en_passant="fen"), chess960=pc_board.chess960)
        _expect(label, "fen after from_fen", fresh.fen(en_passant="fen"), pc_board.fen(en_passant="fen"))
        _expect(label, "legal_moves after from_fen", sorted(fresh.legal_moves()), expected_moves)


def _playout(fen, chess960, seed):
    import random

    rng = random.Random(seed)
    pc_board = chess.Board(fen, chess960=chess960)
    ours = pgntools.Board.from_fen(fen, chess960=chess960)
    history = []
    for ply in range(PLAYOUT_PLIES + 1):
        label = f"seed {seed}, start {fen}, moves {' '.join(history)}"
        _compare_position(ours, pc_board, label, full=ply % 4 == 0)
        moves = list(pc_board.legal_moves)
        if not moves or pc_board.outcome() is not None:
            break
        move = _pick(rng, pc_board, moves)
        uci = pc_board.uci(move)
        if rng.random() < 0.5:
            _expect(label, f"push_san({pc_board.san(move)})", ours.push_san(pc_board.san(move)), uci)
        else:
            _expect(label, f"push_uci({uci})", ours.push_uci(uci), None)
        pc_board.push(move)
        history.append(uci)


def _playout_params():
    for index, fen in enumerate(PLAYOUT_STARTS):
        yield pytest.param(fen, False, index, id=f"standard-{index}")
    for number in PLAYOUT_960:
        yield pytest.param(number, True, 1000 + number, id=f"960-{number}")


@pytest.mark.parametrize("start, chess960, seed_base", list(_playout_params()))
def test_random_playouts_agree_with_python_chess(start, chess960, seed_base):
    fen = chess.Board.from_chess960_pos(start).fen() if chess960 else start
    for k in range(PLAYOUTS_PER_START):
        _playout(fen, chess960, seed_base * 100 + k)
