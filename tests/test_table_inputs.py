"""Games stored as table rows (issue 35, item 4): a Parquet file or dataset, an Arrow file or an
in-process Arrow table in the Lichess layout (Hugging Face ``Lichess/standard-chess-games``: the
tags as columns, the game in ``movetext``) is read as games by the API and every command.

The fixture is built here in that layout; the oracle is the same games written as PGN text (and
python-chess's SAN of their moves), so a table input must give what its PGN gives.
"""
from __future__ import annotations

import datetime
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
chess_pgn = pytest.importorskip("chess.pgn")

import pgntools  # noqa: E402

REPO = Path(__file__).resolve().parent.parent

MOVETEXT = [
    "1. e4 { [%clk 0:03:00] } 1... e5 { [%clk 0:03:00] } 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0",
    "1. d4 { [%eval 0.2] [%clk 0:10:00] } 1... d5 2. c4 e6 1/2-1/2",
    "1. e4 e5 2. Ke2 Ke7 3. Kd5 0-1",  # illegal at ply 5
    None,                               # a row without a game
    "1. Nf3 Nf6 2. g3 g6 *",
]
N = len(MOVETEXT)


def lichess_table() -> "pa.Table":
    """Five rows in the Lichess layout and its types (dates date32, times time64, Elo integers)."""
    return pa.table({
        "Event": ["Rated Blitz game", "Rated Rapid game", "Casual Blitz game", "Rated Blitz game", "Rated Bullet game"],
        "Site": [f"https://lichess.org/g{i}" for i in range(N)],
        "White": ["Ann", "Cid", "Eve", "Gus", "Ian"],
        "Black": ["Bob", "Dee", "Fay", "Hal", "Jo"],
        "Result": ["1-0", "1/2-1/2", "0-1", "1-0", "*"],
        "WhiteElo": pa.array([2510, 1400, None, 1800, 2000], pa.int16()),
        "BlackElo": pa.array([2400, 1450, 1500, 1700, 2100], pa.int16()),
        "WhiteRatingDiff": pa.array([5, -1, None, 3, 0], pa.int16()),
        "BlackRatingDiff": pa.array([-5, 1, None, -3, 0], pa.int16()),
        "UTCDate": pa.array([datetime.date(2024, 1, d + 1) for d in range(N)], pa.date32()),
        "UTCTime": pa.array([datetime.time(12, d, 5) for d in range(N)], pa.time64("us")),
        "ECO": ["C20", "D30", "C20", "A00", "A05"],
        "Opening": ["King's Pawn Game", "Queen's Gambit Declined", "King's Pawn Game", "Unknown", "Reti"],
        "Termination": ["Normal"] * N,
        "TimeControl": ["180+0", "600+0", "180+2", "180+0", "60+0"],
        "movetext": MOVETEXT,
    })


def as_pgn(table) -> bytes:
    """The rows as ordinary PGN: tag pairs on their lines, then the movetext (null: the token null)."""
    out = []
    for row in table.to_pylist():
        for name, value in row.items():
            if name == "movetext" or value is None:
                continue
            if isinstance(value, datetime.date):
                value = value.strftime("%Y.%m.%d")
            elif isinstance(value, datetime.time):
                value = value.strftime("%H:%M:%S")
            out.append(f'[{name} "{value}"]')
        out.append("")
        out.append(row["movetext"] if row["movetext"] is not None else "null")
        out.append("")
    return "\n".join(out).encode()


COLUMNS = ["white", "black", "white_elo", "black_elo", "result", "event", "site", "eco", "status", "ply_count",
           "final_fen", "utc_date", "utc_time", "time_control"]


@pytest.fixture
def parquet_file(tmp_path):
    path = tmp_path / "train-00000-of-00001.parquet"
    pq.write_table(lichess_table(), path)
    return path


def test_a_table_gives_the_games_its_pgn_gives():
    table = lichess_table()
    expected = pgntools.to_arrow(as_pgn(table), columns=COLUMNS).read_all()
    got = pgntools.to_arrow(table, columns=COLUMNS).read_all()
    assert got == expected
    assert got.column("status").to_pylist() == ["valid", "valid", "invalid", "invalid", "valid"]
    assert got.column("utc_date").to_pylist()[0] == "2024.01.01" and got.column("utc_time").to_pylist()[1] == "12:01:05"


def test_the_moves_of_a_table_are_python_chess_moves():
    moves = pgntools.to_arrow(lichess_table(), "moves", columns=["game_id", "san", "clock"]).read_all()
    got = {}
    for game, san in zip(moves.column("game_id").to_pylist(), moves.column("san").to_pylist()):
        got.setdefault(game, []).append(san)
    handle = io.StringIO(as_pgn(lichess_table()).decode())
    for index in (0, 1, 4):
        game = None
        for _ in range(index + 1):
            game = chess_pgn.read_game(handle)
        handle.seek(0)
        board, sans = game.board(), []
        for move in game.mainline_moves():
            sans.append(board.san(move))
            board.push(move)
        assert got[index] == sans
    assert moves.column("clock").to_pylist()[:2] == [180.0, 180.0]


