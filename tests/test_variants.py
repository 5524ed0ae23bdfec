"""The Lichess variants against python-chess's variant boards (a test-only oracle): perft from the
start and from positions reached by random play, and random legal games replayed to the same final
FEN and verdict (result, the variant's own end)."""
from __future__ import annotations

import random

import chess
import chess.pgn
import chess.polyglot
import chess.variant
import pytest

import pgntools
from pgntools import _core

# pgntools' variant name -> (python-chess board class, the Variant tag Lichess writes)
VARIANTS = {
    "kingofthehill": (chess.variant.KingOfTheHillBoard, "King of the Hill"),
    "3check": (chess.variant.ThreeCheckBoard, "Three-check"),
    "racingkings": (chess.variant.RacingKingsBoard, "Racing Kings"),
    "horde": (chess.variant.HordeBoard, "Horde"),
    "antichess": (chess.variant.AntichessBoard, "Antichess"),
}
GAMES_PER_VARIANT = 300
PERFT_POSITIONS = 24
DEEPEST = {"racingkings": 3}  # the oracle asks gives_check of every move there: depth 4 takes minutes


def read_one(pgn, tmp_path):
    path = tmp_path / "game.pgn"
    path.write_text(pgn)
    return list(pgntools.read_games(str(path)))


def random_positions(cls, count, seed):
    """`count` positions reached by random play from the variant's start (those that end a game
    too: no move is legal there)."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        board = cls()
        for _ in range(rng.randrange(1, 80)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
        out.append(board.fen())
    return out


def oracle_perft(board, depth):
    if depth == 0:
        return 1
    moves = list(board.legal_moves)
    if depth == 1:
        return len(moves)
    total = 0
    for m in moves:
        board.push(m)
        total += oracle_perft(board, depth - 1)
        board.pop()
    return total


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_perft_from_the_start(variant):
    cls, _ = VARIANTS[variant]
    board = pgntools.Board(variant=variant)
    assert board.fen() == cls().fen()
    for depth in range(1, DEEPEST.get(variant, 4) + 1):
        assert board.perft(depth) == oracle_perft(cls(), depth), depth


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_perft_from_random_positions(variant):
    cls, _ = VARIANTS[variant]
    ended = 0
    for i, fen in enumerate(random_positions(cls, PERFT_POSITIONS, seed=len(variant))):
        board = pgntools.Board(fen, variant=variant)
        oracle = cls(fen)
        assert board.fen() == oracle.fen()
        ended += oracle.is_variant_end()
        assert sorted(board.legal_moves()) == sorted(m.uci() for m in oracle.legal_moves), fen
        for depth in (2, 3) if i % 6 or variant in DEEPEST else (2, 3, 4):
            assert board.perft(depth) == oracle_perft(oracle, depth), (fen, depth)


def random_game(cls, tag, rng):
    """A random legal game of the variant as PGN, with python-chess's final FEN and result."""
    board = cls()
    game = chess.pgn.Game()
    game.headers["Variant"] = tag
    node = game
    for _ in range(rng.randrange(1, 300)):
        if board.is_game_over():
            break
        move = rng.choice(list(board.legal_moves))
        node = node.add_variation(move)
        board.push(move)
    game.headers["Result"] = board.result()
    return str(game), board


def oracle_outcome(board):
    """python-chess's outcome as pgntools names it (the variant's ends for the side to move)."""
    outcome = board.outcome()
    if outcome is None:
        return None
    t = outcome.termination
    if t in (chess.Termination.VARIANT_WIN, chess.Termination.VARIANT_LOSS, chess.Termination.VARIANT_DRAW):
        if outcome.winner is None:
            return "variant_draw"
        return "variant_win" if outcome.winner == board.turn else "variant_loss"
    return {chess.Termination.CHECKMATE: "checkmate", chess.Termination.STALEMATE: "stalemate",
            chess.Termination.INSUFFICIENT_MATERIAL: "insufficient_material",
            chess.Termination.SEVENTYFIVE_MOVES: "seventyfive_moves",
            chess.Termination.FIVEFOLD_REPETITION: "fivefold_repetition"}[t]


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_random_games_replay_like_python_chess(variant, tmp_path):
    cls, tag = VARIANTS[variant]
    replay_random_games(variant, cls, tag, GAMES_PER_VARIANT, tmp_path)


