"""`--dedup moves|position` and the movetext_hash column (issue 18), through the real command
line: the games dropped are those python-chess says repeat an earlier game (start position and
mainline UCI moves) on a corpus merged with itself and a shuffled copy; filter keeps the first
copies byte for byte; the report names each dropped game and the game it repeats; the hash is of
the moves as played, not of their text."""
from __future__ import annotations

import io
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
from corpora_dir import CORPORA_DIR as CORPORA  # noqa: E402

A = '[Event "A"]\n[Result "*"]\n\n1. e4 e5 2. Nf3 Nc6 *\n\n'
A_UCI = '[Event "A again"]\n[Result "*"]\n\n1. e2e4 {a comment} e7e5 $1 2. Ng1f3 (2. Nc3) 2... Nc6 *\n\n'
TRANSPOSED = '[Event "T"]\n[Result "*"]\n\n1. Nf3 Nc6 2. e4 e5 *\n\n'  # A's final position, other moves
FROM_FEN = ('[Event "F"]\n[SetUp "1"]\n[FEN "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1"]\n'
            '[Result "*"]\n\n1. e4 e5 2. Nf3 Nc6 *\n\n')  # A's moves, another start (no castling rights)
ILLEGAL = '[Event "I"]\n[Result "*"]\n\n1. e4 e5 2. Ke3 *\n\n'


def pgntools(*args, input=None):
    return subprocess.run([sys.executable, "-m", "pgntools", *map(str, args)], cwd=REPO, input=input,
                          capture_output=True)


