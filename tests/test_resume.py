"""export --resume (issue 36, item 4): parts are committed as they complete, with a manifest
beside the dataset; an export whose process is killed (SIGKILL) mid-run continues from its
committed parts, and the result is the uninterrupted export's (tables compared sorted by game_uid)."""
from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pgntools.sinks.export_manifest import MANIFEST
from pgntools.sinks.parquet import BYTES_PER_GAME

duckdb = pytest.importorskip("duckdb")

from test_datasets import games  # noqa: E402
from pgn_helpers import invoke

REPO = Path(__file__).resolve().parents[1]
PER_PART = 1000


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    """Two inputs (~10 MB and ~1 MB of short games: 33,600 and 3,360), plain or zstd."""
    base = tmp_path_factory.mktemp("months")
    year = b"".join(games(month, 70) for month in range(1, 13))
    made = {}
    for kind in ("plain", "zst"):
        paths = []
        for name, times in (("2024", 40), ("2025", 4)):
            data = year * times
            if kind == "zst":
                import zstandard

                path = base / f"{name}.pgn.zst"
                path.write_bytes(zstandard.ZstdCompressor(level=1).compress(data))
            else:
                path = base / f"{name}.pgn"
                path.write_bytes(data)
            paths.append(path)
        made[kind] = paths
    return made


def export_args(out: Path, jobs: int, paths, *options) -> list:
    return ["export", "--parquet", str(out), "--target-part-size", str(PER_PART * BYTES_PER_GAME),
            "--jobs", str(jobs), *options, *map(str, paths)]


def tables(out: Path) -> dict:
    con = duckdb.connect()
    return {name: con.sql(f"SELECT * FROM read_parquet('{out}/{name}/**/*.parquet') ORDER BY game_uid"
                          + (", ply" if name == "moves" else "")).fetchall() for name in ("games", "moves")}


def files(out: Path) -> list:
    return sorted(str(p.relative_to(out)) for p in out.rglob("*.parquet"))


def kill_after_commits(args: list, out: Path, parts: int) -> dict:
    """Starts the export in a child process and kills it (SIGKILL) once ``parts`` parts are committed."""
    child = subprocess.Popen([sys.executable, "-m", "pgntools", *args], cwd=REPO, stderr=subprocess.PIPE)
    manifest = out / MANIFEST
    deadline = time.monotonic() + 120
    state = None
    while time.monotonic() < deadline and child.poll() is None:
        try:
            state = json.loads(manifest.read_text())
        except (FileNotFoundError, ValueError):
            state = None
        if state and state["committed_parts"] >= parts:
            break
        time.sleep(0.01)
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=60)
    child.stderr.close()
    assert child.returncode == -signal.SIGKILL, "the export ended before it was killed"
    return json.loads(manifest.read_text())


@pytest.mark.parametrize("kind, jobs, resume_jobs, layout", [
    ("plain", 1, 1, ()), ("zst", 1, 4, ()), ("plain", 4, 2, ()), ("zst", 4, 1, ()),
    pytest.param("plain", 4, 1, ("--partition-by", "month,speed"), marks=pytest.mark.slow)])  # (4 min when loaded)
def test_a_killed_export_resumes_to_the_uninterrupted_result(tmp_path, inputs, kind, jobs, resume_jobs, layout):
    paths = inputs[kind]
    whole = tmp_path / "whole"
    invoke(*export_args(whole, 2, paths, *layout))
    out = tmp_path / "out"
    state = kill_after_commits(export_args(out, jobs, paths, *layout), out, 3)
    assert not state["complete"] and state["committed_parts"] >= 3
    committed = {p: (out / p).read_bytes() for t in ("games", "moves") for p in state["files"][t]}
    assert len(committed) >= 2 * state["committed_parts"]
    # under final names: the committed parts, and (killed while renaming) some of those the
    # manifest lists as being committed, which --resume removes
    left = set(files(out))
    assert set(committed) <= left
    assert left - set(committed) <= set(state["committing"]), "a part under its final name the manifest does not name"
    result = invoke(*export_args(out, resume_jobs, paths, *layout)[:1], "--resume",
                    *export_args(out, resume_jobs, paths, *layout)[1:])
    assert "export:" in result.output
    # the committed parts were left as they were; the rest was written; nothing temporary is left
    assert all((out / p).read_bytes() == data for p, data in committed.items())
    assert files(out) == files(whole)
    assert not [p for p in out.rglob(".*")], "temporary files left"
    assert tables(out) == tables(whole)
    assert json.loads((out / MANIFEST).read_text())["complete"]
    # resuming a complete export does nothing
    again = invoke(*export_args(out, 1, paths, *layout)[:1], "--resume", *export_args(out, 1, paths, *layout)[1:])
    assert "complete already" in again.output


def test_resume_refuses_other_inputs_or_options(tmp_path, inputs):
    paths = inputs["plain"]
    out = tmp_path / "out"
    kill_after_commits(export_args(out, 1, paths), out, 1)
    other = invoke("export", "--resume", "--parquet", out, "--target-part-size", PER_PART * BYTES_PER_GAME,
                   paths[0], expect=(2,))
    assert "other inputs" in other.output
    options = invoke("export", "--resume", "--parquet", out, "--target-part-size", PER_PART * BYTES_PER_GAME,
                     "--with-fen", *paths, expect=(2,))
    assert "other options (with_fen)" in options.output


