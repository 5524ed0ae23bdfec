"""Start-up (issue 23): what the command line imports. Modules, not times: a test that fails when
a heavy import comes back onto the path of --help or of a small validate."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("pyarrow", "numpy", "dask", "pandas", "json", "pgntools.where", "pgntools.sinks.tables")

PROBE = """
import runpy, sys
sys.argv = ["pgntools"] + sys.argv[1:]
try:
    runpy.run_module("pgntools", run_name="__main__")
except SystemExit:
    pass
print(" ".join(sorted(name for name, module in sys.modules.items() if module is not None)), file=sys.stderr)
"""


def loaded(*args):
    """The modules loaded (not blocked) after running `pgntools ARGS` in a fresh interpreter."""
    done = subprocess.run([sys.executable, "-c", PROBE, *args], cwd=ROOT, capture_output=True, text=True)
    return set(done.stderr.strip().splitlines()[-1].split())


def test_import_cli_loads_nothing_heavy():
    done = subprocess.run([sys.executable, "-c", "import sys, pgntools.cli; print(' '.join(n for n, m in sys.modules.items() if m is not None))"],
                          cwd=ROOT, capture_output=True, text=True, check=True)
    names = set(done.stdout.split())
    assert "pgntools.cli" in names
    assert not names & set(HEAVY + ("pgntools.parallel",))


def test_help_loads_nothing_heavy():
    for args in (["--help"], ["validate", "--help"], ["export", "--help"], ["to-fen", "--help"], ["filter", "--help"]):
        names = loaded(*args)
        assert "click" in names
        assert not names & set(HEAVY + ("pgntools.parallel",)), args


def test_small_validate_stays_in_process(tmp_path):
    """A one-game file with the default --jobs is one chunk: read in this thread, without the
    parallel machinery (pgntools.parallel, chunks, worker threads)."""
    names = loaded("validate", str(ROOT / "fixtures" / "sample.pgn"))
    assert "pgntools.reader" in names
    assert not names & set(HEAVY + ("pgntools.parallel", "pgntools.chunks", "pgntools.work"))


def test_one_chunk_bound_matches_the_parallel_minimum():
    from pgntools import parallel, pipeline

    assert pipeline.ONE_CHUNK <= parallel.MIN_CHUNK
