"""Cluster runs read their inputs where they are (issue 36, item 3): against a local S3 server
(moto's, on 127.0.0.1), a Dask cluster's workers open the s3:// inputs themselves (a plain file
in byte ranges, a .zst file whole), the client opens none of them, and the outputs (a dataset on
s3://, a PGN file) are the local run's."""
from __future__ import annotations

import socket

import pytest


moto_server = pytest.importorskip("moto.server")
s3fs = pytest.importorskip("s3fs")
distributed = pytest.importorskip("distributed")
duckdb = pytest.importorskip("duckdb")
pa_dataset = pytest.importorskip("pyarrow.dataset")

from test_parallel import fixtures_input, tricky_input  # noqa: E402
from pgn_helpers import invoke


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def s3(monkeypatch):
    """A moto S3 server on 127.0.0.1 and a bucket; the environment that s3fs (here, in the
    workers and in the client) reads its endpoint and keys from."""
    import fsspec.config

    port = free_port()
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    endpoint = f"http://127.0.0.1:{port}"
    for name, value in (("AWS_ACCESS_KEY_ID", "testing"), ("AWS_SECRET_ACCESS_KEY", "testing"),
                        ("AWS_DEFAULT_REGION", "us-east-1"), ("FSSPEC_S3_ENDPOINT_URL", endpoint)):
        monkeypatch.setenv(name, value)
    monkeypatch.setitem(fsspec.config.conf, "s3", {"endpoint_url": endpoint})
    fs = s3fs.S3FileSystem(endpoint_url=endpoint, key="testing", secret="testing")
    fs.mkdir("games")
    try:
        yield fs
    finally:
        s3fs.S3FileSystem.clear_instance_cache()
        server.stop()


def test_cluster_tasks_read_s3_inputs_themselves(tmp_path, s3, monkeypatch):
    import zstandard

    data = tricky_input(6) + b"\n" + fixtures_input()
    while len(data) < 400_000:
        data += b"\n" + tricky_input(6)
    plain, packed = tmp_path / "2024-01.pgn", tmp_path / "2024-02.pgn.zst"
    plain.write_bytes(data)
    packed.write_bytes(zstandard.ZstdCompressor().compress(data[: len(data) // 2]))
    s3.put(str(plain), "games/2024-01.pgn")
    s3.put(str(packed), "games/2024-02.pgn.zst")
    local = tmp_path / "local"
    invoke("export", "--parquet", local, "--jobs", 2, plain, packed, expect=(0,))
    invoke("validate", "-o", tmp_path / "local.pgn", "--report", tmp_path / "local.jsonl", plain, packed, expect=(1,))

    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=50) as cluster:
        import pgntools.inputs.streams as streams

        def refuse(self, source, *args, **kwargs):
            raise AssertionError(f"the client opened {source}: the workers should read it")

        monkeypatch.setattr(streams.Input, "__init__", refuse)  # (the workers are other processes)
        address = cluster.scheduler_address
        inputs = ["s3://games/2024-01.pgn", "s3://games/2024-02.pgn.zst"]
        invoke("export", "--parquet", "s3://games/out", "--scheduler", address, "--task-size", "100kB", *inputs)
        invoke("validate", "-o", tmp_path / "remote.pgn", "--report", tmp_path / "remote.jsonl", "--scheduler",
               address, "--task-size", "100kB", *inputs, expect=(1,))
    assert (tmp_path / "remote.pgn").read_bytes() == (tmp_path / "local.pgn").read_bytes()
    report = (tmp_path / "local.jsonl").read_text()
    for name in ("2024-01.pgn", "2024-02.pgn.zst"):  # (the report names the inputs as given)
        report = report.replace(str(tmp_path / name), f"s3://games/{name}")
    assert (tmp_path / "remote.jsonl").read_text() == report
    names = sorted(s3.ls("games/out/games"))
    assert [n.rsplit("/", 1)[-1] for n in names] == ["part-00000.parquet"]
    for table, order in (("games", ["game_id"]), ("moves", ["game_id", "ply"])):
        want = pa_dataset.dataset(str(local / table), format="parquet").to_table().drop(["source"] if table == "games"
                                                                                       else [])
        got = pa_dataset.dataset(f"games/out/{table}", filesystem=s3, format="parquet").to_table()
        if table == "games":
            assert set(got.column("source").to_pylist()) == set(inputs)
            got = got.drop(["source"])
        keys = [(k, "ascending") for k in order]
        assert got.sort_by(keys).equals(want.sort_by(keys)) and want.num_rows
