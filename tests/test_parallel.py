"""`--jobs N` (issue 7): the same outputs whatever N, game-aligned chunks, interrupts.

Every comparison runs the command with --jobs 1 (in this process, no pool) and with --jobs 2 and
3, with small chunks (the hidden --chunk-bytes) so that inputs of a few KB already have many
seams. Text outputs must be byte-identical; Parquet tables equal once sorted by their keys.
"""
from __future__ import annotations

import bz2
import gzip
import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import List, Optional

import pytest
from click.testing import CliRunner

import pgntools.runner.chunks as chunks_module
import pgntools.runner.parallel as parallel
from pgntools import _core
from pgntools.cli import cli
from pgntools.errors import InputError
from pgntools.reader import read_games
from pgntools.options import ReaderOptions
from pgntools.sinks.base import SinkSpec
from pgntools.sinks.pgn import PgnSink
from pgntools.sinks.report import ReportSink

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "fixtures"
from corpora_dir import CORPORA_DIR as CORPORA  # noqa: E402
CORPORA_REASON = f"shared corpora not found at {CORPORA} (they live beside the repo, not in it)"

pq = pytest.importorskip("pyarrow.parquet")
import pyarrow as pa  # noqa: E402

# ---------------------------------------------------------------- inputs written for these tests

GAME = """[Event "Seam test"]
[Site "here"]
[Date "2024.01.01"]
[Round "{n}"]
[White "A"]
[Black "B"]
[Result "1-0"]

1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0
"""

# Each piece is a separate situation at a seam; they are repeated so that chunk cuts land
# everywhere between and inside them.
TRICKY = [
    # a comment holding a line that looks like a tag (the scanner ends the comment there)
    '[Event "c1"]\n[Result "*"]\n\n1. e4 { a comment\n[Event "x"]\nstill the comment? } e5 *\n',
    # a comment holding a tag-like line after a blank line
    '[Event "c2"]\n[Result "1/2-1/2"]\n\n1. d4 {\n\n[Event "inside"]\n\n} d5 1/2-1/2\n',
    # a blank line and a '[' line inside a comment, not a tag: a likely seam that is not one
    '[Event "c3"]\n[Result "*"]\n\n1. e4 {\n\n[not a tag} e5 {\n\n[Event  "x"\n} *\n',
    # a tag-only game right before another game
    '[Event "tags only"]\n[Result "*"]\n',
    # prose between games
    'Some prose between the games, not a game.\n',
    # an illegal move (invalid game: rejects, report)
    '[Event "bad"]\n[Result "1-0"]\n\n1. e4 e5 2. Ke3 1-0\n',
    # a result the position contradicts (fixed)
    '[Event "fixed"]\n[Result "*"]\n\n1. f3 e5 2. g4 Qh4# *\n',
    # no blank line between the games
    '[Event "tight"]\n[Result "0-1"]\n1. f3 e5 2. g4 Qh4# 0-1\n[Event "next"]\n[Result "*"]\n1. e4 *\n',
    # an escape line and a line comment
    '% escape line at a line start\n[Event "esc"]\n[Result "*"]\n\n1. e4 ; rest of line\ne5 *\n',
    # variations and NAGs, clocks
    '[Event "var"]\n[Result "*"]\n\n1. e4 $1 { [%clk 0:03:00] } (1. d4 d5) e5 2. Nf3 *\n',
    # a tagless game
    '1. e4 e5 2. Nf3 Nc6 *\n',
    # an unterminated variation and comment before the next game
    '[Event "open"]\n[Result "*"]\n\n1. e4 (1. d4 { open\n',
    # Latin-1 bytes in a tag
    None,
]


def tricky_input(copies: int = 6, line_end: str = "\n") -> bytes:
    parts = []
    for i in range(copies):
        for piece in TRICKY:
            if piece is None:
                parts.append(b'[Event "caf\xe9"]\n[Result "*"]\n\n1. e4 *\n\n')
            else:
                parts.append(piece.encode() + b"\n")
        parts.append(GAME.format(n=i).encode() + b"\n")
    data = b"".join(parts)
    return data.replace(b"\n", line_end.encode()) if line_end != "\n" else data


