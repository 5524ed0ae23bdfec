"""Dask (issue 7): the commands with --scheduler on a real LocalCluster (worker processes) give
the outputs of the local run; pgntools.dask.read_games/read_moves give the export's rows and types.
Skipped unless the dask extra is installed (pip install 'pgntools-chess[dask]')."""
from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

distributed = pytest.importorskip("distributed")
dd = pytest.importorskip("dask.dataframe")
pq = pytest.importorskip("pyarrow.parquet")

import pyarrow as pa  # noqa: E402
import pyarrow.dataset as ds  # noqa: E402

import pgntools.dask as pgn_dask  # noqa: E402
import pgntools.runner.chunks as chunks_module  # noqa: E402
import pgntools.runner.parallel as parallel  # noqa: E402
from pgntools.options import ReaderOptions  # noqa: E402
from pgntools.sinks.base import SinkSpec  # noqa: E402
from pgntools.tables import schema  # noqa: E402
from test_parallel import (CORPORA, EXPORT, FIXTURES, TO_FEN, VALIDATE, corpus_sample,  # noqa: E402
                           fixtures_input, invoke, outputs, tricky_input)


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=40) as cluster:
        yield cluster.scheduler_address


def games_input(tmp_path: Path) -> Path:
    path = tmp_path / "in.pgn"
    data = tricky_input(4) + fixtures_input()
    if CORPORA.is_dir():
        data += b"\n" + corpus_sample(CORPORA / "lichess" / "lichess-magnus-carlsen.pgn", 300_000)
    while len(data) < 60_000:  # without the corpora: still several 20 kB chunks (test_dataframes)
        data += b"\n" + tricky_input(4)
    # a bullet game beside the fixtures' blitz ones: two speeds to group on, with or without the corpora
    data += b'\n[Event "bullet"]\n[TimeControl "60+0"]\n[Result "*"]\n\n1. e4 e5 2. Nf3 *\n'
    path.write_bytes(data)
    return path


def on_cluster(tmp_path: Path, command, files, address, chunk=2000, input=None):
    """Outputs of the local in-process run and of the same run on the cluster."""
    (tmp_path / "local").mkdir()
    local = outputs(tmp_path / "local", command, files, 1, chunk, input)
    remote_dir = tmp_path / "remote"
    remote_dir.mkdir()
    out = remote_dir / "jobs1"
    out.mkdir()
    args = [command[0], "--scheduler", address, "--chunk-bytes", chunk]
    rest = list(command[1:])
    names = {"-o": "out", "--rejects": "rejects.pgn", "--report": "report.jsonl", "--summary": "summary.json",
             "--parquet": "dataset", "--positions": "positions"}
    for i, a in enumerate(rest):
        if a in names and i + 1 < len(rest) and rest[i + 1] == "@":
            rest[i + 1] = out / names[a]
    result = invoke(args + rest + list(files), input=input)
    return local, result, tmp_path / "local" / "jobs1", out


def text_outputs(folder: Path) -> dict:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and "dataset" not in p.parts and p.name != "summary.json"}


def test_validate_on_the_cluster(tmp_path, cluster):
    path = games_input(tmp_path)
    local, result, a, b = on_cluster(tmp_path, VALIDATE, [path], cluster)
    assert text_outputs(a) == text_outputs(b)
    assert local["summary-line"] == result.stderr.strip().splitlines()[-1].split(" (")[0]


def test_to_fen_and_compressed_input_on_the_cluster(tmp_path, cluster):
    path = games_input(tmp_path)
    gz = tmp_path / "in.pgn.gz"
    gz.write_bytes(gzip.compress(path.read_bytes()))
    _, _, a, b = on_cluster(tmp_path, TO_FEN[1], [gz], cluster)  # bytes sent to the workers
    assert text_outputs(a) == text_outputs(b)