def test_giveaway_games_start_with_castling(tmp_path):
    # python-chess's Giveaway: antichess's rules from chess's start, castling rights and all
    assert pgntools.Board(variant="Giveaway").fen() == chess.variant.GiveawayBoard().fen()
    ends = replay_random_games("antichess", chess.variant.GiveawayBoard, "Giveaway", 100, tmp_path)
    assert "variant_win" in ends


def replay_random_games(variant, cls, tag, count, tmp_path):
    """`count` random games of the variant (python-chess's board `cls`, the Variant tag `tag`)
    replayed to python-chess's final FEN, result and outcome; the outcomes reached."""
    rng = random.Random(38 + len(variant) + len(tag))
    texts, boards = [], []
    for _ in range(count):
        text, board = random_game(cls, tag, rng)
        texts.append(text)
        boards.append(board)
    path = tmp_path / f"{variant}.pgn"
    path.write_text("\n\n".join(texts) + "\n")
    games = list(pgntools.read_games(str(path)))
    assert len(games) == len(boards)
    ends = set()
    for game, board in zip(games, boards):
        assert game.errors == [], (game.errors, game.pgn)
        assert game.variant == variant
        assert game.final_fen == board.fen()
        assert game.result == board.result()
        assert game.outcome == oracle_outcome(board)
        # the SAN python-chess wrote (its '#' for a variant's end too, its origins) needed no note
        assert [n.kind for n in game.notes if n.category == "note" and "claimable" not in n.kind] == [], game.notes
        ends.add(game.outcome)
    # the variant's own end is reached by random play (the horde's 36 pawns outlast it: its loss is
    # test_horde_loses_its_last_pawn's; random play mates Black's king there instead)
    if tag != "Giveaway":
        assert {"checkmate" if variant == "horde" else "variant_win" if variant == "antichess" else
                "variant_loss"} <= ends, ends
    return ends


def test_three_check_fen_forms():
    start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - "
    lichess = pgntools.Board(start + "0 1 +1+2", variant="3check")  # the checks given
    assert lichess.fen() == start + "2+1 0 1"
    assert lichess.fen() == chess.variant.ThreeCheckBoard(start + "0 1 +1+2").fen()
    assert pgntools.Board(start + "2+1 0 1", variant="3-check").fen() == start + "2+1 0 1"
    assert pgntools.Board(start + "0 1", variant="Three-check").fen() == start + "3+3 0 1"
    with pytest.raises(pgntools.InvalidFenError, match="checks"):
        pgntools.Board(start + "4+1 0 1", variant="3check")
    with pytest.raises(pgntools.InvalidFenError):  # no counters in standard chess
        pgntools.Board(start + "3+3 0 1")


def test_three_check_third_check_ends_the_game(tmp_path):
    pgn = ('[Variant "Three-check"]\n[FEN "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2 +2+0"]\n'
           '[Result "1-0"]\n\n2. Bb5 Nc6 3. Bxc6 dxc6 1-0\n')
    (game,) = read_one(pgn, tmp_path)
    assert [e.kind for e in game.errors] == []  # no check yet: the game goes on
    pgn = pgn.replace("2. Bb5 Nc6 3. Bxc6 dxc6", "2. Qh5 Nc6 3. Qxf7#")
    (game,) = read_one(pgn, tmp_path)
    assert game.errors == [] and game.outcome == "variant_loss" and game.result == "1-0"
    more = pgn.replace("3. Qxf7# 1-0", "3. Qxf7+ Kxf7 1-0")
    (game,) = read_one(more, tmp_path)
    assert [e.kind for e in game.errors] == ["move_after_game_end"]


