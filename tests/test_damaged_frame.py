"""A damaged frame in the middle of a multi-frame .zst (issue 36, "Bad input gets"): the games of
the frames before it are all read and counted, the run exits 2 naming the frame's compressed
byte, for any --jobs and on a cluster (whose task reads the file itself). Progress shows the PGN
read in decompressed MB/s."""
from __future__ import annotations

import re

import pytest


zstandard = pytest.importorskip("zstandard")
pq = pytest.importorskip("pyarrow.parquet")

from test_datasets import games  # noqa: E402
from pgn_helpers import invoke as invoke_cli  # noqa: E402


def invoke(*args, expect=(2,)):  # (an input error: exit 2, unless said otherwise)
    return invoke_cli(*args, expect=expect)


@pytest.fixture(scope="module")
def damaged(tmp_path_factory):
    """Four zstd frames of 210 games each, the third one's header destroyed: (path, games before
    it, its compressed offset)."""
    frames = [zstandard.ZstdCompressor(write_checksum=True).compress(b"".join(games(m, 70) for m in range(q, q + 3)))
              for q in (1, 4, 7, 10)]
    broken = bytearray(frames[2])
    broken[:8] = bytes(8)  # (no frame magic: the decompressor cannot start it)
    path = tmp_path_factory.mktemp("zst") / "month.pgn.zst"
    path.write_bytes(frames[0] + frames[1] + bytes(broken) + frames[3])
    return path, 2 * 210, len(frames[0]) + len(frames[1])


def summary_games(output: str) -> int:
    return int(re.search(r": ([\d,]+) games", output).group(1).replace(",", ""))


@pytest.mark.parametrize("jobs", [1, 2, 4])
def test_the_games_before_a_damaged_frame_are_read_and_counted(tmp_path, damaged, jobs):
    path, before, at = damaged
    result = invoke("validate", "--jobs", jobs, "--chunk-bytes", 20_000, path)
    assert summary_games(result.output) == before
    error = result.output.strip().splitlines()[-1]
    assert f"in the frame at compressed byte {at}" in error and "the games before it were read" in error
    out = tmp_path / "ds"
    exported = invoke("export", "--parquet", out, "--jobs", jobs, "--chunk-bytes", 20_000, path)
    assert summary_games(exported.output) == before
    ids = pq.read_table(out / "games").column("game_id").to_pylist()
    assert sorted(ids) == list(range(before))


def test_on_a_cluster_the_task_reports_the_frame(damaged):
    distributed = pytest.importorskip("distributed")
    path, before, at = damaged
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=50) as cluster:
        result = invoke("validate", "--scheduler", cluster.scheduler_address, path)
    assert summary_games(result.output) == before
    assert f"in the frame at compressed byte {at}" in result.output


def test_progress_counts_the_pgn_read_in_decompressed_mb_per_s(damaged):
    path, _, _ = damaged
    result = invoke("validate", "--progress", path)
    assert re.search(r"PGN [\d,.]+ MB/s", result.stderr if hasattr(result, "stderr") else result.output)
