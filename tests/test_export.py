"""`pgntools export --parquet`: the games/moves Parquet dataset (issue 5).

The dataset is read back with ``pyarrow.dataset`` exactly as a query engine would. Expected
values come from python-chess (the test-only oracle) or are written by hand; the expected
schema below is written out by hand from the issue and ``pgntools/tables/schema.py`` rather than
imported, so a change of a column's type is caught here. The corpus tests compare a sample of
each shared corpus file (its first ``EXPORT_SAMPLE`` games); ``-m slow`` compares every game.
"""
from __future__ import annotations

import datetime

import io
import os
import shutil
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import pytest
from click.testing import CliRunner

from conftest import (check_corpus_in_chunks, no_move_in, CHESS_REASON, corpus_id, corpus_pgn_files, head_games, PgnLines,
                      require_corpora, START_FEN)

chess = pytest.importorskip("chess", reason=CHESS_REASON)
chess_pgn = pytest.importorskip("chess.pgn", reason=CHESS_REASON)
polyglot = pytest.importorskip("chess.polyglot", reason=CHESS_REASON)
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
ds = pytest.importorskip("pyarrow.dataset")

import pgntools.sinks.parquet as parquet_sink  # noqa: E402  (after the importorskips)
from pgntools.cli import cli  # noqa: E402

EXPORT_SAMPLE = 60  # games per corpus file in the default run

PIECE = pa.dictionary(pa.int8(), pa.string())
GAMES_TYPES = [
    ("game_id", pa.int64()), ("game_uid", pa.int64()), ("source", pa.string()), ("offset", pa.int64()),
    ("event", pa.string()), ("site", pa.string()), ("date", pa.date32()), ("year", pa.int16()),
    ("month", pa.uint8()), ("round", pa.string()),
    ("white", pa.string()), ("black", pa.string()),
    ("white_elo", pa.int32()), ("black_elo", pa.int32()),
    ("time_control", pa.string()), ("speed", PIECE), ("eco", pa.string()), ("opening", pa.string()), ("termination", pa.string()),
    ("utc_date", pa.string()), ("utc_time", pa.string()),
    ("utc_datetime", pa.timestamp("ms", "UTC")),  # (timestamp[s] in Arrow: Parquet has no seconds, as pyarrow's)
    ("variant", pa.string()), ("rules", PIECE),
    ("tags", pa.map_(pa.string(), pa.string())),
    ("start_fen", pa.string()), ("result", pa.string()), ("result_tag", pa.string()),
    ("status", PIECE),
    ("errors", pa.list_(pa.struct([("kind", pa.string()), ("ply", pa.int32()), ("message", pa.string())]))),
    ("fixes", pa.list_(pa.struct([("kind", pa.string()), ("ply", pa.int32()), ("field", pa.string()),
                                  ("before", pa.string()), ("after", pa.string())]))),
    ("ply_count", pa.int32()), ("has_clock", pa.bool_()), ("has_eval", pa.bool_()), ("captures", pa.uint8()),
    ("checks", pa.int32()), ("underpromotions", pa.uint8()), ("max_halfmove_clock", pa.uint16()),
    ("max_repetitions", pa.uint16()), ("outcome", PIECE), ("automatic_end", PIECE), ("automatic_end_ply", pa.int32()),
    ("final_fen", pa.string()),
    ("opening_eco", pa.string()),
    ("opening_name", pa.string()),
    ("opening_ply", pa.int16()),
    ("movetext_hash", pa.int64()),
    ("final_key", pa.uint64()),
]
MOVES_TYPES = [
    ("game_id", pa.int64()), ("game_uid", pa.int64()), ("ply", pa.int16()), ("san", pa.string()), ("uci", pa.string()),
    ("from_square", pa.uint8()), ("to_square", pa.uint8()),
    ("piece", PIECE), ("captured", PIECE), ("promotion", PIECE),
    ("is_capture", pa.bool_()), ("is_check", pa.bool_()), ("is_mate", pa.bool_()), ("is_castle", pa.bool_()),
    ("is_en_passant", pa.bool_()), ("is_null", pa.bool_()), ("drop", pa.bool_()), ("halfmove_clock", pa.uint16()),
    ("clock", pa.float64()), ("emt", pa.float64()), ("eval_cp", pa.int32()), ("eval_mate", pa.int16()),
    ("nags", pa.list_(pa.uint8())),
]

# ---------------------------------------------------------------- hand-written games

# En passant (3. exf6), promotion with capture (5. gxh8=Q), both castlings (6... O-O-O, 8. O-O).
FLAGS = """[Event "Flags"]
[Site "tests"]
[Date "2026.01.02"]
[Round "1"]
[White "Alice"]
[Black "Bob"]
[Result "*"]
[WhiteElo "2345"]
[BlackElo "?"]

1. e4 d5 2. e5 f5 3. exf6 Nc6 4. fxg7 Be6 5. gxh8=Q Qd7 6. Nf3 O-O-O 7. Be2 a6 8. O-O Bg4
9. Qxg8 Bxf3 10. Bxf3 Qd6 11. Qxf8 Rxf8 *
"""

# A capture with check (6... Qxe4+) and a knight mate (7... Nf3#).
MATE = """[Event "Mate"]
[Site "tests"]
[Date "2026.01.02"]
[Round "2"]
[White "Carol"]
[Black "Dave"]
[Result "0-1"]
[ECO "C50"]
[Opening "Blackburne Shilling Gambit"]
[Annotator "Tester"]
[PlyCount "14"]

1. e4 e5 2. Nf3 Nc6 3. Bc4 Nd4 4. Nxe5 Qg5 5. Nxf7 Qxg2 6. Rf1 Qxe4+ 7. Be2 Nf3# 0-1
"""

# Illegal 4... Qxe2 (no black queen reaches e2): invalid, error at ply 8, 7 plies replayed.
ILLEGAL = """[Event "Illegal"]
[Site "tests"]
[Date "2026.01.02"]
[Round "3"]
[White "Erin"]
[Black "Frank"]
[Result "*"]

1. d4 d5 2. c4 e6 3. Nc3 Nf6 4. Bg5 Qxe2 5. Nf3 *
"""

# Clock, elapsed time, evaluation (centipawns and mate) annotations, NAGs.
ANNOTATED = """[Event "Annotated"]
[Site "tests"]
[Date "2026.01.02"]
[Round "4"]
[White "Grace"]
[Black "Heidi"]
[Result "*"]
[TimeControl "300+3"]

1. e4 { [%clk 0:05:00] [%eval 0.17] } 1... e5 $1 { [%clk 1:02:03.5] [%emt 0:00:04] } 2. Qh5 $2 $18
{ [%eval #-3] [%clk 0:04:55] } 2... Nc6 { [%eval -2.5] } 3. Bc4 ?! { [%eval #2] } 3... Nf6 !! 4. Qxf7# *
"""

