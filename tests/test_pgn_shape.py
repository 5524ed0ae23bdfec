"""The PGN writer's output options, pgn-extract's (issue 37 B): --strip-nags, --no-check-marks,
--no-move-numbers, --no-results, --no-tags, --line-length. python-chess reads what is written
back: the same moves, comments and variations, less what the option leaves out."""
from __future__ import annotations

import io
import re
import subprocess
import sys
from pathlib import Path

import pytest

from pgn_helpers import CHESS_REASON

chess_pgn = pytest.importorskip("chess.pgn", reason=CHESS_REASON)

REPO = Path(__file__).resolve().parents[1]
GAMES = """[Event "Shapes"]
[Site "?"]
[Date "2024.01.02"]
[Round "1"]
[White "A"]
[Black "B"]
[Result "1-0"]

1. e4 $1 e5 2. Bc4 {a comment with a few words in it, long enough to wrap when the lines are short}
Nc6 $6 (2... Nf6 3. Qf3 $2 (3. d3) 3... Nc6) 3. Qh5 Nf6 $4 4. Qxf7# $18 1-0

[Event "Set up"]
[Site "?"]
[Date "????.??.??"]
[Round "?"]
[White "C"]
[Black "D"]
[Result "*"]
[FEN "4k3/8/8/8/8/8/4P3/4K2R w K - 0 30"]
[SetUp "1"]

30. O-O Kd7 31. Rf7+ Ke6 32. Rb7 $13 *

"""


def run(tmp_path, *args, name="in.pgn"):
    source = tmp_path / name
    source.write_text(GAMES)
    return subprocess.run([sys.executable, "-m", "pgntools", *map(str, args), source], cwd=REPO,
                          capture_output=True, timeout=120)


def written(tmp_path, *options) -> str:
    out = tmp_path / "out.pgn"
    done = run(tmp_path, "validate", "-o", out, *options)
    assert done.returncode == 0, done.stderr
    return out.read_text()


def games_of(text: str) -> list:
    stream, games = io.StringIO(text), []
    while (game := chess_pgn.read_game(stream)) is not None:
        assert not game.errors, game.errors
        games.append(game)
    return games


def lines(node) -> list:
    """Every line of the game tree: (UCI moves, NAGs, comments) of each node, depth first."""
    out = []
    for child in node.variations:
        out.append((child.move.uci(), tuple(sorted(child.nags)), " ".join(child.comment.split())))  # (wrapping aside)
        out.extend(lines(child))
    return out


def plain_games() -> list:
    return games_of(GAMES)


def test_strip_nags_leaves_every_nag_out_and_all_else_in(tmp_path):
    text = written(tmp_path, "--strip-nags")
    assert "$" not in text
    for ours, theirs in zip(games_of(text), plain_games(), strict=True):
        assert lines(ours) == [(m, (), c) for m, _nags, c in lines(theirs)]
        assert dict(ours.headers) == dict(theirs.headers)


def test_no_check_marks_writes_san_without_plus_or_hash(tmp_path):
    text = written(tmp_path, "--no-check-marks")
    movetext = "\n".join(line for line in text.splitlines() if not line.startswith("["))
    assert "Qxf7 " in movetext and "Rf7 " in movetext and not re.search(r"[a-h1-8O][+#]", movetext)
    for ours, theirs in zip(games_of(text), plain_games(), strict=True):
        assert lines(ours) == lines(theirs)  # (python-chess reads SAN without the marks)


def test_no_move_numbers(tmp_path):
    text = written(tmp_path, "--no-move-numbers")
    movetext = "\n".join(line for line in text.splitlines() if not line.startswith("["))
    assert not re.search(r"\d+\.", movetext.replace("2024.01.02", "")), movetext
    assert movetext.split()[:3] == ["e4", "$1", "e5"]
    for ours, theirs in zip(games_of(text), plain_games(), strict=True):
        assert lines(ours) == lines(theirs)


def test_no_results_keeps_the_result_tag(tmp_path):
    text = written(tmp_path, "--no-results")
    blocks = [b for b in text.split("\n\n") if b.strip()]
    movetexts = [b for b in blocks if not b.startswith("[")]
    assert len(movetexts) == 2 and not any(m.rstrip().endswith(("1-0", "*")) for m in movetexts), movetexts
    assert '[Result "1-0"]' in text and '[Result "*"]' in text
    for ours, theirs in zip(games_of(text), plain_games(), strict=True):
        assert lines(ours) == lines(theirs) and ours.headers["Result"] == theirs.headers["Result"]


def test_no_tags_writes_the_movetext_alone(tmp_path):
    text = written(tmp_path, "--no-tags")
    assert "[" not in text and text.count("\n\n") == 2
    first, second = text.split("\n\n")[:2]
    assert first.startswith("1. e4 $1 e5") and first.endswith("1-0")
    assert second.startswith("30. O-O Kd7")  # (the start position is the FEN tag's: left out with it)
    ours = chess_pgn.read_game(io.StringIO(first))
    assert lines(ours) == lines(plain_games()[0]) and not ours.errors


@pytest.mark.parametrize("width", [20, 40, 79, 120])
def test_line_length_wraps_the_movetext(tmp_path, width):
    text = written(tmp_path, "--line-length", width)
    movetext = [line for line in text.splitlines() if line and not line.startswith("[")]
    longest_word = max(len(w) for line in movetext for w in line.split())
    assert all(len(line) <= max(width, longest_word) for line in movetext), movetext
    assert any(len(line) > width - 12 for line in movetext)  # the room is used
    for ours, theirs in zip(games_of(text), plain_games(), strict=True):
        assert lines(ours) == lines(theirs)


