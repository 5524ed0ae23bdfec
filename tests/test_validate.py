"""`pgntools validate`: one hand-written case per rule and per fix, the CLI contract (exit codes,
stdin/stdout, report, summary, rejects, progress), the export format of `-o`, and the round trip
(validating the output again reports every game clean and reproduces it byte for byte).

Expected moves, SAN and verdicts are worked out by hand or by python-chess, never taken from
pgntools itself.
"""
from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest

from pgn_helpers import (cli_run, corpus_params, skip_unless_a_move, in_sample, kinds, note_kinds, pc_replay_san, read_one, rel,
                         report_lines, write)

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "fixtures"
SEVEN = ["Event", "Site", "Date", "Round", "White", "Black", "Result"]
SEVEN_DEFAULTS = {"Event": "?", "Site": "?", "Date": "????.??.??", "Round": "?", "White": "?", "Black": "?"}


def setup(fen: str, result: str = None) -> str:
    tags = f'[FEN "{fen}"]\n[SetUp "1"]\n'
    if result:
        tags += f'[Result "{result}"]\n'
    return tags + "\n"


PROMOTE = "4k3/P7/8/8/8/8/8/4K3 w - - 0 1"  # white pawn on a7, kings on e1/e8


# ---------------------------------------------------------------- one case per rule

RULES = [
    # name, pgn, error kind, ply, token
    ("illegal", "1. e4 e5 2. Ke3 *", "illegal_move", 3, "Ke3"),
    ("illegal-into-check", "1. d4 e5 2. Bg5 Ke7 *", "illegal_move", 4, "Ke7"),
    ("ambiguous", "1. Nc3 a6 2. Nf3 a5 3. Ne4 a4 4. Ng5 *", "ambiguous_move", 7, "Ng5"),
    ("invalid-san", "1. e4 e5 2. Zz9 *", "invalid_san", 3, "Zz9"),
    ("invalid-san-square", "1. e4 e5 2. Ni3 *", "invalid_san", 3, "Ni3"),
    ("promotion-without-piece", setup(PROMOTE) + "1. a8 *", "invalid_promotion", 1, "a8"),
    ("promotion-to-king", setup(PROMOTE) + "1. a8=K *", "invalid_promotion", 1, "a8=K"),
    ("promotion-to-pawn", setup(PROMOTE) + "1. a8=P *", "invalid_promotion", 1, "a8=P"),
    ("promotion-not-last-rank", "1. e4=Q *", "invalid_promotion", 1, "e4=Q"),
    ("promotion-on-seventh", setup("4k3/8/P7/8/8/8/8/4K3 w - - 0 1") + "1. a7=Q *", "invalid_promotion", 1, "a7=Q"),
    ("promotion-long-without-piece", setup(PROMOTE) + "1. a7a8 *", "invalid_promotion", 1, "a7a8"),
    ("null-dashes", "1. e4 -- 2. d4 *", "null_move", 2, "--"),
    ("null-Z0", "1. e4 Z0 2. d4 *", "null_move", 2, "Z0"),
    ("null-uci", "1. e4 0000 2. d4 *", "null_move", 2, "0000"),
    ("drop-knight", "1. e4 e5 2. N@f3 *", "drop", 3, "N@f3"),
    ("drop-pawn", "1. e4 e5 2. P@e4 *", "drop", 3, "P@e4"),
]


@pytest.mark.parametrize("name, pgn, kind, ply, token", RULES, ids=[r[0] for r in RULES])
def test_rule(tmp_path, name, pgn, kind, ply, token):
    data = pgn + "\n"
    game = read_one(tmp_path, data)
    assert game.status == "invalid"
    error = game.errors[0]
    assert (error.kind, error.ply, error.token) == (kind, ply, token)
    assert error.byte_offset == data.encode().rindex(token.encode())
    assert game.ply_count == ply - 1 and len(game.uci) == ply - 1


def test_ambiguous_and_illegal_cases_agree_with_python_chess():
    chess = pytest.importorskip("chess")
    board = chess.Board()
    for san in "Nc3 a6 Nf3 a5 Ne4 a4".split():
        board.push_san(san)
    with pytest.raises(chess.AmbiguousMoveError):
        board.parse_san("Ng5")
    board = chess.Board()
    for san in "d4 e5 Bg5".split():
        board.push_san(san)
    with pytest.raises(chess.IllegalMoveError):
        board.parse_san("Ke7")


def test_a_bare_e8_is_never_queened(tmp_path):
    game = read_one(tmp_path, setup(PROMOTE, "1-0") + "1. a8 Kd7 1-0\n", pgn=True)
    assert game.status == "invalid" and game.uci == [] and game.pgn == ""


def test_promotion_forms_that_are_accepted(tmp_path):
    for text in ["a8=Q", "a8Q", "a8=q", "a7a8=Q", "a7a8q", "a8=R"]:
        game = read_one(tmp_path, setup(PROMOTE) + f"1. {text} *\n")
        assert game.status == "valid", (text, game.errors)
        assert game.uci == ["a7a8" + text[-1].lower()]


BAD_FENS = [
    ("missing-white-king", "4k3/8/8/8/8/8/8/8 w - - 0 1"),
    ("two-white-kings", "4k3/8/8/8/8/8/8/3KK3 w - - 0 1"),
    ("pawn-on-first-rank", "4k3/8/8/8/8/8/8/P3K3 w - - 0 1"),
    ("pawn-on-last-rank", "P3k3/8/8/8/8/8/8/4K3 w - - 0 1"),
    ("side-not-to-move-in-check", "4k3/8/8/8/8/8/8/4R1K1 w - - 0 1"),
    ("castling-without-rook", "4k3/8/8/8/8/8/8/4K3 w K - 0 1"),
    ("castling-king-moved", "r3k2r/8/8/8/8/8/8/R2K3R w KQkq - 0 1"),
    ("en-passant-without-pawn", "4k3/8/8/8/8/8/8/4K3 w - e6 0 1"),
    ("malformed", "this is not a fen"),
    ("too-few-ranks", "4k3/8/8/8/4K3 w - - 0 1"),
]