def fixtures_input() -> bytes:
    return b"\n".join(p.read_bytes() for p in sorted(FIXTURES.glob("*.pgn")))


def corpus_sample(path: Path, limit: int = 400_000) -> bytes:
    """About ``limit`` bytes of whole games from the start of a corpus file."""
    data = path.read_bytes()[: limit * 2]
    reader = _core.BatchReader(io.BytesIO(data), replay=False)
    end = 0
    for raw in reader:
        offsets = memoryview(raw["offset"]).cast("q")
        lengths = memoryview(raw["length"]).cast("q")
        for o, n in zip(offsets, lengths):
            if o + n > limit:
                return data[:end]
            end = o + n
    return data[:end]


# ---------------------------------------------------------------- running commands

def invoke(args: List[str], input: Optional[bytes] = None, expect=(0, 1)):
    result = CliRunner().invoke(cli, [str(a) for a in args], input=input)
    assert result.exit_code in expect, (result.exit_code, result.output, result.exception)
    return result


def summary_line(result) -> str:
    line = [x for x in result.stderr.splitlines() if x.endswith("games/s)")][-1]
    return line.split(" (")[0]  # without the timing


def outputs(tmp: Path, command: List[str], files: List, jobs: int, chunk: int = 600,
            input: Optional[bytes] = None) -> dict:
    """Runs one command; returns {name: bytes} of its file outputs, the summary counts and the
    summary line."""
    out = tmp / f"jobs{jobs}"
    out.mkdir()
    names = {"-o": "out", "--rejects": "rejects.pgn", "--report": "report.jsonl", "--summary": "summary.json",
             "--parquet": "dataset", "--positions": "positions"}
    args = [command[0], "--jobs", jobs, "--chunk-bytes", chunk]
    rest = list(command[1:])
    for i, a in enumerate(rest):
        if a in names and (i + 1 >= len(rest) or rest[i + 1] == "@"):
            rest[i + 1] = out / names[a]
    result = invoke(args + rest + list(files), input=input)
    got = {"summary-line": summary_line(result)}
    for path in sorted(out.rglob("*")):
        if path.is_file():
            got[path.relative_to(out).as_posix()] = path.read_bytes()
    if (out / "summary.json").exists():
        summary = json.loads(got.pop("summary.json"))
        del summary["seconds"]
        got["summary"] = summary
    return got


def assert_same_outputs(tmp: Path, command: List[str], files: List, jobs=(2, 3), chunk: int = 600,
                        input: Optional[bytes] = None):
    """The outputs of --jobs 1 and each of ``jobs`` are the same. export counts two threads a
    worker (reader and writer): its --jobs 2 is one worker with a writer thread, so it runs with
    twice the numbers (jobs 2, 3: --jobs 4 and 6, and 2 for the writer thread alone)."""
    tmp = tmp / f"run{len(list(tmp.glob('run*')))}"  # a fresh folder for each comparison
    tmp.mkdir()
    base = outputs(tmp, command, files, 1, chunk, input)
    if command[0] == "export":
        jobs = (2, *(2 * n for n in jobs))
    for n in jobs:
        other = outputs(tmp, command, files, n, chunk, input)
        if "--parquet" in command:
            compare_datasets(tmp / "jobs1" / "dataset", tmp / f"jobs{n}" / "dataset")
            base_rest = {k: v for k, v in base.items() if not k.startswith("dataset/")}
            other_rest = {k: v for k, v in other.items() if not k.startswith("dataset/")}
            assert base_rest == other_rest
        else:
            assert sorted(base) == sorted(other)
            for key in base:
                if "parquet" in command and key == "out":  # row groups may differ, rows may not
                    assert pq.read_table(pa.BufferReader(base[key])).equals(
                        pq.read_table(pa.BufferReader(other[key])))
                    continue
                assert base[key] == other[key], f"--jobs {n}: {key} differs"
    return base


