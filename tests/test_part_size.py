"""--target-part-size (issue 36, item 5): a part holds a range of game ids sized from the target,
so the dataset's parts (their number, names and rows) are the same for any --jobs and chunk
size; a part written by many workers' chunks is one file (their row groups copied together)."""
from __future__ import annotations

from pathlib import Path

import pytest

from pgntools.sinks.parquet import BYTES_PER_GAME

duckdb = pytest.importorskip("duckdb")
pq = pytest.importorskip("pyarrow.parquet")

from test_datasets import games  # noqa: E402  (60 games a month, three speeds)
from pgn_helpers import invoke

PER_PART = 100  # games a part


@pytest.fixture(scope="module")
def year(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("year") / "2024.pgn"
    path.write_bytes(b"".join(games(month, 70) for month in range(1, 10)))  # 630 games, ~200 kB
    return path


def parts(out: Path) -> list:
    return sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file() and not p.name.startswith("_"))


def table(out: Path, name: str, partitioned: bool = False):
    return duckdb.connect().sql(f"SELECT * FROM read_parquet('{out}/{name}/**/*.parquet', "
                                f"hive_partitioning={str(partitioned).lower()}) ORDER BY game_uid, "
                                + ("ply" if name == "moves" else "game_id")).fetchall()


@pytest.mark.parametrize("partition_by", [None, "month"])
def test_parts_are_the_same_for_any_jobs_and_chunks(tmp_path, year, partition_by):
    target = PER_PART * BYTES_PER_GAME
    layout = ["--partition-by", partition_by] if partition_by else []
    runs = {}
    for jobs, chunk in ((1, None), (2, None), (4, 6000), (4, 50_000)):  # chunks of ~20 and ~160 games
        out = tmp_path / f"j{jobs}-{chunk}"
        invoke("export", "--parquet", out, "--target-part-size", target, "--jobs", jobs, *layout,
               *(["--chunk-bytes", chunk] if chunk else []), year)
        runs[(jobs, chunk)] = out
    names = {key: parts(out) for key, out in runs.items()}
    first = names[(1, None)]
    assert all(found == first for found in names.values()), names
    assert not [n for n in first if "/." in n or n.startswith(".")], "temporary files left"
    if not partition_by:  # 630 games: parts of games 0-99, 100-199, ..., 600-629
        assert first == [f"{t}/part-{i:05d}.parquet" for t in ("games", "moves") for i in range(7)]
        for i in range(7):
            ids = pq.read_table(runs[(4, 6000)] / "games" / f"part-{i:05d}.parquet").column("game_id").to_pylist()
            assert ids == list(range(i * PER_PART, min((i + 1) * PER_PART, 630)))
        # a part of several chunks holds their row groups (one file, read whole by any reader)
        assert pq.ParquetFile(runs[(4, 6000)] / "moves" / "part-00000.parquet").num_row_groups > 1
    else:  # each partition's part-N holds games of the range of part N only
        for name in (n for n in first if n.startswith("games/")):
            ids = pq.read_table(runs[(4, 6000)] / name).column("game_id").to_pylist()
            assert {i // PER_PART for i in ids} == {int(name[-13:-8])}, name
    # DuckDB reads each dataset; the rows are the same
    expected = {name: table(runs[(1, None)], name, bool(partition_by)) for name in ("games", "moves")}
    assert len(expected["games"]) == 630
    for out in runs.values():
        for name in ("games", "moves"):
            assert table(out, name, bool(partition_by)) == expected[name]


def test_the_default_target_keeps_a_small_export_in_one_part(tmp_path, year):
    for jobs in (1, 4):
        out = tmp_path / f"j{jobs}"
        invoke("export", "--parquet", out, "--jobs", jobs, "--chunk-bytes", 6000, year)
        assert parts(out) == ["games/part-00000.parquet", "moves/part-00000.parquet"]


def test_target_part_size_takes_units(tmp_path, year):
    result = invoke("export", "--parquet", tmp_path / "x", "--target-part-size", "lots", year, expect=(2,))
    assert "is not a size" in result.output
    invoke("export", "--parquet", tmp_path / "y", "--target-part-size", "0.06MB", year)
    assert len(parts(tmp_path / "y")) == 2 * 7
