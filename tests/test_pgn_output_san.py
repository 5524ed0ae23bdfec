"""The SAN that `validate -o` writes is python-chess's SAN of the same move (the oracle), for the
mainline moves -o makes in one pass and writes by their own text (replay.c, pgn_mainline_move)
and for those it formats (Nbd7 where Nd7 is unique, e8Q, 0-0, long algebraic, ...)."""
from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from conftest import CHESS_REASON, CORPORA_DIR, REPO_ROOT, head_games, require_corpora
from pgntools.cli import cli

RESULT = re.compile(r"^(1-0|0-1|1/2-1/2|\*)$")
MOVE_NUMBER = re.compile(r"^\d+\.(\.\.)?$")


def written_sans(pgn_text: str) -> list:
    """The move texts of each game of an export-format PGN written without comments or variations."""
    games, moves, in_tags = [], [], False
    for line in pgn_text.splitlines():
        if line.startswith("["):
            if moves:
                games.append(moves)
                moves = []
            in_tags = True
            continue
        in_tags = False
        for word in line.split():
            if not (MOVE_NUMBER.match(word) or RESULT.match(word) or word.startswith("$")):  # (NAGs)
                moves.append(word)
    if moves or in_tags:
        games.append(moves)
    return games


def python_chess_sans(game) -> list:
    board = game.board()
    sans = []
    for move in game.mainline_moves():
        sans.append(board.san(move))
        board.push(move)
    return sans


def check_file(tmp_path, path, limit):
    pytest.importorskip("chess", reason=CHESS_REASON)
    games = head_games(path, limit)
    source = tmp_path / "in.pgn"
    source.write_bytes(b"".join(raw for _game, raw in games))
    out = tmp_path / "out.pgn"
    result = CliRunner().invoke(cli, ["validate", "--no-progress", "--jobs", "1", "--strip-comments",
                                           "--strip-variations", "-o", str(out), str(source)])
    assert result.exit_code in (0, 1), result.output
    written = written_sans(out.read_text(encoding="utf-8"))
    expected = [python_chess_sans(game) for game, _raw in games if not game.errors]
    assert len(written) == len(expected) > 0
    differ = [(i, w, e) for i, (w, e) in enumerate(zip(written, expected)) if w != e]
    assert not differ, f"{len(differ)} games differ; the first: {differ[0]}"


def test_the_sample_pgn(tmp_path):
    check_file(tmp_path, REPO_ROOT / "fixtures" / "sample.pgn", 100)


@pytest.mark.parametrize("name", ["bench/master-games-30k.pgn", "lichess/lichess-magnus-carlsen.pgn",
                                  "edge/stockfish-2moves-v2.pgn"])
def test_corpus_heads(tmp_path, name):
    require_corpora()
    check_file(tmp_path, CORPORA_DIR / name, 1000)
