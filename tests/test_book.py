"""`pgntools book` (issue 19): a Polyglot opening book, read back with python-chess's Polyglot reader
and compared entry by entry with a book built by a python-chess loop from the same games and the
same rule (README: Opening books)."""
from __future__ import annotations

import io
import math
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

from pgntools import _core
from pgntools.book import ENTRY, MAX_WEIGHT, SLOT, START_KEY, read_entries
from pgn_helpers import CORPORA_DIR, CORPORA_REASON

chess = pytest.importorskip("chess")
import chess.pgn  # noqa: E402
import chess.polyglot  # noqa: E402

from test_parallel import corpus_sample, invoke  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
POINTS = {"1-0": (2, 0), "0-1": (0, 2), "1/2-1/2": (1, 1)}  # (White's, Black's) points


def reference_book(pgn: str, max_ply: int, min_games: int = 1) -> dict:
    """{key: {(uci, weight)}} with python-chess: the first max_ply moves of each game from the
    standard start with a result that python-chess replays without an error."""
    played = defaultdict(lambda: [0, 0])  # (key, move) -> [points, times played]
    boards = {}
    stream = io.StringIO(pgn)
    while True:
        game = chess.pgn.read_game(stream)
        if game is None:
            break
        points = POINTS.get(game.headers.get("Result"))
        board = game.board()
        if points is None or game.errors or board.fen() != chess.STARTING_FEN or "FEN" in game.headers:
            continue
        for ply, move in enumerate(game.mainline_moves()):
            if ply >= max_ply:
                break
            key = chess.polyglot.zobrist_hash(board)
            boards[key] = board.copy(stack=False)
            entry = played[(key, move.uci())]
            entry[0] += points[0] if board.turn == chess.WHITE else points[1]
            entry[1] += 1
            board.push(move)
    book = defaultdict(set)
    for (key, uci), (weight, times) in played.items():
        if weight > 0 and times >= min_games:
            book[key].add((uci, weight))
    return dict(book), boards


def book_as_read(path: Path, boards: dict) -> dict:
    """{key: {(uci, weight)}} as python-chess's reader finds them (castling as the board's move)."""
    found = {}
    with chess.polyglot.open_reader(str(path)) as reader:
        for key, board in boards.items():
            entries = {(e.move.uci(), e.weight) for e in reader.find_all(board, minimum_weight=0)}
            if entries:
                found[key] = entries
        total = len(reader)
    return found, total


def sample_games(tmp_path: Path) -> Path:
    if not CORPORA_DIR.is_dir():
        pytest.skip(CORPORA_REASON)
    data = corpus_sample(CORPORA_DIR / "bench" / "master-games-30k.pgn", 300_000) + b"\n\n" + \
        corpus_sample(CORPORA_DIR / "lichess" / "lichess-magnus-carlsen.pgn", 300_000)
    path = tmp_path / "games.pgn"
    path.write_bytes(data)
    return path


@pytest.mark.parametrize("max_ply,min_games", [(12, 1), (30, 2)])
def test_book_equals_a_python_chess_build(tmp_path, max_ply, min_games):
    path = sample_games(tmp_path)
    out = tmp_path / "book.bin"
    invoke(["book", path, "-o", out, "--max-ply", max_ply, "--min-games", min_games])
    want, boards = reference_book(path.read_bytes().decode("utf-8", "replace"), max_ply, min_games)
    got, total = book_as_read(out, boards)
    assert got == want
    assert total == sum(len(moves) for moves in want.values())  # no entry for a position not in the games
    assert any(uci in ("e1g1", "e8g8", "e1c1", "e8c8") for moves in got.values() for uci, _ in moves)


def test_entries_sorted_by_key_then_weight(tmp_path):
    path = sample_games(tmp_path)
    out = tmp_path / "book.bin"
    invoke(["book", path, "-o", out, "--max-ply", "16"])
    entries = read_entries(out)
    assert len(entries) > 1000 and all(learn == 0 for *_, learn in entries)
    assert entries == sorted(entries, key=lambda e: (e[0], -e[2], e[1]))
    assert entries[[e[0] for e in entries].index(START_KEY)][0] == START_KEY  # the start position is in it


