"""The positions dataset (issue 19): `export --positions DIR` and pgntools.positions().

Every row of the corpus games is compared with python-chess (the test-only oracle): the
position's FEN, its Polyglot key (chess.polyglot.zobrist_hash), the move played from it (UCI,
SAN), the result from the side to move's view and the bitboards of --planes; a sample of each
corpus file by default, every game under ``-m slow``. DuckDB reads the files; --jobs and the
Python API give the same rows; sampling, ply bounds, --unique-positions and --where are checked
against the full rows they select from.
"""
from __future__ import annotations

import io
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional

import pytest
from click.testing import CliRunner

from conftest import CHESS_REASON, check_corpus_in_chunks, corpus_id, no_move_in, corpus_pgn_files, PgnLines

chess = pytest.importorskip("chess", reason=CHESS_REASON)
chess_pgn = pytest.importorskip("chess.pgn", reason=CHESS_REASON)
polyglot = pytest.importorskip("chess.polyglot", reason=CHESS_REASON)
pa = pytest.importorskip("pyarrow")
ds = pytest.importorskip("pyarrow.dataset")

import pgntools  # noqa: E402
from pgntools import _core  # noqa: E402
from pgntools.cli import cli  # noqa: E402
from pgntools.tables import schema  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "fixtures"
SAMPLE_GAMES = 60  # games per corpus file in the default run
PLANES = schema.PIECE_PLANES  # white_pawns ... black_kings
SCORES = {"1-0": (1.0, 0.0), "0-1": (0.0, 1.0), "1/2-1/2": (0.5, 0.5)}  # (White to move, Black to move)

GAMES = [
    '[Event "a"]\n[WhiteElo "2100"]\n[BlackElo "1950"]\n[TimeControl "180+2"]\n[Result "1-0"]\n\n'
    "1. e4 { [%clk 0:03:00] } e5 { [%clk 0:02:59] [%eval 0.3] } 2. Nf3 { [%clk 0:02:58] [%eval #3] } "
    "Nc6 { [%clk 0:02:50] } 3. Bb5 { [%eval -1.5] } a6 1-0",
    '[Event "b"]\n[Result "1/2-1/2"]\n\n1. d4 d5 2. c4 e6 3. Nc3 Nf6 1/2-1/2',
    '[Event "c"]\n[Result "*"]\n\n1. e4 d5 2. e5 f5 3. exf6 *',  # an en-passant capture; result unknown
    '[Event "d"]\n[Result "0-1"]\n\n1. f3 e5 2. g4 Qh4# 0-1',
    '[Event "e"]\n[Result "1-0"]\n\n1. e4 e5 2. Ke3 Nf6 3. Qxh8 1-0',  # illegal: no rows
    '[Event "f"]\n[SetUp "1"]\n[FEN "r3k2r/8/8/8/8/8/8/R3K2R b Kq - 3 20"]\n[Result "0-1"]\n\n20... O-O-O 21. O-O 0-1',
    '[Event "g"]\n[Result "1-0"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 1-0',  # game a's moves: the same keys
]


def invoke(args, expect=(0, 1)):
    result = CliRunner().invoke(cli, [str(a) for a in args])
    crashed = result.exception is not None and not isinstance(result.exception, SystemExit)
    assert not crashed and result.exit_code in expect, (args, result.exit_code, result.output, result.exception)
    return result


def write(tmp_path: Path, games=GAMES, name="games.pgn") -> Path:
    path = tmp_path / name
    path.write_text("\n\n".join(games) + "\n\n")
    return path


def read_rows(directory: Path) -> "pa.Table":
    return ds.dataset(str(directory), format="parquet").to_table().sort_by([("game_id", "ascending"),
                                                                             ("ply", "ascending")])


def export_positions(tmp_path: Path, files, *options, name="pos", expect=(0, 1)) -> "pa.Table":
    out = tmp_path / name
    invoke(["export", "--positions", out, *options, *files], expect=expect)
    return read_rows(out)


def planes_of(board) -> dict:
    out = {}
    for color, color_name in ((chess.WHITE, "white"), (chess.BLACK, "black")):
        for piece, name in zip(chess.PIECE_TYPES, ("pawns", "knights", "bishops", "rooks", "queens", "kings")):
            out[f"{color_name}_{name}"] = int(board.pieces_mask(piece, color))
    castling = 0
    for bit, color, king_side in ((1, chess.WHITE, True), (2, chess.WHITE, False), (4, chess.BLACK, True),
                                  (8, chess.BLACK, False)):
        has = board.has_kingside_castling_rights(color) if king_side else board.has_queenside_castling_rights(color)
        castling |= bit if has else 0
    out["white_to_move"] = board.turn == chess.WHITE
    out["castling"] = castling
    out["ep_file"] = chess.square_file(board.ep_square) if board.has_legal_en_passant() else None
    return out


