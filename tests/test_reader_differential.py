"""The reader against python-chess on every PGN file of the shared corpora.

For each game pgntools reads, python-chess reads the game that starts at the same byte offset;
the mainline UCI must be the same, or the difference must be one of the classes below, each
checked on its own terms (and each shown on a small hand-written input at the end of this file):

- pgntools stops at an automatic end of the game (FIDE 9.6: checkmate, stalemate, dead
  position, 75-move rule, fivefold repetition) that python-chess plays through: python-chess's
  own board must say the game was over at that point.
- null moves (``--``, ``Z0``) are errors in standard chess; python-chess accepts them.
- Variant games (Atomic, Crazyhouse, ... : every Lichess variant) are compared like chess games, on
  python-chess's variant board; a variant pgntools calls ``unsupported_variant`` is a problem.
- python-chess splits a game in two (a blank line after a comment or a second blank line
  between the tags and the moves): its two halves must be our one game.
- pgntools is stricter about a token: python-chess stopped (or skipped) at text that its own
  SAN parser rejects too.

Game counts must equal python-chess's once its splits are accounted for, except in the files
listed in PYTHON_CHESS_WRONG, where python-chess merges or loses games; there the count we
must give was worked out by hand.

Default run: files up to 2 MB in full, bigger files on a sample (first 200 games and every
25th). ``-m slow`` runs every game of every file.
"""
from __future__ import annotations

import io
from pathlib import Path

import pytest

import pgntools
from pgn_helpers import (CHESS_REASON, SMALL_FILE, corpus_params, in_sample, kinds, pc_mainline, read,
                         read_one, rel)

chess = pytest.importorskip("chess", reason=CHESS_REASON)
chess_pgn = pytest.importorskip("chess.pgn", reason=CHESS_REASON)

# Files where python-chess is wrong about games or counts, with the count worked out by hand.
PYTHON_CHESS_WRONG = {
    "edge/pgn-extract/test-fuzzydepth.pgn": (4, "four tagless games, one per line: python-chess merges them"),
    "edge/pgn-extract/test-nobadresults.pgn": (9, "nine games, each on one line with its tag: python-chess "
                                                  "reads one game and drops the moves"),
    "edge/pgn-parser-js/sampleGameThrow.pgn": (1, "'Sf3' (German) is not a move: python-chess reads it as 'f3'"),
    "edge/pgn-extract/nested-comment.pgn": (1, "a nested comment, read to its matching brace (a note): "
                                               "python-chess ends it at the first '}' and turns the comment "
                                               "text '--nestedcomment' into a null move"),
    "edge/FWWRC.pgn": (605, "605 tag-only broadcast games (one Event each): python-chess merges them into one"),
    "edge/uzchesscup.pgn": (45, "45 tag-only broadcast games (one Round each): python-chess merges them into one"),
    "edge/chess-library/empty_body.pgn": (2, "a tag-only game, then a game: python-chess reads them as 2 too"),
    "edge/chess-js/0.pgn": (None, "HTML: every line break is '<br />', so nothing here is a readable game; "
                                  "python-chess silently reads one game with no moves, we report invalid games"),
}

# Whole-file counts from the corpora README (for files too big to compare in full by default),
# and the games python-chess splits in two there.
README_COUNTS = {
    "bench/master-games-30k.pgn": (30_000, 39),
    "lichess/lichess-magnus-carlsen.pgn": (10_024, 0),
    "engine/tcec-sample.pgn": (660, 0),
    "chess960/tcec-season24-frc.pgn": (266, 0),
    "edge/stockfish-2moves-v2.pgn": (12_092, 0),
}

# Corpus files where pgntools is known to be wrong (strict xfail: fixing the bug makes them fail
# until the entry is removed).
PGNTOOLS_BUGS: dict = {}
XFAIL = {name: pytest.mark.xfail(strict=True, reason=reason) for name, reason in PGNTOOLS_BUGS.items()}

OUTCOME_CHECKS = {
    "checkmate": lambda b: b.is_checkmate(),
    "stalemate": lambda b: b.is_stalemate(),
    "insufficient_material": lambda b: b.is_insufficient_material(),
    "seventyfive_moves": lambda b: b.is_seventyfive_moves(),
    "fivefold_repetition": lambda b: b.is_fivefold_repetition(),
}


def pc_games_at(handle, offset: int, count: int = 2):
    """python-chess's next ``count`` games from a byte offset of an open binary file."""
    handle.seek(offset)
    text = io.TextIOWrapper(handle, encoding="utf-8-sig", errors="replace", newline=None)
    try:
        return [chess_pgn.read_game(text) for _ in range(count)]
    finally:
        text.detach()


