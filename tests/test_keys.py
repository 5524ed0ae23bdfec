"""The position key is the Polyglot Zobrist hash: every one of the 781 numbers, the en-passant and
castling rules, and repetitions (which keep FIDE's rule: en passant only when legal) against
python-chess's ``chess.polyglot.zobrist_hash`` (a test-only oracle; outputs compared, nothing
copied). Every ply of the corpora is compared in test_core_differential.py."""
from __future__ import annotations

import pytest

import pgntools
from pgntools import _core
from conftest import CHESS_REASON

chess = pytest.importorskip("chess", reason=CHESS_REASON)
polyglot = pytest.importorskip("chess.polyglot", reason=CHESS_REASON)

TABLE = _core.polyglot_random()
EMPTY = polyglot.zobrist_hash(chess.Board(None))  # no piece, no right, white to move


def _alone(setup) -> int:
    """The key of an empty board changed by setup, less the empty board's: one table entry."""
    board = chess.Board(None)
    setup(board)
    return polyglot.zobrist_hash(board) ^ EMPTY


def test_the_table_has_781_numbers():
    assert len(TABLE) == 781
    assert len(set(TABLE)) == 781


@pytest.mark.parametrize("kind", range(12))
def test_each_piece_number(kind):
    piece = chess.Piece(kind // 2 + 1, kind % 2 == 1)  # Polyglot's order: black pawn, white pawn, ...
    for square in chess.SQUARES:
        expected = _alone(lambda b: b.set_piece_at(square, piece))
        assert TABLE[64 * kind + square] == expected, (piece.symbol(), chess.square_name(square))


def test_turn_and_castling_and_en_passant_numbers():
    assert polyglot.zobrist_hash(chess.Board("8/8/8/8/8/8/8/8 b - - 0 1")) == 0  # nothing hashed
    assert TABLE[780] == EMPTY  # white to move: the turn number alone
    corners = [("KQkq"[i], chess.BB_H1 if i == 0 else chess.BB_A1 if i == 1 else chess.BB_H8 if i == 2 else chess.BB_A8)
               for i in range(4)]
    for i, (_, rook) in enumerate(corners):
        base = chess.Board("r3k2r/8/8/8/8/8/8/R3K2R b - - 0 1")
        with_right = base.copy()
        with_right.castling_rights = rook
        assert TABLE[768 + i] == polyglot.zobrist_hash(with_right) ^ polyglot.zobrist_hash(base)
    for file in range(8):
        square = chess.square(file, 5)
        board = chess.Board(None)
        board.set_piece_at(chess.square(file, 4), chess.Piece(chess.PAWN, chess.BLACK))
        neighbour = file + 1 if file < 7 else file - 1
        board.set_piece_at(chess.square(neighbour, 4), chess.Piece(chess.PAWN, chess.WHITE))
        board.turn = chess.WHITE
        without = polyglot.zobrist_hash(board)
        board.ep_square = square
        assert TABLE[772 + file] == polyglot.zobrist_hash(board) ^ without


@pytest.mark.parametrize("fen, chess960", [
    (chess.STARTING_FEN, False),
    # a pinned pawn: the capture is illegal, Polyglot counts the file anyway
    ("8/8/8/KPp4r/8/8/8/7k w - c6 0 2", False),
    # a double step with no pawn beside it: no file
    ("rnbqkbnr/ppp1pppp/8/3p4/8/8/PPPPPPPP/RNBQKBNR w KQkq d6 0 2", False),
    ("rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 3", False),
    ("r3k2r/8/8/8/8/8/8/R3K2R w Kq - 0 1", False),
    # Chess960: rights on other files are their side's number, as python-chess hashes them
    ("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9", True),
    ("1rk2r2/8/8/8/8/8/8/1RK2R2 b FBfb - 0 1", True),
    ("1rk2r2/8/8/8/8/8/8/1RK2R2 b Bf - 0 1", True),
])
def test_board_key_equals_zobrist_hash(fen, chess960):
    ours = pgntools.Board(fen, chess960=chess960)
    assert ours.key == polyglot.zobrist_hash(chess.Board(fen, chess960=chess960))


def test_key_follows_moves_including_castling_promotion_and_en_passant():
    moves = ["e2e4", "d7d5", "e4e5", "f7f5", "e5f6", "g8f6", "g1f3", "b8c6", "f1c4", "c8g4", "e1g1",
             "d8d6", "b2b4", "e8c8", "b4b5", "a7a5", "b5a6", "e7e5", "a6b7", "c8d7", "b7b8q"]
    ours, theirs = pgntools.Board(), chess.Board()
    for uci in moves:
        ours.push_uci(uci)
        theirs.push_uci(uci)
        assert ours.key == polyglot.zobrist_hash(theirs), (uci, theirs.fen())
    while ours.move_stack:  # pop restores the key with the rest of the state
        ours.pop()
        theirs.pop()
        assert ours.key == polyglot.zobrist_hash(theirs)


def test_repetitions_keep_fide_en_passant_rule():
    # After ...c7c5 the white b5 pawn is pinned: ep is not legal, so FIDE counts the position as
    # the one after the kings' shuffle; the Polyglot key counts the file, repetitions do not.
    board = pgntools.Board("7k/2p5/8/KP5r/8/8/8/8 b - - 0 1")
    board.push_uci("c7c5")
    first_key = board.key
    for uci in ["a5a4", "h8g8", "a4a5", "g8h8"] * 2:
        board.push_uci(uci)
    assert board.fen().split()[:4] == ["7k/8/8/KPp4r/8/8/8/8", "w", "-", "-"]
    assert board.repetition_count() == 3  # the ep-only position counts as the same (FIDE 9.2.2)
    assert first_key != board.key  # ... but Polyglot keys differ there
    theirs = chess.Board("7k/2p5/8/KP5r/8/8/8/8 b - - 0 1")
    theirs.push_uci("c7c5")
    assert first_key == polyglot.zobrist_hash(theirs)


def _export(tmp_path, pgn: str):
    import subprocess
    import sys
    from pathlib import Path

    source = tmp_path / "games.pgn"
    source.write_text(pgn)
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "pgntools", "export", "--parquet", str(out), str(source)],
                          cwd=Path(__file__).resolve().parent.parent, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return out


