"""--split-variations (issue 37 B; pgn-extract --splitvariants): each variation a game of its own.
python-chess gives the lines each game should hold; pgn-extract (when installed) writes the same
movetext; the mainline's game is what --strip-variations writes, byte for byte."""
from __future__ import annotations

import subprocess
import sys

import pytest

from test_pgn_shape import GAMES, REPO, games_of, written
from test_pgn_shape_plies import EXTRACT_GAME, PGN_EXTRACT, movetext_words

DEEP = """[Event "Deep"]
[Site "?"]
[Date "????.??.??"]
[Round "?"]
[White "?"]
[Black "?"]
[Result "0-1"]

1. d4 {a} d5 (1... Nf6 2. c4 (2. Nf3 g6 (2... e6 3. g3) 3. g3) 2... e6) (1... f5 $2) 2. c4 e6 3. Nc3
(3. Nf3 Nf6 {b}) 3... Nf6 0-1

"""


def reorder(game) -> list:
    """The UCI moves of each game --split-variations writes, in order: the mainline, then each
    variation (the moves leading to it, then its own mainline) in the order of the moves they
    replace, each with its own variations right after it (depth first)."""
    out = []

    def line_games(start_node, path):
        # start_node: the first node of a line; path: the moves before it
        nodes = [start_node]
        while nodes[-1].variations:
            nodes.append(nodes[-1].variations[0])
        moves = path + [n.move.uci() for n in nodes]
        out.append(moves)
        for k, node in enumerate(nodes):
            if node.parent.variations[0] is not node:  # (the line's own first move: an alternative itself)
                continue
            for alternative in node.parent.variations[1:]:
                line_games(alternative, path + [n.move.uci() for n in nodes[:k]])

    line_games(game.variations[0], [])
    return out


@pytest.mark.parametrize("text", [GAMES, DEEP])
def test_each_variation_is_a_game_of_the_moves_that_lead_to_it(tmp_path, text):
    source = tmp_path / "in.pgn"
    source.write_text(text)
    out = tmp_path / "o.pgn"
    done = subprocess.run([sys.executable, "-m", "pgntools", "validate", source, "-o", out, "--split-variations"],
                          cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    expected = [(lines, game.headers["Result"] if k == 0 else "*") for game in games_of(text)
                for k, lines in enumerate(reorder(game))]
    got = games_of(out.read_text())
    assert [[m.uci() for m in g.mainline_moves()] for g in got] == [lines for lines, _ in expected]
    assert [g.headers["Result"] for g in got] == [result for _, result in expected]
    for g in got:
        assert all(len(node.variations) <= 1 for node in g.mainline())  # (no variation left)


def test_the_mainline_game_is_what_strip_variations_writes(tmp_path):
    split = written(tmp_path, "--split-variations").split("\n\n")
    stripped = written(tmp_path, "--strip-variations").split("\n\n")
    assert split[:2] == stripped[:2]  # the first game's tags and movetext, byte for byte
    assert len(games_of("\n\n".join(split))) == 4  # 1 + its 2 variations, and the second game


@pytest.mark.skipif(PGN_EXTRACT is None, reason="pgn-extract is not installed")
@pytest.mark.parametrize("text", [EXTRACT_GAME, DEEP, GAMES])
def test_the_same_games_as_pgn_extract(tmp_path, text):
    source = tmp_path / "g.pgn"
    source.write_text(text)
    out = tmp_path / "o.pgn"
    done = subprocess.run([sys.executable, "-m", "pgntools", "validate", source, "-o", out, "--split-variations"],
                          cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    theirs = subprocess.run([PGN_EXTRACT, "-s", "--splitvariants", str(source)], capture_output=True, text=True)
    ours_games, their_games = out.read_text().split("\n\n[")[0:], theirs.stdout.split("\n\n[")
    assert len(ours_games) == len(their_games)
    for a, b in zip(ours_games, their_games):
        assert movetext_words(a) == movetext_words(b)
    assert out.read_text().count('[Result "*"]') == theirs.stdout.count('[Result "*"]')


def test_split_variations_with_add_tags_is_a_usage_error(tmp_path):
    source = tmp_path / "in.pgn"
    source.write_text(GAMES)
    done = subprocess.run([sys.executable, "-m", "pgntools", "validate", source, "-o", tmp_path / "o",
                           "--split-variations", "--add-tags", "plycount"], cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 2 and "--add-tags and --split-variations" in done.stderr