@pytest.mark.parametrize("name, fen", BAD_FENS, ids=[b[0] for b in BAD_FENS])
def test_invalid_start_position(tmp_path, name, fen):
    chess = pytest.importorskip("chess")
    try:
        board = chess.Board(fen)
        assert not board.is_valid(), "python-chess thinks this FEN is valid: the test data is wrong"
    except ValueError:
        pass
    # strict: castling rights and en-passant squares that cannot be right are repaired by
    # default (test_repair.py); the other problems stay errors in any case
    game = read_one(tmp_path, setup(fen) + "1. Kd2 *\n", strict=True)
    assert game.status == "invalid"
    assert kinds(game) == ["invalid_start_position"]
    assert game.ply_count == 0
    assert game.errors[0].token == f'[FEN "{fen}"]' and game.errors[0].line == 1  # located at the FEN tag


def test_fen_without_setup_is_accepted_with_a_note(tmp_path):
    fen = "4k3/8/8/8/8/8/8/4K2R w K - 0 1"
    game = read_one(tmp_path, f'[FEN "{fen}"]\n[Result "*"]\n\n1. O-O Kd7 *\n', pgn=True)
    assert game.status == "valid"
    assert "fen_without_setup" in note_kinds(game)
    assert game.uci == ["e1g1", "e8d7"]
    assert '[SetUp "1"]' in game.pgn and f'[FEN "{fen}"]' in game.pgn


@pytest.mark.parametrize("variant", ["Duck Chess", "Fog of War"])  # (the seven Lichess variants: test_variants)
def test_unsupported_variant(tmp_path, variant):
    game = read_one(tmp_path, f'[Variant "{variant}"]\n\n1. e4 e5 *\n')
    assert game.status == "invalid" and kinds(game) == ["unsupported_variant"]
    assert game.ply_count == 0


@pytest.mark.parametrize("variant, chess960", [
    ("Standard", False), ("From Position", False), ("Chess960", True), ("chess 960", True),
    ("fischerandom", True), ("Freestyle", True),
])
def test_supported_variant_names(tmp_path, variant, chess960):
    game = read_one(tmp_path, f'[Variant "{variant}"]\n\n1. e4 e5 *\n')
    assert game.status == "valid" and game.chess960 is chess960


CHESS960 = [
    # Scharnagl 709: king b1, rook a1; O-O-O puts the king on c1 and the rook on d1.
    ("rkbbqnnr/pppppppp/8/8/8/8/PPPPPPPP/RKBBQNNR w KQkq - 0 1",
     "d4 d5 Bf4 Bf5 e3 e6 Be2 Be7 O-O-O O-O-O", "2krqnnr/ppp1bppp/4p3/3p1b2/3P1B2/4P3/PPP1BPPP/2KRQNNR w - - 4 6"),
    # Scharnagl 0: king g1, rooks f1/h1; after Rf3, O-O leaves the king on g1 and brings the rook to f1.
    ("bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1",
     "f4 f5 Rf3 Rf6 O-O O-O", "bbqnnrk1/ppppp1pp/5r2/5p2/5P2/5R2/PPPPP1PP/BBQNNRK1 w - - 4 4"),
]


@pytest.mark.parametrize("fen, sans, final", CHESS960, ids=["king-b1-long", "king-stays-g1-short"])
def test_chess960_castling(tmp_path, fen, sans, final):
    sans = sans.split()
    movetext = " ".join(f"{i // 2 + 1}. {s}" if i % 2 == 0 else s for i, s in enumerate(sans))
    data = f'[Variant "Chess960"]\n[FEN "{fen}"]\n[SetUp "1"]\n\n{movetext} *\n'
    board, want_san, want_uci = pc_replay_san(sans, fen, chess960=True)
    assert board.fen() == final
    game = read_one(tmp_path, data, pgn=True)
    assert game.status == "valid" and game.chess960
    assert game.uci == want_uci  # castling as king-takes-rook
    assert game.san == want_san
    assert game.final_fen.split()[0] == final.split()[0]
    assert "O-O" in game.pgn


GAME_END = [
    # name, pgn, outcome, ply of the move after the end, its token
    ("checkmate", '[Result "0-1"]\n\n1. f3 e5 2. g4 Qh4# 3. a3 0-1', "checkmate", 5, "a3"),
    ("stalemate", setup("7k/8/6K1/8/8/8/8/5Q2 w - - 0 1", "1/2-1/2") + "1. Qf7 Kh7 1/2-1/2", "stalemate", 2, "Kh7"),
    ("insufficient-material", setup("4k3/8/8/8/8/8/3r4/4KB2 w - - 0 1", "1/2-1/2") + "1. Kxd2 Kd7 1/2-1/2",
     "insufficient_material", 2, "Kd7"),
    ("seventyfive-moves", setup("4k3/8/8/8/8/8/R7/4K3 w - - 149 80", "1/2-1/2") + "80. Ra3 Kd7 1/2-1/2",
     "seventyfive_moves", 2, "Kd7"),
    ("fivefold", '[Result "1/2-1/2"]\n\n1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 5. Nf3 Nf6 6. Ng1 Ng8 '
                 '7. Nf3 Nf6 8. Ng1 Ng8 9. e4 1/2-1/2', "fivefold_repetition", 17, "e4"),
]