def test_export_final_key_is_uint64_in_duckdb_and_equals_zobrist_hash(tmp_path):
    duckdb = pytest.importorskip("duckdb")
    games = [
        "1. e4 d5 2. e5 f5 *",  # ends with an en-passant capture possible (exf6)
        "1. d4 Nf6 2. c4 e6 3. Nc3 Bb4 4. Qc2 O-O 5. a3 Bxc3+ 6. Qxc3 b6 *",
        "1. f3 e5 2. g4 Qh4# 0-1",
        '[SetUp "1"]\n[FEN "7k/2p5/8/KP5r/8/8/8/8 b - - 0 1"]\n\n1... c5 *',  # pinned pawn: Polyglot ep
    ]
    out = _export(tmp_path, "\n\n".join(games) + "\n")
    rows = duckdb.sql(f"SELECT game_id, final_fen, final_key, typeof(final_key) FROM "
                      f"read_parquet('{out}/games/*.parquet') ORDER BY game_id").fetchall()
    assert [r[0] for r in rows] == [0, 1, 2, 3]
    assert {r[3] for r in rows} == {"UBIGINT"}
    import io
    import chess.pgn

    for (_, fen, key, _), text in zip(rows, games):
        # replayed by python-chess: the FEN alone cannot say that the last game's ep file counts
        board = chess.pgn.read_game(io.StringIO(text)).end().board()
        assert board.fen() == fen
        assert key == polyglot.zobrist_hash(board), fen
    assert rows[3][2] != polyglot.zobrist_hash(chess.Board(rows[3][1]))  # Polyglot ep, not in the FEN
    # an equality filter on a key above 2**63 finds its game (no signed statistics misleading DuckDB)
    big = [key for _, _, key, _ in rows if key >= 2 ** 63]
    for key in big:
        found = duckdb.sql(f"SELECT count(*) FROM read_parquet('{out}/games/*.parquet') WHERE final_key = {key}").fetchall()
        assert found == [(1,)]


def test_export_with_keys_moves_key_is_ubigint_and_zobrist_hash_every_ply(tmp_path):
    """--with-keys: moves.key is the key of the position after each move (DuckDB: UBIGINT); the
    last ply's is the game's final_key."""
    import io
    import subprocess
    import sys
    from pathlib import Path

    import chess.pgn

    duckdb = pytest.importorskip("duckdb")
    games = [
        "1. e4 d5 2. e5 f5 3. exf6 *",  # en passant possible after 2...f5, then taken
        "1. e4 e5 2. Nf3 Nc6 3. Bc4 Nf6 4. O-O Be7 5. Re1 O-O 6. d4 exd4 *",
        '[SetUp "1"]\n[FEN "7k/2p5/8/KP5r/8/8/8/8 b - - 0 1"]\n\n1... c5 2. Ka4 *',  # Polyglot ep on a pin
        "1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0",
    ]
    source = tmp_path / "games.pgn"
    source.write_text("\n\n".join(games) + "\n")
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "pgntools", "export", "--with-keys", "--parquet", str(out), str(source)],
                          cwd=Path(__file__).resolve().parent.parent, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    rows = duckdb.sql(f"SELECT game_id, ply, key, typeof(key) FROM read_parquet('{out}/moves/*.parquet') "
                      "ORDER BY game_id, ply").fetchall()
    assert {r[3] for r in rows} == {"UBIGINT"}
    expected = []
    for game_id, text in enumerate(games):
        game = chess.pgn.read_game(io.StringIO(text))
        board = game.board()
        for ply, move in enumerate(game.mainline_moves(), 1):
            board.push(move)
            expected.append((game_id, ply, polyglot.zobrist_hash(board), "UBIGINT"))
    assert rows == expected
    finals = duckdb.sql(f"SELECT count(*) FROM read_parquet('{out}/games/*.parquet') g JOIN "
                        f"(SELECT game_id, max(ply) AS ply FROM read_parquet('{out}/moves/*.parquet') GROUP BY 1) l "
                        f"USING (game_id) JOIN read_parquet('{out}/moves/*.parquet') m USING (game_id, ply) "
                        "WHERE m.key = g.final_key").fetchall()
    assert finals == [(len(games),)]
    # without --with-keys: no key column
    plain = tmp_path / "plain"
    subprocess.run([sys.executable, "-m", "pgntools", "export", "--parquet", str(plain), str(source)],
                   cwd=Path(__file__).resolve().parent.parent, check=True, capture_output=True, timeout=120)
    names = [r[0] for r in duckdb.sql(f"DESCRIBE SELECT * FROM read_parquet('{plain}/moves/*.parquet')").fetchall()]
    assert "key" not in names and "san" in names