# No annotations at all; a Result tag that disagrees with the marker ('*' tag, decided marker: fixed).
PLAIN = """[Event "Plain"]
[Site "tests"]
[Date "2026.01.02"]
[Round "5"]
[White "Ivan"]
[Black "Judy"]
[Result "*"]

1. d4 d5 2. c4 c6 1/2-1/2
"""

# A stalemate from a set-up position.
STALEMATE = """[Event "Stalemate"]
[Site "tests"]
[Date "2026.01.02"]
[Round "6"]
[White "Ken"]
[Black "Leo"]
[Result "1/2-1/2"]
[SetUp "1"]
[FEN "7k/5Q2/8/6K1/8/8/8/8 w - - 0 60"]

60. Kg6 1/2-1/2
"""

# Chess960 (start RKBNRBQN): queen-side castling is b1a1 / b8a8 in king-takes-rook UCI.
CHESS960 = """[Event "Hand 960"]
[Site "tests"]
[Date "2026.01.02"]
[Round "7"]
[White "Mia"]
[Black "Ned"]
[Result "*"]
[Variant "Chess960"]
[SetUp "1"]
[FEN "rkbnrbqn/pppppppp/8/8/8/8/PPPPPPPP/RKBNRBQN w KQkq - 0 1"]

1. d4 d5 2. Ne3 Ne6 3. Bd2 Bd7 4. O-O-O O-O-O 5. Kb1 *
"""

COMMENTED = """[Event "Commented"]
[Site "tests"]
[Date "2026.01.02"]
[Round "8"]
[White "Olga"]
[Black "Pete"]
[Result "*"]

1. e4 {Best by test} e5 2. Nf3 {A developing move.} Nc6 *
"""


# ---------------------------------------------------------------- helpers

def invoke(args, expect=(0,), **kw):
    """Run the CLI in-process; fail with its stderr when the exit status is unexpected or it crashed."""
    result = CliRunner().invoke(cli, [str(a) for a in args], **kw)
    crashed = result.exception is not None and not isinstance(result.exception, SystemExit)
    assert not crashed and result.exit_code in expect, (
        f"pgntools {' '.join(map(str, args))} -> exit {result.exit_code}\n"
        f"stderr: {result.stderr}\nexception: {result.exception!r}")
    return result


def write_pgn(tmp_path: Path, name: str, *games: str) -> Path:
    path = tmp_path / name
    path.write_text("\n".join(games), encoding="utf-8")
    return path


def read_dataset(out: Path) -> Tuple["pa.Table", "pa.Table"]:
    games = ds.dataset(str(out / "games"), format="parquet").to_table()
    moves = ds.dataset(str(out / "moves"), format="parquet").to_table()
    return games.sort_by("game_id"), moves.sort_by([("game_id", "ascending"), ("ply", "ascending")])


def export(tmp_path: Path, files, *options, expect=(0, 1), name="out"):
    out = tmp_path / name
    invoke(["export", "--parquet", out, *options, *files], expect=expect)
    return read_dataset(out)


def rows(table: "pa.Table") -> List[dict]:
    return table.to_pylist()


def moves_of(moves: "pa.Table", game_id: int) -> List[dict]:
    return [m for m in rows(moves) if m["game_id"] == game_id]


def read_game(text: str):
    return chess_pgn.read_game(io.StringIO(text))


def oracle_moves(text: str, en_passant: str = "legal") -> List[dict]:
    """Per-ply expectations from python-chess for one hand-written game."""
    game = read_game(text)
    board = game.board()
    out = []
    for ply, node in enumerate(game.mainline(), 1):
        move = node.move
        piece = board.piece_type_at(move.from_square)
        if board.is_en_passant(move):
            captured = chess.PAWN
        elif board.is_castling(move):
            captured = None
        else:
            captured = board.piece_type_at(move.to_square)
        row = {
            "ply": ply, "san": board.san(move), "uci": board.uci(move),
            "from_square": move.from_square, "to_square": chess.parse_square(board.uci(move)[2:4]),
            "piece": chess.piece_name(piece),
            "captured": chess.piece_name(captured) if captured else None,
            "promotion": chess.piece_name(move.promotion) if move.promotion else None,
            "is_capture": board.is_capture(move), "is_check": board.gives_check(move),
            "is_castle": board.is_castling(move), "is_en_passant": board.is_en_passant(move),
        }
        board.push(move)
        row.update(is_mate=board.is_checkmate(), halfmove_clock=board.halfmove_clock,
                   fen=board.fen(en_passant=en_passant))
        out.append(row)
    return out


# ---------------------------------------------------------------- schema, counts, ids

def test_hand_games_are_what_the_comments_say():
    for text in (FLAGS, MATE, ANNOTATED, PLAIN, STALEMATE, CHESS960, COMMENTED):
        assert not read_game(text).errors
    assert read_game(ILLEGAL).errors and len(list(read_game(ILLEGAL).mainline_moves())) == 7
    flags = oracle_moves(FLAGS)
    assert [m["san"] for m in flags if m["is_castle"]] == ["O-O-O", "O-O"]
    assert [m["san"] for m in flags if m["is_en_passant"]] == ["exf6"]
    assert [m["san"] for m in flags if m["promotion"]] == ["gxh8=Q"]
    assert oracle_moves(MATE)[-1]["is_mate"]


def test_schema_types_exactly(tmp_path):
    src = write_pgn(tmp_path, "a.pgn", FLAGS, MATE, ILLEGAL, ANNOTATED)
    out = tmp_path / "out"
    invoke(["export", "--parquet", out, src], expect=(0,))
    games = ds.dataset(str(out / "games"), format="parquet").schema
    moves = ds.dataset(str(out / "moves"), format="parquet").schema
    assert [(f.name, f.type) for f in games] == GAMES_TYPES
    assert [(f.name, f.type) for f in moves] == MOVES_TYPES
    assert not games.field("game_id").nullable
    assert not moves.field("game_id").nullable and not moves.field("ply").nullable


def test_optional_columns_with_fen(tmp_path):
    src = write_pgn(tmp_path, "a.pgn", FLAGS)
    out = tmp_path / "out"
    invoke(["export", "--parquet", out, "--with-fen", src])
    moves = ds.dataset(str(out / "moves"), format="parquet").schema
    assert [(f.name, f.type) for f in moves] == MOVES_TYPES + [("fen", pa.string())]