@pytest.mark.parametrize("name, pgn, outcome, ply, token", GAME_END, ids=[g[0] for g in GAME_END])
def test_move_after_game_end(tmp_path, name, pgn, outcome, ply, token):
    # enforce: what --strict does; by default play after an automatic draw is noted (test_repair.py)
    chess = pytest.importorskip("chess")
    game = read_one(tmp_path, pgn + "\n", automatic_ends="enforce")
    assert game.status == "invalid" and game.outcome == outcome
    error = game.errors[0]
    assert (error.kind, error.ply, error.token) == ("move_after_game_end", ply, token)
    assert game.ply_count == ply - 1 and game.outcome_ply == ply - 1
    # python-chess agrees that the game was over before that move
    board = chess.Board(game.start_fen or chess.STARTING_FEN)
    for uci in game.uci:
        board.push_uci(uci)
    assert board.is_game_over(claim_draw=False)


@pytest.mark.parametrize("name, pgn, outcome, ply, token", GAME_END, ids=[g[0] for g in GAME_END])
def test_game_ending_at_the_automatic_end_is_valid(tmp_path, name, pgn, outcome, ply, token):
    cut = pgn[: pgn.rindex(token)].rstrip()
    cut = re.sub(r"\s\d+\.$", "", cut)  # drop a dangling move number
    result = {"checkmate": "0-1"}.get(outcome, "1/2-1/2")
    game = read_one(tmp_path, f"{cut} {result}\n")
    assert game.status == "valid", game.errors
    assert game.outcome == outcome and game.result == result and game.outcome_ply == ply - 1


def test_move_after_game_end_inside_a_variation(tmp_path):
    data = setup("4k3/8/8/8/8/8/3p4/4K3 w - - 0 1") + "1. Ke2 (1. Kxd2 Kd7 2. Ke3) 1... Kd7 *\n"
    game = read_one(tmp_path, data, automatic_ends="enforce")
    assert game.status == "invalid"
    error = game.errors[0]
    assert (error.kind, error.ply, error.token) == ("move_after_game_end", 2, "Kd7")


def test_checkmate_on_the_150th_halfmove_beats_the_75_move_rule(tmp_path):
    game = read_one(tmp_path, setup("7k/8/6K1/8/8/8/8/R7 w - - 149 100", "1-0") + "100. Ra8# 1-0\n")
    assert game.status == "valid" and game.outcome == "checkmate" and game.result == "1-0"


# ---------------------------------------------------------------- results and fixes

MATE = "1. f3 e5 2. g4 Qh4#"  # black mates
QUIET = "1. e4 e5 2. Nf3 Nc6"


@pytest.mark.parametrize("name, pgn, result, fixes", [
    ("star-marker", f'[Result "1-0"]\n\n{QUIET} *', "1-0", [("result_marker", "*", "1-0")]),
    ("missing-marker", f'[Result "1/2-1/2"]\n\n{QUIET}', "1/2-1/2", [("result_marker", None, "1/2-1/2")]),
    ("star-tag", f'[Result "*"]\n\n{QUIET} 0-1', "0-1", [("result_tag", "*", "0-1")]),
    ("tag-disagrees-with-mate", f'[Result "1-0"]\n\n{MATE} 0-1', "0-1", [("result_tag", "1-0", "0-1")]),
    ("both-disagree-with-mate", f'[Result "1-0"]\n\n{MATE} 1-0', "0-1",
     [("result_tag", "1-0", "0-1"), ("result_marker", "1-0", "0-1")]),
    ("draw-claimed-at-mate", f'[Result "1/2-1/2"]\n\n{MATE} 1/2-1/2', "0-1",
     [("result_tag", "1/2-1/2", "0-1"), ("result_marker", "1/2-1/2", "0-1")]),
    ("star-at-mate", f'[Result "*"]\n\n{MATE} *', "0-1", [("result_tag", "*", "0-1"), ("result_marker", "*", "0-1")]),
    ("win-in-stalemate", setup("7k/8/6K1/8/8/8/8/5Q2 w - - 0 1", "1-0") + "1. Qf7 1-0", "1/2-1/2",
     [("result_tag", "1-0", "1/2-1/2"), ("result_marker", "1-0", "1/2-1/2")]),
    ("conflict-decided-by-mate", f'[Result "1-0"]\n\n{MATE} 0-1', "0-1", [("result_tag", "1-0", "0-1")]),
])
def test_result_fixes(tmp_path, name, pgn, result, fixes):
    data = pgn + "\n"
    game = read_one(tmp_path, data, pgn=True)
    assert game.status == "fixed" and game.errors == []
    assert game.result == result
    assert [(f["kind"], f["from"], f["to"]) for f in game.fixes] == fixes
    assert f'[Result "{result}"]' in game.pgn and game.pgn.rstrip().endswith(" " + result)

    strict = read_one(tmp_path, data, fix_results=False)
    assert strict.status == "invalid"
    assert kinds(strict)[0] in ("result_mismatch", "result_contradicts_position")


def test_result_mismatch_two_decided_values_and_no_mate(tmp_path):
    for tag, marker in [("1-0", "0-1"), ("0-1", "1/2-1/2"), ("1/2-1/2", "1-0")]:
        game = read_one(tmp_path, f'[Result "{tag}"]\n\n{QUIET} {marker}\n')
        assert game.status == "invalid" and kinds(game) == ["result_mismatch"], (tag, marker)
        assert game.fixes == []


