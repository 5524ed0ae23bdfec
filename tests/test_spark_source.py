"""pgntools.spark: `spark.read.format("pgn")` (issue 36, item 6). Spark runs in local mode in the
slow tests (`-m slow`: pyspark >= 4.1 and a Java runtime, ~15 s to start); the translation of
Spark's filters into --where text is checked without a Spark session.

What is checked: byte-range partitions of a plain file and whole-file partitions of a compressed
one read every game once (the same rows as the in-process games/moves tables, in any partition
size); game_uid joins moves to games; pushed filters and the `where` option keep the games Spark's
own evaluation keeps; bad options and paths fail before any task runs."""
from __future__ import annotations

import gzip
import re
import shutil
import subprocess

import pytest

pytest.importorskip("pyspark.sql.datasource", reason="Spark test: pip install 'pgntools-chess[spark]' (pyspark >= 4.1)")

from pyspark.sql.datasource import (EqualTo, GreaterThan, In, IsNotNull, LessThanOrEqual, Not,  # noqa: E402
                                    StringContains, StringStartsWith)

from pgntools.spark import filter_as_where  # noqa: E402
from test_export import ANNOTATED, CHESS960, FLAGS, MATE, PLAIN  # noqa: E402

COLUMNS = {"white", "white_elo", "event", "eco"}


def test_spark_filters_become_where_text():
    assert filter_as_where(EqualTo(("white",), "O'Kelly"), COLUMNS) == "white = 'O''Kelly'"
    assert filter_as_where(GreaterThan(("white_elo",), 2500), COLUMNS) == "white_elo > 2500"
    assert filter_as_where(LessThanOrEqual(("white_elo",), 2500.5), COLUMNS) == "white_elo <= 2500.5"
    assert filter_as_where(In(("eco",), ("B20", "C60")), COLUMNS) == "eco in ('B20', 'C60')"
    assert filter_as_where(IsNotNull(("event",)), COLUMNS) == "event is not null"
    assert filter_as_where(Not(EqualTo(("eco",), "B20")), COLUMNS) == "not (eco = 'B20')"
    assert filter_as_where(StringStartsWith(("event",), "Rated"), COLUMNS) == "event like 'Rated%'"
    assert filter_as_where(StringContains(("event",), "a%b"), COLUMNS) is None  # a wildcard in the text
    assert filter_as_where(EqualTo(("ply_count",), 3), COLUMNS) is None  # not a column offered
    assert filter_as_where(EqualTo(("white",), True), COLUMNS) is None  # a literal type left to Spark


def java_available() -> bool:
    return shutil.which("java") is not None and subprocess.run(["java", "-version"], capture_output=True).returncode == 0