def test_king_of_the_hill_centre_wins(tmp_path):
    pgn = ('[Variant "King of the Hill"]\n[FEN "4k3/8/8/8/8/8/3K4/8 w - - 0 1"]\n[Result "1-0"]\n\n'
           '1. Kd3 Kd7 2. Kd4 1-0\n')
    (game,) = read_one(pgn, tmp_path)
    assert game.errors == [] and game.outcome == "variant_loss" and game.result == "1-0"
    # a bare king is no draw there: it can walk to the hill
    board = pgntools.Board("4k3/8/8/8/8/8/3K4/8 w - - 0 1", variant="kingofthehill")
    assert not board.is_insufficient_material()
    assert pgntools.Board("4k3/8/8/8/8/8/3K4/8 w - - 0 1").is_insufficient_material()


def test_variant_not_played_is_named(tmp_path):
    pgn = '[Variant "Duck Chess"]\n[Result "*"]\n\n1. e4 *\n'
    (game,) = read_one(pgn, tmp_path)
    assert [e.kind for e in game.errors] == ["unsupported_variant"]
    assert "Duck Chess" in game.errors[0].message
    with pytest.raises(ValueError, match="Duck"):
        pgntools.Board(variant="Duck Chess")


def test_perft_command_variant():
    from click.testing import CliRunner

    from pgntools.cli import cli

    result = CliRunner().invoke(cli, ["perft", "3", "--variant", "3check", "--fen",
                                       "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2 +2+0"])
    assert result.exit_code == 0, result.output
    oracle = chess.variant.ThreeCheckBoard("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2 +2+0")
    assert int(result.output) == oracle_perft(oracle, 3)
    for variant, nodes in (("racingkings", 421), ("Horde", 128), ("antichess", 400)):  # python-chess's, depth 2
        result = CliRunner().invoke(cli, ["perft", "2", "--variant", variant])
        assert result.exit_code == 0 and int(result.output) == nodes, (variant, result.output)
    result = CliRunner().invoke(cli, ["perft", "1", "--variant", "Duck Chess"])
    assert result.exit_code == 2 and "unsupported variant" in result.output


def test_export_variant_column(tmp_path):
    import pyarrow.dataset as ds
    from click.testing import CliRunner

    from pgntools.cli import cli

    pgn = ('[Variant "King of the Hill"]\n[Result "*"]\n\n1. e4 *\n\n'
           '[Variant "3-check"]\n[Result "*"]\n\n1. e4 *\n\n[Result "*"]\n\n1. e4 *\n')
    (tmp_path / "v.pgn").write_text(pgn)
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["export", "--parquet", str(out), str(tmp_path / "v.pgn")])
    assert result.exit_code == 0, result.output
    games = ds.dataset(str(out / "games"), format="parquet").to_table().to_pydict()
    assert games["rules"] == ["kingofthehill", "3check", "standard"]
    assert games["variant"] == ["King of the Hill", "3-check", None]  # the tag as written
    assert games["final_fen"][1].endswith("- 3+3 0 1")


def oracle_game(cls, fen, sans, tag):
    """python-chess's final FEN, result and outcome of the moves `sans` from `fen`, and the PGN."""
    board = cls(fen)
    for san in sans:
        board.push_san(san)
    result = board.result()
    pgn = f'[Variant "{tag}"]\n[FEN "{fen}"]\n[SetUp "1"]\n[Result "{result}"]\n\n{" ".join(sans)} {result}\n'
    return pgn, board


@pytest.mark.parametrize("black_reply, result, outcome", [
    ("Kb8", "1/2-1/2", "variant_draw"),  # Black's king reaches rank 8 too: a draw
    ("Kb6", "1-0", "variant_win"),       # it does not: White has won
])
def test_racing_kings_last_move_draw(black_reply, result, outcome, tmp_path):
    fen = "8/1k4K1/8/8/8/8/8/8 w - - 0 1"
    pgn, board = oracle_game(chess.variant.RacingKingsBoard, fen, ["Kg8", black_reply], "Racing Kings")
    assert board.result() == result
    (game,) = read_one(pgn, tmp_path)
    assert game.errors == [] and game.result == result and game.outcome == outcome == oracle_outcome(board)
    assert game.final_fen == board.fen()