def test_contradiction_with_the_position_is_its_own_kind_without_fixing(tmp_path):
    game = read_one(tmp_path, f'[Result "1-0"]\n\n{MATE} 1-0\n', fix_results=False)
    assert kinds(game) == ["result_contradicts_position"]


def test_no_result_tag_is_noted_not_fixed(tmp_path):
    game = read_one(tmp_path, f"{QUIET} 1-0\n")
    assert game.status == "valid" and game.result == "1-0"
    assert "missing_result_tag" in note_kinds(game)


def test_any_result_is_allowed_when_the_position_does_not_decide(tmp_path):
    for result in ("1-0", "0-1", "1/2-1/2", "*"):
        game = read_one(tmp_path, f'[Result "{result}"]\n\n{QUIET} {result}\n')
        assert game.status == "valid" and game.result == result and game.fixes == []


def test_fifty_move_draw_claim_is_noted(tmp_path):
    # halfmove clock 98 → 100 after two quiet moves: the 50-move rule can be claimed
    game = read_one(tmp_path, setup("4k3/8/8/8/8/8/R7/4K3 w - - 98 80", "1/2-1/2") + "80. Ra3 Kd7 1/2-1/2\n")
    assert game.status == "valid" and "fifty_move_claimable" in note_kinds(game)
    early = read_one(tmp_path, setup("4k3/8/8/8/8/8/R7/4K3 w - - 97 80", "1/2-1/2") + "80. Ra3 Kd7 1/2-1/2\n")
    assert early.status == "valid" and "fifty_move_claimable" not in note_kinds(early)


def test_threefold_repetition_claim_is_noted(tmp_path):
    three = "1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8"  # the start position occurs a third time
    game = read_one(tmp_path, f'[Result "1/2-1/2"]\n\n{three} 1/2-1/2\n')
    assert game.status == "valid" and "threefold_claimable" in note_kinds(game)
    two = read_one(tmp_path, '[Result "1/2-1/2"]\n\n1. Nf3 Nf6 2. Ng1 Ng8 1/2-1/2\n')
    assert two.status == "valid" and "threefold_claimable" not in note_kinds(two)


# ---------------------------------------------------------------- notation: notes, and errors with --strict

NOTATION = [
    # name, movetext, fen, a note kind expected (any of), SAN the move must come out as
    ("castling-with-zeros", "1. e4 e5 2. Nf3 Nf6 3. Bc4 Bc5 4. 0-0", None, {"castling_with_zeros"}, "O-O"),
    ("uci", "1. e2e4", None, {"long_algebraic", "uci_notation"}, "e4"),
    ("long-algebraic", "1. Ng1-f3", None, {"long_algebraic"}, "Nf3"),
    ("promotion-without-equals", "1. a8Q", PROMOTE, {"promotion_without_equals"}, "a8=Q+"),
    ("lowercase-promotion", "1. a8=q", PROMOTE, {"lowercase_promotion"}, "a8=Q+"),
    ("uci-promotion", "1. a7a8q", PROMOTE, {"uci_notation", "long_algebraic"}, "a8=Q+"),
    ("over-disambiguation", "1. Ngf3", None, {"over_disambiguation"}, "Nf3"),
    ("missing-check", "1. e4 f5 2. Qh5", None, {"missing_check_marker"}, "Qh5+"),
    ("wrong-check", "1. e4+", None, {"wrong_check_marker"}, "e4"),
    ("en-passant-suffix", "1. e4 a6 2. e5 d5 3. exd6 e.p.", None, {"en_passant_suffix"}, "exd6"),
    ("missing-capture", "1. e4 d5 2. ed5", None, {"missing_capture_marker"}, "exd5"),
    ("wrong-capture", "1. e4 e5 2. Nxf3", None, {"wrong_capture_marker"}, "Nf3"),
    # the rest of the README's list (issue 20: each accepted form, and an error with --strict)
    ("long-algebraic-pawn", "1. e2-e4", None, {"long_algebraic"}, "e4"),
    ("long-algebraic-promotion", "1. a7a8=Q", PROMOTE, {"long_algebraic", "uci_notation"}, "a8=Q+"),
    ("wrong-mate", "1. e4 e5 2. Qh5#", None, {"wrong_check_marker"}, "Qh5"),
]


@pytest.mark.parametrize("name, movetext, fen, notes, san", NOTATION, ids=[n[0] for n in NOTATION])
def test_nonstandard_notation(tmp_path, name, movetext, fen, notes, san):
    data = (setup(fen) if fen else "") + movetext + " *\n"
    game = read_one(tmp_path, data, pgn=True)
    assert game.status == "valid" and game.errors == []
    assert notes & set(note_kinds(game)), game.notes
    assert game.san[-1] == san
    tokens = [t for t in movetext.split() if not re.match(r"^\d+\.", t) and t != "e.p."]
    assert game.san == pc_replay_san(tokens, fen)[1]  # python-chess reads the same moves
    assert re.search(r"(?<![\w=+#-])" + re.escape(san) + r"(?![\w=+#])", game.pgn)

    strict = read_one(tmp_path, data, strict=True)
    assert strict.status == "invalid"
    assert set(kinds(strict)) == {"nonstandard_notation"}
    assert strict.errors[0].ply == len(game.uci)


def test_standard_notation_has_no_notes_even_in_strict_mode(tmp_path):
    data = '[Result "1-0"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n'
    game = read_one(tmp_path, data, strict=True)
    assert game.status == "valid" and game.notes == []


# ---------------------------------------------------------------- the game-program fixture

