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
    "atomic": (chess.variant.AtomicBoard, "Atomic"),
    "crazyhouse": (chess.variant.CrazyhouseBoard, "Crazyhouse"),
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
    # the variant's own end is reached by random play (crazyhouse has none: checkmate; the horde's 36
    # pawns outlast it: its loss is test_horde_loses_its_last_pawn's, random play mates Black's king)
    if tag != "Giveaway":
        expected = ("checkmate" if variant in ("horde", "crazyhouse") else "variant_win" if variant == "antichess"
                    else "variant_loss")
        assert {expected} <= ends, ends
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


def test_atomic_explosion_beside_both_kings():
    # the knight on d5 stands beside both kings: taking it would explode White's own king too
    fen = "3R4/8/8/3n4/2K1k3/8/8/8 w - - 0 1"
    board, oracle = pgntools.Board(fen, variant="atomic"), chess.variant.AtomicBoard(fen)
    assert sorted(board.legal_moves()) == sorted(m.uci() for m in oracle.legal_moves)
    assert "d8d5" not in board.legal_moves()
    assert not board.is_check()  # kings side by side: no check
    # beside the enemy king alone, the capture explodes it: that wins, though White is in check
    fen = "8/8/8/R3nk2/8/8/8/4K2r w - - 0 1"
    board, oracle = pgntools.Board(fen, variant="atomic"), chess.variant.AtomicBoard(fen)
    assert board.is_check() and "a5e5" in board.legal_moves()
    assert sorted(board.legal_moves()) == sorted(m.uci() for m in oracle.legal_moves)
    board.push_uci("a5e5")
    oracle.push_uci("a5e5")
    assert board.fen() == oracle.fen() and board.outcome() == "variant_loss" and oracle.is_variant_loss()


def test_atomic_moves_made_and_taken_back():
    # every move text at every node, made and taken back (pos_unmake puts an explosion back)
    for fen in ("r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
                "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
                "8/8/8/3n4/2K1k3/8/8/3R4 w - - 0 1"):
        texts, made = _core.check_move_path(fen, 2, variant="atomic")
        assert made > 0, fen


def test_atomic_variation_after_an_explosion(tmp_path):
    # a variation starts from the position before a capture that exploded pieces
    pgn = ('[Variant "Atomic"]\n[Result "*"]\n\n1. e4 d5 2. exd5 (2. Nc3 dxe4 3. Nxe4) 2... Nf6 *\n')
    (game,) = read_one(pgn, tmp_path)
    oracle = chess.variant.AtomicBoard()
    for uci in ("e2e4", "d7d5", "e4d5", "g8f6"):
        oracle.push_uci(uci)
    assert game.errors == [] and game.final_fen == oracle.fen()


def test_atomic_fen_with_pockets_is_refused(tmp_path):
    fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Qn] w KQkq - 0 1"
    with pytest.raises(pgntools.InvalidFenError, match="pockets"):
        pgntools.Board(fen, variant="atomic")
    pgn = f'[Variant "Atomic"]\n[SetUp "1"]\n[FEN "{fen}"]\n[Result "*"]\n\n1. e4 *\n'
    (game,) = read_one(pgn, tmp_path)
    assert game.status == "invalid" and "pockets" in game.errors[0].message


def test_atomic_insufficient_material_as_python_chess():
    for fen in ("8/8/8/4k3/8/8/8/R3K3 w - - 0 1", "8/8/8/4k3/8/8/8/RR2K3 w - - 0 1",
                "8/8/8/4kb2/8/8/8/2B1K3 w - - 0 1", "8/8/8/4kb2/8/8/8/3BK3 w - - 0 1",
                "8/8/8/4k3/8/8/8/NN2K3 w - - 0 1", "8/8/8/4k3/8/8/8/4K3 w - - 0 1"):
        oracle = chess.variant.AtomicBoard(fen)
        assert pgntools.Board(fen, variant="atomic").is_insufficient_material() == oracle.is_insufficient_material(), fen


def corpus_variant_games(names):
    """The games of the shared Lichess file whose Variant tag is one of `names`, as PGN texts."""
    import re

    from corpora_dir import CORPORA_DIR

    path = CORPORA_DIR / "lichess" / "lichess-magnus-carlsen.pgn"
    if not path.exists():
        pytest.skip(f"the shared Lichess corpus is not at {path}")
    text = path.read_text(encoding="utf-8")
    wanted = re.compile(r'\[Variant "(%s)"\]' % "|".join(names))
    return [g for g in re.split(r"\n\n(?=\[Event )", text) if wanted.search(g)]