def compare_datasets(a: Path, b: Path):
    import pyarrow.dataset as ds

    for table, keys in (("games", ["game_id"]), ("moves", ["game_id", "ply"])):
        ta = ds.dataset(str(a / table), format="parquet").to_table()
        tb = ds.dataset(str(b / table), format="parquet").to_table()
        assert ta.schema == tb.schema
        order = [(k, "ascending") for k in keys]
        assert ta.sort_by(order).equals(tb.sort_by(order)), f"{table} rows differ"
        assert not [p for p in b.rglob(".*")], "temporary files left"


VALIDATE = ["validate", "-o", "@", "--rejects", "@", "--report", "@", "--summary", "@"]
UNNUMBERED = ["validate", "-o", "@", "--rejects", "@", "--summary", "@"]  # no output names games
TO_FEN = [
    ["to-fen", "-o", "@", "--report", "@", "--summary", "@"],
    ["to-fen", "-o", "@", "--format", "epd", "--c0", "--include-invalid"],
    ["to-fen", "-o", "@", "--format", "csv", "--every-ply"],
    ["to-fen", "-o", "@", "--format", "jsonl", "--ply", "3"],
    ["to-fen", "-o", "@", "--format", "parquet", "--every-ply"],
]
EXPORT = ["export", "--parquet", "@", "--with-fen", "--with-comments", "--with-keys", "--report", "@", "--summary", "@"]


# ---------------------------------------------------------------- the chunks themselves

@pytest.mark.parametrize("line_end", ["\n", "\r\n", "\r"])
def test_chunks_tile_the_input_at_game_starts(tmp_path, line_end):
    data = tricky_input(line_end=line_end)
    path = tmp_path / "in.pgn"
    path.write_bytes(data)
    games = list(_core.BatchReader(io.BytesIO(data), replay=False))
    offsets = [o for raw in games for o in memoryview(raw["offset"]).cast("q")]
    lines = [n for raw in games for n in memoryview(raw["line"]).cast("q")]
    for with_paths in (True, False):
        chunks = list(chunks_module.iter_chunks([str(path)], 300, with_paths=with_paths))
        assert len(chunks) > 10
        assert b"".join(c.read() for c in chunks) == data
        assert sum(c.n_games for c in chunks) == len(offsets)
        assert [c.index for c in chunks] == list(range(len(chunks)))
        for c in chunks[1:]:
            assert c.first_game < len(offsets) and offsets[c.first_game] == c.offset
            assert lines[c.first_game] == c.line


def test_a_chunk_starts_only_where_a_game_starts_a_line(tmp_path):
    # games glued on one line ("... 1-0 [Event ...") are never cut apart from the line before
    data = b"".join(b'[Event "g%d"] 1. e4 e5 1-0 ' % i for i in range(200)) + b"\n"
    path = tmp_path / "in.pgn"
    path.write_bytes(data)
    chunks = list(chunks_module.iter_chunks([str(path)], 100))
    assert len(chunks) == 1 and chunks[0].n_games == 200


def test_an_input_of_one_chunk_starts_no_worker(tmp_path, monkeypatch):
    def no_pool(*args, **kwargs):
        raise AssertionError("a pool was started for one chunk")

    monkeypatch.setattr(parallel, "LocalThreads", no_pool)
    out = tmp_path / "out.pgn"
    invoke(["validate", "--jobs", "4", "-o", out, FIXTURES / "sample.pgn"], expect=(1,))
    base = tmp_path / "base.pgn"
    invoke(["validate", "--jobs", "1", "-o", base, FIXTURES / "sample.pgn"], expect=(1,))
    assert out.read_bytes() == base.read_bytes()


# ---------------------------------------------------------------- same outputs for any N