def test_optional_columns_with_keys(tmp_path):
    src = write_pgn(tmp_path, "a.pgn", FLAGS)
    out = tmp_path / "out"
    invoke(["export", "--parquet", out, "--with-fen", "--with-keys", src])
    moves = ds.dataset(str(out / "moves"), format="parquet").schema
    assert [(f.name, f.type) for f in moves] == MOVES_TYPES + [("fen", pa.string()), ("key", pa.uint64())]
    assert not moves.field("key").nullable


def test_columns_key_needs_with_keys(tmp_path):
    src = write_pgn(tmp_path, "a.pgn", FLAGS)
    result = invoke(["export", "--parquet", tmp_path / "out", "--columns", "san,key", src], expect=(2,))
    assert "--columns names key, a column that only --with-keys adds" in result.output
    result = invoke(["export", "--parquet", tmp_path / "out2", "--columns", "san", "--with-keys", src], expect=(2,))
    assert "--with-keys adds the key column" in result.output
    _, moves = export(tmp_path, [src], "--columns", "san,key", "--with-keys", name="ok")
    assert moves.column_names == ["game_id", "ply", "san", "key"]


def test_optional_columns_with_comments(tmp_path):
    src = write_pgn(tmp_path, "a.pgn", COMMENTED)
    out = tmp_path / "out"
    invoke(["export", "--parquet", out, "--with-comments", "--with-fen", src])
    moves = ds.dataset(str(out / "moves"), format="parquet").schema
    assert [(f.name, f.type) for f in moves] == MOVES_TYPES + [("comment", pa.string()), ("fen", pa.string())]


def test_with_comments_text(tmp_path):
    src = write_pgn(tmp_path, "c.pgn", COMMENTED)
    _, moves = export(tmp_path, [src], "--with-comments", expect=(0,))
    comments = [m["comment"] for m in rows(moves)]
    assert comments[0].strip() == "Best by test"
    assert comments[2].strip() == "A developing move."
    assert comments[1] in (None, "") and comments[3] in (None, "")


def test_row_counts_and_game_ids_across_inputs(tmp_path):
    a = write_pgn(tmp_path, "a.pgn", FLAGS, MATE)
    b = write_pgn(tmp_path, "b.pgn", ILLEGAL)
    empty = tmp_path / "empty.pgn"
    empty.write_bytes(b"")
    c = write_pgn(tmp_path, "c.pgn", ANNOTATED, PLAIN, STALEMATE)
    texts = [FLAGS, MATE, ILLEGAL, ANNOTATED, PLAIN, STALEMATE]
    games, moves = export(tmp_path, [a, b, empty, c], expect=(0,))
    plies = [len(list(read_game(t).mainline_moves())) for t in texts]
    assert games.num_rows == len(texts)
    assert games.column("game_id").to_pylist() == list(range(len(texts)))
    assert games.column("ply_count").to_pylist() == plies
    assert moves.num_rows == sum(plies)
    assert games.column("event").to_pylist() == [read_game(t).headers["Event"] for t in texts]
    assert games.column("source").to_pylist() == [str(a)] * 2 + [str(b)] + [str(c)] * 3
    # byte offset of each game in its own file (by hand: where its first tag starts)
    joined_c = "\n".join([ANNOTATED, PLAIN, STALEMATE])
    assert games.column("offset").to_pylist() == [0, len(FLAGS) + 1, 0, 0, joined_c.index('[Event "Plain"]'),
                                                  joined_c.index('[Event "Stalemate"]')]
    # moves: game_id and ply (1-based) in order
    expected_keys = [(g, p) for g, n in enumerate(plies) for p in range(1, n + 1)]
    assert list(zip(moves.column("game_id").to_pylist(), moves.column("ply").to_pylist())) == expected_keys


def test_stdin_source(tmp_path):
    out = tmp_path / "out"
    invoke(["export", "--parquet", out, "-"], input=(FLAGS + "\n" + MATE).encode())
    games, moves = read_dataset(out)
    assert games.column("source").to_pylist() == ["<stdin>", "<stdin>"]
    assert moves.num_rows == sum(len(list(read_game(t).mainline_moves())) for t in (FLAGS, MATE))


def test_empty_input_gives_readable_empty_dataset(tmp_path):
    src = tmp_path / "empty.pgn"
    src.write_bytes(b"")
    out = tmp_path / "out"
    result = invoke(["export", "--parquet", out, src], expect=(0,))
    assert "0 games" in result.stderr
    games, moves = read_dataset(out)
    assert games.num_rows == 0 and moves.num_rows == 0
    assert [(f.name, f.type) for f in games.schema] == GAMES_TYPES
    assert [(f.name, f.type) for f in moves.schema] == MOVES_TYPES
    assert sorted(os.listdir(out / "games")) == ["part-00000.parquet"]
    assert sorted(os.listdir(out / "moves")) == ["part-00000.parquet"]


def test_zstd_by_default_and_other_compression(tmp_path):
    src = write_pgn(tmp_path, "a.pgn", FLAGS)
    export(tmp_path, [src], name="z")
    export(tmp_path, [src], "--compression", "snappy", name="s")
    for name, codec in (("z", "ZSTD"), ("s", "SNAPPY")):
        for table in ("games", "moves"):
            meta = pq.ParquetFile(tmp_path / name / table / "part-00000.parquet").metadata
            assert meta.row_group(0).column(0).compression == codec, (name, table)


# ---------------------------------------------------------------- move columns vs python-chess

@pytest.mark.parametrize("text", [FLAGS, MATE, ANNOTATED, STALEMATE], ids=["flags", "mate", "annotated", "stalemate"])
def test_move_columns_match_python_chess(tmp_path, text):
    src = write_pgn(tmp_path, "g.pgn", text)
    _, moves = export(tmp_path, [src], "--with-fen", expect=(0,))
    expected = oracle_moves(text)
    got = [{k: m[k] for k in expected[0]} for m in rows(moves)]
    for row in expected + got:  # castling's to_square has its own test (below)
        if row["is_castle"]:
            row["to_square"] = None
    assert got == expected


CASTLES = """[Event "Castles"]
[Site "tests"]
[Date "2026.01.02"]
[Round "9"]
[White "Quinn"]
[Black "Rita"]
[Result "*"]

1. e4 e5 2. Nf3 Nf6 3. Bc4 Bc5 4. O-O O-O 5. d4 d5 6. Bg5 Bg4 7. Nc3 Nc6 8. Qd2 Qd7 *
"""


