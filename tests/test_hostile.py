"""Hostile and broken inputs (issue 8): inputs that are not files, outputs that cannot be written,
damaged compressed streams, and content built to hurt a reader (random and NUL bytes, huge
comments, tags, lines and games, deep variations, mixed encodings), through the CLI and
``read_games``.

Every input is generated here; the expected counts, moves and locations follow from how it was
built. A damaged stream is checked against the same command run on a clean stream of exactly
the games before the damage: the outputs must be identical.
"""
from __future__ import annotations

import bz2
import gzip
import json
import lzma
import os
import random
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import pgntools
from pgn_helpers import cli_run, kinds, note_kinds, write
from pgntools.reader import ERROR_KINDS

REPO = Path(__file__).resolve().parents[1]

zstandard = pytest.importorskip("zstandard")
pq = pytest.importorskip("pyarrow.parquet")

# As the command-line tools write them: zstd with a checksum, bz2 in 100 KB blocks (it decodes a
# block only when it has all of it: small blocks keep the tests' inputs small).
COMPRESS = {"gz": gzip.compress, "bz2": lambda data: bz2.compress(data, 1), "xz": lzma.compress,
            "zst": lambda data: zstandard.ZstdCompressor(write_checksum=True).compress(data)}

# Games of every status, so that each output (PGN, rejects, report, positions) gets rows; a
# random comment in each keeps them from compressing 50 to 1 (as real games do not).
PIECES = [
    '[Event "valid {n}"]\n[Result "1-0"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 {{ {r} }} Nf6 4. Qxf7# 1-0\n\n',
    '[Event "fixed {n}"]\n[Result "*"]\n\n1. f3 e5 2. g4 {{ {r} }} Qh4# *\n\n',
    '[Event "invalid {n}"]\n[Result "*"]\n\n1. e4 e5 2. Ke3 {{ {r} }} Nc6 *\n\n',
    '[Event "notes {n}"]\n[Result "*"]\n\n1. e2e4 {{ [%clk 0:03:00] {r} }} e5 (1... c5 2. Nf3) 2. Ngf3 *\n\n',
]


def games_data(n_games: int, seed: int = 1) -> bytes:
    rng = random.Random(seed)
    return "".join(PIECES[i % len(PIECES)].format(n=i, r=rng.randbytes(12).hex()) for i in range(n_games)).encode()


def run(args, expect=None):
    result = cli_run([str(a) for a in args])
    if expect is not None:
        assert result.exit_code == expect, (result.exit_code, result.stderr)
    return result


def stderr_lines(result) -> list:
    return result.stderr.strip().splitlines()


def leftovers(folder: Path) -> list:
    """Temporary files left in a folder tree (hidden .part / .tmp names)."""
    return [p for p in folder.rglob(".*") if p.is_file()]


# ---------------------------------------------------------------- outputs that cannot be written

def test_output_to_a_fifo_is_written_in_place(tmp_path):
    # Renaming a finished temporary file over a FIFO (or /dev/null, /dev/stdout) would replace it
    # with a plain file: such outputs are written in place.
    src = write(tmp_path, games_data(8))
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()), daemon=True)
    reader.start()
    result = run(["validate", src, "-o", fifo, "--jobs", 1], expect=1)
    reader.join(10)
    assert fifo.is_fifo() and not leftovers(tmp_path)
    expected = run(["validate", src, "-o", "-", "--jobs", 1]).stdout_bytes
    assert received == [expected] and expected.count(b"[Event ") == 6, result.stderr


def test_output_through_a_symlink_keeps_the_link(tmp_path):
    src = write(tmp_path, games_data(8))
    target = tmp_path / "real.pgn"
    link = tmp_path / "link.pgn"
    link.symlink_to(target)
    run(["validate", src, "-o", link, "--jobs", 1], expect=1)
    assert link.is_symlink() and target.read_bytes().count(b"[Event ") == 6 and not leftovers(tmp_path)