@pytest.mark.parametrize("line_end", ["\n", "\r\n", "\r"])
def test_validate_tricky_seams(tmp_path, line_end):
    path = tmp_path / "tricky.pgn"
    path.write_bytes(tricky_input(line_end=line_end))
    got = assert_same_outputs(tmp_path, VALIDATE, [path], chunk=250)
    assert got["summary"]["invalid"] > 0 and got["summary"]["fixed"] > 0
    assert got["report.jsonl"].count(b"\n") > 10
    for chunk in (100, 250, 1000):  # unnumbered chunks: seams found by a byte search, then checked
        assert_same_outputs(tmp_path, UNNUMBERED, [path], chunk=chunk)
        assert_same_outputs(tmp_path, ["to-fen", "-o", "@"], [path], jobs=(2,), chunk=chunk)


@pytest.mark.parametrize("line_end", ["\n", "\r\n"])
def test_seam_chunks_tile_the_input_and_bad_seams_are_caught(tmp_path, line_end):
    data = tricky_input(2, line_end=line_end)
    path = tmp_path / "in.pgn"
    path.write_bytes(data)
    job = parallel.ChunkWork("validate", ReaderOptions(), [], "t-")
    for with_paths in (True, False):
        chunks = list(chunks_module.iter_seam_chunks([str(path)], 200, with_paths=with_paths))
        assert len(chunks) > 5 and chunks[-1].last and not any(c.last for c in chunks[:-1])
        assert b"".join(c.read()[:c.size] for c in chunks) == data
    # only the '[' lines inside the comments are wrong seams, and the workers find them wrong
    caught = None
    for target in range(20, 400, 3):
        chunks = list(chunks_module.iter_seam_chunks([str(path)], target))
        for c in chunks:
            if not parallel.run_chunk(job, c)["seam_ok"]:
                end = c.offset + c.size
                assert data[end:end + 10] in (b"[not a tag", b'[Event  "x'), (target, end)
                caught = caught or target
    assert caught, "no chunk ended at the '[' lines inside the comments"
    assert_same_outputs(tmp_path, UNNUMBERED, [path], jobs=(2,), chunk=caught)


def test_find_seam():
    find = chunks_module.find_seam
    assert find(b'1-0\n\n[Event "a"]', 0) == 5
    assert find(b'1-0\r\n\r\n[Event "a"]', 0) == 7
    assert find(b'[Site "x"]\n\n[Event "a"]', 0) == -1  # inside a tag section
    assert find(b'x\n[Site "x"]\n\n\n[Event "a"]', 0) == -1
    assert find(b'% escape\n\n[Event "a"]', 0) == -1
    assert find(b'1-0\n\n[Event "a"]\n\n1. e4 *\n\n[Event "b"]', 6) == 27
    assert find(b'1-0\r\r[Event "a"]', 0) == -1  # CR-only line ends: never cut


def test_validate_fixtures_and_several_inputs(tmp_path):
    a, b = tmp_path / "a.pgn", tmp_path / "b.pgn"
    a.write_bytes(fixtures_input())
    b.write_bytes(tricky_input(3))
    empty = tmp_path / "empty.pgn"
    empty.write_bytes(b"")
    got = assert_same_outputs(tmp_path, VALIDATE, [empty, a, b, FIXTURES / "sample.pgn"], chunk=500)
    report = [json.loads(line) for line in got["report.jsonl"].splitlines()]
    assert {r["file"] for r in report} >= {str(a), str(b)}


@pytest.mark.parametrize("command", TO_FEN, ids=lambda c: "-".join(c[3:5]) or "fen")
def test_to_fen(tmp_path, command):
    path = tmp_path / "in.pgn"
    path.write_bytes(tricky_input(4) + fixtures_input())
    empty = tmp_path / "empty.pgn"
    empty.write_bytes(b"")
    got = assert_same_outputs(tmp_path, command, [empty, path], jobs=(2,), chunk=400)
    assert len(got["out"]) > 100