def test_standard_castling_to_square_matches_uci(tmp_path):
    src = write_pgn(tmp_path, "c.pgn", CASTLES, FLAGS)
    _, moves = export(tmp_path, [src], expect=(0,))
    castles = [(m["san"], m["uci"], m["from_square"], m["to_square"]) for m in rows(moves) if m["is_castle"]]
    # by hand: king e1 = 4 -> g1 = 6, e8 = 60 -> g8 = 62, c8 = 58 (as python-chess Move.to_square)
    assert castles == [("O-O", "e1g1", 4, 6), ("O-O", "e8g8", 60, 62), ("O-O-O", "e8c8", 60, 58),
                       ("O-O", "e1g1", 4, 6)]


def test_flags_by_hand(tmp_path):
    src = write_pgn(tmp_path, "g.pgn", FLAGS, MATE)
    _, moves = export(tmp_path, [src], expect=(0,))
    by_san = {(m["game_id"], m["san"]): m for m in rows(moves)}
    ep = by_san[(0, "exf6")]
    assert (ep["uci"], ep["from_square"], ep["to_square"]) == ("e5f6", 36, 45)
    assert (ep["piece"], ep["captured"], ep["is_capture"], ep["is_en_passant"]) == ("pawn", "pawn", True, True)
    promo = by_san[(0, "gxh8=Q")]
    assert (promo["uci"], promo["from_square"], promo["to_square"]) == ("g7h8q", 54, 63)
    assert (promo["piece"], promo["captured"], promo["promotion"], promo["is_capture"]) == ("pawn", "rook", "queen", True)
    long_castle = by_san[(0, "O-O-O")]
    assert (long_castle["uci"], long_castle["from_square"], long_castle["piece"]) == ("e8c8", 60, "king")
    assert long_castle["is_castle"] and not long_castle["is_capture"] and long_castle["captured"] is None
    short_castle = by_san[(0, "O-O")]
    assert (short_castle["uci"], short_castle["from_square"], short_castle["is_castle"]) == ("e1g1", 4, True)
    assert short_castle["halfmove_clock"] == 1  # 7... a6 (a pawn move) reset the clock
    check = by_san[(1, "Qxe4+")]
    assert check["is_check"] and check["is_capture"] and not check["is_mate"] and check["captured"] == "pawn"
    assert (check["piece"], check["from_square"], check["to_square"]) == ("queen", 14, 28)
    mate = by_san[(1, "Nf3#")]
    assert mate["is_check"] and mate["is_mate"] and not mate["is_capture"] and mate["captured"] is None
    assert mate["halfmove_clock"] == 2
    quiet = by_san[(0, "Nf3")]
    assert not any(quiet[f] for f in ("is_capture", "is_check", "is_mate", "is_castle", "is_en_passant"))
    assert quiet["captured"] is None and quiet["promotion"] is None


def test_en_passant_style_of_fen_column(tmp_path):
    src = write_pgn(tmp_path, "g.pgn", FLAGS)
    _, legal = export(tmp_path, [src], "--with-fen", name="legal")
    _, fen = export(tmp_path, [src], "--with-fen", "--en-passant", "fen", name="fen")
    assert legal.column("fen").to_pylist() == [m["fen"] for m in oracle_moves(FLAGS, "legal")]
    assert fen.column("fen").to_pylist() == [m["fen"] for m in oracle_moves(FLAGS, "fen")]
    # by hand: after 1. e4 only the FEN style names e3; after 2... f5 both name f6 (exf6 is legal)
    assert legal.column("fen")[0].as_py().split()[3] == "-"
    assert fen.column("fen")[0].as_py().split()[3] == "e3"
    assert legal.column("fen")[3].as_py().split()[3] == fen.column("fen")[3].as_py().split()[3] == "f6"


def test_chess960_uci_castling_king_takes_rook(tmp_path):
    src = write_pgn(tmp_path, "960.pgn", CHESS960)
    games, moves = export(tmp_path, [src], "--with-fen", expect=(0,))
    game = read_game(CHESS960)
    board = game.board()
    assert board.chess960
    expected_uci = []
    for move in game.mainline_moves():
        expected_uci.append(board.uci(move))
        board.push(move)
    got = rows(moves)
    assert [m["uci"] for m in got] == expected_uci
    castles = [m for m in got if m["is_castle"]]
    assert [(m["san"], m["uci"], m["from_square"], m["to_square"]) for m in castles] == [
        ("O-O-O", "b1a1", 1, 0), ("O-O-O", "b8a8", 57, 56)]
    assert games.column("final_fen").to_pylist() == [board.fen()]
    assert games.column("variant").to_pylist() == ["Chess960"]


# ---------------------------------------------------------------- clocks, evals, NAGs

def test_clock_eval_nags_by_hand(tmp_path):
    src = write_pgn(tmp_path, "a.pgn", ANNOTATED, PLAIN)
    _, moves = export(tmp_path, [src], expect=(0,))
    got = [(m["game_id"], m["san"], m["clock"], m["emt"], m["eval_cp"], m["eval_mate"], sorted(m["nags"]))
           for m in rows(moves)]
    assert got == [
        (0, "e4", 300.0, None, 17, None, []),
        (0, "e5", 3723.5, 4.0, None, None, [1]),
        (0, "Qh5", 295.0, None, None, -3, [2, 18]),
        (0, "Nc6", None, None, -250, None, []),
        (0, "Bc4", None, None, None, 2, [6]),
        (0, "Nf6", None, None, None, None, [3]),
        (0, "Qxf7#", None, None, None, None, []),
        (1, "d4", None, None, None, None, []),
        (1, "d5", None, None, None, None, []),
        (1, "c4", None, None, None, None, []),
        (1, "c6", None, None, None, None, []),
    ]
    assert moves.schema.field("nags").type == pa.list_(pa.uint8())


def test_clock_eval_nags_match_python_chess(tmp_path):
    src = write_pgn(tmp_path, "a.pgn", ANNOTATED)
    _, moves = export(tmp_path, [src], expect=(0,))
    for node, m in zip(read_game(ANNOTATED).mainline(), rows(moves)):
        assert m["clock"] == node.clock(), m["san"]
        assert m["emt"] == node.emt(), m["san"]
        score = node.eval()
        assert m["eval_cp"] == (score.white().score() if score else None), m["san"]
        assert m["eval_mate"] == (score.white().mate() if score else None), m["san"]
        assert sorted(m["nags"]) == sorted(node.nags), m["san"]


