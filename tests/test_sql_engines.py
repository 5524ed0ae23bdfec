"""Column names that survive SQL engines (issue 22, point 3): DuckDB, Polars and Spark read the
tables of `pgntools export` and `to-fen --format parquet` with every name unchanged. The names are
written out here by hand, so a rename is a decision made in this file too.

The dataset is made by the real CLI (a subprocess). Spark is in the slow tests (`-m slow`): it
needs pyspark and a Java runtime, and takes ~20 s to start.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO_ROOT
from test_export import ANNOTATED, CHESS960, FLAGS, MATE, PLAIN

GAMES = ["game_id", "game_uid", "source", "offset", "event", "site", "date", "year", "month", "round", "white", "black", "white_elo",
         "black_elo", "time_control", "speed", "eco", "opening", "termination", "utc_date", "utc_time", "utc_datetime",
         "variant", "rules",
         "tags", "start_fen", "result", "result_tag", "status", "errors", "fixes", "ply_count", "has_clock", "has_eval",
         "captures", "checks", "underpromotions", "max_halfmove_clock", "max_repetitions", "outcome", "automatic_end",
         "automatic_end_ply", "final_fen", "opening_eco", "opening_name", "opening_ply", "movetext_hash", "final_key"]
MOVES = ["game_id", "game_uid", "ply", "san", "uci", "from_square", "to_square", "piece", "captured", "promotion", "is_capture",
         "is_check", "is_mate", "is_castle", "is_en_passant", "is_null", "drop", "halfmove_clock", "clock", "emt", "eval_cp",
         "eval_mate", "nags", "comment", "fen"]
POSITIONS = ["game_id", "ply", "san", "fen"]
# A game whose Result tag ("*") differs from the checked result (1-0, by the marker): the two
# columns that SQL engines used to confuse (DuckDB read the second as result_1, Spark refused it).
STAR_TAG = '[Event "Star"]\n[White "w"]\n[Black "b"]\n[Result "*"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n'


def pgntools(*args: str):
    result = subprocess.run([sys.executable, "-m", "pgntools", *args], cwd=REPO_ROOT, capture_output=True, text=True)
    assert result.returncode in (0, 1), result.stderr
    return result


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("engines")
    source = tmp / "games.pgn"
    source.write_text("\n".join([FLAGS, MATE, ANNOTATED, PLAIN, CHESS960, STAR_TAG]) + "\n", encoding="utf-8")
    pgntools("export", "--no-progress", "--with-comments", "--with-fen", "--parquet", str(tmp / "out"), str(source))
    pgntools("to-fen", "--no-progress", "--every-ply", "--format", "parquet", "-o", str(tmp / "positions.parquet"),
             str(source))
    return tmp


def paths(data: Path) -> dict:
    return {"games": f"{data}/out/games/*.parquet", "moves": f"{data}/out/moves/*.parquet",
            "positions": f"{data}/positions.parquet"}


EXPECTED = {"games": GAMES, "moves": MOVES, "positions": POSITIONS}


def test_duckdb_reads_every_name_unchanged(data):
    duckdb = pytest.importorskip("duckdb", reason="DuckDB is a test dependency (pip install -e '.[test]')")
    con = duckdb.connect()
    for table, path in paths(data).items():
        names = [row[0] for row in con.execute(f"DESCRIBE SELECT * FROM read_parquet('{path}')").fetchall()]
        assert names == EXPECTED[table], table
    star = con.execute(f"SELECT result, result_tag, white_elo FROM read_parquet('{paths(data)['games']}') "
                       "WHERE event = 'Star'").fetchall()
    assert star == [("1-0", "*", None)]


def test_polars_reads_every_name_unchanged(data):
    pl = pytest.importorskip("polars", reason="Polars is a test dependency (pip install -e '.[test]')")
    for table, path in paths(data).items():
        assert pl.scan_parquet(path).collect_schema().names() == EXPECTED[table], table
    games = pl.read_parquet(paths(data)["games"])
    star = games.filter(pl.col("event") == "Star").select("result", "result_tag").rows()
    assert star == [("1-0", "*")]
    by_status = dict(games.group_by("status").len().select(pl.col("status").cast(pl.String), "len").rows())
    assert sum(by_status.values()) == 6 and set(by_status) <= {"valid", "fixed", "invalid"}


def java_available() -> bool:
    if shutil.which("java") is None:
        return False
    return subprocess.run(["java", "-version"], capture_output=True).returncode == 0


@pytest.mark.slow
def test_spark_reads_both_tables_and_groups(data):
    pytest.importorskip("pyspark", reason="Spark test: pip install pyspark")
    if not java_available():
        pytest.skip("Spark test: needs a Java runtime (apt-get install -y openjdk-17-jre-headless)")
    from pyspark.sql import SparkSession

    spark = (SparkSession.builder.master("local[1]").appName("pgntools-test")
             .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "1").getOrCreate())
    try:
        games = spark.read.parquet(f"{data}/out/games")
        moves = spark.read.parquet(f"{data}/out/moves")
        assert games.columns == GAMES and moves.columns == MOVES
        games.createOrReplaceTempView("games")
        moves.createOrReplaceTempView("moves")
        got = spark.sql("SELECT g.result, g.result_tag, count(*) AS plies FROM games g JOIN moves m USING (game_id) "
                        "WHERE g.event = 'Star' GROUP BY g.result, g.result_tag").collect()
        assert [tuple(row) for row in got] == [("1-0", "*", 7)]
        first_moves = spark.sql("SELECT san, count(*) AS n FROM moves WHERE ply = 1 GROUP BY san ORDER BY san").collect()
        assert sum(row["n"] for row in first_moves) == games.count()
    finally:
        spark.stop()