def test_promotion_custom_start_unknown_result_and_invalid_games(tmp_path):
    """A promotion within the plies is encoded with its piece; a game from a FEN, one without a
    result and an invalid one add nothing."""
    pgn = (
        '[Result "1-0"]\n\n1. e4 d5 2. exd5 c6 3. dxc6 Nf6 4. cxb7 Nbd7 5. bxa8=N e5 1-0\n\n'
        '[Result "1-0"]\n\n1. e4 d5 2. exd5 c6 3. dxc6 Nf6 4. cxb7 Nbd7 5. bxa8=Q e5 1-0\n\n'
        '[Result "*"]\n\n1. d4 d5 *\n\n'
        '[Result "1-0"]\n\n1. d4 d5 2. Ke3 1-0\n\n'
        '[FEN "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1"]\n[SetUp "1"]\n[Result "0-1"]\n\n1... Nf6 0-1\n')
    path = tmp_path / "g.pgn"
    path.write_text(pgn)
    out = tmp_path / "book.bin"
    invoke(["book", path, "-o", out], expect=(0,))  # the Ke3 game is invalid: counted, exit 0
    want, boards = reference_book(pgn, 24)
    got, total = book_as_read(out, boards)
    assert got == want and total == 6  # White's four shared moves and two promotions; Black only lost
    assert {uci for moves in got.values() for uci, _ in moves} >= {"b7a8n", "b7a8q"}
    d4 = chess.Board()
    d4.push_san("d4")
    assert chess.polyglot.zobrist_hash(d4) not in got  # neither the *-game's d5 nor the FEN game's Nf6


def test_same_book_for_any_jobs(tmp_path):
    path = sample_games(tmp_path)
    books = []
    for jobs in (1, 2, 3):
        out = tmp_path / f"book{jobs}.bin"
        invoke(["book", "--jobs", jobs, "--chunk-bytes", 40_000, path, "-o", out])
        books.append(out.read_bytes())
    assert books[0] and books[0] == books[1] == books[2]


def test_where_selects_the_games(tmp_path):
    path = sample_games(tmp_path)
    out = tmp_path / "book.bin"
    invoke(["book", path, "-o", out, "--where", "white_elo >= 2700", "--max-ply", "2"])
    kept = tmp_path / "kept.pgn"
    invoke(["filter", path, "-o", kept, "--where", "white_elo >= 2700"])
    want, boards = reference_book(kept.read_bytes().decode("utf-8", "replace"), 2)
    got, _ = book_as_read(out, boards)
    assert got == want and 0 < len(got)


def test_weights_scaled_together_when_too_large():
    counts = _core.BookCounts()
    counts.add_parts(b"".join(SLOT.pack(key, points, times, move, 0) for key, points, times, move in
                              [(1, 100_000, 60_000, 10), (1, 50_000, 30_000, 11), (2, 1, 1, 12), (2, 0, 5, 13)]))
    counts.add_parts(SLOT.pack(2, 1, 1, 12, 0))  # the same pair again: added up
    book = counts.polyglot()
    entries = [ENTRY.unpack_from(book, i) for i in range(0, len(book), ENTRY.size)]
    assert entries == [(1, 10, MAX_WEIGHT, 0), (1, 11, math.ceil(50_000 * MAX_WEIGHT / 100_000), 0),
                       (2, 12, math.ceil(2 * MAX_WEIGHT / 100_000), 0)]  # the move that only lost is left out
    assert counts.polyglot(min_count=2) == book[:32] + book[32:]  # every pair here was played twice or more
    assert len(counts.polyglot(min_count=30_001)) == 16


def test_no_games_is_an_empty_book(tmp_path):
    path = tmp_path / "empty.pgn"
    path.write_text("")
    out = tmp_path / "book.bin"
    invoke(["book", path, "-o", out])
    assert out.read_bytes() == b""


def test_usage_errors_before_reading(tmp_path):
    games = tmp_path / "g.pgn"
    games.write_text('[Result "1-0"]\n\n1. e4 1-0\n')
    out = tmp_path / "b.bin"
    for args, says in ((["--max-ply", "0", "-o", out], "--max-ply"), (["--min-games", "0", "-o", out], "--min-games"),
                       ([], "-o"), (["-o", games], "is the input")):
        result = subprocess.run([sys.executable, "-m", "pgntools", "book", str(games), *map(str, args)],
                                cwd=REPO, capture_output=True, text=True)
        assert result.returncode == 2 and says in result.stderr, (args, result.stderr)
        assert not out.exists() and games.read_text().startswith("[Result")