def _lichess_file() -> Path:
    require_corpora()
    path = next((p for p in corpus_pgn_files() if p.parent.name == "lichess"), None)
    if path is None:
        pytest.skip("no PGN file under corpora/lichess")
    return path


def test_lichess_clocks_and_evals_match_python_chess(tmp_path):
    path = _lichess_file()
    games = head_games(path, 150)
    src = tmp_path / "lichess.pgn"
    src.write_bytes(b"".join(raw for _, raw in games))
    _, moves = export(tmp_path, [src])
    per_game: Dict[int, List[dict]] = {}
    for m in rows(moves.select(["game_id", "ply", "clock", "eval_cp", "eval_mate"])):
        per_game.setdefault(m["game_id"], []).append(m)
    seen = {"clock": 0, "cp": 0, "mate": 0, "no_eval": 0}
    problems = []
    for g, (game, _) in enumerate(games):
        ours = per_game.get(g, [])
        nodes = list(game.mainline())[:len(ours)]
        assert len(ours) == len(nodes) or game.errors, f"game #{g}: {len(ours)} moves vs {len(nodes)}"
        for m, node in zip(ours, nodes):
            score = node.eval()
            want = (node.clock(), score.white().score() if score else None, score.white().mate() if score else None)
            have = (m["clock"], m["eval_cp"], m["eval_mate"])
            if have != want:
                problems.append(f"game #{g} ply {m['ply']}: pgntools {have} != python-chess {want}")
            seen["clock"] += want[0] is not None
            seen["cp"] += want[1] is not None
            seen["mate"] += want[2] is not None
            seen["no_eval"] += score is None
    assert not problems, f"{len(problems)} plies differ:\n" + "\n".join(problems[:10])
    # the sample exercises every case: clocks, centipawns, mate scores, moves without an eval
    assert min(seen.values()) > 0, seen


# ---------------------------------------------------------------- games table: status, errors, tags

def test_invalid_game_kept_with_errors_and_moves_up_to_the_error(tmp_path):
    src = write_pgn(tmp_path, "a.pgn", MATE, ILLEGAL, PLAIN)
    games, moves = export(tmp_path, [src], expect=(0,))
    g = rows(games)
    assert [x["status"] for x in g] == ["valid", "invalid", "fixed"]
    assert g[0]["errors"] == [] and g[2]["errors"] == []
    assert len(g[1]["errors"]) == 1
    error = g[1]["errors"][0]
    assert error["kind"] == "illegal_move" and error["ply"] == 8
    assert "Qxe2" in error["message"]
    assert g[1]["ply_count"] == 7
    illegal = moves_of(moves, 1)
    assert [m["san"] for m in illegal] == [m["san"] for m in oracle_moves(ILLEGAL)]
    assert [m["ply"] for m in illegal] == list(range(1, 8))
    # final FEN of the invalid game: the position after its last legal move (by hand)
    assert g[1]["final_fen"] == "rnbqkb1r/ppp2ppp/4pn2/3p2B1/2PP4/2N5/PP2PPPP/R2QKBNR b KQkq - 3 4"


def test_results_outcomes_start_and_final_fens(tmp_path):
    src = write_pgn(tmp_path, "a.pgn", MATE, PLAIN, STALEMATE, FLAGS)
    games, _ = export(tmp_path, [src], expect=(0,))
    g = rows(games)
    assert [x["result"] for x in g] == ["0-1", "1/2-1/2", "1/2-1/2", "*"]
    assert [x["result_tag"] for x in g] == ["0-1", "*", "1/2-1/2", "*"]
    assert [x["outcome"] for x in g] == ["checkmate", None, "stalemate", None]
    assert [x["start_fen"] for x in g] == [START_FEN, START_FEN, "7k/5Q2/8/6K1/8/8/8/8 w - - 0 60", START_FEN]
    expected_final = []
    for text in (MATE, PLAIN, STALEMATE, FLAGS):
        board = read_game(text).end().board()
        expected_final.append(board.fen())
    assert [x["final_fen"] for x in g] == expected_final


def test_tags_columns_elo_and_map(tmp_path):
    src = write_pgn(tmp_path, "a.pgn", FLAGS, MATE, ANNOTATED)
    games, _ = export(tmp_path, [src], expect=(0,))
    g = rows(games)
    for row, text in zip(g, (FLAGS, MATE, ANNOTATED)):
        headers = read_game(text).headers
        for column, tag in (("event", "Event"), ("site", "Site"), ("round", "Round"),
                            ("white", "White"), ("black", "Black"), ("result_tag", "Result")):
            assert row[column] == headers[tag], tag
        # the date typed (a day, its year and month), its text in the map
        year, month, day = headers["Date"].split(".")
        known = "?" not in headers["Date"]
        assert row["date"] == (datetime.date(int(year), int(month), int(day)) if known else None)
        assert row["year"] == (int(year) if year.isdigit() else None)
        assert row["month"] == (int(month) if year.isdigit() and month.isdigit() else None)
        assert dict(row["tags"])["Date"] == headers["Date"]
    assert [(x["white_elo"], x["black_elo"]) for x in g] == [(2345, None), (None, None), (None, None)]
    assert (g[1]["eco"], g[1]["opening"]) == ("C50", "Blackburne Shilling Gambit")
    assert g[2]["time_control"] == "300+3"
    assert g[0]["time_control"] is None and g[0]["eco"] is None and g[0]["termination"] is None
    dates = [headers.get("Date") for headers in (read_game(t).headers for t in (FLAGS, MATE, ANNOTATED))]
    assert dict(g[1]["tags"]) == {"Date": dates[1], "Annotator": "Tester", "PlyCount": "14"}
    assert dict(g[0]["tags"]) == {"Date": dates[0]} and dict(g[2]["tags"]) == {"Date": dates[2]}


