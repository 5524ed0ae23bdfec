"""Datasets that grow month by month (issue 36, item 5): export --partition-by writes a hive
layout that DuckDB reads with hive_partitioning, the same rows as the flat export for any --jobs;
--append adds parts and leaves the old ones alone; what cannot be appended is refused before
anything is written."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from pgntools.cli import cli

duckdb = pytest.importorskip("duckdb")

SPEEDS = {"60+0": "bullet", "180+2": "blitz", "600+5": "rapid"}


def games(month: int, n: int = 60) -> bytes:
    out = []
    for i in range(n):
        control = list(SPEEDS)[i % 3]
        date = f"2024.{month:02d}.{1 + i % 28:02d}"
        # some games have only Date (the partition falls back to it), a few no date at all
        dates = f'[UTCDate "{date}"]\n' if i % 4 else (f'[Date "{date}"]\n' if i % 8 else "")
        out.append(f'[Event "Rated {SPEEDS[control]} game, #{i} / m{month}"]\n{dates}[White "w{i}"]\n[Black "b"]\n'
                   f'[TimeControl "{control}"]\n[Result "1-0"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n')
    return "".join(out).encode()


def invoke(*args, expect=(0,)):
    result = CliRunner().invoke(cli, [str(a) for a in args])
    crashed = result.exception is not None and not isinstance(result.exception, SystemExit)
    assert not crashed and result.exit_code in expect, (args, result.exit_code, result.output, result.exception)
    return result


def rows(sql: str) -> list:
    return duckdb.connect().sql(sql).fetchall()


def hive(directory: Path, table: str) -> str:
    return f"read_parquet('{directory}/{table}/**/*.parquet', hive_partitioning=true)"


@pytest.fixture
def month(tmp_path):
    path = tmp_path / "2024-01.pgn"
    path.write_bytes(games(1))
    return path


@pytest.mark.parametrize("jobs", [1, 2])
def test_partitions_hold_the_flat_exports_rows(tmp_path, month, jobs):
    flat, parted = tmp_path / "flat", tmp_path / f"parted{jobs}"
    invoke("export", "--parquet", flat, month)
    invoke("export", "--parquet", parted, "--partition-by", "year,month,speed", "--jobs", jobs,
           "--chunk-bytes", 2000, month)
    names = sorted(str(p.relative_to(parted)) for p in parted.rglob("*.parquet"))
    assert "games/year=2024/month=01/speed=blitz/part-00000.parquet" in names
    assert "games/year=__HIVE_DEFAULT_PARTITION__/month=__HIVE_DEFAULT_PARTITION__/speed=bullet/part-00000.parquet" \
        in names  # (the games with no date)
    assert all(name.startswith(("games/year=", "moves/year=")) for name in names)
    # every game in the partition its own columns say, and the same rows as the flat dataset
    got = rows(f"SELECT game_id, speed::VARCHAR, year::VARCHAR, month::VARCHAR, utc_date, date FROM "
               f"{hive(parted, 'games')} ORDER BY 1")
    assert len(got) == 60
    for game_id, speed, year, month_, utc_date, date in got:
        day = utc_date or date
        assert (year, month_) == (("2024", "01") if day else (None, None))  # (DuckDB: Hive's null directory)
        assert speed == SPEEDS[list(SPEEDS)[game_id % 3]]
    in_files = rows(f"SELECT game_id, year, month FROM read_parquet('{parted}/games/**/*.parquet', "
                    f"hive_partitioning=false) ORDER BY 1")
    assert [(y, m) for _, y, m in in_files] == [(2024, 1) if (utc or date) else (None, None)
                                                 for _, _, _, _, utc, date in got]
    # (year and month are games columns too, of the same values: a directory and its rows agree)
    for table, key, columns, flat_columns in (("games", "game_id", "* EXCLUDE (year, month)", "* EXCLUDE (year, month)"),
                                              ("moves", "game_id, ply", "* EXCLUDE (year, month, speed)", "*")):
        parted_rows = rows(f"SELECT {columns} FROM {hive(parted, table)} ORDER BY {key}")
        flat_rows = rows(f"SELECT {flat_columns} FROM read_parquet('{flat}/{table}/*.parquet') ORDER BY {key}")
        assert parted_rows == flat_rows and len(flat_rows) > 0


def test_append_adds_parts_and_leaves_the_old_ones(tmp_path, month):
    february = tmp_path / "2024-02.pgn"
    february.write_bytes(games(2, 30))
    out = tmp_path / "out"
    invoke("export", "--parquet", out, "--partition-by", "year,month", month)
    before = {p: p.read_bytes() for p in out.rglob("*.parquet")}
    stamps = {p: p.stat().st_mtime_ns for p in before}
    # without --append: refused, nothing written
    result = invoke("export", "--parquet", out, "--partition-by", "year,month", february, expect=(2,))
    assert "already holds part files" in result.stderr and "--append" in result.stderr
    assert set(out.rglob("*.parquet")) == set(before)
    invoke("export", "--parquet", out, "--partition-by", "year,month", "--append", february)
    assert all(p.read_bytes() == data and p.stat().st_mtime_ns == stamps[p] for p, data in before.items())
    assert rows(f"SELECT month::VARCHAR, count(*) FROM {hive(out, 'games')} GROUP BY 1 ORDER BY 1") == [
        ("01", 52), ("02", 26), (None, 8 + 4)]  # (the games with neither UTCDate nor Date: every 8th)
    # the undated games of both months share a directory: February's part is numbered after January's
    undated = sorted(p.name for p in (out / "games" / "year=__HIVE_DEFAULT_PARTITION__"
                                      / "month=__HIVE_DEFAULT_PARTITION__").iterdir())
    assert undated == ["part-00000.parquet", "part-00001.parquet"]
    # appending to a flat dataset too
    flat = tmp_path / "flat"
    invoke("export", "--parquet", flat, month)
    invoke("export", "--parquet", flat, "--append", february)
    assert rows(f"SELECT count(*) FROM read_parquet('{flat}/games/*.parquet')") == [(90,)]
    assert sorted(os.listdir(flat / "games")) == ["part-00000.parquet", "part-00001.parquet"]


def test_append_of_other_columns_is_refused_before_writing(tmp_path, month):
    out = tmp_path / "out"
    invoke("export", "--parquet", out, "--with-fen", month)
    before = sorted(out.rglob("*"))
    result = invoke("export", "--parquet", out, "--append", month, expect=(2,))
    assert "--append" in result.stderr and "other columns" in result.stderr and "fen" in result.stderr
    assert sorted(out.rglob("*")) == before


def test_overwrite_replaces_a_partitioned_dataset(tmp_path, month):
    out = tmp_path / "out"
    invoke("export", "--parquet", out, "--partition-by", "month", month)
    (out / "games" / "notes.txt").write_text("kept")
    invoke("export", "--parquet", out, "--overwrite", month)  # now flat: the partitions' parts go
    assert sorted(str(p.relative_to(out)) for p in out.rglob("*.parquet")) == [
        "games/part-00000.parquet", "moves/part-00000.parquet"]
    assert (out / "games" / "notes.txt").read_text() == "kept"


@pytest.mark.parametrize("args, message", [
    (["--partition-by", "colour"], "unknown field"),
    (["--partition-by", "speed,speed"], "named twice"),
    (["--append", "--overwrite"], "choose one"),
])
def test_bad_dataset_options(tmp_path, month, args, message):
    result = invoke("export", "--parquet", tmp_path / "out", *args, month, expect=(2,))
    assert message in result.stderr
    assert not list((tmp_path).rglob("*.parquet"))


def test_game_uid_is_stable_and_distinct_across_inputs(tmp_path, month):
    """game_uid: the same for a game in every run (any --jobs, a compressed copy of the input
    elsewhere), distinct across inputs, and the moves carry their game's."""
    import zstandard

    february = tmp_path / "2024-02.pgn"
    february.write_bytes(games(2, 30))
    elsewhere = tmp_path / "copy"
    elsewhere.mkdir()
    (elsewhere / "2024-01.pgn.zst").write_bytes(zstandard.ZstdCompressor().compress(month.read_bytes()))
    uids = {}
    for name, args in (("one", [month, february]), ("two", ["--jobs", 2, "--chunk-bytes", 1500, month, february]),
                       ("zst", [elsewhere / "2024-01.pgn.zst"])):
        invoke("export", "--parquet", tmp_path / name, *args)
        uids[name] = rows(f"SELECT source, \"offset\", game_uid FROM read_parquet('{tmp_path / name}/games/*.parquet') "
                          "ORDER BY game_id")
        moves = rows(f"SELECT DISTINCT m.game_uid = g.game_uid FROM read_parquet('{tmp_path / name}/moves/*.parquet') m "
                     f"JOIN read_parquet('{tmp_path / name}/games/*.parquet') g USING (game_id)")
        assert moves == [(True,)]
    assert uids["one"] == uids["two"] and len(uids["one"]) == 90
    assert len({uid for _, _, uid in uids["one"]}) == 90 and all(uid >= 0 for _, _, uid in uids["one"])
    january = [(offset, uid) for source, offset, uid in uids["one"] if source.endswith("2024-01.pgn")]
    assert [(offset, uid) for _, offset, uid in uids["zst"]] == january  # (the name without its directory and suffix)
    # the two inputs differ in the uid's high bits, not only in the offsets
    highs = {(uid >> 40, source) for source, _, uid in uids["one"]}
    assert len(highs) == 2