def test_racing_kings_black_cannot_reach_the_goal(tmp_path):
    # White's king on rank 8 and every square of rank 8 beside Black's king attacked: over at once
    fen = "8/k5K1/8/8/4B3/8/8/1R6 w - - 0 1"
    pgn, board = oracle_game(chess.variant.RacingKingsBoard, fen, ["Kg8"], "Racing Kings")
    assert board.is_variant_end() and board.result() == "1-0"
    (game,) = read_one(pgn, tmp_path)
    assert game.errors == [] and game.outcome == "variant_loss" and game.result == "1-0"
    # the Result tag is checked against the end, as in chess (fixed to the end's result)
    (game,) = read_one(pgn.replace("1-0", "0-1"), tmp_path)
    assert game.result == "1-0" and "result_tag" in [f.kind for f in game.fixes]


def test_racing_kings_no_move_gives_check(tmp_path):
    fen = "8/8/8/8/8/8/krbnNBRK/qrbnNBRQ w - - 0 1"
    board = pgntools.Board(variant="racingkings")
    oracle = chess.variant.RacingKingsBoard()
    assert "Nc3" not in [oracle.san(m) for m in oracle.legal_moves]  # (it would check the king on a2)
    pgn = '[Variant "Racing Kings"]\n[Result "*"]\n\n1. Nc3 *\n'
    (game,) = read_one(pgn, tmp_path)
    assert [e.kind for e in game.errors] == ["illegal_move"]
    assert sorted(board.legal_moves()) == sorted(m.uci() for m in oracle.legal_moves)
    with pytest.raises(pgntools.InvalidFenError):  # a king in check: no such position in the race
        pgntools.Board("8/8/8/8/8/8/kR6/7K b - - 0 1", variant="racingkings")
    assert pgntools.Board(fen, variant="Racing Kings").fen() == fen


def test_horde_loses_its_last_pawn(tmp_path):
    fen = "4k3/8/8/8/8/8/3q4/4P3 b - - 0 1"  # (a horde of one pawn, on its first rank)
    pgn, board = oracle_game(chess.variant.HordeBoard, fen, ["Qxe1"], "Horde")
    assert board.result() == "0-1"
    (game,) = read_one(pgn, tmp_path)
    assert game.errors == [] and game.result == "0-1" and game.outcome == "variant_loss" == oracle_outcome(board)
    assert game.final_fen == board.fen() == "4k3/8/8/8/8/8/8/4q3 w - - 0 2"
    assert pgntools.Board(board.fen(), variant="horde").legal_moves() == []


def test_horde_first_rank_double_step(tmp_path):
    fen = "4k3/8/8/8/8/1p6/8/P7 w - - 0 1"
    board = pgntools.Board(fen, variant="horde")
    oracle = chess.variant.HordeBoard(fen)
    assert sorted(board.legal_moves()) == sorted(m.uci() for m in oracle.legal_moves) == ["a1a2", "a1a3"]
    board.push_san("a3")
    oracle.push_san("a3")
    # no en passant after a step from the first rank (python-chess, Lichess)
    assert board.fen() == oracle.fen() and "b3a2" not in board.legal_moves()
    assert sorted(board.legal_moves()) == sorted(m.uci() for m in oracle.legal_moves)
    assert board.key == chess.polyglot.zobrist_hash(oracle)


def test_horde_positions_without_a_white_king(tmp_path):
    start = chess.variant.HordeBoard().fen()
    board = pgntools.Board(variant="Horde")
    assert board.fen() == start and board.key == chess.polyglot.zobrist_hash(chess.variant.HordeBoard())
    assert not board.is_check() and board.outcome() is None
    with pytest.raises(pgntools.InvalidFenError):  # the horde has no king
        pgntools.Board(start.replace("PPPPPPPP w", "PPPKPPPP w"), variant="horde")