def test_lichess_style_tags(tmp_path):
    text = """[Event "Rated Blitz game"]
[Site "https://lichess.org/abcdefgh"]
[Date "2024.01.01"]
[Round "-"]
[White "p1"]
[Black "p2"]
[Result "0-1"]
[UTCDate "2024.01.01"]
[UTCTime "12:34:56"]
[WhiteElo "1500"]
[BlackElo "1621"]
[WhiteRatingDiff "-6"]
[Variant "Standard"]
[TimeControl "180+0"]
[ECO "B01"]
[Opening "Scandinavian Defense"]
[Termination "Normal"]

1. e4 d5 0-1
"""
    src = write_pgn(tmp_path, "l.pgn", text)
    games, _ = export(tmp_path, [src])
    row = rows(games)[0]
    assert (row["white_elo"], row["black_elo"]) == (1500, 1621)
    assert (row["utc_date"], row["utc_time"], row["variant"], row["termination"]) == (
        "2024.01.01", "12:34:56", "Standard", "Normal")
    assert dict(row["tags"]) == {"Date": "2024.01.01", "WhiteRatingDiff": "-6"}
    assert (row["date"], row["year"], row["month"]) == (datetime.date(2024, 1, 1), 2024, 1)
    assert row["utc_datetime"] == datetime.datetime(2024, 1, 1, 12, 34, 56, tzinfo=datetime.timezone.utc)
    assert row["result"] == "0-1" and row["round"] == "-"


# ---------------------------------------------------------------- --columns

def test_columns_keeps_only_named_columns(tmp_path):
    src = write_pgn(tmp_path, "a.pgn", FLAGS, MATE)
    games, moves = export(tmp_path, [src], "--columns", "san, clock,white,ply_count", expect=(0,))
    assert games.schema.names == ["game_id", "white", "ply_count"]
    assert moves.schema.names == ["game_id", "ply", "san", "clock"]
    assert games.column("white").to_pylist() == ["Alice", "Carol"]
    assert moves.num_rows == sum(games.column("ply_count").to_pylist())
    assert moves.column("san").to_pylist() == [m["san"] for t in (FLAGS, MATE) for m in oracle_moves(t)]


def test_columns_unknown_name_is_usage_error(tmp_path):
    src = write_pgn(tmp_path, "a.pgn", FLAGS)
    out = tmp_path / "out"
    result = invoke(["export", "--parquet", out, "--columns", "san,no_such_column", src], expect=(2,))
    assert "no_such_column" in result.stderr
    assert "--columns" in result.stderr
    assert not list(out.rglob("*.parquet"))


def test_columns_named_as_tags_suggest_the_column(tmp_path):
    """Columns are snake_case (white_elo), not tag case: the old names are usage errors that say so."""
    src = write_pgn(tmp_path, "a.pgn", FLAGS)
    result = invoke(["export", "--parquet", tmp_path / "out", "--columns", "WhiteElo,san", src], expect=(2,))
    assert "WhiteElo (did you mean white_elo?)" in result.stderr


# ---------------------------------------------------------------- safety of the output directory

def test_existing_part_files_are_not_overwritten(tmp_path):
    src = write_pgn(tmp_path, "a.pgn", FLAGS)
    out = tmp_path / "out"
    invoke(["export", "--parquet", out, src])
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert any(p.name.startswith("part-") for p in before)
    other = write_pgn(tmp_path, "b.pgn", MATE, PLAIN)
    result = invoke(["export", "--parquet", out, other], expect=(2,))
    assert "part files" in result.stderr or "empty" in result.stderr
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before


def test_existing_part_files_in_moves_only(tmp_path):
    src = write_pgn(tmp_path, "a.pgn", FLAGS)
    out = tmp_path / "out"
    (out / "moves").mkdir(parents=True)
    marker = out / "moves" / "part-00000.parquet"
    marker.write_bytes(b"not really parquet")
    invoke(["export", "--parquet", out, src], expect=(2,))
    assert marker.read_bytes() == b"not really parquet"
    assert not list(out.glob("games/*.parquet"))


def in_process() -> List[str]:
    """Options that keep the run in this process (so monkeypatched sinks are the ones used)."""
    return ["--jobs", "1"] if "jobs" in {p.name for p in cli.commands["export"].params} else []


def _many_inputs(tmp_path: Path, n: int = 4) -> List[Path]:
    return [write_pgn(tmp_path, f"in{i}.pgn", FLAGS, MATE, PLAIN) for i in range(n)]


@pytest.mark.parametrize("error", [RuntimeError, KeyboardInterrupt])
def test_failed_run_leaves_no_part_file(tmp_path, monkeypatch, error):
    # small row groups and parts, so part files are really written before the failure
    monkeypatch.setattr(parquet_sink, "GAME_ROWS_PER_GROUP", 1)
    monkeypatch.setattr(parquet_sink, "MOVE_ROWS_PER_GROUP", 1)
    monkeypatch.setattr(parquet_sink, "MOVE_ROWS_PER_PART", 1)
    original = parquet_sink.ParquetDatasetSink.write
    calls = []

    def write(self, batch):
        calls.append(batch.n_games)
        if len(calls) > 1:
            on_disk.extend(p.name for p in out.rglob("*") if p.is_file())
            raise error("simulated failure")
        original(self, batch)
        self.background.drain()  # make sure the first batch is on disk before failing

    monkeypatch.setattr(parquet_sink.ParquetDatasetSink, "write", write)
    out = tmp_path / "out"
    on_disk: List[str] = []
    result = CliRunner().invoke(cli, ["export", "--parquet", str(out), *in_process(),
                                      *map(str, _many_inputs(tmp_path))])
    assert len(calls) == 2
    assert on_disk, "the first batch should have been written (under temporary names) before the failure"
    assert not [n for n in on_disk if n.startswith("part-")], f"final names before the run ended: {on_disk}"
    assert result.exit_code != 0
    if error is KeyboardInterrupt:
        assert result.exit_code == 130
    leftovers = [p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()]
    assert not [p for p in leftovers if Path(p).name.startswith("part-")], leftovers
    assert leftovers == [], f"temporary files left behind: {leftovers}"


def test_small_parts_dataset_reads_back_whole(tmp_path, monkeypatch):
    """Several part files per table (row groups and parts of one row): the dataset is still whole
    and in order, and every part is a finished Parquet file under its final name."""
    monkeypatch.setattr(parquet_sink, "GAME_ROWS_PER_GROUP", 1)
    monkeypatch.setattr(parquet_sink, "MOVE_ROWS_PER_GROUP", 5)
    inputs = _many_inputs(tmp_path, 3)
    per_part = 2  # games a part: --target-part-size of two games' bytes
    games, moves = export(tmp_path, inputs, *in_process(), "--target-part-size", str(per_part * parquet_sink.BYTES_PER_GAME),
                          expect=(0,))
    plies = [len(list(read_game(t).mainline_moves())) for t in (FLAGS, MATE, PLAIN)] * 3
    assert games.column("game_id").to_pylist() == list(range(9))
    assert games.column("ply_count").to_pylist() == plies
    assert moves.num_rows == sum(plies)
    names = sorted(os.listdir(tmp_path / "out" / "moves"))
    assert names == [f"part-{i:05d}.parquet" for i in range(5)]  # games 0-1, 2-3, ..., 8
    assert sorted(os.listdir(tmp_path / "out" / "games")) == names


