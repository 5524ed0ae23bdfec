"""to-fen's chosen plies (issue 37): --ply N (the recorder makes only the FENs asked for) and
--every-ply's window (--max-plies, --drop-plies, --start-ply), against python-chess's positions
of random games of the test's own (seeded), across several batches."""
from __future__ import annotations

import json
import random

import pytest
from click.testing import CliRunner

from conftest import CHESS_REASON

chess = pytest.importorskip("chess", reason=CHESS_REASON)

from pgntools.cli import cli  # noqa: E402  (after the importorskip)

N_GAMES = 1500  # (more than one batch of 1024 games)


def random_games(n: int = N_GAMES, seed: int = 37):
    """(PGN text, each game's FENs by ply, from the start) of ``n`` random games of 0-60 plies."""
    rng = random.Random(seed)
    texts, fens = [], []
    for g in range(n):
        board = chess.Board()
        game_fens = [board.fen()]
        sans = []
        for _ in range(rng.randrange(0, 61)):
            moves = list(board.legal_moves)
            if not moves:
                break
            move = rng.choice(moves)
            sans.append(board.san(move))
            board.push(move)
            game_fens.append(board.fen())
        movetext = " ".join(f"{i // 2 + 1}. {san}" if i % 2 == 0 else san for i, san in enumerate(sans))
        texts.append(f'[Event "r{g}"]\n[Result "*"]\n\n{movetext} *\n\n')
        fens.append(game_fens)
    return "".join(texts), fens


@pytest.fixture(scope="module")
def games(tmp_path_factory):
    text, fens = random_games()
    path = tmp_path_factory.mktemp("plies") / "random.pgn"
    path.write_text(text)
    return path, fens


def rows(path, *args):
    result = CliRunner().invoke(cli, ["to-fen", str(path), "--format", "jsonl", "-q", *args])
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.stdout.splitlines()]


def expected(fens, plies):
    return [(g, p, fen) for g, game in enumerate(fens) for p, fen in enumerate(game) if p in plies]


def as_tuples(found):
    return [(r["game_id"], r["ply"], r["fen"]) for r in found]


@pytest.mark.parametrize("asked", [[0], [7], [3, 20, 7], [60, 61]])
def test_ply_rows_are_python_chess_positions(games, asked):
    path, fens = games
    args = [a for p in asked for a in ("--ply", str(p))]
    assert as_tuples(rows(path, *args)) == expected(fens, set(asked))


def test_ply_fen_lines_are_the_rows_fens(games):
    path, fens = games
    result = CliRunner().invoke(cli, ["to-fen", str(path), "--ply", "9", "--ply", "4", "-q"])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [fen for _, _, fen in expected(fens, {4, 9})]


@pytest.mark.parametrize("args, first, last", [
    (["--max-plies", "5"], 0, 5),
    (["--drop-plies", "10"], 10, None),
    (["--start-ply", "11"], 10, None),
    (["--drop-plies", "2", "--max-plies", "6"], 2, 6),
    (["--max-plies", "0"], 0, 0),
])
def test_every_ply_window_is_python_chess_positions(games, args, first, last):
    path, fens = games
    plies = set(range(first, (last if last is not None else 10_000) + 1))
    assert as_tuples(rows(path, "--every-ply", *args)) == expected(fens, plies)


def test_every_ply_window_in_parallel_is_the_same(games):
    path, _ = games
    args = ["--every-ply", "--drop-plies", "3", "--max-plies", "9"]
    assert rows(path, *args, "--jobs", "2", "--chunk-bytes", "65536") == rows(path, *args)


def test_window_with_the_ply_san(games):
    path, _ = games
    found = rows(path, "--every-ply", "--drop-plies", "1", "--max-plies", "1")
    board = chess.Board()
    assert all(r["ply"] == 1 for r in found)
    assert {r["san"] for r in found} <= {board.san(m) for m in board.legal_moves}


@pytest.mark.parametrize("args", [["--max-plies", "5"], ["--drop-plies", "2", "--ply", "3"], ["--start-ply", "2"]])
def test_window_without_every_ply_is_a_usage_error(games, args):
    path, _ = games
    result = CliRunner().invoke(cli, ["to-fen", str(path), *args])
    assert result.exit_code == 2
    assert "give --every-ply" in result.output


def test_window_with_max_before_drop_is_a_usage_error(games):
    path, _ = games
    result = CliRunner().invoke(cli, ["to-fen", str(path), "--every-ply", "--drop-plies", "5", "--max-plies", "3"])
    assert result.exit_code == 2
    assert "--max-plies 3" in result.output


@pytest.mark.parametrize("fields, recorded", [
    ({"fen_plies": (3, 5)}, {3, 5}),
    ({"fen_ply_window": (2, 4)}, {2, 3, 4}),
    ({"fen_plies": (1, 3, 5), "fen_ply_window": (2, -1)}, {3, 5}),
    ({}, set(range(1, 61))),
])
def test_the_recorder_formats_only_the_fens_asked_for(fields, recorded):
    """The reader's per-move FEN column holds the FEN after each ply asked for (python-chess's)
    and an empty string at the others: to-fen --ply N does not format every ply's FEN."""
    import pgntools

    text, fens = random_games(40, seed=5)
    seen = 0
    for batch in pgntools.iter_batches(text.encode(), moves=True, fen_every_ply=True, **fields):
        ply, starts, column = batch.column("ply"), batch.column("move_start"), batch.strings("fen")
        for g in range(batch.n_games):
            end = starts[g + 1] if g + 1 < batch.n_games else len(column)
            for m in range(starts[g], end):
                want = fens[batch.first_game + g][ply[m]] if ply[m] in recorded else ""
                assert column[m] == want, (g, ply[m])
                seen += column[m] != ""
    assert seen > 40
