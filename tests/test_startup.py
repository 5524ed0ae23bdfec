"""Start-up (issue 23): what the command line imports. Modules, not times: a test that fails when
a heavy import comes back onto the path of --help or of a small validate."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("pyarrow", "numpy", "dask", "pandas", "json", "pgntools.where", "pgntools.sinks.tables")
# What a command needs once it runs, not for --help: the compiled core, the reader and the runner
RUNNING = ("pgntools._core", "pgntools.reader", "pgntools.records", "pgntools.io", "pgntools.pipeline",
           "pgntools.outputs", "pgntools.selection", "pgntools.feed", "pgntools.summary", "pgntools.sinks.pgn")
# What only compressed inputs or file outputs need (tempfile brings shutil and random, and those bz2 and lzma)
COMPRESSION_AND_FILES = ("bz2", "lzma", "zlib", "gzip", "zstandard", "tempfile", "shutil", "random")

# Run with -S: the site directories are put on the path without running their .pth files (an
# editable install's finder or another tool's hook would load modules of their own first).
PROBE = """
import runpy, site, sys
sys.path.extend(site.getsitepackages() + [site.getusersitepackages()])
before = set(sys.modules)
sys.argv = ["pgntools"] + sys.argv[1:]
try:
    runpy.run_module("pgntools", run_name="__main__")
except SystemExit:
    pass
print(" ".join(sorted(name for name, module in sys.modules.items() if module is not None and name not in before)),
      file=sys.stderr)
"""


def loaded(*args):
    """The modules that running `pgntools ARGS` in a fresh interpreter loaded (not blocked ones)."""
    done = subprocess.run([sys.executable, "-S", "-c", PROBE, *args], cwd=ROOT, capture_output=True, text=True)
    return set(done.stderr.strip().splitlines()[-1].split())


def test_import_cli_loads_nothing_heavy():
    done = subprocess.run([sys.executable, "-c", "import sys, pgntools.cli; print(' '.join(n for n, m in sys.modules.items() if m is not None))"],
                          cwd=ROOT, capture_output=True, text=True, check=True)
    names = set(done.stdout.split())
    assert "pgntools.cli" in names
    assert not names & set(HEAVY + ("pgntools.parallel",))


def test_import_cli_leaves_the_collector_as_it_was():
    """The cyclic collector is paused while pgntools.cli builds the commands, and on again after
    (still off when the importer had turned it off)."""
    code = "import gc, sys; {} import pgntools.cli; print(gc.isenabled())"
    for before, expected in (("", "True"), ("gc.disable();", "False")):
        done = subprocess.run([sys.executable, "-c", code.format(before)], cwd=ROOT, capture_output=True,
                              text=True, check=True)
        assert done.stdout.strip() == expected


def test_help_loads_nothing_heavy():
    for args in (["--help"], ["validate", "--help"], ["export", "--help"], ["to-fen", "--help"], ["filter", "--help"],
                 ["split", "--help"], ["stats", "--help"], ["--version"]):
        names = loaded(*args)
        assert "click" in names
        assert not names & set(HEAVY + RUNNING + ("pgntools.parallel",)), args


def test_import_pgntools_defers_the_core_and_the_reader():
    """`import pgntools` (the command line imports it first) loads the errors only; Board,
    read_games, iter_batches and the records load on first use, and are the same objects."""
    code = ("import sys, pgntools; before = set(sys.modules); "
            "from pgntools import Board, read_games, iter_batches, Game, GameError; "
            "import pgntools._core, pgntools.reader, pgntools.records; "
            "assert Board is pgntools._core.Board and read_games is pgntools.reader.read_games; "
            "assert iter_batches is pgntools.reader.iter_batches and Game is pgntools.records.Game; "
            "assert GameError is pgntools.records.GameError and 'Board' in dir(pgntools); "
            "print(' '.join(sorted(before)))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    names = set(done.stdout.split())
    assert "pgntools" in names and not names & set(RUNNING)


def test_small_validate_stays_in_process(tmp_path):
    """A one-game file with the default --jobs is one chunk: read in this thread, without the
    parallel machinery (pgntools.parallel, chunks, worker threads)."""
    names = loaded("validate", str(ROOT / "fixtures" / "sample.pgn"))
    assert "pgntools.reader" in names
    assert not names & set(HEAVY + ("pgntools.parallel", "pgntools.chunks", "pgntools.work"))
    assert "signal" not in names  # (the SIGTERM handler is set through _signal: no enums of signals)


def test_plain_input_without_outputs_loads_no_compression_nor_temporary_files(tmp_path):
    """A plain input, nothing written but the summary line: no compression module, no tempfile
    (an AtomicOutput's), which a compressed input and a file output do load."""
    import bz2

    sample = ROOT / "fixtures" / "sample.pgn"
    assert not loaded("validate", str(sample)) & set(COMPRESSION_AND_FILES)
    compressed = tmp_path / "sample.pgn.bz2"
    compressed.write_bytes(bz2.compress(sample.read_bytes()))
    assert "bz2" in loaded("validate", str(compressed))


def test_atomic_output_loads_tempfile(tmp_path):
    assert "tempfile" in loaded("validate", str(ROOT / "fixtures" / "sample.pgn"), "-o", str(tmp_path / "out.pgn"))


def test_one_chunk_bound_matches_the_parallel_minimum():
    from pgntools import parallel, pipeline

    assert pipeline.ONE_CHUNK <= parallel.MIN_CHUNK