def pc_count(path: Path) -> int:
    with open(path, encoding="utf-8-sig", errors="replace") as handle:
        n = 0
        while chess_pgn.skip_game(handle):
            n += 1
        return n


def pc_rejects_token(board, token: str) -> bool:
    try:
        board.parse_san(token)
    except ValueError:
        return True
    return False


class Comparison:
    def __init__(self, name: str):
        self.name = name
        self.splits = 0
        self.tolerated = 0
        self.problems = []

    def problem(self, game, text):
        self.problems.append(f"{self.name} game {game.index} (offset {game.offset}, line {game.line}): {text}")


def compare_annotations(cmp: Comparison, game, pc_game):
    for ply, (move, node) in enumerate(zip(game.moves, pc_game.mainline()), 1):
        clock = node.clock()
        if (clock is None) != (move.clock is None) or (clock is not None and abs(clock - move.clock) > 1e-6):
            cmp.problem(game, f"ply {ply}: clock {move.clock} vs python-chess {clock}")
        score = node.eval()
        want_cp = want_mate = None
        if score is not None:
            want_cp, want_mate = score.white().score(), score.white().mate()
        if (move.eval_cp, move.eval_mate) != (want_cp, want_mate) and "[%eval" in node.comment:
            if node.comment.count("[%eval") == 1:
                cmp.problem(game, f"ply {ply}: eval {move.eval_cp}/{move.eval_mate} vs python-chess {score}")
        if set(move.nags) != set(node.nags):
            cmp.problem(game, f"ply {ply}: NAGs {move.nags} vs python-chess {sorted(node.nags)}")


def compare_game(cmp: Comparison, game, handle):
    first, second = pc_games_at(handle, game.offset)
    if first is None:
        cmp.problem(game, "python-chess finds no game at this offset")
        return
    if first.errors:
        if cmp.name in PYTHON_CHESS_WRONG:
            cmp.tolerated += 1
        elif game.status != "invalid":
            cmp.problem(game, f"python-chess reports {first.errors[0]!r}, pgntools says {game.status}")
        return
    if first.board().uci_variant != "chess" and "unsupported_variant" in kinds(game):
        cmp.problem(game, f"variant {first.headers.get('Variant')!r} unsupported, which python-chess plays")
        return
    uci, board = pc_mainline(first)
    if uci == game.uci:
        for error in game.errors:
            if error.kind in ("invalid_san", "illegal_move", "ambiguous_move") and error.ply == len(uci) + 1:
                if not pc_rejects_token(board, error.token):
                    cmp.problem(game, f"{error.kind} {error.token!r}, which python-chess reads as a move")
        if game.moves and game.status != "invalid":
            compare_annotations(cmp, game, first)
        return
    if not uci and game.uci and second is not None and pc_mainline(second)[0] == game.uci:
        cmp.splits += 1  # python-chess splits this game into a tag-only half and a tagless half
        lost = [k for k, v in first.headers.items() if dict(game.tags).get(k, v) != v]
        if lost:
            cmp.problem(game, f"split by python-chess, but its tags differ from ours: {lost}")
        return
    errors = game.errors
    first_error = errors[0] if errors else None
    n = len(game.uci)
    if first_error is None or uci[:n] != game.uci or first_error.ply != n + 1:
        if tolerate_known(cmp, game, "mainline differs"):
            return
        cmp.problem(game, f"mainline differs: pgntools {n} plies {kinds(game)}, python-chess {len(uci)} plies; "
                          f"first difference at ply {next((i + 1 for i, (a, b) in enumerate(zip(uci, game.uci)) if a != b), min(len(uci), n) + 1)}")
        return
    if first_error.kind == "move_after_game_end":
        replay = first.board()
        for move in list(first.mainline_moves())[:n]:
            replay.push(move)
        check = OUTCOME_CHECKS.get(game.outcome)
        if check is None or not check(replay):
            cmp.problem(game, f"move_after_game_end by {game.outcome}, which python-chess does not see")
        return
    if first_error.kind == "null_move":
        if len(uci) <= n or uci[n] != "0000":
            cmp.problem(game, f"null_move at ply {n + 1}, python-chess plays {uci[n:n + 1]}")
        return
    if first_error.kind in ("invalid_san", "syntax_error") and cmp.name in PYTHON_CHESS_WRONG:
        replay = first.board()
        for move in list(first.mainline_moves())[:n]:
            replay.push(move)
        if not pc_rejects_token(replay, first_error.token or ""):
            cmp.problem(game, f"{first_error.kind} {first_error.token!r}, which python-chess reads as a move")
        cmp.tolerated += 1
        return
    cmp.problem(game, f"{first_error.kind} {first_error.token!r} at ply {n + 1}; python-chess plays on: {uci[n:n + 3]}")