def test_export_on_the_cluster(tmp_path, cluster):
    path = games_input(tmp_path)
    _, _, a, b = on_cluster(tmp_path, EXPORT, [path, FIXTURES / "sample.pgn"], cluster)
    assert text_outputs(a) == text_outputs(b)
    for table, keys in (("games", ["game_id"]), ("moves", ["game_id", "ply"])):
        ta = ds.dataset(str(a / "dataset" / table), format="parquet").to_table()
        tb = ds.dataset(str(b / "dataset" / table), format="parquet").to_table()
        order = [(k, "ascending") for k in keys]
        assert ta.sort_by(order).equals(tb.sort_by(order))
    names = sorted(p.name for p in (b / "dataset" / "games").iterdir())
    # the parts of the local run (--target-part-size: parts are game-id ranges, not chunks)
    assert names == sorted(p.name for p in (a / "dataset" / "games").iterdir()) == ["part-00000.parquet"]


def test_positions_dataset_on_the_cluster(tmp_path, cluster):
    """The positions dataset's sample is drawn by game id and seed: the cluster's rows are the
    local run's."""
    path = games_input(tmp_path)
    command = ["export", "--positions", "@", "--planes", "--sample-plies", "4", "--seed", "2", "--where",
               "ply_count >= 10"]
    _, _, a, b = on_cluster(tmp_path, command, [path, FIXTURES / "sample.pgn"], cluster)
    order = [("game_id", "ascending"), ("ply", "ascending")]
    ta = ds.dataset(str(a / "positions"), format="parquet").to_table().sort_by(order)
    tb = ds.dataset(str(b / "positions"), format="parquet").to_table().sort_by(order)
    assert ta.num_rows > (100 if CORPORA.is_dir() else 10) and ta.equals(tb)  # (4 plies of each game)
    names = sorted(p.name for p in (b / "positions").iterdir())
    assert len(names) > 1 and names == [f"part-{i:05d}.parquet" for i in range(len(names))]


def test_book_on_the_cluster(tmp_path, cluster):
    """The workers' (position, move) groups merged by the driver: the local run's book, byte for byte."""
    path = games_input(tmp_path)
    _, _, a, b = on_cluster(tmp_path, ["book", "-o", "@", "--max-ply", "20"], [path, FIXTURES / "sample.pgn"], cluster)
    assert len((a / "out").read_bytes()) > 160 and text_outputs(a) == text_outputs(b)


def test_unreachable_scheduler_is_one_line_exit_2(tmp_path):
    import dask

    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        result = invoke(["validate", "--scheduler", "tcp://127.0.0.1:9", str(FIXTURES / "sample.pgn")], expect=(2,))
    assert result.stderr.strip().count("\n") == 0 and "Dask scheduler" in result.stderr


def test_workers_that_cannot_read_the_path_get_the_bytes(tmp_path, cluster):
    path = games_input(tmp_path)
    chunks = list(chunks_module.iter_chunks([str(path)], 3000))
    job = parallel.ChunkWork("validate", ReaderOptions(pgn=True), [SinkSpec("pgn", parallel_pgn_sink())], "t-")
    executor = pgn_dask.ClusterExecutor(cluster)
    try:
        moved = chunks[1]._replace(path=str(tmp_path / "elsewhere.pgn"))
        assert "unreadable" in executor.result(executor.submit(job, moved))
        direct = parallel.run_chunk(job, chunks[1])
        result = parallel.ParallelFeed._result(executor, job, chunks[1], executor.submit(job, moved))
        assert not executor.paths_readable  # from now on the bytes go with every chunk
        assert result["outputs"] == direct["outputs"] and result["counts"] == direct["counts"]
    finally:
        executor.close()


def parallel_pgn_sink():
    from pgntools.sinks.pgn import PgnSink

    return PgnSink