def test_line_length_0_writes_each_movetext_on_one_line(tmp_path):
    text = written(tmp_path, "--line-length", 0)
    blocks = [b for b in text.split("\n\n") if b.strip()]
    movetexts = [b for b in blocks if not b.startswith("[")]
    assert len(movetexts) == 2 and all("\n" not in m for m in movetexts)
    assert len(movetexts[0]) > 150
    for ours, theirs in zip(games_of(text), plain_games(), strict=True):
        assert lines(ours) == lines(theirs)


def test_the_default_is_unchanged_by_the_options_machinery(tmp_path):
    assert written(tmp_path) == written(tmp_path, "--line-length", 79)


def test_options_combine(tmp_path):
    text = written(tmp_path, "--strip-nags", "--no-check-marks", "--no-move-numbers", "--no-results", "--no-tags",
                   "--line-length", 0, "--strip-comments", "--strip-variations")
    assert text.split("\n\n")[0] == "e4 e5 Bc4 Nc6 Qh5 Nf6 Qxf7"


@pytest.mark.parametrize("command", ["filter", "split"])
def test_filter_and_split_shape_what_normalize_writes(tmp_path, command):
    out = tmp_path / ("out.pgn" if command == "filter" else "{n}.pgn")
    extra = ["--games", "5"] if command == "split" else []
    done = run(tmp_path, command, "-o", out, *extra, "--normalize", "--no-move-numbers", "--strip-nags")
    assert done.returncode == 0, done.stderr
    text = (tmp_path / ("out.pgn" if command == "filter" else "1.pgn")).read_text()
    assert text.count("[Event ") == 2 and "$" not in text and not re.search(r"\b\d+\.(?!\d)", text.split("\n\n")[1])


BAD = [
    (["validate", "--strip-nags"], "--strip-nags shapes the PGN of -o, and no -o is given"),
    (["validate", "-o", "{tmp}/x.pgn", "--no-tags", "--reduced"], "--no-tags and --reduced cannot both hold"),
    (["filter", "-o", "{tmp}/x.pgn", "--no-tags"], "--no-tags shapes the export-format PGN of --normalize"),
    (["split", "-o", "{tmp}/{{n}}.pgn", "--games", "1", "--line-length", "40"], "add --normalize"),
    (["validate", "-o", "{tmp}/x.pgn", "--line-length", "-1"], "--line-length"),
]


@pytest.mark.parametrize("args, message", BAD)
def test_conflicting_shape_options_are_usage_errors(tmp_path, args, message):
    done = run(tmp_path, *[a.format(tmp=tmp_path) for a in args])
    assert done.returncode == 2 and message in done.stderr.decode(), done.stderr
    assert not [p for p in tmp_path.iterdir() if p.name != "in.pgn"]


def test_add_tags_plycount_and_hashcode_match_python_chess(tmp_path):
    import chess.polyglot

    text = written(tmp_path, "--add-tags", "plycount,hashcode")
    for ours, theirs in zip(games_of(text), plain_games(), strict=True):
        board = theirs.end().board()
        assert ours.headers["PlyCount"] == str(board.ply() - theirs.board().ply())
        assert ours.headers["HashCode"] == f"{chess.polyglot.zobrist_hash(board):016x}"
    tags = [line.split()[0][1:] for line in text.split("\n\n")[0].splitlines()]
    assert tags[7:] == sorted(tags[7:]) and "PlyCount" in tags and "HashCode" in tags  # (after the roster, in order)
    again = tmp_path / "again.pgn"  # a game's own PlyCount is replaced, not doubled
    again.write_text(text.replace('[PlyCount "7"]', '[PlyCount "99"]'))
    done = subprocess.run([sys.executable, "-m", "pgntools", "validate", again, "-o", "-", "--add-tags", "plycount"],
                          cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.stdout.count("[PlyCount ") == 2 and '[PlyCount "7"]' in done.stdout and "99" not in done.stdout


def test_add_tags_names_the_tags_it_knows(tmp_path):
    done = run(tmp_path, "validate", "-o", tmp_path / "x.pgn", "--add-tags", "plycount,eventdate")
    assert done.returncode == 2 and b"eventdate: the tags it adds are plycount, hashcode" in done.stderr


def test_fen_and_key_comments_match_python_chess(tmp_path):
    import chess.polyglot

    def nodes(node):
        for child in node.variations:
            yield child
            yield from nodes(child)

    text = written(tmp_path, "--fen-comments", "--key-comments", "--strip-comments")
    compared = 0
    for ours, theirs in zip(games_of(text), plain_games(), strict=True):
        assert lines(ours) != [] and [m for m, _n, _c in lines(ours)] == [m for m, _n, _c in lines(theirs)]
        for node in nodes(ours):  # the mainline and the variations
            board = node.board()
            assert node.comment.split() == [*board.fen().split(), f"{chess.polyglot.zobrist_hash(board):016x}"]
            compared += 1
    assert compared == 7 + 4 + 5  # the plies of both games and the 4 moves of the first one's variations
    assert "1... e5" in text.replace("\n", " ")  # Black's move after a comment keeps its number


def test_notation_uci_writes_the_moves_python_chess_reads_back(tmp_path):
    text = written(tmp_path, "--notation", "uci")
    for ours, theirs in zip(games_of(text), plain_games(), strict=True):
        assert lines(ours) == lines(theirs)
    movetext = text.split("\n\n")[1]
    assert movetext.startswith("1. e2e4 $1 e7e5 2. f1c4 {a comment") and "4. h5f7 $18 1-0" in movetext.replace("\n", " ")
    assert "30. e1g1 e8d7" in text  # castling as the king's move
    assert written(tmp_path, "--notation", "san") == written(tmp_path)
