"""The command line's inputs and outputs as a pipeline sees them (issue 22, points 1, 5, 6, 7, 9),
each through the real CLI in a child process (``python -m pgntools``, cwd = the repository):

- an input is never overwritten: an output onto an input (same path, symlink, hard link) is a
  usage error before anything is read or written; two outputs to stdout too; export --overwrite
  replaces only the parts an earlier export wrote;
- outputs compressed by suffix, zip inputs member by member, stdin read when no FILES are given;
- input that is not PGN says what it looks like; junk between games is counted;
- options that cannot both hold are usage errors; to-fen's format from the output's suffix;
  a --scheduler address checked and given up on after --connect-timeout.
"""
from __future__ import annotations

import bz2
import gzip
import json
import lzma
import os
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

zstandard = pytest.importorskip("zstandard")
pq = pytest.importorskip("pyarrow.parquet")

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "fixtures" / "sample.pgn"

DECOMPRESS = {".gz": gzip.decompress, ".bz2": bz2.decompress, ".xz": lzma.decompress,
              ".zst": lambda data: zstandard.ZstdDecompressor().decompressobj().decompress(data)}


def pgntools(*args, input=None, timeout=120, env=None, stdin=None, stdout=None):
    """``python -m pgntools ARGS`` in a child process; returns the CompletedProcess (bytes)."""
    kwargs = {"stdin": stdin} if stdin is not None else {"input": input if input is not None else b""}
    try:
        return subprocess.run([sys.executable, "-m", "pgntools", *map(str, args)], cwd=REPO, timeout=timeout,
                              stdout=stdout if stdout is not None else subprocess.PIPE, stderr=subprocess.PIPE,
                              env={**os.environ, **(env or {})}, **kwargs)
    except subprocess.TimeoutExpired:
        pytest.fail(f"pgntools {' '.join(map(str, args))} did not finish in {timeout} s")


def error_lines(done) -> list:
    return done.stderr.decode().strip().splitlines()


@pytest.fixture
def sample(tmp_path) -> Path:
    path = tmp_path / "games.pgn"
    path.write_bytes(SAMPLE.read_bytes())
    return path


# ---------------------------------------------------------------- 1. an input is never an output

def aliases(tmp_path: Path, source: Path) -> dict:
    """The input under its own path, through a symlink, and through a hard link."""
    symlink, hardlink = tmp_path / "symlink.pgn", tmp_path / "hardlink.pgn"
    symlink.symlink_to(source)
    os.link(source, hardlink)
    return {"same path": source, "symlink": symlink, "hard link": hardlink}


OUTPUT_OPTIONS = {  # option -> a command that writes it
    "-o": ["validate"], "--rejects": ["validate"], "--report": ["to-fen"], "--summary": ["export", "--parquet", "ds"],
}


@pytest.mark.parametrize("option", sorted(OUTPUT_OPTIONS))
@pytest.mark.parametrize("kind", ["same path", "symlink", "hard link"])
def test_an_output_onto_an_input_is_a_usage_error_and_the_input_is_unchanged(tmp_path, sample, option, kind):
    before = sample.read_bytes()
    target = aliases(tmp_path, sample)[kind]
    other = tmp_path / "other.pgn"  # a second input: the check covers every input
    other.write_bytes(before)
    command = OUTPUT_OPTIONS[option]
    done = pgntools(*command, other, sample, option, target, "--jobs", 1)
    assert done.returncode == 2, done.stderr
    assert error_lines(done) == [f"pgntools: error: {option} {target} is the input {sample} (the same file): "
                                 "an input is never overwritten; write the output elsewhere"]
    assert sample.read_bytes() == before and target.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["games.pgn", "other.pgn", "symlink.pgn",
                                                                 "hardlink.pgn"])  # nothing written, no temporary


def test_an_input_on_stdin_is_not_an_output_either(tmp_path, sample):
    before = sample.read_bytes()
    with open(sample, "rb") as stdin:
        done = pgntools("validate", "-", "-o", aliases(tmp_path, sample)["hard link"], stdin=stdin)
    assert done.returncode == 2 and b"is the input stdin (the same file)" in done.stderr
    with open(sample, "ab") as stdout:  # `pgntools validate x.pgn -o - >> x.pgn`
        done = pgntools("validate", sample, "-o", "-", stdout=stdout)
    assert done.returncode == 2 and f"-o stdout is the input {sample}".encode() in done.stderr
    assert sample.read_bytes() == before