@pytest.mark.parametrize("variant, count", [("Atomic", 25), ("Crazyhouse", 1)])
def test_lichess_corpus_variant_games_replay(variant, count, tmp_path):
    import io

    texts = corpus_variant_games([variant])
    assert len(texts) == count
    path = tmp_path / "variant.pgn"
    path.write_text("\n\n".join(texts) + "\n")
    games = list(pgntools.read_games(str(path)))
    assert len(games) == count
    for text, game in zip(texts, games):
        board = chess.pgn.read_game(io.StringIO(text)).end().board()
        assert game.errors == [] and game.status == "valid", game.errors
        assert game.final_fen == board.fen()
        assert game.outcome == oracle_outcome(board)


def test_atomic_polyglot_keys_are_python_chess_keys():
    # the book counts atomic games by the key python-chess's zobrist_hash gives them (the pieces
    # left after the explosions), so they are not refused
    import chess.polyglot

    rng = random.Random(7)
    for _ in range(20):
        oracle, board = chess.variant.AtomicBoard(), pgntools.Board(variant="atomic")
        for _ in range(rng.randrange(1, 60)):
            moves = list(oracle.legal_moves)
            if not moves:
                break
            move = rng.choice(moves)
            oracle.push(move)
            board.push_uci(move.uci())
            assert board.key == chess.polyglot.zobrist_hash(oracle), oracle.fen()


def oracle_replay(cls, fen, sans):
    board = cls(fen) if fen else cls()
    for san in sans:
        board.push_san(san)
    return board


def test_crazyhouse_drop_gives_mate(tmp_path):
    fen = "6rk/6pp/8/8/8/8/8/4K3[N] w - - 0 1"
    pgn = f'[Variant "Crazyhouse"]\n[SetUp "1"]\n[FEN "{fen}"]\n[Result "1-0"]\n\n1. N@f7# 1-0\n'
    (game,) = read_one(pgn, tmp_path)
    oracle = oracle_replay(chess.variant.CrazyhouseBoard, fen, ["N@f7"])
    assert game.errors == [] and game.outcome == "checkmate" and game.result == "1-0"
    assert game.final_fen == oracle.fen() == "6rk/5Npp/8/8/8/8/8/4K3[] b - - 1 1"
    # a drop that blocks the check is a legal answer to it: no mate then
    fen = "R3k3/8/8/8/8/8/8/4K3[b] b - - 0 1"
    board, oracle = pgntools.Board(fen, variant="crazyhouse"), chess.variant.CrazyhouseBoard(fen)
    assert board.is_check() and {"B@b8", "B@c8", "B@d8"} <= set(board.legal_moves())
    assert sorted(board.legal_moves()) == sorted(m.uci() for m in oracle.legal_moves)


def test_crazyhouse_promoted_piece_taken_goes_back_as_a_pawn(tmp_path):
    fen = "r3k3/1P6/8/8/8/8/8/4K3[] w - - 0 1"
    # the variation starts before the capture (pos_unmake puts the pockets back), takes the rook
    # with the promoted queen and drops it
    moves = "1. b8=Q+ Rxb8 (1... Kd7 2. Qxa8 Kc7 3. R@c8+) 2. Ke2 P@d3+ 3. Kxd3"
    pgn = f'[Variant "Crazyhouse"]\n[SetUp "1"]\n[FEN "{fen}"]\n[Result "*"]\n\n{moves} *\n'
    (game,) = read_one(pgn, tmp_path)
    assert game.errors == [] and game.notes == [], (game.errors, game.notes)
    oracle = oracle_replay(chess.variant.CrazyhouseBoard, fen, ["b8=Q+", "Rxb8", "Ke2", "P@d3+", "Kxd3"])
    assert game.final_fen == oracle.fen() == "1r2k3/8/8/8/8/3K4/8/8[P] b - - 0 3"
    # the queen went back to Black's pocket as the pawn it was: no queen to drop
    (game,) = read_one(pgn.replace("3. Kxd3", "3. Kxd3 Q@d8"), tmp_path)
    assert [e.kind for e in game.errors] == ["illegal_move"]
    board = pgntools.Board(fen, variant="crazyhouse")
    for uci in ("b7b8q", "a8b8"):
        board.push_uci(uci)
    assert board.fen() == "1r2k3/8/8/8/8/8/8/4K3[p] w - - 0 2"
    fen = "1Q~2k3/8/8/8/8/8/8/4K3[] b - - 0 1"
    assert pgntools.Board(fen, variant="crazyhouse").fen() == chess.variant.CrazyhouseBoard(fen).fen() == fen