def tolerate_known(cmp: Comparison, game, text: str) -> bool:
    """In the files where python-chess is known to be wrong (shown by the focused tests below),
    a difference is counted, not reported."""
    if cmp.name in PYTHON_CHESS_WRONG:
        cmp.tolerated += 1
        return True
    return False


def run_comparison(path: Path, full: bool):
    name = rel(path)
    games = list(pgntools.read_games(str(path), comments=False, final_fen=False))
    every = full or path.stat().st_size <= SMALL_FILE
    cmp = Comparison(name)
    with open(path, "rb") as handle:
        for game in games:
            if every or in_sample(game.index):
                compare_game(cmp, game, handle)
    assert not cmp.problems, "\n".join(cmp.problems[:20])

    counted = pc_count(path)
    if name in PYTHON_CHESS_WRONG:
        expected, reason = PYTHON_CHESS_WRONG[name]
        if expected is None:  # nothing readable: everything we read must be invalid
            assert games and all(g.status == "invalid" for g in games), reason
        else:
            assert len(games) == expected, reason
    elif every:
        assert counted == len(games) + cmp.splits, (
            f"python-chess reads {counted} games, pgntools {len(games)} (+{cmp.splits} python-chess splits)")
    elif name in README_COUNTS:
        expected, splits = README_COUNTS[name]
        assert len(games) == expected
        assert counted == expected + splits
    else:
        assert counted == len(games) + cmp.splits, (
            f"python-chess reads {counted} games, pgntools {len(games)} (+{cmp.splits} splits in the sample)")


@pytest.mark.parametrize("path", corpus_params(XFAIL))
def test_corpus_matches_python_chess(path):
    run_comparison(path, full=False)


@pytest.mark.slow
@pytest.mark.parametrize("path", corpus_params(XFAIL))
def test_corpus_matches_python_chess_every_game(path):
    run_comparison(path, full=True)


# ---------------------------------------------------------------- where python-chess is wrong

def pc_read_all(text: str):
    handle = io.StringIO(text)
    out = []
    while True:
        game = chess_pgn.read_game(handle)
        if game is None:
            return out
        out.append(game)


def test_two_blank_lines_between_tags_and_moves(tmp_path):
    # bench/master-games-30k.pgn has 39 such games; python-chess reads each as two games.
    text = ('[Event "Wijk"]\n[White "A"]\n[Black "B"]\n[Result "1-0"]\n\n\n'
            '1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n'
            '[Event "Next"]\n[Result "*"]\n\n1. d4 *\n')
    assert len(pc_read_all(text)) == 3  # what python-chess does
    first, second = read(tmp_path, text)
    assert first.headers == {"Event": "Wijk", "White": "A", "Black": "B", "Result": "1-0"}
    assert first.uci == ["e2e4", "e7e5", "d1h5", "b8c6", "f1c4", "g8f6", "h5f7"]
    assert first.outcome == "checkmate" and first.status == "valid"
    assert second.headers["Event"] == "Next" and second.uci == ["d2d4"]


def test_comment_paragraph_between_tags_and_moves(tmp_path):
    # Many pgn-extract test files: python-chess splits the game at the blank line after the comment.
    text = ('[Event "Club"]\n[Result "1/2-1/2"]\n\n{ Played under time pressure. }\n\n'
            '1. d4 d5 2. c4 c6 1/2-1/2\n')
    assert len(pc_read_all(text)) == 2
    game = read_one(tmp_path, text)
    assert game.headers["Event"] == "Club" and game.uci == ["d2d4", "d7d5", "c2c4", "c7c6"]


def test_next_game_right_after_the_result_line_keeps_its_tags(tmp_path):
    # edge/pgn-extract/test-stalemate.pgn: python-chess loses the second game's tags.
    text = ('[Event "One"]\n[Result "0-1"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n'
            '[Event "Two"]\n[White "W"]\n[Result "1-0"]\n\n1. e4 e5 1-0\n')
    assert [g.headers["Event"] for g in pc_read_all(text)] != ["One", "Two"]
    one, two = read(tmp_path, text)
    assert one.headers["Event"] == "One" and one.outcome == "checkmate"
    assert two.headers == {"Event": "Two", "White": "W", "Result": "1-0"} and two.uci == ["e2e4", "e7e5"]