def oracle_rows(game, result: Optional[str]) -> Optional[List[dict]]:
    """python-chess's rows of a game: each mainline position a move was played from."""
    try:
        board = game.board()
    except ValueError:
        return None
    if type(board) is not chess.Board or not board.is_valid():
        return None
    rows = []
    for ply, move in enumerate(game.mainline_moves()):
        if not move:
            return None
        score = SCORES.get(result)
        rows.append({"ply": ply, "fen": board.fen(), "key": polyglot.zobrist_hash(board), "uci": board.uci(move),
                     "san": board.san(move), "result": score[board.turn == chess.BLACK] if score else None,
                     **planes_of(board)})
        board.push(move)
    return rows


ORACLE_FIELDS = ["ply", "fen", "key", "uci", "san", "result", *PLANES, "white_to_move", "castling", "ep_file"]


# ---------------------------------------------------------------- hand-written games


def test_rows_of_hand_written_games_match_python_chess(tmp_path):
    src = write(tmp_path)
    out = tmp_path / "both"
    invoke(["export", "--parquet", out, "--positions", tmp_path / "pos", "--planes", src])
    rows = read_rows(tmp_path / "pos").to_pylist()
    games = read_rows_games(out)
    by_game: Dict[int, List[dict]] = {}
    for row in rows:
        by_game.setdefault(row["game_id"], []).append(row)
    assert 4 not in by_game and games[4]["status"] == "invalid"  # an invalid game gives no row
    for g, text in enumerate(GAMES):
        if g == 4:
            continue
        game = chess_pgn.read_game(io.StringIO(text))
        expected = oracle_rows(game, game.headers["Result"])
        assert [{k: r[k] for k in ORACLE_FIELDS} for r in by_game[g]] == expected, f"game {g}"
    first = by_game[0]
    assert [r["white_elo"] for r in first] == [2100] * 6 and [r["black_elo"] for r in first] == [1950] * 6
    assert {r["speed"] for r in first} == {"blitz"} and {r["opening_eco"] for r in first} == {games[0]["opening_eco"]}
    # the mover's clock: the [%clk] after its previous move; the position's eval: after the move that reached it
    assert [r["clock"] for r in first] == [None, None, 180.0, 179.0, 178.0, 170.0]
    assert [r["eval_cp"] for r in first] == [None, None, 30, None, None, -150]
    assert [r["eval_mate"] for r in first] == [None, None, None, 3, None, None]
    assert {r["result"] for r in by_game[2]} == {None}  # Result *: unknown
    assert by_game[2][4]["ep_file"] == 5 and by_game[2][4]["fen"].split()[3] == "f6"
    assert by_game[1][0]["white_elo"] is None and by_game[1][0]["speed"] is None


def read_rows_games(out: Path) -> List[dict]:
    return ds.dataset(str(out / "games"), format="parquet").to_table().sort_by("game_id").to_pylist()