def test_resume_without_a_manifest_starts_over(tmp_path, inputs):
    out = tmp_path / "out"
    small = inputs["plain"][1:]
    invoke("export", "--resume", "--parquet", out, "--target-part-size", PER_PART * BYTES_PER_GAME, *small)
    assert tables(out) == tables(_whole(tmp_path, small))


def _whole(tmp_path, paths):
    whole = tmp_path / "whole"
    invoke("export", "--parquet", whole, "--target-part-size", PER_PART * BYTES_PER_GAME, *paths)
    return whole


def test_a_cluster_without_workers_exits_74_and_resume_finishes(tmp_path, inputs):
    """The only worker of a Dask cluster killed (SIGKILL; no nanny to start it again): the export
    stops with exit 74, naming the parts it committed (they stay, with the manifest); --resume
    (here on local threads) finishes it with the uninterrupted export's result."""
    distributed = pytest.importorskip("distributed")
    paths = inputs["plain"]
    whole = tmp_path / "whole"
    invoke(*export_args(whole, 2, paths))
    out = tmp_path / "out"
    with distributed.LocalCluster(n_workers=0, processes=True, dashboard_address=None, silence_logs=50) as cluster, \
            distributed.Client(cluster) as client:
        worker = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", cluster.scheduler_address,
                                   "--no-nanny", "--nthreads", "1", "--no-dashboard"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            client.wait_for_workers(1, timeout=60)
            args = [*export_args(out, 1, paths), "--scheduler", cluster.scheduler_address, "--connect-timeout", "2",
                    "--chunk-bytes", "300000"]
            run = subprocess.Popen([sys.executable, "-m", "pgntools", *args], cwd=REPO, stderr=subprocess.PIPE,
                                   text=True)
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline and run.poll() is None:
                try:
                    if json.loads((out / MANIFEST).read_text())["committed_parts"] >= 2:
                        break
                except (FileNotFoundError, ValueError):
                    pass
                time.sleep(0.01)
            assert run.poll() is None, "the export ended before its worker could be killed"
            worker.send_signal(signal.SIGKILL)
            worker.wait(timeout=30)
            _, stderr = run.communicate(timeout=120)
        finally:
            if worker.poll() is None:
                worker.kill()
    assert run.returncode == 74, stderr
    state = json.loads((out / MANIFEST).read_text())
    assert not state["complete"] and state["committed_parts"] >= 2
    (line,) = [line for line in stderr.splitlines() if line.startswith("pgntools:")]
    assert "no worker left" in line and "--resume" in line and state["files"]["games"][0] in line, line
    assert all((out / p).is_file() for t in ("games", "moves") for p in state["files"][t])
    assert not [p for p in out.rglob(".*")], "temporary files left"
    invoke(*export_args(out, 2, paths)[:1], "--resume", *export_args(out, 2, paths)[1:])
    assert files(out) == files(whole)
    assert tables(out) == tables(whole)


def test_resume_removes_the_parts_a_killed_run_was_renaming(tmp_path, inputs):
    """Killed between renaming parts and counting them committed: the manifest lists them under
    ``committing``; --resume removes them before writing them again."""
    paths = inputs["plain"]
    out = tmp_path / "out"
    state = kill_after_commits(export_args(out, 1, paths), out, 1)
    stray = "games/part-09999.parquet"  # (a name no part of this run takes: its removal is the resume's)
    (out / stray).write_bytes((out / state["files"]["games"][0]).read_bytes())
    state["committing"] = [stray]
    (out / MANIFEST).write_text(json.dumps(state))
    invoke(*export_args(out, 1, paths)[:1], "--resume", *export_args(out, 1, paths)[1:])
    assert not (out / stray).exists()
    assert tables(out) == tables(_whole(tmp_path, paths))


@pytest.mark.parametrize("kind", ["plain", "zst"])
def test_a_cluster_export_killed_at_the_client_resumes_on_the_cluster(tmp_path, inputs, kind):
    """An export on a Dask cluster (two worker processes) whose client is killed (SIGKILL) once
    parts are committed; export --resume --scheduler on the same cluster continues from the
    manifest: the committed parts untouched, the result the uninterrupted export's."""
    distributed = pytest.importorskip("distributed")
    paths = inputs[kind]
    whole = tmp_path / "whole"
    invoke(*export_args(whole, 2, paths))
    out = tmp_path / "out"
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=50) as cluster:
        cluster_args = ["--scheduler", cluster.scheduler_address, "--task-size", "2MB"]
        state = kill_after_commits([*export_args(out, 1, paths), *cluster_args], out, 2)
        assert not state["complete"] and state["committed_parts"] >= 2
        committed = {p: (out / p).read_bytes() for t in ("games", "moves") for p in state["files"][t]}
        result = invoke(*export_args(out, 1, paths)[:1], "--resume", *export_args(out, 1, paths)[1:], *cluster_args)
    assert "export:" in result.output
    assert all((out / p).read_bytes() == data for p, data in committed.items())
    assert files(out) == files(whole)
    assert not [p for p in out.rglob(".*")], "temporary files left"
    assert tables(out) == tables(whole)
    assert json.loads((out / MANIFEST).read_text())["complete"]