def test_export(tmp_path):
    path = tmp_path / "in.pgn"
    path.write_bytes(tricky_input(4) + fixtures_input())
    got = assert_same_outputs(tmp_path, EXPORT, [path, FIXTURES / "sample.pgn"], chunk=400)
    parts = [k for k in got if k.startswith("dataset/games/")]
    assert parts == [f"dataset/games/part-{i:05d}.parquet" for i in range(len(parts))]


def test_export_chunks_have_one_size_whatever_the_input(tmp_path, monkeypatch):
    """--jobs export: chunks of PARQUET_CHUNK bytes of PGN whatever the input's size (so that a
    worker's memory is the same for any input); the parts do not follow them (--target-part-size:
    a small export is one part a table, whatever the chunks)."""
    monkeypatch.setattr(parallel, "PARQUET_CHUNK", 2048)
    path = tmp_path / "in.pgn"
    path.write_bytes(tricky_input(3) + fixtures_input() * 3)
    n_chunks = len(list(chunks_module.iter_chunks([str(path)], 2048)))
    assert n_chunks > 3
    out = tmp_path / "out"
    invoke(["export", "--jobs", "4", "--parquet", out, path])
    for table in ("games", "moves"):
        assert [p.name for p in (out / table).iterdir()] == ["part-00000.parquet"]


# a validate job writing PGN and report lines, with the options the command uses
JOB = parallel.ChunkWork("validate", ReaderOptions(replay=True, pgn=True, fix_results=True),
                         [SinkSpec("pgn", PgnSink), SinkSpec("report", ReportSink)], "t-")


def test_a_worker_streams_a_numbered_chunk_of_a_plain_file(tmp_path):
    path = tmp_path / "in.pgn"
    path.write_bytes(tricky_input(6))
    first, second = list(chunks_module.iter_chunks([str(path)], 700, 1 << 20))[:2]
    body = second.body()
    try:
        assert not isinstance(body, (bytes, memoryview))  # read block by block, not held whole
        streamed = parallel.run_chunk(JOB, second, body)
    finally:
        body.close()
    held = parallel.run_chunk(JOB, second, second.read())
    assert streamed["counts"] == held["counts"] and streamed["outputs"] == held["outputs"]
    assert streamed["counts"]["games"] == second.n_games > 0


def test_a_file_that_shrinks_during_the_run_is_an_input_error(tmp_path):
    path = tmp_path / "in.pgn"
    path.write_bytes(tricky_input(6))
    chunk = list(chunks_module.iter_chunks([str(path)], 700, 1 << 20))[1]
    body = chunk.body()
    os.truncate(path, chunk.offset + 10)
    with pytest.raises(InputError, match="shorter than when the run started"):
        parallel.run_chunk(JOB, chunk, body)
    body.close()


def test_export_of_no_games_is_an_empty_dataset(tmp_path):
    path = tmp_path / "blank.pgn"
    path.write_bytes(b"\n \n" * 100)  # (text without a game is not PGN: exit 2, tests/test_cli_io.py)
    invoke(["export", "--jobs", "4", "--chunk-bytes", "100", "--parquet", tmp_path / "out", path])
    assert pq.read_table(tmp_path / "out" / "games" / "part-00000.parquet").num_rows == 0


def test_oversized_game_at_a_seam(tmp_path):
    big = b'[Event "big"]\n[Result "*"]\n\n1. e4 { ' + b"x" * (1 << 20) + b" } e5 *\n\n"
    path = tmp_path / "in.pgn"
    path.write_bytes(tricky_input(2) + big + tricky_input(2) + big)
    got = assert_same_outputs(tmp_path, VALIDATE + ["--max-game-size", "1"], [path], jobs=(2,), chunk=300)
    assert got["summary"]["errors"].get("game_too_large") == 2


