"""Inputs and outputs as fsspec URLs (issue 7: "inputs and outputs may be fsspec URLs the workers
can reach"): the same games and outputs as with local paths, in-process, with worker threads and
on a Dask cluster; clear errors for URLs that cannot be read. Skipped without fsspec (it comes
with the dask extra: pip install 'pgntools-chess[dask]')."""
from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

fsspec = pytest.importorskip("fsspec")
pq = pytest.importorskip("pyarrow.parquet")

import pyarrow.dataset as ds  # noqa: E402

from test_parallel import fixtures_input, invoke, tricky_input  # noqa: E402


@pytest.fixture
def games(tmp_path) -> Path:
    path = tmp_path / "in.pgn"
    path.write_bytes(tricky_input(3) + fixtures_input())
    return path


@pytest.fixture
def memory():
    """A fresh directory of fsspec's in-memory filesystem (shared by the threads of this process)."""
    fs = fsspec.filesystem("memory")
    root = f"/pgntools-test-{id(fs):x}"
    yield fs, root
    if fs.exists(root):
        fs.rm(root, recursive=True)


def dataset(fs, path):
    return {table: ds.dataset(f"{path}/{table}", format="parquet", filesystem=fs).to_table().to_pylist()
            for table in ("games", "moves")}


def test_url_input_gives_the_outputs_of_the_path(tmp_path, games):
    """file:// and a gzip file behind a URL: the same PGN, report and summary; only the file
    name in the report is the URL."""
    gz = tmp_path / "in.pgn.gz"
    gz.write_bytes(gzip.compress(games.read_bytes()))
    for source in (games.as_uri(), gz.as_uri()):
        local, remote = tmp_path / "local", tmp_path / "remote"
        for out, src in ((local, games), (remote, source)):
            out.mkdir(exist_ok=True)
            invoke(["validate", "--no-progress", src, "-o", out / "out.pgn", "--report", out / "report.jsonl",
                    "--summary", out / "summary.json"])
        assert (remote / "out.pgn").read_bytes() == (local / "out.pgn").read_bytes()
        report = (remote / "report.jsonl").read_text().replace(json.dumps(source), json.dumps(str(games)))
        assert report == (local / "report.jsonl").read_text() and report
        counts = [json.loads((d / "summary.json").read_text()) for d in (local, remote)]
        assert [{k: v for k, v in c.items() if k not in ("seconds", "bytes")} for c in counts] == \
               [{k: v for k, v in counts[0].items() if k not in ("seconds", "bytes")}] * 2


@pytest.mark.parametrize("jobs", ["1", "2", "4"])
def test_export_to_a_url(tmp_path, games, memory, jobs):
    """export --parquet memory://...: the dataset the local run writes, with the parts written by
    the main thread, a writer thread, or two chunk workers; no temporary part is left."""
    fs, root = memory
    local = tmp_path / "local"
    invoke(["export", "--no-progress", "--jobs", "1", "--parquet", local, games])
    invoke(["export", "--no-progress", "--jobs", jobs, "--chunk-bytes", "3000", "--parquet", f"memory://{root}/ds", games])
    want = {table: ds.dataset(str(local / table), format="parquet").to_table().to_pylist()
            for table in ("games", "moves")}
    assert dataset(fs, f"{root}/ds") == want and want["moves"]
    names = [p.rsplit("/", 1)[-1] for p in fs.find(f"{root}/ds")]
    names.remove("_pgntools_export.json")  # (the manifest: export --resume)
    assert names and all(n.startswith("part-") and n.endswith(".parquet") for n in names), names


def test_url_in_and_out(tmp_path, games, memory):
    """Input, PGN output and dataset all on the in-memory filesystem."""
    fs, root = memory
    fs.pipe(f"{root}/in.pgn", games.read_bytes())
    invoke(["validate", "--no-progress", f"memory://{root}/in.pgn", "-o", f"memory://{root}/out.pgn"])
    invoke(["validate", "--no-progress", games, "-o", tmp_path / "out.pgn"])
    assert fs.cat(f"{root}/out.pgn") == (tmp_path / "out.pgn").read_bytes()
    assert [p for p in fs.find(root) if ".part" in p] == []  # the temporary name was renamed


def test_url_errors_are_one_line(tmp_path, games, memory):
    fs, root = memory
    missing = invoke(["validate", f"memory://{root}/nothing.pgn"], expect=(2,))
    assert "no such file" in missing.output
    unknown = invoke(["validate", "nosuchfs://bucket/games.pgn"], expect=(2,))
    assert "nosuchfs" in unknown.output
    fs.pipe(f"{root}/ds/games/part-00000.parquet", b"x")
    taken = invoke(["export", "--parquet", f"memory://{root}/ds", games], expect=(2,))
    assert "already holds part files" in taken.output


def test_cluster_writes_a_dataset_url(tmp_path, games):
    """--scheduler: the cluster's worker processes write their parts to a file:// URL (a path
    they all reach) and read the input from one; the dataset is the local run's."""
    distributed = pytest.importorskip("distributed")
    local = tmp_path / "local"
    invoke(["export", "--no-progress", "--jobs", "1", "--parquet", local, games])
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=40) as cluster:
        invoke(["export", "--no-progress", "--scheduler", cluster.scheduler_address, "--chunk-bytes", "3000",
                "--parquet", (tmp_path / "remote").as_uri(), games.as_uri()])
    for table in ("games", "moves"):
        want = ds.dataset(str(local / table), format="parquet").to_table()
        got = ds.dataset(str(tmp_path / "remote" / table), format="parquet").to_table()
        if table == "games":  # the input's name is the URL there
            assert set(got.column("source").to_pylist()) == {games.as_uri()}
            want, got = want.drop(["source"]), got.drop(["source"])
        assert got.equals(want) and want.num_rows
    # several chunks, one part (--target-part-size): their fragments' row groups copied together
    assert [p.name for p in (tmp_path / "remote" / "moves").iterdir() if not p.name.startswith("_")] == \
        ["part-00000.parquet"]