def test_game_program_fixture_is_fixed_into_canonical_san(tmp_path):
    chess_pgn = pytest.importorskip("chess.pgn")
    path = FIXTURES / "game-program.pgn"
    source = path.read_text()
    out = tmp_path / "out.pgn"
    result = cli_run(["validate", str(path), "-o", str(out), "--report", "-"])
    assert result.exit_code == 0, result.stderr
    report = report_lines(result.stdout)
    assert [r["status"] for r in report] == ["fixed"] * 5
    assert all([(f["kind"], f["from"]) for f in r["fixes"]] == [("result_marker", "*")] for r in report)

    # expected: python-chess replays the coordinate moves; results from the tags, mates decide
    sections = source.strip().split("\n\n")
    expected = []
    for tags, movetext in zip(sections[0::2], sections[1::2]):
        result_tag = re.search(r'\[Result "([^"]+)"\]', tags).group(1)
        coords = [t for t in movetext.split() if not t.endswith(".") and t != "*"]
        board, sans, _ = pc_replay_san(coords)
        if board.is_checkmate():
            assert result_tag == ("0-1" if board.turn else "1-0")
        expected.append((sans, result_tag))
    assert any("=Q" in s for sans, _ in expected for s in sans)  # the fixture promotes

    text = out.read_text()
    games = text.strip().split("\n\n")
    got = []
    for tags, movetext in zip(games[0::2], games[1::2]):
        tokens = movetext.split()
        marker = tokens[-1]
        assert f'[Result "{marker}"]' in tags
        got.append(([t for t in tokens[:-1] if not re.match(r"^\d+\.", t)], marker))
    assert got == expected
    with open(out) as handle:
        for sans, _ in expected:
            game = chess_pgn.read_game(handle)
            assert not game.errors and len(list(game.mainline_moves())) == len(sans)


# ---------------------------------------------------------------- CLI

VALID = '[Event "v"]\n[Result "1-0"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n'
FIXED = '[Event "f"]\n[Result "1/2-1/2"]\n\n1. d4 d5 2. c4 e6 *\n\n'
INVALID = '[Event "i"]\n[Result "*"]\n\n1. e4 e5 2. Ke3 Nc6 *\n\n'


def test_exit_0_when_every_game_is_valid_or_fixed(tmp_path):
    result = cli_run(["validate", str(write(tmp_path, VALID + FIXED))])
    assert result.exit_code == 0
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "2 games" in lines[0] and "1 valid" in lines[0] and "1 fixed" in lines[0]


def test_exit_1_when_some_game_is_invalid(tmp_path):
    result = cli_run(["validate", str(write(tmp_path, VALID + INVALID + FIXED))])
    assert result.exit_code == 1
    assert "1 invalid" in result.stderr


# (no FILES: a usage error only when stdin is a terminal; tests/test_cli_io.py runs that in a pty)
@pytest.mark.parametrize("args", [["validate", "--no-such-option", "x.pgn"], ["no-such-command"]],
                         ids=["unknown-option", "unknown-command"])
def test_exit_2_for_usage_errors(args):
    result = cli_run(args)
    assert result.exit_code == 2


def test_missing_input_file_exit_2_with_one_line(tmp_path):
    out = tmp_path / "out.pgn"
    result = cli_run(["validate", str(write(tmp_path, VALID)), str(tmp_path / "missing.pgn"), "-o", str(out)])
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "missing.pgn" in lines[0]
    assert not out.exists() and list(tmp_path.glob(".out.pgn*")) == []