def test_compressed_inputs_and_stdin(tmp_path):
    data = tricky_input(4) + fixtures_input()
    gz, bz = tmp_path / "in.pgn.gz", tmp_path / "in.pgn.bz2"
    gz.write_bytes(gzip.compress(data))
    bz.write_bytes(bz2.compress(data))
    files = [gz, bz]
    try:
        import zstandard

        zst = tmp_path / "in.pgn.zst"
        zst.write_bytes(zstandard.ZstdCompressor().compress(data))
        files.append(zst)
    except ImportError:
        pass
    got = assert_same_outputs(tmp_path, VALIDATE, files, jobs=(2,), chunk=500)
    assert got["summary"]["games"] > 50
    assert_same_outputs(tmp_path, UNNUMBERED, files, jobs=(2,), chunk=500)
    assert_same_outputs(tmp_path, UNNUMBERED, ["-"], jobs=(2,), chunk=500, input=data)
    stdin = assert_same_outputs(tmp_path, VALIDATE, ["-"], jobs=(2,), chunk=500, input=data)
    assert stdin["summary"]["games"] * len(files) == got["summary"]["games"]


@pytest.mark.skipif(not CORPORA.is_dir(), reason=CORPORA_REASON)
@pytest.mark.parametrize("name", ["bench/master-games-30k.pgn", "lichess/lichess-magnus-carlsen.pgn",
                                  "engine/tcec-sample.pgn", "chess960/tcec-season24-frc.pgn",
                                  "edge/FWWRC.pgn", "edge/stockfish-2moves-v2.pgn"])
def test_corpus_samples(tmp_path, name):
    path = tmp_path / "sample.pgn"
    path.write_bytes(corpus_sample(CORPORA / name))
    assert_same_outputs(tmp_path, VALIDATE, [path], jobs=(2,), chunk=50_000)
    assert_same_outputs(tmp_path, UNNUMBERED, [path], jobs=(2,), chunk=20_000)
    assert_same_outputs(tmp_path, EXPORT, [path], jobs=(2,), chunk=100_000)


@pytest.mark.skipif(not CORPORA.is_dir(), reason=CORPORA_REASON)
def test_edge_corpus_files(tmp_path):
    files = sorted(p for p in (CORPORA / "edge").rglob("*.pgn") if p.stat().st_size < 200_000
                   and any(game.uci for game in read_games(str(p))))  # (no move: no PGN, exit 2)
    assert_same_outputs(tmp_path, VALIDATE, files, jobs=(2,), chunk=2000)
    assert_same_outputs(tmp_path, UNNUMBERED, files, jobs=(2,), chunk=1000)


@pytest.mark.slow
@pytest.mark.skipif(not CORPORA.is_dir(), reason=CORPORA_REASON)
@pytest.mark.parametrize("name", ["bench/master-games-30k.pgn", "lichess/lichess-magnus-carlsen.pgn",
                                  "engine/tcec-sample.pgn", "chess960/tcec-season24-frc.pgn"])
def test_whole_corpus_files(tmp_path, name):
    for command in (VALIDATE, UNNUMBERED, EXPORT, TO_FEN[2]):
        assert_same_outputs(tmp_path, command, [CORPORA / name], jobs=(2,), chunk=1 << 20)


# ---------------------------------------------------------------- errors and interrupts