def test_duckdb_reads_the_dataset_through_the_real_cli(tmp_path):
    duckdb = pytest.importorskip("duckdb")
    src = write(tmp_path)
    out = tmp_path / "pos"
    done = subprocess.run([sys.executable, "-m", "pgntools", "export", "--positions", str(out), "--planes", str(src)],
                          cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr  # game e is invalid
    types = dict(duckdb.sql(f"DESCRIBE SELECT * FROM read_parquet('{out}/*.parquet')").fetchall()[i][:2]
                 for i in range(len(schema.position_row_columns(True))))
    assert types["key"] == "UBIGINT" and types["white_pawns"] == "UBIGINT" and types["result"] == "DOUBLE"
    assert types["ply"] == "SMALLINT" and types["white_to_move"] == "BOOLEAN" and types["ep_file"] == "UTINYINT"
    assert list(types) == [c.name for c in schema.position_row_columns(True)]
    # positions reached in two games (the same moves): one key, two games
    shared = duckdb.sql(f"SELECT key, count(DISTINCT game_id) AS n FROM read_parquet('{out}/*.parquet') "
                        "GROUP BY key HAVING n > 1 ORDER BY key").fetchall()
    board, keys = chess.Board(), set()
    for uci in ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6"]:
        keys.add(polyglot.zobrist_hash(board))
        board.push_uci(uci)
    assert {k for k, _ in shared} >= keys
    scores = duckdb.sql(f"SELECT avg(result) FROM read_parquet('{out}/*.parquet') WHERE game_id = 1").fetchall()
    assert scores == [(0.5,)]


def test_sample_plies_and_ply_bounds(tmp_path):
    src = write(tmp_path)
    every = export_positions(tmp_path, [src], name="every").to_pylist()
    plies = {}
    for row in every:
        plies.setdefault(row["game_id"], []).append(row["ply"])
    for options, lo, hi in ((["--sample-plies", "2", "--seed", "7"], 0, None),
                            (["--sample-plies", "3", "--min-ply", "1", "--max-ply", "4"], 1, 4),
                            (["--min-ply", "2"], 2, None), (["--max-ply", "0"], 0, 0)):
        name = "s" + "".join(options).replace("-", "")
        rows = export_positions(tmp_path, [src], *options, name=name).to_pylist()
        k = int(options[options.index("--sample-plies") + 1]) if "--sample-plies" in options else None
        got: Dict[int, List[dict]] = {}
        for row in rows:
            got.setdefault(row["game_id"], []).append(row)
        for game_id, all_plies in plies.items():
            eligible = [p for p in all_plies if p >= lo and (hi is None or p <= hi)]
            taken = [r["ply"] for r in got.get(game_id, [])]
            assert taken == sorted(set(taken)) and set(taken) <= set(eligible), (options, game_id)
            assert len(taken) == (min(k, len(eligible)) if k else len(eligible)), (options, game_id)
            full = {r["ply"]: r for r in every if r["game_id"] == game_id}
            assert all(r == full[r["ply"]] for r in got.get(game_id, []))  # the same rows, only fewer


def _reproduced_sample(game_id: int, seed: int, eligible: int, want: int) -> List[int]:
    """The sample positions_dataset.c draws (selection sampling over SplitMix64), in Python."""
    mask = (1 << 64) - 1

    def splitmix(z):
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        return z ^ (z >> 31)

    state, taken, out = _core.sample_mix(game_id, seed), 0, []
    for i in range(eligible):
        if taken == want:
            break
        state = (state + 0x9E3779B97F4A7C15) & mask
        if splitmix(state) % (eligible - i) < want - taken:
            out.append(i)
            taken += 1
    return out


def test_the_sample_is_chosen_by_game_id_and_seed_alone(tmp_path):
    game = GAMES[1]  # six plies: positions 0..5
    src = write(tmp_path, [game] * 40)
    for seed in (0, 1, -5):
        rows = export_positions(tmp_path, [src], "--sample-plies", "2", "--seed", str(seed), name=f"seed{seed}")
        got: Dict[int, List[int]] = {}
        for game_id, ply in zip(rows.column("game_id").to_pylist(), rows.column("ply").to_pylist()):
            got.setdefault(game_id, []).append(ply)
        assert got == {g: _reproduced_sample(g, seed, 6, 2) for g in range(40)}
        assert len({tuple(v) for v in got.values()}) > 3  # the games' samples differ
    # a second input keeps numbering the games (the sample does not restart with each file)
    two = export_positions(tmp_path, [src, src], "--sample-plies", "2", name="two")
    ids = two.column("game_id").to_pylist()
    assert sorted(set(ids)) == list(range(80))
    second = [p for g, p in zip(ids, two.column("ply").to_pylist()) if g == 45]
    assert second == _reproduced_sample(45, 0, 6, 2)


def test_unique_positions_keeps_the_first_row_of_each_key(tmp_path):
    src = write(tmp_path, GAMES * 3)
    every = export_positions(tmp_path, [src], name="every").to_pylist()
    unique = export_positions(tmp_path, [src], "--unique-positions", name="unique").to_pylist()
    first: Dict[int, dict] = {}
    for row in every:  # input order: (game_id, ply)
        first.setdefault(row["key"], row)
    assert unique == sorted(first.values(), key=lambda r: (r["game_id"], r["ply"]))
    assert max(r["game_id"] for r in unique) < len(GAMES)  # the copies add nothing
    # after --where: the first row among the selected games
    where = export_positions(tmp_path, [src], "--unique-positions", "--where", "event != 'a'", name="where").to_pylist()
    a_first = [r for r in unique if r["game_id"] == 0]
    assert any(r["game_id"] == 6 for r in where) and not any(r["game_id"] in (0, 7, 14) for r in where)
    assert {r["key"] for r in where} >= {r["key"] for r in a_first}
    # one reader whatever --jobs: the same rows
    jobs = export_positions(tmp_path, [src], "--unique-positions", "--jobs", "6", "--chunk-bytes", "300", name="j6")
    assert jobs.to_pylist() == unique


def test_where_selects_the_games_whose_rows_are_written(tmp_path):
    src = write(tmp_path)
    rows = export_positions(tmp_path, [src], "--where", "result = '1-0' and white_elo >= 2000", name="w")
    assert set(rows.column("game_id").to_pylist()) == {0}
    none = export_positions(tmp_path, [src], "--where", "white_elo > 3000", name="none")
    assert none.num_rows == 0 and none.schema == schema.position_rows_schema()


def test_jobs_give_the_same_files(tmp_path):
    from test_parallel import fixtures_input, tricky_input

    data = tricky_input(3) + fixtures_input() + write(tmp_path).read_bytes()
    src = tmp_path / "many.pgn"
    src.write_bytes(data * 3)
    options = ["--planes", "--sample-plies", "3", "--seed", "11", "--where", "ply_count >= 2"]
    one = export_positions(tmp_path, [src, FIXTURES / "sample.pgn"], *options, "--jobs", "1", name="one")
    assert one.num_rows > 50
    for jobs in ("2", "4", "6"):
        other = export_positions(tmp_path, [src, FIXTURES / "sample.pgn"], *options, "--jobs", jobs,
                                 "--chunk-bytes", "700", name=f"jobs{jobs}")
        assert other.equals(one), f"--jobs {jobs}"
        assert not list((tmp_path / f"jobs{jobs}").glob(".*")), "temporary files left"


def test_python_api_yields_the_same_rows_as_the_files(tmp_path):
    src = write(tmp_path, GAMES * 2)
    for i, (options, kwargs) in enumerate((([], {}), (["--planes", "--sample-plies", "2", "--seed", "3"],
                                       {"planes": True, "sample_plies": 2, "seed": 3}),
                            (["--unique-positions", "--where", "event in ('a', 'c', 'g')", "--min-ply", "1"],
                             {"unique": True, "where": "event in ('a', 'c', 'g')", "min_ply": 1}))):
        files = export_positions(tmp_path, [src], *options, name=f"api{i}")
        batches = list(pgntools.positions(str(src), **kwargs))
        assert batches and all(isinstance(b, pa.RecordBatch) for b in batches)
        table = pa.Table.from_batches(batches)
        assert table.schema == schema.position_rows_schema(kwargs.get("planes", False))
        assert table.equals(files), options
    assert "positions" in pgntools.__all__


def test_python_api_bad_settings_are_value_errors():
    with pytest.raises(ValueError, match="sample_plies"):
        next(pgntools.positions(str(FIXTURES / "sample.pgn"), sample_plies=-1))
    with pytest.raises(ValueError, match="max_ply"):
        next(pgntools.positions(str(FIXTURES / "sample.pgn"), min_ply=5, max_ply=2))


@pytest.mark.parametrize("args, message", [
    (["--positions", "{tmp}/p", "--sample-plies", "-1"], "--sample-plies"),
    (["--positions", "{tmp}/p", "--sample-plies", "0"], "--sample-plies"),
    (["--positions", "{tmp}/p", "--min-ply", "9", "--max-ply", "3"], "--min-ply 9 is above --max-ply 3"),
    (["--positions", "{tmp}/p", "--min-ply", "-2"], "--min-ply"),
    (["--parquet", "{tmp}/d", "--planes"], "--planes shapes the positions dataset of --positions DIR"),
    ([], "give one"),
    (["--parquet", "{tmp}/d", "--positions", "{tmp}/d/moves"], "is a table directory of --parquet"),
    (["--positions", "{tmp}/p", "--with-keys"], "--with-keys shapes the games and moves tables of --parquet"),
    (["--positions", "{tmp}/p", "--unique-positions", "--scheduler", "tcp://127.0.0.1:1"], "not with --scheduler"),
])
def test_bad_options_are_usage_errors(tmp_path, args, message):
    src = write(tmp_path)
    result = CliRunner().invoke(cli, ["export", *[a.format(tmp=tmp_path) for a in args], str(src)])
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert not (tmp_path / "p").exists() or not list((tmp_path / "p").iterdir())


def test_positions_with_the_games_and_moves_tables(tmp_path):
    src = write(tmp_path)
    invoke(["export", "--parquet", tmp_path / "d", "--positions", tmp_path / "p", "--with-keys", src])
    moves = read_rows(tmp_path / "d" / "moves").to_pylist()
    rows = read_rows(tmp_path / "p").to_pylist()
    after = {(m["game_id"], m["ply"]): m for m in moves}
    for row in rows:  # the key of a position is the moves table's key of the move before it
        if row["ply"]:
            assert after[row["game_id"], row["ply"]]["key"] == row["key"]
        assert after[row["game_id"], row["ply"] + 1]["uci"] == row["uci"]
    # --overwrite replaces the dataset; without, the directory is refused
    invoke(["export", "--positions", tmp_path / "p", src], expect=(2,))
    invoke(["export", "--positions", tmp_path / "p", "--overwrite", "--max-ply", "0", src])
    assert read_rows(tmp_path / "p").column("ply").to_pylist() == [0] * 6


# ---------------------------------------------------------------- the corpora vs python-chess

_FILES = corpus_pgn_files()
FILE_PARAMS = [pytest.param(p, id=corpus_id(p)) for p in _FILES] or [pytest.param(None, id="no-corpora")]


def single_game(data: bytes):
    reader = PgnLines(b"\n".join(line for line in data.splitlines() if line.strip()) + b"\n")
    game = chess_pgn.read_game(reader)
    if game is None or chess_pgn.read_game(reader) is not None:
        return None
    return game


def check_chunk(path: Path, tmp_path: Path, games, first: int):
    if no_move_in(games):  # (maybe no PGN to pgntools: nothing to compare)
        return [], 0
    data = b"".join(raw for _, raw in games)
    src = tmp_path / "slice.pgn"
    src.write_bytes(data)
    for name in ("d", "p"):
        shutil.rmtree(tmp_path / name, ignore_errors=True)
    invoke(["export", "--parquet", tmp_path / "d", "--columns", "status,result,offset", "--positions",
            tmp_path / "p", "--planes", src])
    g_rows = read_rows_games(tmp_path / "d")
    ours: Dict[int, List[dict]] = {}
    for row in read_rows(tmp_path / "p").select(["game_id", *ORACLE_FIELDS]).to_pylist():
        ours.setdefault(row.pop("game_id"), []).append(row)
    if len(g_rows) == len(games):
        pairs = [(g, game, not game.errors) for g, (game, _) in enumerate(games)]
    else:  # the readers split the file differently: python-chess reads each of our games alone
        starts = [r["offset"] for r in g_rows]
        slices = [data[a:b] for a, b in zip(starts, starts[1:] + [len(data)])]
        pairs = [(g, game, False) for g, game in ((g, single_game(raw)) for g, raw in enumerate(slices)) if game]
    problems, compared = [], 0
    for g, game, clean in pairs:
        status = g_rows[g]["status"]
        if status == "invalid":
            if ours.get(g):
                problems.append(f"{corpus_id(path)} game #{first + g}: invalid, yet {len(ours[g])} rows")
            continue
        # the result: the Result tag of a valid game (the checked result of a fixed one)
        result = game.headers.get("Result") if status == "valid" else g_rows[g]["result"]
        theirs = oracle_rows(game, result)
        if theirs is None:
            continue
        mine = ours.get(g, [])
        if clean and len(mine) != len(theirs):
            problems.append(f"{corpus_id(path)} game #{first + g}: {len(mine)} rows, python-chess {len(theirs)}")
        for a, b in zip(mine, theirs):
            if a != b:
                diff = {k: (a[k], b[k]) for k in a if a[k] != b[k]}
                problems.append(f"{corpus_id(path)} game #{first + g} ply {b['ply']}: (ours, python-chess) {diff}")
                break
        compared += 1
    return problems, compared


@pytest.mark.parametrize("path", FILE_PARAMS)
def test_corpus_sample_rows_match_python_chess(path, tmp_path):
    check_corpus_in_chunks(path, SAMPLE_GAMES, lambda chunk, first: check_chunk(path, tmp_path, chunk, first))


@pytest.mark.slow
@pytest.mark.parametrize("path", FILE_PARAMS)
def test_corpus_every_row_matches_python_chess(path, tmp_path):
    check_corpus_in_chunks(path, None, lambda chunk, first: check_chunk(path, tmp_path, chunk, first))