def test_dataframes(tmp_path, cluster):
    path = games_input(tmp_path)
    gz = tmp_path / "more.pgn.gz"
    gz.write_bytes(gzip.compress(tricky_input(2)))
    out = tmp_path / "export"
    invoke(["export", "--jobs", "1", "--parquet", out, path, gz])
    invoke(["export", "--jobs", "1", "--with-keys", "--parquet", tmp_path / "keyed", path, gz])
    games_ref = ds.dataset(str(out / "games"), format="parquet").to_table()
    moves_ref = ds.dataset(str(out / "moves"), format="parquet").to_table()
    with distributed.Client(cluster):
        games = pgn_dask.read_games([path, gz], chunk_bytes=20_000)
        moves = pgn_dask.read_moves([path, gz], chunk_bytes=20_000)
        keyed = pgn_dask.read_moves([path, gz], chunk_bytes=20_000, with_keys=True)
        assert games.npartitions > 2
        g = games.compute()
        m = moves.compute()
        k = keyed.compute()
    assert list(g.columns) == schema.GAMES.names and list(m.columns) == schema.MOVES.names
    assert dict(g.dtypes) == dict(games.dtypes) and dict(m.dtypes) == dict(moves.dtypes)
    assert len(g) == games_ref.num_rows and len(m) == moves_ref.num_rows
    assert g["game_id"].tolist() == games_ref.column("game_id").to_pylist()
    back = pa.Table.from_pandas(g, preserve_index=False)
    assert back.column("status").to_pylist() == games_ref.column("status").to_pylist()
    assert back.column("final_fen").to_pylist() == games_ref.column("final_fen").to_pylist()
    assert pa.Table.from_pandas(m, preserve_index=False).column("san").to_pylist() == \
        moves_ref.column("san").to_pylist()
    # --with-keys' column: the moves table's, keyed as export's
    assert list(k.columns) == schema.moves_schema(with_key=True).names and str(k.dtypes["key"]) == "uint64[pyarrow]"
    keyed_ref = ds.dataset(str(tmp_path / "keyed" / "moves"), format="parquet").to_table()
    assert pa.Table.from_pandas(k, preserve_index=False).column("key").to_pylist() == \
        keyed_ref.column("key").to_pylist()


def test_groups_on_dictionary_columns_across_workers(tmp_path, cluster):
    """speed, status and the piece columns are dictionaries: Dask's shuffle between worker
    processes groups them (item 7 of issue 36), with the export's counts."""
    path = games_input(tmp_path)
    out = tmp_path / "export"
    invoke(["export", "--jobs", "1", "--parquet", out, path])
    reference = ds.dataset(str(out / "games"), format="parquet").to_table().to_pandas()
    expected = reference.groupby("speed", observed=True).size().to_dict()
    pieces = ds.dataset(str(out / "moves"), format="parquet").to_table().to_pandas()
    with distributed.Client(cluster):
        games = pgn_dask.read_games(path, chunk_bytes=20_000)
        moves = pgn_dask.read_moves(path, chunk_bytes=20_000)
        assert games.npartitions > 2
        tree = games.groupby("speed", observed=True).size().compute()
        shuffled = games.groupby("speed", observed=True).size(split_out=2).compute()
        by_status = games.shuffle("status").groupby(["status", "speed"], observed=True).game_id.count().compute()
        by_piece = moves.groupby("piece", observed=True).size(split_out=2).compute()
    assert {str(k): v for k, v in tree.items()} == {str(k): v for k, v in expected.items()} and len(expected) >= 2
    assert {str(k): v for k, v in shuffled.items()} == {str(k): v for k, v in expected.items()}
    assert {tuple(map(str, k)): v for k, v in by_status.items()} == \
        {tuple(map(str, k)): v for k, v in reference.groupby(["status", "speed"], observed=True).game_id.count().items()}
    assert by_status.sum() > 0
    assert {str(k): v for k, v in by_piece.items()} == \
        {str(k): v for k, v in pieces.groupby("piece", observed=True).size().items()}