@pytest.mark.parametrize("kind", ["same path", "symlink", "hard link"])
def test_an_export_part_that_is_an_input_is_refused(tmp_path, sample, kind):
    dataset = tmp_path / "ds"
    assert pgntools("export", "--parquet", dataset, sample).returncode == 1
    part = dataset / "games" / "part-00000.parquet"
    before = part.read_bytes()
    target = aliases(tmp_path, part)[kind] if kind != "same path" else part
    done = pgntools("export", "--parquet", dataset, "--overwrite", target, "--jobs", 1)
    assert done.returncode == 2
    assert error_lines(done) == [f"pgntools: error: --parquet {dataset}: its part {part} is the input {target}: "
                                 "an input is never overwritten; export elsewhere"]
    assert part.read_bytes() == before


def test_two_outputs_to_stdout_are_a_usage_error(sample):
    done = pgntools("validate", sample, "-o", "-", "--report", "-")
    assert done.returncode == 2 and done.stdout == b""
    assert error_lines(done) == ["pgntools: error: -o and --report write to stdout ('-'), where they would mix: "
                                 "give all but one of them a file"]
    done = pgntools("to-fen", sample, "--report", "-", "--summary", "-")  # to-fen's -o is '-' by default
    assert done.returncode == 2 and b"-o, --report and --summary write to stdout" in done.stderr


def test_the_readme_first_example_writes_only_report_lines(tmp_path):
    readme = (REPO / "README.md").read_text()
    command = next(line for line in readme.splitlines() if "pgntools validate fixtures/sample.pgn" in line)
    args = command.split("pgntools ", 1)[1].split()
    done = pgntools(*args)
    assert done.returncode == 1, done.stderr
    lines = [json.loads(line) for line in done.stdout.decode().splitlines()]
    assert lines and all(set(line) >= {"game", "file", "status", "errors"} for line in lines)
    assert [line["status"] for line in lines].count("invalid") == 1


def part_names(dataset: Path, table: str) -> list:
    return sorted(p.name for p in (dataset / table).iterdir())


def rows(dataset: Path, table: str) -> int:
    return sum(pq.read_table(p).num_rows for p in (dataset / table).glob("part-*.parquet"))


def test_export_overwrite_replaces_only_an_earlier_exports_parts(tmp_path, sample):
    dataset = tmp_path / "ds"
    big = tmp_path / "big.pgn"
    big.write_bytes(sample.read_bytes() * 40)  # 200 games, in several parts with small chunks
    assert pgntools("export", "--parquet", dataset, big, "--jobs", 4, "--chunk-bytes", 4000).returncode == 1
    old_parts = part_names(dataset, "games")
    assert len(old_parts) > 2 and rows(dataset, "games") == 200
    foreign = {dataset / "README.txt": b"mine", dataset / "games" / "notes.txt": b"keep",
               dataset / "moves" / "my-table.parquet": b"not ours"}
    for path, data in foreign.items():
        path.write_bytes(data)

    refused = pgntools("export", "--parquet", dataset, sample)  # without --overwrite: refused, as before
    assert refused.returncode == 2 and b"already holds part files" in refused.stderr
    assert part_names(dataset, "games") == sorted(old_parts + ["notes.txt"])

    done = pgntools("export", "--parquet", dataset, "--overwrite", sample, "--jobs", 1)
    assert done.returncode == 1, done.stderr
    assert part_names(dataset, "games") == ["notes.txt", "part-00000.parquet"]
    assert part_names(dataset, "moves") == ["my-table.parquet", "part-00000.parquet"]
    assert rows(dataset, "games") == 5  # the new export's rows only
    assert all(path.read_bytes() == data for path, data in foreign.items())


def test_an_interrupted_export_overwrite_leaves_the_old_parts(tmp_path, sample):
    """The old parts go only once the new ones are complete: an export stopped while it reads
    leaves the earlier dataset as it was (and no temporary files)."""
    dataset = tmp_path / "ds"
    assert pgntools("export", "--parquet", dataset, sample).returncode == 1
    before = {p: p.read_bytes() for p in dataset.rglob("*") if p.is_file()}
    fifo = tmp_path / "slow.pgn"
    os.mkfifo(fifo)
    child = subprocess.Popen([sys.executable, "-m", "pgntools", "export", "--parquet", str(dataset), "--overwrite",
                              "--jobs", "1", str(fifo)], cwd=REPO, stderr=subprocess.PIPE)
    with open(fifo, "wb") as feed:
        feed.write(sample.read_bytes() * 300)  # games read and written, the input not at its end
        feed.flush()
        time.sleep(1.0)
        child.send_signal(signal.SIGTERM)
        assert child.wait(timeout=60) == 143, child.stderr.read()
    child.stderr.close()
    after = {p: p.read_bytes() for p in dataset.rglob("*") if p.is_file()}
    assert after == before