def test_directory_or_corrupt_input_exit_2(tmp_path):
    assert cli_run(["validate", str(tmp_path)]).exit_code == 2
    compressed = gzip.compress("".join(VALID.replace('"v"', f'"{i}"') for i in range(5000)).encode())
    broken = write(tmp_path, compressed[: len(compressed) // 2], "broken.pgn.gz")
    result = cli_run(["validate", str(broken)])
    assert result.exit_code == 2 and "broken.pgn.gz" in result.stderr


def test_output_in_missing_directory_exit_2_before_any_work(tmp_path):
    report = tmp_path / "report.jsonl"
    result = cli_run(["validate", str(write(tmp_path, VALID + INVALID)), "--report", str(report),
                      "-o", str(tmp_path / "no-such-dir" / "out.pgn")])
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "no-such-dir" in lines[0]
    assert "games" not in lines[0]  # no summary: nothing was read
    assert not report.exists() and not any(p.name.startswith(".report") for p in tmp_path.iterdir())


def test_output_to_stdout(tmp_path):
    result = cli_run(["validate", str(write(tmp_path, VALID + INVALID + FIXED)), "-o", "-"])
    assert result.exit_code == 1
    assert result.stdout.startswith('[Event "v"]\n')
    assert '[Event "f"]' in result.stdout and '[Event "i"]' not in result.stdout
    assert result.stdout.count("[Event ") == 2


def test_stdin_input(tmp_path):
    result = cli_run(["validate", "-", "-o", "-", "--report", str(tmp_path / "r.jsonl")],
                     input=(VALID + INVALID).encode())
    assert result.exit_code == 1
    assert result.stdout.count("[Event ") == 1
    (line,) = report_lines((tmp_path / "r.jsonl").read_text())
    assert line["file"] == "<stdin>" and line["game"] == 1 and line["status"] == "invalid"


def test_report_lines(tmp_path):
    data = VALID + INVALID + FIXED + "1. e2e4 e5 *\n"
    path = write(tmp_path, data)
    result = cli_run(["validate", str(path), "--report", "-"])
    assert result.exit_code == 1
    lines = report_lines(result.stdout)
    assert [r["game"] for r in lines] == [1, 2, 3]  # the clean game 0 is not reported
    keys = {"game", "file", "offset", "line", "status", "errors", "fixes", "notes"}
    assert all(set(r) == keys for r in lines)
    invalid, fixed, noted = lines
    assert invalid["status"] == "invalid" and invalid["file"] == str(path)
    assert invalid["offset"] == data.index('[Event "i"]') and invalid["line"] == data[:invalid["offset"]].count("\n") + 1
    (error,) = invalid["errors"]
    assert set(error) == {"kind", "ply", "token", "message", "line", "column", "offset"}
    at = data.index("Ke3")
    assert (error["kind"], error["ply"], error["token"]) == ("illegal_move", 3, "Ke3")
    assert error["offset"] == at and error["line"] == data[:at].count("\n") + 1
    assert error["column"] == at - data.rindex("\n", 0, at)
    assert "Ke3" in error["message"]
    assert fixed["status"] == "fixed" and [{k: f[k] for k in ("kind", "from", "to")} for f in fixed["fixes"]] == [
        {"kind": "result_marker", "from": "*", "to": "1/2-1/2"}]
    # errors, fixes and notes: one kind of record, the same four keys first (issue 22)
    for finding in error, *fixed["fixes"], *noted["notes"]:
        assert list(finding)[:4] == ["kind", "ply", "token", "message"] and finding["message"]
    assert noted["status"] == "valid" and noted["errors"] == []
    assert {n["kind"] for n in noted["notes"]} >= {"missing_result_tag"}
    assert {"long_algebraic", "uci_notation"} & {n["kind"] for n in noted["notes"]}
    assert all(set(n) == {"kind", "ply", "token", "message", "count"} for n in noted["notes"])


def test_summary_shape(tmp_path):
    data = VALID + INVALID + FIXED + INVALID.replace("Ke3", "Zz9") + VALID
    path = write(tmp_path, data)
    summary = tmp_path / "summary.json"
    result = cli_run(["validate", str(path), "--summary", str(summary)])
    assert result.exit_code == 1
    got = json.loads(summary.read_text())
    assert set(got) == {"games", "valid", "fixed", "invalid", "truncated", "errors", "notes", "fixes", "bytes",
                        "pgn_bytes", "skipped_bytes", "seconds"}
    assert (got["games"], got["valid"], got["fixed"], got["invalid"]) == (5, 2, 1, 2)
    assert got["errors"] == {"illegal_move": 1, "invalid_san": 1}
    assert got["bytes"] == got["pgn_bytes"] == len(data.encode())
    assert isinstance(got["seconds"], (int, float)) and got["seconds"] >= 0
    to_stdout = cli_run(["validate", str(path), "--summary", "-"])
    assert json.loads(to_stdout.stdout)["games"] == 5


def test_rejects_hold_the_original_bytes_of_invalid_games(tmp_path):
    bad_latin1 = '[Event "Café"]\r\n[Result "*"]\r\n\r\n1. e4 e5 2. Ke3 *'.encode("latin-1")
    bad_mate = b'[Event "after mate"]\n[Result "0-1"]\n\n1. f3 e5 2. g4 Qh4# 3. a3 0-1'
    bad_tagless = b"1. e4 e5 2. Nf3 Nc6 3. Bb5 Zz9 *"
    parts = [VALID.encode(), bad_latin1, b"\r\n\r\n", FIXED.encode(), bad_mate, b"\n\n\n", bad_tagless, b"\n"]
    path = write(tmp_path, b"".join(parts))
    rejects = tmp_path / "rejects.pgn"
    result = cli_run(["validate", str(path), "--rejects", str(rejects)])
    assert result.exit_code == 1
    assert rejects.read_bytes() == bad_latin1 + b"\n\n" + bad_mate + b"\n\n" + bad_tagless + b"\n\n"
    again = cli_run(["validate", str(rejects), "--report", "-"])
    assert [r["status"] for r in report_lines(again.stdout)] == ["invalid"] * 3


@pytest.mark.parametrize("flag", ["--progress", "--no-progress"])
def test_progress_flags(tmp_path, flag):
    out = tmp_path / "out.pgn"
    result = cli_run(["validate", str(write(tmp_path, VALID + FIXED)), flag, "-o", str(out)])
    assert result.exit_code == 0
    assert out.read_text().count("[Event ") == 2
    assert "validate:" in result.stderr.splitlines()[-1]
    if flag == "--progress":  # the bar: bytes, games with their rate, invalid games
        assert re.search(r"B/s, 2 games, [0-9.]+k? games/s, PGN [0-9.,]+ MB/s, 0 invalid", result.stderr), result.stderr
    else:
        assert "games/s," not in result.stderr


def test_strict_and_no_fix_results_flags(tmp_path):
    path = write(tmp_path, VALID + FIXED + "1. e4 e5 2. Ngf3 *\n")
    assert cli_run(["validate", str(path)]).exit_code == 0
    strict = cli_run(["validate", str(path), "--strict", "--report", "-"])
    assert strict.exit_code == 1
    assert [r["errors"][0]["kind"] for r in report_lines(strict.stdout) if r["status"] == "invalid"] == [
        "nonstandard_notation"]
    nofix = cli_run(["validate", str(path), "--no-fix-results", "--report", "-"])
    assert nofix.exit_code == 1
    assert [r["game"] for r in report_lines(nofix.stdout) if r["status"] == "invalid"] == [1]


# ---------------------------------------------------------------- export format

EXPORT_INPUT = (
    '[White "Doe, \\"Jack\\""]\n[ECO "C54"]\n[Event "Test \\\\ backslash"]\n[Annotator "me"]\n'
    '[Date "2024.01.02"]\n[Black "Roe"]\n[Result "1-0"]\n[BlackElo "2000"]\n[WhiteElo "2100"]\n[Opening "Italian"]\n\n'
    "1. e2e4 e5 2. Ngf3 {A long comment that goes on and on, so that the line has to be wrapped "
    "somewhere before eighty columns are reached.} Nc6 3. Bc4 (3. Bb5 a6 (3... Nf6 4. 0-0) 4. Ba4) Bc5 "
    "4. c3 Nf6 5. d4 exd4 6. cxd4 Bb4 7. Nc3 Nxe4 8. 0-0 Bxc3 9. d5 Bf6 10. Re1 Ne7 11. Rxe4 d6 "
    "12. Bg5 Bxg5 13. Nxg5 h6? 14. Qe2!! hxg5 15. Re1 Be6 16. dxe6 f6 17. Re3 c6 18. Rh3 Rxh3 "
    "19. gxh3 g6 20. Qf3 Qa5 21. Rd1 $18 1-0\n\n"
    "1. d4 d5 *\n\n"
    '[Event "\xc9checs"]\r\n[Site "Paris"]\r\n[Result "0-1"]\r\n\r\n1. f3 e5 2. g4 Qh4 *\r\n\r\n'
    '[Event "Setup"]\n[FEN "4k3/8/8/8/8/8/8/4K2R w K - 0 1"]\n[Result "*"]\n\n1. O-O Kd7 *\n\n'
    '[Event "Bad"]\n\n1. e4 e5 2. Ke3 *\n\n'
)
EXPORT_MAIN = ("e4 e5 Nf3 Nc6 Bc4 Bc5 c3 Nf6 d4 exd4 cxd4 Bb4+ Nc3 Nxe4 O-O Bxc3 d5 Bf6 Re1 Ne7 Rxe4 d6 "
               "Bg5 Bxg5 Nxg5 h6 Qe2 hxg5 Re1 Be6 dxe6 f6 Re3 c6 Rh3 Rxh3 gxh3 g6 Qf3 Qa5 Rd1").split()


@pytest.fixture
def exported(tmp_path):
    path = write(tmp_path, EXPORT_INPUT.encode("latin-1"), "export-input.pgn")
    out = tmp_path / "out.pgn"
    result = cli_run(["validate", str(path), "-o", str(out)])
    assert result.exit_code == 1  # the "Bad" game
    return out.read_bytes()


def split_games(text: str):
    """(tag lines, movetext lines) per game of export-format text."""
    games = []
    for block in text.split("\n\n[")[0:]:
        block = block if block.startswith("[") else "[" + block
        head, _, body = block.partition("\n\n")
        games.append((head.splitlines(), [line for line in body.splitlines() if line]))
    return games


def test_export_format(exported):
    assert b"\r" not in exported
    text = exported.decode("utf-8")  # UTF-8 out, even for the Latin-1 input game
    assert text.endswith("\n\n") and not text.endswith("\n\n\n")
    games = split_games(text.rstrip("\n"))
    assert len(games) == 4
    for tags, movetext in games:
        names = [re.match(r'^\[(\w+) "', t).group(1) for t in tags]
        assert names[:7] == SEVEN
        assert names[7:] == sorted(names[7:])
        assert all(len(line) < 80 for line in movetext), [line for line in movetext if len(line) >= 80]
        result = re.search(r'^\[Result "(.*)"\]$', tags[6]).group(1)
        body = " ".join(movetext)
        assert body.endswith(" " + result) or body == result
        assert sum(body.split().count(m) for m in ("1-0", "0-1", "1/2-1/2", "*")) == 1

    (first_tags, first_moves), (bare_tags, _), (latin_tags, _), (setup_tags, _) = games
    assert first_tags[:7] == ['[Event "Test \\\\ backslash"]', '[Site "?"]', '[Date "2024.01.02"]', '[Round "?"]',
                              '[White "Doe, \\"Jack\\""]', '[Black "Roe"]', '[Result "1-0"]']
    assert first_tags[7:] == ['[Annotator "me"]', '[BlackElo "2000"]', '[ECO "C54"]', '[Opening "Italian"]',
                              '[WhiteElo "2100"]']
    assert bare_tags == [f'[{k} "{SEVEN_DEFAULTS.get(k, "*")}"]' for k in SEVEN]
    assert latin_tags[0] == '[Event "Échecs"]' and latin_tags[6] == '[Result "0-1"]'  # marker fixed by the mate
    assert setup_tags[7:] == ['[FEN "4k3/8/8/8/8/8/8/4K2R w K - 0 1"]', '[SetUp "1"]']

    body = " ".join(first_moves)
    assert "2. Nf3 {A long comment" in body and "reached.} 2... Nc6 3. Bc4" in body
    assert "(3. Bb5 a6 (3... Nf6 4. O-O) 4. Ba4) 3... Bc5" in body
    assert "13. Nxg5 h6 $2 14. Qe2 $3" in body and "21. Rd1 $18 1-0" in body
    stripped = re.sub(r"\{[^}]*\}", " ", body)
    while "(" in stripped:
        stripped = re.sub(r"\([^()]*\)", " ", stripped)
    sans = [t for t in stripped.split() if not re.match(r"^(\d+\.+|\$\d+|1-0)$", t)]
    _, want, _ = pc_replay_san(EXPORT_MAIN)
    assert sans == want


def test_export_is_read_by_python_chess(exported):
    chess_pgn = pytest.importorskip("chess.pgn")
    import io
    handle = io.StringIO(exported.decode())
    game = chess_pgn.read_game(handle)
    assert not game.errors
    assert [m.uci() for m in game.mainline_moves()] == pc_replay_san(EXPORT_MAIN)[2]
    nodes = list(game.mainline())
    assert [n.san() for n in nodes[3].variations] == ["Bc4", "Bb5"]


def test_export_round_trip_is_clean_and_identical(tmp_path, exported):
    assert_round_trip(tmp_path, exported)


@pytest.mark.parametrize("option, absent", [("--strip-comments", "{"), ("--strip-variations", "("),
                                            ("--reduced", "[ECO")])
def test_strip_options(tmp_path, option, absent):
    path = write(tmp_path, EXPORT_INPUT.encode("latin-1"))
    out = tmp_path / "out.pgn"
    assert cli_run(["validate", str(path), option, "-o", str(out)]).exit_code == 1
    text = out.read_text()
    assert absent not in text and text.count("[Event ") == 4
    if option == "--reduced":
        assert "{" not in text and "(" not in text and "$" not in text
        assert '[FEN "4k3/8/8/8/8/8/8/4K2R w K - 0 1"]' in text
    assert_round_trip(tmp_path, out.read_bytes(), option)


def assert_round_trip(tmp_path: Path, exported: bytes, *options, sub: str = "round"):
    """Validating export-format output again: every game valid (no errors, no fixes, no notes
    other than draw claims and play after an automatic draw) and the same bytes out."""
    folder = tmp_path / sub
    folder.mkdir(exist_ok=True)
    first = write(folder, exported, "first.pgn")
    again = folder / "again.pgn"
    report = folder / "report.jsonl"
    result = cli_run(["validate", str(first), "-o", str(again), "--report", str(report), *options])
    assert result.exit_code == 0, result.stderr
    for line in report_lines(report.read_text()):
        assert line["status"] == "valid" and not line["errors"] and not line["fixes"], line
        assert {n["kind"] for n in line["notes"]} <= {"fifty_move_claimable", "threefold_claimable",
                                                         "play_after_automatic_end"}, line
    assert again.read_bytes() == exported


@pytest.mark.parametrize("name", ["sample.pgn", "game-program.pgn"])
def test_round_trip_on_fixtures(tmp_path, name):
    path = FIXTURES / name
    if not path.exists():
        pytest.skip(f"{path} not present")
    out = tmp_path / "out.pgn"
    result = cli_run(["validate", str(path), "-o", str(out)])
    assert result.exit_code in (0, 1)
    assert out.read_bytes()
    assert_round_trip(tmp_path, out.read_bytes())


# Corpus files where pgntools is known to be wrong (strict xfail until fixed).
KNOWN_BUGS: dict = {}


def sample_of(path: Path, full: bool) -> bytes:
    """The sampled games of a corpus file, as their original bytes, one blank line apart."""
    import pgntools

    data = path.read_bytes()
    every = full or len(data) <= 1_000_000
    parts = [data[g.offset:g.offset + g.length]
             for g in pgntools.read_games(str(path), moves=False, comments=False, final_fen=False)
             if every or in_sample(g.index)]
    return b"\n\n".join(parts) + b"\n\n"


def corpus_round_trip(tmp_path: Path, path: Path, full: bool):
    import pgntools

    skip_unless_a_move(path)
    source = write(tmp_path, sample_of(path, full), "sample.pgn")
    out = tmp_path / "out.pgn"
    result = cli_run(["validate", str(source), "-o", str(out)])
    assert result.exit_code in (0, 1), result.stderr
    exported = out.read_bytes()
    # the output holds exactly the valid and fixed games, with their moves
    kept = [g for g in pgntools.read_games(str(source), comments=False) if g.status != "invalid"]
    again = list(pgntools.read_games(str(out), comments=False))
    assert [g.uci for g in again] == [g.uci for g in kept], rel(path)
    assert [g.result for g in again] == [g.result for g in kept]
    if exported:
        assert_round_trip(tmp_path, exported)


@pytest.mark.parametrize("path", corpus_params(KNOWN_BUGS))
def test_round_trip_on_corpus_sample(tmp_path, path):
    corpus_round_trip(tmp_path, path, full=False)


@pytest.mark.slow
@pytest.mark.parametrize("path", corpus_params(KNOWN_BUGS))
def test_round_trip_on_every_corpus_game(tmp_path, path):
    corpus_round_trip(tmp_path, path, full=True)


def test_every_tag_survives_the_export_format_however_many(tmp_path):
    # More tags than any fixed-size table would hold: all of them, in ASCII order after the roster.
    import pgntools

    extra = [f"T{i:03d}" for i in range(300)]
    text = '[Event "many"]\n' + "".join(f'[{name} "v{name}"]\n' for name in reversed(extra)) + "\n1. e4 *\n"
    path = tmp_path / "many.pgn"
    path.write_text(text)
    game = next(pgntools.read_games(str(path), pgn=True))
    names = [line[1:line.index(" ")] for line in game.pgn.splitlines() if line.startswith("[")]
    assert names[:7] == ["Event", "Site", "Date", "Round", "White", "Black", "Result"]
    assert names[7:] == extra


def test_an_unexpected_failure_is_one_line_and_leaves_no_output(tmp_path, monkeypatch):
    from click.testing import CliRunner

    import pgntools.sinks.pgn
    from pgntools.cli import cli

    def broken(self, batch):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(pgntools.sinks.pgn.PgnSink, "write", broken)
    out = tmp_path / "out.pgn"
    source = Path(__file__).resolve().parents[1] / "fixtures" / "sample.pgn"
    result = CliRunner().invoke(cli, ["validate", "--jobs", "1", "-o", str(out), str(source)])
    assert result.exit_code == 70  # not 1, which means "some game is invalid" and nothing else
    assert "internal error: RuntimeError: disk on fire" in result.output
    assert "Traceback" not in result.output
    assert list(tmp_path.iterdir()) == []