def test_crazyhouse_moves_made_and_taken_back():
    for fen in ("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R[PpNnqQ] w KQkq - 5 3",
                "r3k3/1P6/8/8/8/8/8/4K3[] w - - 0 1", "1Q~2k3/8/8/8/8/8/8/4K3[qp] b - - 0 1"):
        texts, made = _core.check_move_path(fen, 2, variant="crazyhouse")
        assert made > 0, fen


def test_crazyhouse_fen_forms():
    start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"
    for fen in (start + "[Qn] w KQkq - 0 1", start + "/Qn w KQkq - 0 1"):  # python-chess's, and a 9th rank
        assert pgntools.Board(fen, variant="crazyhouse").fen() == chess.variant.CrazyhouseBoard(fen).fen()
    assert pgntools.Board(variant="Crazyhouse").fen() == chess.variant.CrazyhouseBoard().fen()
    with pytest.raises(pgntools.InvalidFenError, match="pockets"):
        pgntools.Board(start + "[Kn] w KQkq - 0 1", variant="crazyhouse")


def test_a_drop_in_standard_chess_stays_an_error(tmp_path):
    (game,) = read_one('[Result "*"]\n\n1. e4 N@f6 *\n', tmp_path)
    assert [e.kind for e in game.errors] == ["drop"]
    (game,) = read_one('[Variant "Crazyhouse"]\n[Result "*"]\n\n1. e4 N@f6 *\n', tmp_path)
    assert [e.kind for e in game.errors] == ["illegal_move"]  # no knight in Black's pocket


def test_crazyhouse_insufficient_material_and_keys_as_python_chess():
    import chess.polyglot

    for fen in ("8/8/8/4k3/8/8/8/4KB2[] w - - 0 1", "8/8/8/4k3/8/8/8/4K3[N] w - - 0 1",
                "8/8/8/4k3/8/8/8/4KB~2[] w - - 0 1", "8/8/8/4k3/8/8/8/4K3[P] w - - 0 1",
                "8/8/8/4kn2/8/8/8/4KN2[] w - - 0 1"):
        oracle = chess.variant.CrazyhouseBoard(fen)
        assert pgntools.Board(fen, variant="crazyhouse").is_insufficient_material() == \
            oracle.is_insufficient_material(), fen
    fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R[PpNnqQ] w KQkq - 5 3"
    # python-chess's Polyglot key is the board's alone (no pockets): the book counts the same key
    assert pgntools.Board(fen, variant="crazyhouse").key == chess.polyglot.zobrist_hash(
        chess.variant.CrazyhouseBoard(fen))


def test_export_crazyhouse_drops_and_pockets(tmp_path):
    import pyarrow.dataset as ds
    from click.testing import CliRunner

    from pgntools.cli import cli

    pgn = '[Variant "Crazyhouse"]\n[Result "*"]\n\n1. e4 d5 2. exd5 Qxd5 3. P@e4 Qxe4+ 4. Be2 N@f3 *\n'
    (tmp_path / "zh.pgn").write_text(pgn.replace("N@f3", "P@f3"))
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["export", "--parquet", str(out), str(tmp_path / "zh.pgn"),
                                       "--positions", str(tmp_path / "positions")])
    assert result.exit_code == 0, result.output
    moves = ds.dataset(str(out / "moves"), format="parquet").to_table().to_pydict()
    assert moves["uci"][4] == "P@e4" and moves["san"][4] == "@e4" and moves["piece"][4] == "pawn"
    assert moves["drop"] == [False] * 4 + [True, False, False, True]
    assert moves["from_square"][4] == moves["to_square"][4] == chess.E4
    games = ds.dataset(str(out / "games"), format="parquet").to_table().to_pydict()
    oracle = oracle_replay(chess.variant.CrazyhouseBoard, None, "e4 d5 exd5 Qxd5 P@e4 Qxe4+ Be2 P@f3".split())
    assert games["rules"] == ["crazyhouse"] and games["final_fen"] == [oracle.fen()]
    positions = ds.dataset(str(tmp_path / "positions"), format="parquet").to_table().to_pydict()
    assert positions["fen"][4].endswith("[Pp] w KQkq - 0 3")  # the pockets in the positions' FEN