def test_dataframe_of_no_games(tmp_path):
    path = tmp_path / "empty.pgn"
    path.write_bytes(b"")
    games = pgn_dask.read_games(path)
    assert len(games.compute(scheduler="sync")) == 0
    assert list(games.columns) == schema.GAMES.names


WHERE = ["--where", "event != 'bad' and ply_count >= 4"]  # a tag conjunct (decided in C) and a replay one
# a tag program with or/not/in/like/tags['X'] (decided in C, three-valued) and a replay conjunct
WHERE_PROGRAM = ["--where", "(event like '%it%' or white in ('W', 'B') or tags['Annotator'] is not null or "
                            "not (white_elo between 1000 and 2900)) and ply_count >= 4"]


@pytest.mark.parametrize("where", [WHERE, WHERE_PROGRAM], ids=["conjuncts", "program"])
def test_where_selects_the_same_games_on_the_cluster(tmp_path, cluster, where):
    """--where on the cluster: validate's outputs and export's rows are those of the local run,
    and the selection kept some games and dropped others."""
    path = games_input(tmp_path)
    for name, command in (("validate", VALIDATE), ("export", EXPORT)):
        folder = tmp_path / name
        folder.mkdir()
        local, result, a, b = on_cluster(folder, [*command, *where], [path], cluster)
        assert text_outputs(a) == text_outputs(b)
        assert local["summary-line"] == result.stderr.strip().splitlines()[-1].split(" (")[0]
        kept, read = local["summary"]["games"], local["summary"]["read"]
        assert 0 < kept < read
    ta = ds.dataset(str(a / "dataset" / "games"), format="parquet").to_table().sort_by("game_id")
    tb = ds.dataset(str(b / "dataset" / "games"), format="parquet").to_table().sort_by("game_id")
    assert ta.equals(tb) and ta.num_rows == kept
    assert min(ta.column("ply_count").to_pylist()) >= 4
    assert "bad" not in ta.column("event").to_pylist() or where is WHERE_PROGRAM
    order = [("game_id", "ascending"), ("ply", "ascending")]
    ma = ds.dataset(str(a / "dataset" / "moves"), format="parquet").to_table().sort_by(order)
    mb = ds.dataset(str(b / "dataset" / "moves"), format="parquet").to_table().sort_by(order)
    assert ma.equals(mb) and set(ma.column("game_id").to_pylist()) <= set(ta.column("game_id").to_pylist())


def duplicated_input(tmp_path: Path) -> Path:
    """games_input twice, and its head a third time: copies in other partitions."""
    data = games_input(tmp_path).read_bytes()
    path = tmp_path / "dup.pgn"
    path.write_bytes(data + b"\n" + data + b"\n" + data[:20_000].rsplit(b"\n[Event ", 1)[0] + b"\n")
    return path


def remote_summary(folder: Path) -> dict:
    import json

    summary = json.loads((folder / "summary.json").read_text())
    del summary["seconds"]
    return summary


@pytest.mark.parametrize("mode", ["moves", "position"])
def test_dedup_and_limit_on_the_cluster(tmp_path, cluster, mode):
    """--dedup (issue 18) on the cluster: a first pass sends each partition's keys to the client,
    which decides in input order; the second writes. The outputs, the report's duplicates and the
    summary are the local run's, with and without --where and --limit."""
    path = duplicated_input(tmp_path)
    for name, extra in (("dedup", []), ("where-limit", [*WHERE, "--limit", "300"])):
        folder = tmp_path / name
        folder.mkdir()
        local, result, a, b = on_cluster(folder, [*VALIDATE, "--dedup", mode, *extra], [path], cluster)
        assert text_outputs(a) == text_outputs(b)
        assert local["summary"] == remote_summary(b)
        assert local["summary-line"] == result.stderr.strip().splitlines()[-1].split(" (")[0]
        assert b'"duplicate_of"' in (b / "report.jsonl").read_bytes()
        assert local["summary"]["games"] < local["summary"]["read"]


