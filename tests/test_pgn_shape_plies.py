"""The PGN writer's ply window and long algebraic moves (issue 37 B): --max-plies, --drop-plies,
--start-ply, --notation lan. python-chess reads what is written back; pgn-extract (when installed)
writes the same moves for --plylimit, --dropply and -Wxolalg."""
from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from test_pgn_shape import chess_pgn, games_of, plain_games, run, written

chess = pytest.importorskip("chess")
PGN_EXTRACT = shutil.which("pgn-extract") or shutil.which("/usr/games/pgn-extract")


def mainline_uci(game) -> list:
    return [move.uci() for move in game.mainline_moves()]


@pytest.mark.parametrize("limit", [0, 1, 2, 3, 5, 7, 20])
def test_max_plies_writes_the_first_plies_and_result_star_when_cut(tmp_path, limit):
    before = plain_games()
    after = games_of(written(tmp_path, "--max-plies", limit))
    assert len(after) == len(before)
    for old, new in zip(before, after):
        moves = mainline_uci(old)
        assert mainline_uci(new) == moves[:limit]
        cut = len(moves) > limit
        assert new.headers["Result"] == ("*" if cut else old.headers["Result"])
        assert new.board().fen() == old.board().fen()  # (the start position stays)


def test_max_plies_keeps_the_variations_of_the_plies_written(tmp_path):
    # the first game: 2... Nc6 (2... Nf6 3. Qf3 (3. d3) 3... Nc6); ply 4 is kept with its variation
    new = games_of(written(tmp_path, "--max-plies", 4))[0]
    fourth = new.next().next().next().next()
    assert [v.move.uci() for v in fourth.parent.variations] == ["b8c6", "g8f6"]
    assert fourth.next() is None
    shorter = games_of(written(tmp_path, "--max-plies", 3))[0]
    assert len(shorter.next().next().next().variations) == 0  # (3 plies: the variation of ply 4 goes)


@pytest.mark.parametrize("drop", [1, 2, 3, 4, 6])
def test_drop_plies_starts_from_the_position_python_chess_reaches(tmp_path, drop):
    before = plain_games()
    after = games_of(written(tmp_path, "--drop-plies", drop))
    for old, new in zip(before, after):
        moves = list(old.mainline_moves())
        board = old.board()
        for move in moves[:drop]:
            board.push(move)
        assert new.headers["SetUp"] == "1"
        assert new.board().fen() == board.fen()
        assert mainline_uci(new) == [m.uci() for m in moves[drop:]]
        assert new.headers["Result"] == old.headers["Result"]


def test_start_ply_is_drop_plies_less_one(tmp_path):
    assert written(tmp_path, "--start-ply", 4) == written(tmp_path, "--drop-plies", 3)
    assert written(tmp_path, "--start-ply", 1) == written(tmp_path)


def test_drop_plies_beyond_a_game_writes_its_final_position_with_a_note(tmp_path):
    text = written(tmp_path, "--drop-plies", 8)
    old, new = plain_games()[0], games_of(text)[0]  # the first game has 7 plies
    assert new.board().fen() == old.end().board().fen()
    assert mainline_uci(new) == []
    assert "the game has 7 plies, --drop-plies 8" in " ".join(new.comment.split())


def test_window_and_plycount_hashcode(tmp_path):
    text = written(tmp_path, "--drop-plies", 1, "--max-plies", 5, "--add-tags", "plycount,hashcode")
    for old, new in zip(plain_games(), games_of(text)):
        moves = list(old.mainline_moves())
        assert int(new.headers["PlyCount"]) == len(moves[1:5])
        board = old.board()
        for move in moves[:5]:
            board.push(move)
        from chess.polyglot import zobrist_hash
        assert new.headers["HashCode"] == f"{zobrist_hash(board):016x}"


def test_window_with_reduced_keeps_fen_and_setup(tmp_path):
    text = written(tmp_path, "--reduced", "--drop-plies", 2)
    assert text.count('[SetUp "1"]') == 2 and text.count("[FEN ") == 2


BAD = [(["--drop-plies", "2", "--start-ply", "3"], "say the same thing"),
       (["--drop-plies", "4", "--max-plies", "3"], "--max-plies 3 ends the games before")]


@pytest.mark.parametrize("args, message", BAD)
def test_conflicting_ply_options_are_usage_errors(tmp_path, args, message):
    done = run(tmp_path, "validate", "-o", tmp_path / "o.pgn", *args)
    assert done.returncode == 2 and message in done.stderr.decode()