def test_tagless_games_one_per_line(tmp_path):
    # edge/pgn-extract/test-fuzzydepth.pgn: python-chess merges the lines into one illegal game.
    text = "e4 e5 Nf3 Nc6 Bb5 *\nNf3 Nc6 e4 e5 Bc4 *\nd4 d5 *\n"
    assert len(pc_read_all(text)) == 1
    games = read(tmp_path, text)
    assert [len(g.uci) for g in games] == [5, 5, 2]
    assert all(g.status == "valid" for g in games)


def test_tags_and_moves_on_the_same_line(tmp_path):
    # edge/pgn-extract/test-nobadresults.pgn: python-chess reads one game without moves.
    text = '[Result "1-0"] e4 *\n[Result "0-1"] d4 0-1\n[Result "*"] c4 1-0\n'
    games = read(tmp_path, text)
    assert [g.uci for g in games] == [["e2e4"], ["d2d4"], ["c2c4"]]
    assert [g.status for g in games] == ["fixed", "valid", "fixed"]
    assert [g.result for g in games] == ["1-0", "0-1", "1-0"]


def test_tag_only_broadcast_games(tmp_path):
    # edge/FWWRC.pgn, edge/uzchesscup.pgn: python-chess merges all tag sections into one game.
    text = ('[Event "Rapid"]\n[Round "1.1"]\n[Result "0-1"]\n\n'
            '[Event "Rapid"]\n[Round "1.2"]\n[Result "1-0"]\n\n'
            '[Round "1.3"]\n[Result "1/2-1/2"]\n\n')
    assert len(pc_read_all(text)) == 1
    games = read(tmp_path, text)
    assert [g.headers["Round"] for g in games] == ["1.1", "1.2", "1.3"]
    assert [g.result for g in games] == ["0-1", "1-0", "1/2-1/2"]


def test_unknown_piece_letter_is_not_skipped(tmp_path):
    # edge/pgn-parser-js/sampleGameThrow.pgn: python-chess plays 'Sf3' (German knight) as the pawn move f3.
    text = "1. d4 Nf6 2. Sf3 d5 *\n"
    assert [m.uci() for m in pc_read_all(text)[0].mainline_moves()] == ["d2d4", "g8f6", "f2f3", "d7d5"]
    game = read_one(tmp_path, text)
    assert game.status == "invalid"
    error = game.errors[0]
    assert (error.kind, error.ply, error.token) == ("invalid_san", 3, "Sf3")


def test_nested_braces_are_read_to_the_match(tmp_path):
    # edge/pgn-extract/nested-comment.pgn: braces do not nest in the PGN standard (5), but the
    # writer meant one comment: read to the matching '}', noted (issue 20); --strict keeps the
    # standard's reading, an error. python-chess ends the comment at the first '}' and reads
    # '--nestedcomment' in the leftover text as a null move.
    text = "e4 { a { nested } comment, see --nestedcomment } e5 *\n"
    assert [m.uci() for m in pc_read_all(text)[0].mainline_moves()][:2] == ["e2e4", "0000"]
    game = read_one(tmp_path, text)
    assert game.status == "valid" and game.uci == ["e2e4", "e7e5"]
    assert "nested_comment" in [n["kind"] for n in game.notes]
    strict = read_one(tmp_path, text, strict=True)
    assert strict.status == "invalid" and strict.errors[0].kind == "syntax_error"


def test_null_moves_are_errors(tmp_path):
    # edge/pgn-extract/odds.pgn: python-chess accepts '--' as a null move.
    text = "1. e4 -- 2. d4 e5 *\n"
    assert [m.uci() for m in pc_read_all(text)[0].mainline_moves()][:2] == ["e2e4", "0000"]
    game = read_one(tmp_path, text)
    assert game.status == "invalid" and game.uci == ["e2e4"]
    assert (game.errors[0].kind, game.errors[0].ply) == ("null_move", 2)


def test_play_after_a_dead_position_is_an_error_when_enforced(tmp_path):
    # bench/master-games-30k.pgn: 28 games go on after an automatic end; python-chess plays on, and
    # so do we by default (noted: test_repair.py); --automatic-ends enforce (or --strict) stops.
    text = ('[FEN "4k3/8/8/8/8/8/3p4/4K3 w - - 0 1"]\n[SetUp "1"]\n[Result "1/2-1/2"]\n\n'
            "1. Kxd2 Kd7 2. Ke3 1/2-1/2\n")
    pc_moves = [m.uci() for m in pc_read_all(text)[0].mainline_moves()]
    assert len(pc_moves) == 3
    assert read_one(tmp_path, text).uci == pc_moves
    game = read_one(tmp_path, text, automatic_ends="enforce")
    assert game.outcome == "insufficient_material"
    assert (game.errors[0].kind, game.errors[0].ply, game.errors[0].token) == ("move_after_game_end", 2, "Kd7")