def test_export_dedup_on_the_cluster(tmp_path, cluster):
    path = duplicated_input(tmp_path)
    _, _, a, b = on_cluster(tmp_path, [*EXPORT, "--dedup", "moves"], [path], cluster)
    assert text_outputs(a) == text_outputs(b)
    ta = ds.dataset(str(a / "dataset" / "games"), format="parquet").to_table().sort_by("game_id")
    tb = ds.dataset(str(b / "dataset" / "games"), format="parquet").to_table().sort_by("game_id")
    assert ta.equals(tb)
    hashes = [h for h in tb.column("movetext_hash").to_pylist() if h is not None]
    assert hashes and len(hashes) == len(set(hashes))  # one row per distinct game


def stats_document(path: Path) -> dict:
    """A stats --json document without the fields that time the run."""
    import json

    doc = json.loads(path.read_text())
    doc.pop("run")
    for source in doc["sources"]:
        source.pop("seconds"), source.pop("games_per_second")
    return doc


def test_stats_on_the_cluster(tmp_path, cluster):
    """pgntools stats through Dask: the workers' aggregates (pickled C counts) merged in input
    order give the JSON of the in-process run, and the HTML report is written."""
    path = games_input(tmp_path)
    invoke(["stats", "--jobs", 1, "--json", tmp_path / "local.json", "-q", path])
    invoke(["stats", "--scheduler", cluster, "--chunk-bytes", 2000, "--json", tmp_path / "remote.json",
            "--html", tmp_path / "remote.html", "-q", path])
    local, remote = stats_document(tmp_path / "local.json"), stats_document(tmp_path / "remote.json")
    assert local == remote
    assert local["games"] > 20 and local["validity"]["invalid"] > 0 and local["first_moves"]["top"]
    assert "<svg" in (tmp_path / "remote.html").read_text()


def test_a_condition_the_reader_decides_selects_the_same_games_on_the_cluster(tmp_path, cluster):
    """A condition on tags and speed alone: the workers' readers skip the other games (counted,
    not recorded); the outputs and counts are the local run's."""
    path = games_input(tmp_path)
    where = ["--where", "speed in ('bullet', 'blitz') and white_elo >= 2000"]
    local, result, a, b = on_cluster(tmp_path, [*VALIDATE, *where], [path], cluster)
    assert text_outputs(a) == text_outputs(b)
    assert local["summary-line"] == result.stderr.strip().splitlines()[-1].split(" (")[0]
    if CORPORA.is_dir():
        assert 0 < local["summary"]["games"] < local["summary"]["read"]


@pytest.mark.parametrize("compressed", [False, True])
def test_a_worker_killed_mid_run_changes_nothing(tmp_path, compressed):
    """One of two worker processes killed (SIGKILL) while a run is under way: its tasks run
    again on the other (or on the worker its nanny starts), the outputs are those of the local
    run, and the exit status too. A .zst input's chunks are bytes the client sends: lost with the
    worker, sent again."""
    import os
    import signal
    import subprocess
    import sys
    import time

    import zstandard

    data = fixtures_input() + b"\n" + tricky_input(4)
    if CORPORA.is_dir():
        data += b"\n" + (CORPORA / "bench" / "master-games-30k.pgn").read_bytes()
    path = tmp_path / "in.pgn"
    while len(data) < 15_000_000:
        data += b"\n" + data
    path.write_bytes(data)
    if compressed:
        path = tmp_path / "in.pgn.zst"
        path.write_bytes(zstandard.ZstdCompressor().compress(data))
    local = tmp_path / "local"
    local.mkdir()
    expected = invoke(["validate", "--report", local / "r.jsonl", "-o", local / "o.pgn", path])
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=50) as cluster, distributed.Client(cluster) as client:
        pids = list(client.run(os.getpid).values())
        remote = tmp_path / "remote"
        remote.mkdir()
        run = subprocess.Popen([sys.executable, "-m", "pgntools", "validate", "--scheduler", cluster.scheduler_address,
                                "--chunk-bytes", "200000", "--report", remote / "r.jsonl", "-o", remote / "o.pgn",
                                "--no-progress", path], stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 120
        while not any(client.processing().values()) and run.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.3)  # (some tasks done, more under way)
        assert run.poll() is None, "the run ended before a worker could be killed: make the input larger"
        os.kill(pids[0], signal.SIGKILL)
        _, stderr = run.communicate(timeout=300)
    assert run.returncode == expected.exit_code, stderr
    assert (remote / "o.pgn").read_bytes() == (local / "o.pgn").read_bytes()
    assert (remote / "r.jsonl").read_bytes() == (local / "r.jsonl").read_bytes()
    assert stderr.strip().splitlines()[-1].split(" (")[0] == expected.stderr.strip().splitlines()[-1].split(" (")[0]