# ---------------------------------------------------------------- DuckDB (optional)

def test_duckdb_reads_the_dataset_readme_query(tmp_path):
    duckdb = pytest.importorskip("duckdb", reason="DuckDB is a test dependency (pip install -e '.[test]')")
    src = write_pgn(tmp_path, "a.pgn", FLAGS, MATE, PLAIN, ANNOTATED)
    out = tmp_path / "out"
    invoke(["export", "--parquet", out, src])
    query = f"""
        SELECT (g.white_elo // 200) * 200 AS band, m.san, count(*) AS games
        FROM '{out}/moves/*.parquet' m JOIN '{out}/games/*.parquet' g USING (game_id)
        WHERE m.ply = 1 AND g.white_elo IS NOT NULL
        GROUP BY band, m.san QUALIFY row_number() OVER (PARTITION BY band ORDER BY games DESC) <= 3
        ORDER BY band, games DESC"""
    con = duckdb.connect()
    assert con.execute(query).fetchall() == [(2200, "e4", 1)]
    plies = sum(len(list(read_game(t).mainline_moves())) for t in (FLAGS, MATE, PLAIN, ANNOTATED))
    assert con.execute(f"SELECT count(*) FROM read_parquet('{out}/moves/*.parquet')").fetchall() == [(plies,)]


# ---------------------------------------------------------------- shared corpora vs python-chess

def single_game(data: bytes):
    """python-chess's game when it reads exactly one game from one pgntools game's bytes (blank
    lines dropped: python-chess ends a game at any blank line, the PGN standard does not)."""
    reader = PgnLines(b"\n".join(line for line in data.splitlines() if line.strip()) + b"\n")
    game = chess_pgn.read_game(reader)
    if game is None or chess_pgn.read_game(reader) is not None:
        return None
    return game


def expected_plies(game) -> Optional[List[tuple]]:
    """python-chess's (ply, san, uci, fen after, Polyglot key after) per mainline move; None when it
    cannot set the game up."""
    try:
        board = game.board()
    except ValueError:
        return None
    if type(board) is not chess.Board or not board.is_valid():
        return None
    out = []
    for ply, move in enumerate(game.mainline_moves(), 1):
        if not move:  # null move: pgntools stops there by design
            break
        san, uci = board.san(move), board.uci(move)
        board.push(move)
        out.append((ply, san, uci, board.fen(), polyglot.zobrist_hash(board)))
    return out


_FILES = corpus_pgn_files()
FILE_PARAMS = [pytest.param(p, id=corpus_id(p)) for p in _FILES] or [pytest.param(None, id="no-corpora")]


def check_chunk(path: Path, tmp_path: Path, games: List[Tuple[object, bytes]], first: int) -> Tuple[list, int]:
    """Export ``games`` (python-chess's games ``first``...) and compare; returns the problems found
    and the number of games compared."""
    if no_move_in(games):  # (maybe no PGN to pgntools: nothing to compare)
        return [], 0
    data = b"".join(raw for _, raw in games)
    src = tmp_path / "slice.pgn"
    src.write_bytes(data)
    out = tmp_path / "out"
    if out.exists():
        shutil.rmtree(out)
    g_table, m_table = export(tmp_path, [src], "--with-fen", "--with-keys")
    g_rows = rows(g_table.select(["game_id", "offset", "status", "ply_count"]))
    per_game: Dict[int, List[tuple]] = {}
    for m in rows(m_table.select(["game_id", "ply", "san", "uci", "fen", "key"])):
        per_game.setdefault(m["game_id"], []).append((m["ply"], m["san"], m["uci"], m["fen"], m["key"]))
    assert m_table.num_rows == sum(r["ply_count"] for r in g_rows)

    aligned = len(g_rows) == len(games)
    if aligned:
        pairs = [(g, game) for g, (game, _) in enumerate(games)]
    else:
        # The readers split this file differently: cut it where pgntools starts each game (its
        # offset column) and compare, on the plies both read, the games python-chess reads as one.
        starts = [r["offset"] for r in g_rows]
        slices = [data[a:b] for a, b in zip(starts, starts[1:] + [len(data)])]
        pairs = [(g, game) for g, game in ((g, single_game(raw)) for g, raw in enumerate(slices)) if game is not None]

    problems, compared = [], 0
    for g, game in pairs:
        theirs = expected_plies(game)
        if theirs is None:
            continue
        ours = per_game.get(g, [])
        clean = aligned and not game.errors and g_rows[g]["status"] != "invalid"
        label = f"{corpus_id(path)} game #{first + g}" if aligned else \
            f"{corpus_id(path)} pgntools game #{g} of the run from python-chess game #{first}"
        if clean and len(ours) != len(theirs):
            problems.append(f"{label}: {len(ours)} plies, python-chess {len(theirs)}")
        for a, b in zip(ours, theirs):
            if a != b:
                problems.append(f"{label} ply {a[0]}: pgntools {a} != python-chess {b}")
                break
        compared += 1
    return problems, compared


def check_corpus_file(path: Optional[Path], tmp_path: Path, limit: Optional[int]):
    check_corpus_in_chunks(path, limit, lambda chunk, first: check_chunk(path, tmp_path, chunk, first))


@pytest.mark.parametrize("path", FILE_PARAMS)
def test_corpus_sample_san_uci_fen_key_match_python_chess(path, tmp_path):
    check_corpus_file(path, tmp_path, EXPORT_SAMPLE)


@pytest.mark.slow
@pytest.mark.parametrize("path", FILE_PARAMS)
def test_corpus_full_san_uci_fen_key_match_python_chess(path, tmp_path):
    check_corpus_file(path, tmp_path, None)