def lan_of(board, move) -> str:
    """Long algebraic notation by python-chess's board: Ng1-f3, e4xd5, e7-e8=Q, O-O; + and #."""
    if board.is_castling(move):
        text = "O-O" if board.is_kingside_castling(move) else "O-O-O"
    else:
        piece = board.piece_type_at(move.from_square)
        text = ("" if piece == chess.PAWN else chess.piece_symbol(piece).upper()) + chess.square_name(move.from_square)
        text += ("x" if board.is_capture(move) else "-") + chess.square_name(move.to_square)
        text += f"={chess.piece_symbol(move.promotion).upper()}" if move.promotion else ""
    board.push(move)
    text += "#" if board.is_checkmate() else "+" if board.is_check() else ""
    board.pop()
    return text


def test_notation_lan_writes_each_move_as_python_chess_spells_it(tmp_path):
    text = written(tmp_path, "--notation", "lan", "--strip-comments")
    expected = []
    for game in plain_games():
        def walk(node):
            for child in node.variations:
                expected.append(lan_of(node.board(), child.move))
                walk(child)
        walk(game)
    words = re.findall(r"(?<![\[\"])\b(?:[KQRBN]?[a-h][1-8][-x][a-h][1-8](?:=[QRBN])?|O-O(?:-O)?)[+#]?", text)
    assert sorted(words) == sorted(expected)
    for old, new in zip(plain_games(), games_of(text)):  # (python-chess reads long algebraic back)
        assert mainline_uci(new) == mainline_uci(old)


def test_notation_lan_promotion_and_castling(tmp_path):
    source = tmp_path / "p.pgn"
    source.write_text('[FEN "r3k3/1P6/8/8/8/8/8/R3K2R w KQq - 0 1"]\n[SetUp "1"]\n\n'
                      "1. bxa8=Q+ Ke7 2. O-O-O Kf6 3. Qh8+ *\n\n")
    out = tmp_path / "o.pgn"
    done = subprocess.run(["python", "-m", "pgntools", "validate", source, "-o", out, "--notation", "lan"],
                          capture_output=True)
    assert done.returncode == 0, done.stderr
    assert "1. b7xa8=Q+ Ke8-e7 2. O-O-O Ke7-f6 3. Qa8-h8+ *" in out.read_text()


# ---------------------------------------------------------------- against pgn-extract

def movetext_words(text: str) -> list:
    """The moves, NAGs, numbers, comments (their words) and parentheses of PGN text, tags and
    result left out: how two writers' output compares whatever their wrapping."""
    body = "\n".join(line for line in text.splitlines() if not line.startswith("["))
    body = re.sub(r"\{\s*", "{ ", re.sub(r"\s*\}", " }", body))
    words = body.replace("(", " ( ").replace(")", " ) ").split()
    return [w for w in words if w not in ("1-0", "0-1", "1/2-1/2", "*")]


EXTRACT_GAME = """[Event "T"]
[Site "?"]
[Date "2020.01.01"]
[Round "1"]
[White "A"]
[Black "B"]
[Result "1-0"]

1. e4 {first} e5 (1... c5 2. Nf3 (2. c3 d5) d6) 2. Nf3 Nc6 $1 3. Bb5 a6 (3... Nf6 4. O-O)
4. Bxc6 dxc6 5. O-O f6 6. d4 exd4 7. Nxd4 c5 8. Qh5+ g6 9. Qxc5 1-0

"""


@pytest.mark.skipif(PGN_EXTRACT is None, reason="pgn-extract is not installed")
@pytest.mark.parametrize("ours, theirs", [(["--max-plies", "5"], ["--plylimit", "5"]),
                                          (["--max-plies", "12"], ["--plylimit", "12"]),
                                          (["--drop-plies", "3"], ["--dropply", "3"]),
                                          (["--drop-plies", "8"], ["--dropply", "8"]),
                                          (["--notation", "lan"], ["-Wxolalg"])])
def test_the_same_moves_as_pgn_extract(tmp_path, ours, theirs):
    source = tmp_path / "g.pgn"
    source.write_text(EXTRACT_GAME)
    out = tmp_path / "o.pgn"
    done = subprocess.run(["python", "-m", "pgntools", "validate", source, "-o", out, *ours], capture_output=True)
    assert done.returncode == 0, done.stderr
    extract = subprocess.run([PGN_EXTRACT, "-s", *theirs, str(source)], capture_output=True, text=True)
    assert extract.returncode == 0, extract.stderr
    assert movetext_words(out.read_text()) == movetext_words(extract.stdout)
    tags = dict(re.findall(r'^\[(\w+) "(.*)"\]$', extract.stdout, re.M))
    if "FEN" in tags:
        assert f'[FEN "{tags["FEN"]}"]' in out.read_text()