@pytest.mark.parametrize("make", ["parquet file", "dataset", "arrow file", "record batches", "lower case"])
def test_every_kind_of_table_source(make, tmp_path, parquet_file):
    table = lichess_table()
    if make == "parquet file":
        source = parquet_file
    elif make == "dataset":  # hive partitions, as Hugging Face publishes the database (year=/month=)
        source = tmp_path / "dataset"
        for month, rows in ((1, table.slice(0, 2)), (2, table.slice(2))):
            part = source / "year=2024" / f"month={month:02d}"
            part.mkdir(parents=True)
            pq.write_table(rows, part / "train-0.parquet")
        source = str(source)
    elif make == "arrow file":
        source = tmp_path / "games.arrow"
        with pa.ipc.new_file(source, table.schema) as writer:
            writer.write_table(table)
    elif make == "record batches":
        source = pa.RecordBatchReader.from_batches(table.schema, table.to_batches(max_chunksize=2))
    else:  # column names in another case and with underscores
        source = table.rename_columns([{"WhiteElo": "white_elo", "UTCDate": "utc_date"}.get(n, n.lower())
                                       for n in table.column_names])
    got = pgntools.to_arrow(source, columns=["white", "white_elo", "status", "utc_date"]).read_all()
    assert got.column("white").to_pylist() == ["Ann", "Cid", "Eve", "Gus", "Ian"]
    assert got.column("white_elo").to_pylist() == [2510, 1400, None, 1800, 2000]
    assert got.column("status").to_pylist() == ["valid", "valid", "invalid", "invalid", "valid"]
    assert got.column("utc_date").to_pylist()[4] == "2024.01.05"


def test_a_null_movetext_is_an_invalid_game_named_by_its_row(parquet_file):
    games = list(pgntools.read_games(parquet_file))
    assert len(games) == N
    assert games[3].status == "invalid" and games[3].line == 4  # row 3 (from 0): one line a row
    assert "'null'" in games[3].errors[0].message
    assert games[2].errors[0].line == 3 and "Kd5" in games[2].errors[0].message


def cli(*args):
    return subprocess.run([sys.executable, "-m", "pgntools", *map(str, args)], cwd=REPO, capture_output=True,
                          text=True, timeout=300)


def test_the_command_line_reads_a_lichess_parquet_shard(parquet_file, tmp_path):
    out = tmp_path / "out"
    done = cli("export", "--parquet", out, parquet_file, "--report", tmp_path / "report.jsonl")
    assert done.returncode == 0, done.stderr  # (0: it completed; the invalid games are counted, issue 37 A4)
    games = pq.read_table(out / "games").sort_by("game_id")
    assert games.column("white").to_pylist() == ["Ann", "Cid", "Eve", "Gus", "Ian"]
    assert games.column("site").to_pylist()[1] == "https://lichess.org/g1"
    report = [json.loads(line) for line in (tmp_path / "report.jsonl").read_text().splitlines()]
    invalid = {r["row"]: r["errors"][0]["message"] for r in report if r["status"] == "invalid"}
    assert set(invalid) == {2, 3} and "Kd5" in invalid[2]
    assert all(r["file"] == str(parquet_file) for r in report)
    parallel = cli("export", "--jobs", "2", "--parquet", tmp_path / "out2", parquet_file)
    assert parallel.returncode == 0, parallel.stderr
    assert pq.read_table(tmp_path / "out2" / "games").sort_by("game_id") == games


def test_a_table_without_movetext_is_exit_2_naming_its_columns(tmp_path):
    path = tmp_path / "other.parquet"
    pq.write_table(pa.table({"White": ["a"], "pgn": ["1. e4 *"]}), path)
    done = cli("validate", path)
    assert done.returncode == 2
    assert "without a movetext column (its columns: White, pgn)" in done.stderr
    assert not list(tmp_path.glob("out*"))
    with pytest.raises(pgntools.errors.InputError, match="its columns: White, pgn"):
        pgntools.to_arrow(pa.table({"White": ["a"], "pgn": ["1. e4 *"]})).read_all()


def test_a_parquet_url():
    fsspec = pytest.importorskip("fsspec")
    fs = fsspec.filesystem("memory")
    with fs.open("/issue35/train-00000-of-00001.parquet", "wb") as f:
        pq.write_table(lichess_table(), f)
    got = pgntools.to_arrow("memory:///issue35/train-00000-of-00001.parquet", columns=["white", "status"]).read_all()
    assert got.column("white").to_pylist() == ["Ann", "Cid", "Eve", "Gus", "Ian"]


def test_line_breaks_and_semicolon_comments_in_movetext():
    table = pa.table({"White": ["a", "b", "c"], "movetext": [
        "1. e4 ; a comment to the end of the line\ne5 2. Nf3 *",
        "1. d4 { a brace comment; with a semicolon } d5 *",
        "1. c4 {x}\n\n; last } word\n*"]})
    games = list(pgntools.read_games(table))
    assert [g.san for g in games] == [["e4", "e5", "Nf3"], ["d4", "d5"], ["c4"]]
    assert [g.line for g in games] == [1, 2, 3] and all(g.status == "valid" for g in games)
    assert games[1].moves[0].comment.strip() == "a brace comment; with a semicolon"