def test_ranges_check_their_own_seams_without_a_count_pass(tmp_path, cluster):
    """validate without an output that names games: no count pass, each byte range of the plain
    input checks its end seam itself; ranges of 200 bytes end inside comments that hold a blank
    line and a tag-like line (a likely seam that is no game start: the premise is checked), and
    those are run again joined with the next range: the outputs are the local run's."""
    from pgntools.runner.tasks import _seam_holds, open_task, plan
    from test_parallel import UNNUMBERED

    path = tmp_path / "in.pgn"
    path.write_bytes(tricky_input(12) + fixtures_input())
    failing = 0
    for task in plan([str(path)], 200)[:-1]:
        opened = open_task(task)
        failing += bool(opened.size) and not _seam_holds(task, opened.offset + opened.size, 1 << 26)
        for f in opened.closing:
            f.close()
    assert failing >= 2
    (tmp_path / "local").mkdir()
    local = outputs(tmp_path / "local", UNNUMBERED, [path], 1, 2000)
    remote = tmp_path / "remote"
    remote.mkdir()
    result = invoke(["validate", "-o", remote / "out", "--rejects", remote / "rejects.pgn", "--summary",
                     remote / "summary.json", "--scheduler", cluster, "--task-size", "200", path])
    assert text_outputs(tmp_path / "local" / "jobs1") == text_outputs(remote)
    assert local["summary-line"] == result.stderr.strip().splitlines()[-1].split(" (")[0]
    summary = json.loads((remote / "summary.json").read_text())
    del summary["seconds"]
    assert summary == local["summary"] and summary["games"] > 200


def test_progress_has_a_line_per_cluster_worker(tmp_path, cluster):
    """--progress on a cluster run of tasks: a line per worker (its address, the tasks it ran,
    the PGN it read, its MB/s), whose tasks and megabytes add up to the run's."""
    import re

    path = tmp_path / "in.pgn"
    path.write_bytes((fixtures_input() + b"\n") * 40)
    size = path.stat().st_size
    result = invoke(["validate", "--progress", "--scheduler", cluster, "--task-size", "50kB", path])
    text = result.stderr.replace("\r", "\n")
    last = {}
    for worker, tasks, mb, rate in re.findall(r"worker (tcp://[\d.:]+): (\d+) tasks, PGN ([\d.,]+) MB, ([\d.,]+) MB/s",
                                              text):
        last[worker] = (int(tasks), float(mb.replace(",", "")), float(rate.replace(",", "")))
    assert last, text
    with distributed.Client(cluster, set_as_default=False) as client:
        assert set(last) <= set(client.nthreads())
    assert sum(t for t, _, _ in last.values()) == -(-size // 50_000)
    assert abs(sum(mb for _, mb, _ in last.values()) - size / 1e6) <= 0.1 * len(last)
    assert all(rate > 0 for _, _, rate in last.values())