def test_input_errors_are_reported_as_in_process(tmp_path):
    good = tmp_path / "good.pgn"
    good.write_bytes(tricky_input(2))
    bad = tmp_path / "bad.pgn.gz"
    bad.write_bytes(gzip.compress(tricky_input(2))[:-40])
    # a missing input: one line, and nothing written
    messages = []
    for jobs in (1, 2):
        result = invoke(["validate", "--jobs", jobs, "--chunk-bytes", 300, "-o", tmp_path / "o.pgn", good,
                         tmp_path / "missing.pgn"], expect=(2,))
        messages.append(result.stderr.strip())
        assert not (tmp_path / "o.pgn").exists()
    assert messages[0] == messages[1] and messages[0].count("\n") == 0
    # a truncated input: the games before the break are written, the same ones for any N
    got = []
    for jobs in (1, 2):
        out = tmp_path / f"jobs{jobs}"
        out.mkdir()
        result = invoke(["validate", "--jobs", jobs, "--chunk-bytes", 300, "-o", out / "o.pgn", "--report",
                         out / "r.jsonl", good, bad], expect=(2,))
        error = result.stderr.strip().splitlines()[-1]
        assert error.startswith("pgntools: error: ") and str(bad) in error and "truncated gzip" in error
        got.append((summary_line(result), error, (out / "o.pgn").read_bytes(), (out / "r.jsonl").read_bytes()))
    assert got[0] == got[1]
    # the same without --report: unnumbered chunks, cut from the stream the read-ahead thread decompresses
    unnumbered = []
    for jobs in (1, 2):
        result = invoke(["validate", "--jobs", jobs, "--chunk-bytes", 300, "--summary", tmp_path / f"s{jobs}.json",
                         good, bad], expect=(2,))
        counts = json.loads((tmp_path / f"s{jobs}.json").read_text())
        unnumbered.append((summary_line(result), result.stderr.strip().splitlines()[-1], counts["input_errors"]))
    assert unnumbered[0] == unnumbered[1] and "truncated gzip" in unnumbered[1][1]
    assert unnumbered[0][0] == got[0][0]


@pytest.fixture(scope="module")
def big_input(tmp_path_factory) -> Path:
    """~200 MB of games (the corpora when present, else the fixtures many times over): enough
    that no run ends before the signal reaches it (validate --jobs 2 reads ~250 MB/s)."""
    path = tmp_path_factory.mktemp("big") / "big.pgn"
    if CORPORA.is_dir():
        names = ("bench/master-games-30k.pgn", "lichess/lichess-magnus-carlsen.pgn")
        parts = [(CORPORA / n).read_bytes() for n in names]
        data = b"\n".join(parts)
    else:
        data = fixtures_input() + b"\n" + tricky_input(50)
    with open(path, "wb") as f:
        while f.tell() < 200_000_000:
            f.write(data + b"\n")
    return path