def many_months(n_games: int = 2400, months: int = 40) -> bytes:
    """Games cycling through ``months`` months and the three speeds: every batch of the reader
    holds games of every partition (as a historical collection by year and month does)."""
    out = []
    for i in range(n_games):
        control = list(SPEEDS)[i % 3]
        year, month = 2000 + (i // 3) % months // 12, 1 + (i // 3) % months % 12
        out.append(f'[Event "e{i}"]\n[UTCDate "{year}.{month:02d}.01"]\n[White "w{i}"]\n[Black "b"]\n'
                   f'[TimeControl "{control}"]\n[Result "1-0"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n')
    return "".join(out).encode()


def test_many_partitions_written_whole(tmp_path):
    """A partition's rows of every batch go to one file while the open files' rows fit in
    PARTITION_BYTES: each part of 120 partitions, fed by five batches, is one row group (when
    only 16 files were kept open, each was closed and reopened per batch: 5 row groups a part,
    assembled from 5 fragments)."""
    pq = pytest.importorskip("pyarrow.parquet")
    source = tmp_path / "history.pgn"
    source.write_bytes(many_months())
    out = tmp_path / "out"
    invoke("export", "--parquet", out, "--partition-by", "year,month,speed", "--jobs", 1, source)
    parts = sorted(out.rglob("*.parquet"))
    assert len(parts) == 2 * 120
    assert [p for p in parts if pq.ParquetFile(p).metadata.num_row_groups != 1] == []
    assert rows(f"SELECT count(*), count(DISTINCT (year, month, speed)) FROM {hive(out, 'games')}") == [(2400, 120)]


def test_partitions_over_the_memory_bound_are_closed_and_assembled(tmp_path, monkeypatch):
    """Past PARTITION_BYTES the file written to least recently is closed and a later batch's
    rows of its partition start another fragment: the parts are assembled from them, the rows
    are the flat export's."""
    from pgntools.sinks import parquet as parquet_sink

    monkeypatch.setattr(parquet_sink, "PARTITION_BYTES", 20_000)
    source = tmp_path / "history.pgn"
    source.write_bytes(many_months())
    flat, parted = tmp_path / "flat", tmp_path / "parted"
    invoke("export", "--parquet", flat, source)
    invoke("export", "--parquet", parted, "--partition-by", "year,month,speed", "--jobs", 1, source)
    pq = pytest.importorskip("pyarrow.parquet")
    groups = [pq.ParquetFile(p).metadata.num_row_groups for p in parted.rglob("*.parquet")]
    assert max(groups) > 1  # (closed and reopened: the bound was reached)
    assert not list(parted.rglob("*.tmp"))
    for table, key, columns, flat_columns in (("games", "game_id", "* EXCLUDE (year, month)", "* EXCLUDE (year, month)"),
                                              ("moves", "game_id, ply", "* EXCLUDE (year, month, speed)", "*")):
        got = rows(f"SELECT {columns} FROM {hive(parted, table)} ORDER BY {key}")
        want = rows(f"SELECT {flat_columns} FROM read_parquet('{flat}/{table}/*.parquet') ORDER BY {key}")
        assert got == want and len(want) > 0
