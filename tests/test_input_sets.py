"""Directories and glob patterns as inputs (issue 36, item 3): they stand for their PGN files in
sorted order (so game_id is the same every run), locally and through fsspec; one that holds or
matches none is exit 2 in one line, before any output exists."""
from __future__ import annotations

import gzip
import json

import pytest
from click.testing import CliRunner

from pgntools.cli import cli

GAME = '[Event "{name}"]\n[Result "1-0"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n'


def invoke(*args, expect=(0,)):
    result = CliRunner().invoke(cli, [str(a) for a in args])
    crashed = result.exception is not None and not isinstance(result.exception, SystemExit)
    assert not crashed and result.exit_code in expect, (args, result.exit_code, result.output, result.exception)
    return result


@pytest.fixture
def months(tmp_path):
    folder = tmp_path / "months"
    (folder / "older").mkdir(parents=True)
    (folder / "2024-02.pgn").write_text(GAME.format(name="feb"))
    (folder / "2024-01.pgn.gz").write_bytes(gzip.compress(GAME.format(name="jan").encode()))
    (folder / "older" / "2023-12.pgn").write_text(GAME.format(name="dec"))
    (folder / "notes.txt").write_text("not PGN")
    return folder


def events(tmp_path, *inputs) -> list:
    invoke("validate", "-o", tmp_path / "o.pgn", *inputs)
    return [line.split('"')[1] for line in (tmp_path / "o.pgn").read_text().splitlines() if line.startswith("[Event")]


def test_a_directory_is_its_pgn_files_in_sorted_order(tmp_path, months):
    assert events(tmp_path, months) == ["jan", "feb"]  # (not the subdirectory, not notes.txt)


def test_globs_local(tmp_path, months):
    assert events(tmp_path, months / "*.pgn*") == ["jan", "feb"]
    assert events(tmp_path, months / "**" / "*.pgn") == ["feb", "dec"]  # ** reaches into subdirectories
    assert events(tmp_path, months / "2024-0[2-9].pgn", months / "older" / "2023-12.pgn") == ["feb", "dec"]


def test_a_glob_through_fsspec(tmp_path):
    fsspec = pytest.importorskip("fsspec")
    fs = fsspec.filesystem("memory")
    for name in ("b", "a"):
        with fs.open(f"/input-sets/{name}.pgn", "wb") as f:
            f.write(GAME.format(name=name).encode())
    assert events(tmp_path, "memory://input-sets/*.pgn") == ["a", "b"]
    summary = tmp_path / "s.json"
    invoke("validate", "--summary", summary, "memory://input-sets/*.pgn")
    assert json.loads(summary.read_text())["games"] == 2


@pytest.mark.parametrize("pattern, message", [("*.nope", "matches no file"), ("empty", "a directory without PGN files")])
def test_nothing_to_read_is_exit_2_in_one_line(tmp_path, pattern, message):
    (tmp_path / "empty").mkdir()
    result = invoke("validate", "-o", tmp_path / "o.pgn", tmp_path / pattern, expect=(2,))
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("pgntools: error: ") and message in lines[0]
    assert not (tmp_path / "o.pgn").exists()
    result = invoke("validate", "memory://input-sets-none/*.pgn", expect=(2,))
    assert "matches no file" in result.stderr