def report(path: Path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def duplicates(path: Path):
    return {r["game"]: r["duplicate_of"] for r in report(path) if r["status"] == "duplicate"}


@pytest.fixture
def small(tmp_path):
    path = tmp_path / "in.pgn"
    path.write_text(A + A_UCI + TRANSPOSED + FROM_FEN + ILLEGAL + ILLEGAL + A)
    return path


def test_moves_mode_drops_the_same_moves_whatever_their_text(small, tmp_path):
    out, rep = tmp_path / "out.pgn", tmp_path / "r.jsonl"
    result = pgntools("filter", small, "--dedup", "moves", "-o", out, "--report", rep)
    assert result.returncode == 0, result.stderr  # (the illegal games are invalid, and kept)
    assert duplicates(rep) == {1: 0, 6: 0}
    dropped = [r for r in report(rep) if r["status"] == "duplicate"]
    assert dropped[0]["offset"] == len(A) and dropped[0]["line"] == 6 and dropped[0]["dedup"] == "moves"
    # the kept games byte for byte: the input without the dropped ones
    assert out.read_bytes() == (A + TRANSPOSED + FROM_FEN + ILLEGAL + ILLEGAL).encode()


def test_position_mode_drops_transpositions(small, tmp_path):
    rep = tmp_path / "r.jsonl"
    pgntools("validate", small, "--dedup", "position", "--report", rep)
    # TRANSPOSED reaches A's final position; FROM_FEN's differs (no castling rights)
    assert duplicates(rep) == {1: 0, 2: 0, 6: 0}


def test_summary_counts_the_kept_games(small, tmp_path):
    result = pgntools("validate", small, "--dedup", "moves", "--summary", "-")
    summary = json.loads(result.stdout)
    assert (summary["games"], summary["read"], summary["dropped"]) == (5, 7, 2)


def test_dedup_comes_after_where_and_before_limit(small, tmp_path):
    rep = tmp_path / "r.jsonl"
    # --where drops game 0: its copy (game 1) is then the first
    pgntools("validate", small, "--dedup", "moves", "--where", "event != 'A'", "--report", rep)
    assert duplicates(rep) == {}
    out = tmp_path / "two.pgn"
    pgntools("filter", small, "--dedup", "moves", "--limit", "2", "-o", out)
    assert out.read_bytes() == (A + TRANSPOSED).encode()


def test_movetext_hash_column(small, tmp_path):
    duckdb = pytest.importorskip("duckdb")
    pgntools("export", small, "--parquet", tmp_path / "ds")
    rows = duckdb.sql(f"SELECT game_id, movetext_hash FROM '{tmp_path}/ds/games/*.parquet' ORDER BY game_id").fetchall()
    hashes = [h for _, h in rows]
    assert hashes[0] == hashes[1] == hashes[6] and None not in hashes[:4]
    assert len({hashes[0], hashes[2], hashes[3]}) == 3  # other moves; the same moves from another start
    assert hashes[4] is None and hashes[5] is None      # not replayed to the end
    # the SQL way gives what --dedup gives: the first game of each hash
    first = duckdb.sql(f"SELECT min(game_id) FROM '{tmp_path}/ds/games/*.parquet' WHERE movetext_hash IS NOT NULL "
                       "GROUP BY movetext_hash ORDER BY 1").fetchall()
    assert [g for (g,) in first] == [0, 2, 3]


def test_where_can_name_the_hash(small, tmp_path):
    duckdb = pytest.importorskip("duckdb")
    pgntools("export", small, "--parquet", tmp_path / "ds", "--columns", "movetext_hash")
    (h,), = duckdb.sql(f"SELECT movetext_hash FROM '{tmp_path}/ds/games/*.parquet' WHERE game_id = 0").fetchall()
    out = tmp_path / "copies.pgn"
    pgntools("filter", small, "--where", f"movetext_hash = {h}", "-o", out)
    assert out.read_bytes() == (A + A_UCI + A).encode()


def test_same_output_for_any_jobs(small, tmp_path):
    """(More in test_dedup_parallel.py, and on a Dask cluster in test_dask.py.)"""
    outs = []
    for jobs in (1, 2, 4):
        out, rep = tmp_path / f"j{jobs}.pgn", tmp_path / f"j{jobs}.jsonl"
        pgntools("filter", small, "--dedup", "moves", "-o", out, "--report", rep, "--jobs", jobs, "--chunk-bytes", 64)
        outs.append((out.read_bytes(), rep.read_bytes()))
    assert outs[0] == outs[1] == outs[2]
    assert duplicates(tmp_path / "j4.jsonl") == {1: 0, 6: 0}


def _python_chess_keys(text: str):
    """Each game python-chess reads: (its start position, Chess960, mainline UCI moves), None when invalid."""
    chess_pgn = pytest.importorskip("chess.pgn")
    keys, stream = [], io.StringIO(text)
    while True:
        game = chess_pgn.read_game(stream)
        if game is None:
            return keys
        board = game.board()
        moves = [board.uci(m, chess960=board.chess960) for m in game.mainline_moves()]
        fen = board.fen().split(" ")[:4]
        keys.append(None if game.errors else (tuple(fen), board.chess960, tuple(moves)))


@pytest.mark.skipif(not CORPORA.exists(), reason="needs ../shared/corpora")
@pytest.mark.parametrize("name", ["chess960/tcec-season24-frc.pgn", "engine/tcec-sample.pgn"])
def test_differential_against_python_chess(name, tmp_path):
    chess_pgn = pytest.importorskip("chess.pgn")
    text = (CORPORA / name).read_text(encoding="utf-8", errors="replace")
    games, stream = [], io.StringIO(text)
    while (game := chess_pgn.read_game(stream)) is not None:
        games.append(str(game))  # python-chess's own export: other text, the same moves
    random.Random(7).shuffle(games)
    merged = text.rstrip("\n") + "\n\n" + text.rstrip("\n") + "\n\n" + "\n\n".join(games) + "\n"
    path = tmp_path / "merged.pgn"
    path.write_text(merged, encoding="utf-8")
    keys = _python_chess_keys(merged)
    expected, first = {}, {}
    for game_id, key in enumerate(keys):
        if key is None:
            continue
        if key in first:
            expected[game_id] = first[key]
        else:
            first[key] = game_id
    rep = tmp_path / "r.jsonl"
    result = pgntools("validate", path, "--dedup", "moves", "--report", rep)
    assert result.returncode in (0, 1), result.stderr
    assert len(expected) >= 2 * len(games) - 2
    assert duplicates(rep) == expected
