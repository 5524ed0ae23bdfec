"""How a run ends when it cannot complete, and scan's lines (issue 37 A6): an interrupted export
leaves no directory it made; a full disk names the output and the games read; scan of several
files prints a line a file, then the total."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from test_cli_io import REPO, open_fifo_for_writing, pgntools


@pytest.fixture
def sample() -> "os.PathLike":
    return REPO / "fixtures" / "sample.pgn"


def test_an_interrupted_export_leaves_no_directory_it_made(tmp_path, sample):
    dataset = tmp_path / "new" / "ds"
    fifo = tmp_path / "slow.pgn"
    os.mkfifo(fifo)
    child = subprocess.Popen([sys.executable, "-m", "pgntools", "export", "--parquet", str(dataset), "--jobs", "1",
                              str(fifo)], cwd=REPO, stderr=subprocess.PIPE)
    with open_fifo_for_writing(fifo, child) as feed:
        feed.write(sample.read_bytes() * 300)  # games read and written, the input not at its end
        feed.flush()
        time.sleep(1.0)
        assert dataset.is_dir()  # (made while it runs)
        child.send_signal(signal.SIGTERM)
        assert child.wait(timeout=60) == 143, child.stderr.read()
    child.stderr.close()
    assert not (tmp_path / "new").exists()  # OUT/games and OUT/moves, OUT and its new parent: gone


def test_a_failed_export_keeps_a_directory_that_was_there(tmp_path, sample):
    dataset = tmp_path / "ds"
    (dataset / "games").mkdir(parents=True)
    (dataset / "notes.txt").write_text("mine")
    done = pgntools("export", "--parquet", dataset, sample, "--where", "no_such_name > 1")
    assert done.returncode == 2
    assert sorted(p.name for p in dataset.iterdir()) == ["games", "notes.txt"]


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full on this system")
def test_a_full_disk_names_the_output_and_the_games_read(sample):
    done = pgntools("validate", sample, "-o", "/dev/full")
    assert done.returncode == 74
    assert done.stderr.decode().strip() == ("pgntools: error: disk full writing /dev/full after 5 games (No space "
                                            "left on device); no output was left under its final name")


def test_scan_of_several_files_prints_a_line_a_file_then_the_total(tmp_path, sample):
    other = tmp_path / "twice.pgn"
    other.write_bytes(sample.read_bytes() * 2)
    done = pgntools("scan", sample, other)
    assert done.returncode == 0
    assert done.stdout.decode().splitlines() == [f"5\t{sample}", f"10\t{other}", "15\ttotal"]
    assert pgntools("scan", sample).stdout == b"5\n"  # one file: the number alone, as before
