"""to-fen's memory (issue 37 A5): every form writes without pyarrow (importing it is ~100 MB of
RSS), and --every-ply's parallel chunks are small (a worker holds its chunk's output), so the
master file's to-fen --ply 20 and --every-ply stay under 50 MB."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from corpora_dir import CORPORA_DIR

REPO = Path(__file__).resolve().parents[1]
MASTER = CORPORA_DIR / "bench" / "master-games-30k.pgn"
TIME = shutil.which("time") if Path("/usr/bin/time").exists() else None
GAME = '[Event "x"]\n[Result "*"]\n\n1. e4 e5 2. Nf3 Nc6 *\n\n'
PROBE = ("import atexit, sys\n"
         "atexit.register(lambda: sys.stderr.write('pyarrow loaded' if 'pyarrow' in sys.modules else 'no pyarrow'))\n"
         "from pgntools.cli import main\nsys.argv = ['pgntools', *sys.argv[1:]]\nmain()\n")


@pytest.mark.parametrize("fmt", ["fen", "epd", "csv", "jsonl", "parquet"])
@pytest.mark.parametrize("form", [[], ["--ply", "2"], ["--every-ply"], ["--ply", "0", "--ply", "3", "--keep-invalid"]])
def test_to_fen_writes_without_pyarrow(tmp_path, fmt, form):
    if "--keep-invalid" in form and fmt not in ("fen", "epd"):
        pytest.skip("--keep-invalid is for fen and epd")
    source = tmp_path / "g.pgn"
    source.write_text(GAME * 3)
    out = tmp_path / f"o.{fmt}"
    done = subprocess.run([sys.executable, "-c", PROBE, "to-fen", str(source), "-o", str(out), *form], cwd=REPO,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stderr.endswith("no pyarrow"), done.stderr
    assert out.stat().st_size > 0


def max_rss_mb(*args) -> float:
    done = subprocess.run([TIME, "-f", "%M", sys.executable, "-m", "pgntools", *map(str, args)], cwd=REPO,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return int(done.stderr.strip().splitlines()[-1]) / 1024


@pytest.mark.slow
@pytest.mark.skipif(not MASTER.exists(), reason=f"needs the shared corpora ({MASTER})")
@pytest.mark.skipif(TIME is None, reason="needs /usr/bin/time (GNU time) for the peak RSS")
@pytest.mark.parametrize("form", [[], ["--ply", "20"], ["--every-ply"], ["--every-ply", "--jobs", "1"],
                                  ["--every-ply", "--format", "csv"], ["--ply", "20", "--format", "epd"]])
def test_master_file_to_fen_under_50_mb(tmp_path, form):
    assert max_rss_mb("to-fen", MASTER, "-o", tmp_path / "out", "-q", *form) <= 50