def test_chess960_corpus_uci_castling(tmp_path):
    """TCEC FRC games: castling UCI is king-takes-rook, as python-chess writes with chess960=True."""
    require_corpora()
    path = next((p for p in _FILES if p.parent.name == "chess960"), None)
    if path is None:
        pytest.skip("corpora/chess960 has no PGN file")
    games = head_games(path, 40)
    src = tmp_path / "960.pgn"
    src.write_bytes(b"".join(raw for _, raw in games))
    g_table, m_table = export(tmp_path, [src])
    assert g_table.num_rows == len(games)
    castles = [m for m in rows(m_table.select(["game_id", "ply", "san", "uci", "is_castle", "from_square",
                                               "to_square"])) if m["is_castle"]]
    expected = []
    for g, (game, _) in enumerate(games):
        board = game.board()
        assert board.chess960
        for ply, move in enumerate(game.mainline_moves(), 1):
            if board.is_castling(move):
                uci = board.uci(move, chess960=True)
                expected.append({"game_id": g, "ply": ply, "san": board.san(move), "uci": uci, "is_castle": True,
                                 "from_square": chess.parse_square(uci[:2]), "to_square": chess.parse_square(uci[2:4])})
            board.push(move)
    assert len(expected) >= 20
    assert castles == expected


# ---------------------------------------------------------------- many batches, non-ASCII text

SHORT_LINES = ["1. e4 e5 2. Nf3 *", "1. d4 *", "1. c4 e5 2. Nc3 Nf6 3. g3 *", "*"]


def many_games(n: int) -> Tuple[str, List[str]]:
    """n small games (more than one reader batch), each with its index in the Round tag."""
    texts = [f'[Event "Many"]\n[Round "{i}"]\n[Result "*"]\n\n{SHORT_LINES[i % len(SHORT_LINES)]}\n'
             for i in range(n)]
    return "\n".join(texts), texts


def test_game_ids_continue_across_batches(tmp_path):
    text, texts = many_games(2500)
    src = tmp_path / "many.pgn"
    src.write_text(text, encoding="utf-8")
    games, moves = export(tmp_path, [src, src], expect=(0,))
    n = 2 * len(texts)
    assert games.column("game_id").to_pylist() == list(range(n))
    assert games.column("round").to_pylist() == [str(i) for i in range(len(texts))] * 2
    plies = [len(list(read_game(t).mainline_moves())) for t in texts] * 2
    assert games.column("ply_count").to_pylist() == plies
    assert moves.num_rows == sum(plies)
    sans = moves.column("san").to_pylist()
    assert sans == [s for t in texts * 2 for s in (m["san"] for m in oracle_moves(t))]


def test_non_ascii_and_escaped_tags(tmp_path):
    text = """[Event "Göteborg \\"Open\\""]
[Site "Москва"]
[Date "2026.01.02"]
[Round "1"]
[White "Müller, Jürgen"]
[Black "张伟"]
[Result "1-0"]
[Annotator "Café \\\\ Crème"]

1. e4 {Très bien} e5 1-0
"""
    src = write_pgn(tmp_path, "u.pgn", text)
    games, moves = export(tmp_path, [src], expect=(0,))
    row = rows(games)[0]
    # by hand (python-chess 1.11 keeps the PGN escapes in its header values; the values are unescaped)
    assert (row["event"], row["site"], row["white"], row["black"]) == (
        'Göteborg "Open"', "Москва", "Müller, Jürgen", "张伟")
    assert dict(row["tags"]) == {"Date": "2026.01.02", "Annotator": "Café \\ Crème"}
    assert moves.column("san").to_pylist() == ["e4", "e5"]


def test_parallel_run_same_dataset_as_in_process(tmp_path):
    """Game ids follow the input order whatever the job count (DESIGN: data flow)."""
    params = {p.name for p in cli.commands["export"].params}
    if "jobs" not in params:
        pytest.skip("this export has no --jobs option")
    path = _lichess_file()
    data = b"".join(raw for _, raw in head_games(path, 700))  # a few MiB: several chunks of 1 MiB
    big = tmp_path / "big.pgn"
    big.write_bytes(data)
    small = write_pgn(tmp_path, "small.pgn", FLAGS, ILLEGAL, MATE)
    chunking = ["--chunk-size", "1"] if "chunk_mib" in params else []
    one = export(tmp_path, [big, small, big], "--jobs", "1", "--with-fen", "--with-keys", name="one")
    two = export(tmp_path, [big, small, big], "--jobs", "4", *chunking, "--with-fen", "--with-keys", name="two")
    for a, b in zip(one, two):
        assert a.num_rows == b.num_rows
        assert a.equals(b)
    games = one[0]
    assert games.column("game_id").to_pylist() == list(range(games.num_rows))
    assert games.num_rows == 2 * 700 + 3


def test_row_groups_are_bounded_in_bytes_too(tmp_path, monkeypatch):
    """Rows of wide games (long tag values) are written once they hold GROUP_BYTES, not only
    after GAME_ROWS_PER_GROUP of them, so the rows waiting for a group stay small."""
    monkeypatch.setattr(parquet_sink, "GROUP_BYTES", {"games": 2_000_000, "moves": 2_000_000})
    # distinct values: a column's dictionary stores a repeated one once
    wide = "".join(f'[Event "{i}"]\n[Annotator "{i}{"a" * 50_000}"]\n\n1. e4 e5 *\n\n' for i in range(100))
    src = write_pgn(tmp_path, "wide.pgn", wide)  # 5 MB: batches of ~1 MB, groups of ~2 MB
    games, moves = export(tmp_path, [src], *in_process(), expect=(0,))
    assert games.column("game_id").to_pylist() == list(range(100))
    assert moves.num_rows == 200
    [part] = (tmp_path / "out" / "games").glob("part-*.parquet")
    assert pq.ParquetFile(part).num_row_groups >= 2  # by rows alone (65,536 a group): one


def test_the_command_line_runs_without_numpy(tmp_path):
    """`pgntools` (the console entry point) keeps pyarrow from importing numpy, which nothing it
    does needs: the dataset it writes is the one written in-process with numpy loaded."""
    import subprocess
    import sys

    src = Path(__file__).resolve().parents[1] / "fixtures" / "sample.pgn"
    out = tmp_path / "child"
    child = ("import sys\n"
             "from pgntools.cli import main\n"
             f"sys.argv = ['pgntools', 'export', '--jobs', '1', '--with-fen', '--with-comments', "
             f"'--parquet', {str(out)!r}, {str(src)!r}]\n"
             "try:\n    main()\n"
             "except SystemExit as exc:\n    code = exc.code\n"
             "print(code, sys.modules.get('numpy', 'never imported'))\n")
    done = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, timeout=120)
    assert done.stdout.split() == ["0", "None"], done.stderr  # exit 0: the sample's invalid game is counted (issue 37 A4)
    here_games, here_moves = export(tmp_path, [src], "--jobs", "1", "--with-fen", "--with-comments")
    there_games, there_moves = read_dataset(out)
    assert there_games.equals(here_games) and there_moves.equals(here_moves)
    assert there_moves.num_rows > 50