@pytest.fixture(scope="module")
def spark():
    if not java_available():
        pytest.skip("Spark test: needs a Java runtime (apt-get install -y openjdk-17-jre-headless)")
    from pyspark.sql import SparkSession

    import pgntools.spark

    session = (SparkSession.builder.master("local[2]").appName("pgntools-spark-source")
               .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.shuffle.partitions", "2").getOrCreate())
    pgntools.spark.register(session)
    yield session
    session.stop()


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    """A plain file of 300 games (ratings 2000-2598, so filters keep some) and a gzip copy of
    its first 60 games, in one directory."""
    tmp = tmp_path_factory.mktemp("spark")
    fixtures = [FLAGS, MATE, ANNOTATED, PLAIN, CHESS960]
    games = []
    for i in range(300):
        text = re.sub(r'\[(Round|WhiteElo) "[^"]*"\]\n', "", fixtures[i % len(fixtures)])
        games.append(f'[WhiteElo "{2000 + 2 * i}"]\n[Round "{i}"]\n' + text)  # (a tag's order is free)
    (tmp / "in").mkdir()
    (tmp / "in" / "a.pgn").write_text("\n".join(games) + "\n", encoding="utf-8")
    with gzip.open(tmp / "in" / "b.pgn.gz", "wt", encoding="utf-8") as f:
        f.write("\n".join(games[:60]) + "\n")
    return tmp / "in"


def local_rows(path, table: str) -> int:
    """The rows of ``table`` pgntools.to_arrow makes of the whole file in process."""
    import pgntools

    return pgntools.to_arrow(str(path), table=table).read_all().num_rows


def read(spark, path, **options):
    reader = spark.read.format("pgn")
    for name, value in options.items():
        reader = reader.option(name, str(value))
    return reader.load(str(path))


@pytest.mark.slow
@pytest.mark.parametrize("partition_bytes", [0, 5000, 40000])
def test_every_game_once_in_any_partition_size(spark, inputs, partition_bytes):
    games = read(spark, inputs / "a.pgn", partitionBytes=partition_bytes)
    rounds = sorted(int(r.round) for r in games.select("round").collect())
    assert rounds == list(range(300))  # none lost, none twice
    moves = read(spark, inputs / "a.pgn", table="moves", partitionBytes=partition_bytes)
    assert moves.count() == local_rows(inputs / "a.pgn", "moves")
    if partition_bytes:
        assert games.rdd.getNumPartitions() > 1


@pytest.mark.slow
def test_a_directory_and_a_glob_with_compressed_inputs(spark, inputs):
    both = read(spark, inputs, partitionBytes=5000)
    assert both.count() == 360
    assert read(spark, f"{inputs}/*.gz").count() == 60
    by_source = {r.source.rsplit("/", 1)[-1]: r["count"] for r in both.groupBy("source").count().collect()}
    assert by_source == {"a.pgn": 300, "b.pgn.gz": 60}


@pytest.mark.slow
def test_game_uid_joins_moves_to_games_across_inputs(spark, inputs):
    games = read(spark, inputs, partitionBytes=5000)
    moves = read(spark, inputs, table="moves", partitionBytes=5000)
    assert games.select("game_uid").distinct().count() == 360 and "game_id" not in games.columns
    joined = moves.join(games.select("game_uid", "ply_count"), "game_uid")
    assert joined.count() == moves.count() == games.groupBy().sum("ply_count").collect()[0][0]
    # the same ids in a second read with other partitions: stable across runs
    again = read(spark, inputs, partitionBytes=0).select("game_uid")
    assert sorted(r.game_uid for r in again.collect()) == sorted(r.game_uid for r in games.select("game_uid").collect())


@pytest.mark.slow
def test_pushed_filters_and_the_where_option_keep_what_spark_keeps(spark, inputs):
    games = read(spark, inputs / "a.pgn", partitionBytes=5000)
    condition = "white_elo > 2400 and event in ('Flags', 'Mate') and black like 'D%'"
    pushed = sorted(int(r.round) for r in games.where(condition).select("round").collect())
    # the Mate fixture (every fifth game from the second) has Black "Dave"
    assert pushed == [i for i in range(300) if i % 5 == 1 and 2000 + 2 * i > 2400]
    cached = read(spark, inputs / "a.pgn").cache()  # (filters are not pushed below a cache: Spark evaluates them)
    assert sorted(int(r.round) for r in cached.where(condition).select("round").collect()) == pushed
    option = read(spark, inputs / "a.pgn", where="white_elo > 2400").count()
    assert option == sum(1 for i in range(300) if 2000 + 2 * i > 2400)


@pytest.mark.slow
def test_bad_options_and_paths_fail_at_planning(spark, inputs, tmp_path):
    from pyspark.errors import PySparkException

    with pytest.raises(PySparkException, match="option table"):
        read(spark, inputs, table="positions").count()
    with pytest.raises(PySparkException, match="matches no file"):
        read(spark, tmp_path / "*.pgn").count()
    with pytest.raises(PySparkException, match="no such file"):
        read(spark, tmp_path / "missing.pgn").count()
    with pytest.raises(PySparkException, match="unknown name|white_elox"):
        read(spark, inputs, where="white_elox > 3").count()