@pytest.mark.parametrize("variant", ["horde", "antichess"])
def test_kingless_positions_export(variant, tmp_path):
    # export and to-fen write the positions and keys of games without a king (the horde's, an
    # antichess king taken), as python-chess computes them
    from click.testing import CliRunner

    from pgntools.cli import cli
    cls, tag = VARIANTS[variant]
    rng = random.Random(5)
    text, oracle = random_game(cls, tag, rng)
    while variant == "antichess" and all(oracle.kings & side for side in oracle.occupied_co):
        text, oracle = random_game(cls, tag, rng)  # (until a king has been taken)
    (tmp_path / "h.pgn").write_text(text)
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["export", "--parquet", str(out), "--positions", str(tmp_path / "pos"),
                                       str(tmp_path / "h.pgn")])
    assert result.exit_code == 0, result.output
    import pyarrow.dataset as ds
    rows = ds.dataset(str(tmp_path / "pos"), format="parquet").to_table(columns=["fen", "key"]).to_pydict()
    replay = cls()
    for fen, key in zip(rows["fen"], rows["key"]):  # every position and its Polyglot key as python-chess's
        replay.set_fen(fen)
        assert key == chess.polyglot.zobrist_hash(replay)
    assert len(rows["fen"]) == len(oracle.move_stack)
    result = CliRunner().invoke(cli, ["to-fen", str(tmp_path / "h.pgn")])
    assert result.exit_code == 0 and oracle.fen() in result.output, result.output


@pytest.mark.parametrize("fen, sans, result", [
    ("8/8/8/8/8/8/p7/1R6 b - - 0 1", ["axb1=Q"], "1-0"),  # White has no piece left: White has won
    ("8/p7/8/8/P7/8/8/8 b - - 0 1", ["a5"], "1-0"),        # White has no move (stalemate): White has won
    ("8/4P3/8/8/8/8/8/k7 w - - 0 1", ["e8=K", "Kb1", "Kd7"], "*"),  # a pawn promotes to a king
])
def test_antichess_ends_and_king_promotion(fen, sans, result, tmp_path):
    pgn, board = oracle_game(chess.variant.AntichessBoard, fen, sans, "Antichess")
    assert board.result() == result
    (game,) = read_one(pgn, tmp_path)
    assert game.errors == [] and game.result == result and game.final_fen == board.fen()
    assert game.outcome == oracle_outcome(board) == ("variant_win" if result != "*" else None)
    ours = pgntools.Board(fen, variant="antichess")
    oracle = chess.variant.AntichessBoard(fen)
    for san in sans:
        assert sorted(ours.legal_moves()) == sorted(m.uci() for m in oracle.legal_moves)
        move = oracle.parse_san(san)
        assert ours.san(move.uci()) == oracle.san(move)  # '#' where the move wins for the other side
        ours.push_san(san)
        oracle.push(move)
    assert ours.fen() == oracle.fen() and ours.key == chess.polyglot.zobrist_hash(oracle)
    assert ours.outcome() == oracle_outcome(oracle)


def test_antichess_captures_are_forced_and_kings_are_pieces(tmp_path):
    fen = "4k3/8/8/8/8/8/3p4/4K3 w - - 0 1"  # the king must take the pawn; no check anywhere
    board = pgntools.Board(fen, variant="antichess")
    assert board.legal_moves() == ["e1d2"] and not board.is_check()
    pgn = '[Variant "Antichess"]\n[FEN "%s"]\n[Result "*"]\n\n1. Kf1 *\n' % fen
    (game,) = read_one(pgn, tmp_path)
    assert [e.kind for e in game.errors] == ["illegal_move"]
    # a king may be taken: then the side without pieces to move has won
    pgn, oracle = oracle_game(chess.variant.AntichessBoard, "8/8/8/8/8/8/8/k1K5 w - - 0 1", ["Kb1", "Kxb1"], "Antichess")
    (game,) = read_one(pgn, tmp_path)
    assert game.errors == [] and game.result == "1-0" == oracle.result() and game.final_fen == oracle.fen()


def test_antichess_insufficient_material():
    for fen in ("8/8/8/8/8/8/8/B6b w - - 0 1", "8/8/8/8/8/8/8/B5b1 w - - 0 1", "8/8/8/8/8/8/8/N6n w - - 0 1",
                "8/8/8/8/8/8/8/N5n1 b - - 0 1"):
        assert pgntools.Board(fen, variant="antichess").is_insufficient_material() == \
            chess.variant.AntichessBoard(fen).is_insufficient_material(), fen