def _wait_for(predicate, timeout=30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return False


INTERRUPTED = {  # each command with its outputs, in OUT
    "validate": ["validate", "-o", "{out}/out.pgn", "--report", "{out}/report.jsonl", "--summary", "{out}/s.json"],
    "to-fen": ["to-fen", "--every-ply", "--format", "csv", "-o", "{out}/positions.csv"],
    "export": ["export", "--parquet", "{out}/dataset"],
}


def start_run(tmp_path: Path, src: Path, command: str, jobs: int, **popen):
    """Starts a command on a large input in a child process, and returns (process, OUT) once its
    output has begun (a part file holds bytes) and, with --jobs > 1, its worker threads run."""
    out = tmp_path / "out"
    out.mkdir()
    args = [a.format(out=out) for a in INTERRUPTED[command]]
    proc = subprocess.Popen([sys.executable, "-m", "pgntools", *args, "--jobs", str(jobs),
                             "--chunk-bytes", str(1 << 20), str(src)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO, **popen)
    started = _wait_for(lambda: (jobs == 1 or _threads(proc.pid) > jobs)
                        and any(p.is_file() and p.stat().st_size for p in out.rglob("*")))
    time.sleep(0.2)
    assert started and proc.poll() is None, "the run ended before it could be interrupted"
    return proc, out


@pytest.mark.parametrize("command, jobs, signum, code, group", [
    ("validate", 2, signal.SIGINT, 130, False),   # SIGINT to the parent alone
    ("validate", 2, signal.SIGINT, 130, True),    # Ctrl-C in a terminal: the whole process group
    ("export", 4, signal.SIGTERM, 143, False),    # two workers, each with a writer thread
    ("to-fen", 2, signal.SIGTERM, 143, True),
    ("validate", 1, signal.SIGTERM, 143, False),  # in-process runs
    ("to-fen", 1, signal.SIGINT, 130, True),
    ("export", 1, signal.SIGINT, 130, False)])
def test_interrupt_stops_workers_and_leaves_no_output(tmp_path, big_input, command, jobs, signum, code, group):
    proc, out = start_run(tmp_path, big_input, command, jobs, start_new_session=group)
    workers = _descendants(proc.pid)
    if group:
        os.killpg(proc.pid, signum)
    else:
        proc.send_signal(signum)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == code, err
    lines = err.decode().strip().splitlines()
    assert len(lines) == 1 and "no output was left" in lines[0], err.decode()
    assert [p for p in out.rglob("*") if p.is_file()] == [], "outputs left behind"
    assert _wait_for(lambda: not [p for p in workers if _alive(p)], 10), "workers still running"


@pytest.mark.parametrize("command, jobs", [("validate", 1), ("export", 4)])
def test_kill_9_leaves_only_temporary_names(tmp_path, big_input, command, jobs):
    proc, out = start_run(tmp_path, big_input, command, jobs)
    workers = _descendants(proc.pid)
    proc.kill()
    proc.communicate(timeout=60)
    # nothing of the run outlives it (its workers are threads)
    assert _wait_for(lambda: not [p for p in workers if _alive(p)], 15), "workers still running"
    left = [p for p in out.rglob("*") if p.is_file()]
    assert left and all(p.name.startswith(".") and p.name.endswith((".part", ".tmp")) for p in left), left


def _threads(pid: int) -> int:
    try:
        return len(os.listdir(f"/proc/{pid}/task"))
    except OSError:
        return 0


def _children(pid: int) -> List[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(x) for x in f.read().split()]
    except OSError:
        return []


def _descendants(pid: int) -> List[int]:
    out, todo = [], [pid]
    while todo:
        for child in _children(todo.pop()):
            out.append(child)
            todo.append(child)
    return out


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ")[1][0] not in "ZX"
    except OSError:
        return False


def test_default_jobs_per_command(monkeypatch):
    """--jobs counts threads and defaults to the CPUs; an export worker takes two (reader and
    writer), so export runs half as many workers, and never 0."""
    from pgntools import cli_options as cli_module
    from pgntools import options

    for cpus, plain, export in [(1, 1, 1), (2, 2, 1), (3, 3, 1), (8, 8, 4)]:
        monkeypatch.setattr(options, "default_jobs", lambda cpus=cpus: cpus)
        assert cli_module.parallel_settings(None, None, None)["jobs"] == plain
        assert cli_module.parallel_settings(None, None, None, threads_per_job=2)["jobs"] == export
    assert cli_module.parallel_settings(5, None, None, threads_per_job=2)["jobs"] == 2
    assert cli_module.parallel_settings(1, None, None, threads_per_job=2)["jobs"] == 1


@pytest.mark.parametrize("jobs, readers, writers", [(1, set(), {"MainThread"}), (2, set(), {"pgntools-parquet_0"}),
                                                     (4, {"pgntools-worker_0", "pgntools-worker_1"}, {"pgntools-parquet_0"})])
def test_export_jobs_count_its_threads(tmp_path, monkeypatch, jobs, readers, writers):
    """export --jobs N keeps N threads reading and writing: --jobs 1 writes in the main thread,
    --jobs 2 adds a writer thread, --jobs 4 runs two workers (chunks) with a writer thread each."""
    import threading

    from pgntools.sinks import parquet as parquet_sink

    seen = {"read": set(), "write": set()}

    def recorded(kind, f):
        def call(*args, **kwargs):
            seen[kind].add(threading.current_thread().name)
            return f(*args, **kwargs)
        return call

    monkeypatch.setattr(parquet_sink.ParquetDatasetSink, "_write", recorded("write", parquet_sink.ParquetDatasetSink._write))
    monkeypatch.setattr(parallel, "run_chunk", recorded("read", parallel.run_chunk))
    path = tmp_path / "in.pgn"
    path.write_bytes(fixtures_input() * 20)
    invoke(["export", "--jobs", str(jobs), "--chunk-bytes", "2000", "--parquet", tmp_path / "out", path])
    assert seen == {"read": readers, "write": writers}
