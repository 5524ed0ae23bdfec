"""Start-up (issue 23): what the command line imports. Modules, not times: a test that fails when
a heavy import comes back onto the path of --help or of a small validate."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("pyarrow", "numpy", "dask", "pandas", "json", "pgntools.where", "pgntools.tables.build")
# What a command needs once it runs, not for --help: the compiled core, the reader and the runner
RUNNING = ("pgntools._core", "pgntools.reader", "pgntools.records", "pgntools.inputs.streams", "pgntools.runner.run",
           "pgntools.outputs", "pgntools.selection", "pgntools.runner.feed", "pgntools.sinks.summary", "pgntools.sinks.pgn")
# What only compressed inputs need (and tempfile, which AtomicOutput no longer uses: it brings shutil, random, bz2, lzma)
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
entry = sys.modules.get("pgntools.entry")  # (a module it deferred and nothing used is not loaded)
deferred = entry._Deferred if entry else ()
print(" ".join(sorted(name for name, module in sys.modules.items()
                      if module is not None and name not in before and not isinstance(module, deferred))),
      file=sys.stderr)
"""
# What the command line's entry point defers (pgntools/entry.py) and what loading them would bring
DEFERRED = ("inspect", "platform", "ast", "dis", "tokenize", "linecache")


def loaded(*args):
    """The modules that running `pgntools ARGS` in a fresh interpreter loaded (not blocked ones)."""
    done = subprocess.run([sys.executable, "-S", "-c", PROBE, *args], cwd=ROOT, capture_output=True, text=True)
    return set(done.stderr.strip().splitlines()[-1].split())


def test_import_cli_loads_nothing_heavy():
    done = subprocess.run([sys.executable, "-c", "import sys, pgntools.cli; print(' '.join(n for n, m in sys.modules.items() if m is not None))"],
                          cwd=ROOT, capture_output=True, text=True, check=True)
    names = set(done.stdout.split())
    assert "pgntools.cli" in names
    assert not names & set(HEAVY + ("pgntools.runner.parallel",))


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
        assert not names & set(HEAVY + RUNNING + ("pgntools.runner.parallel",)), args


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
    parallel machinery (pgntools.runner.parallel, chunks, worker threads)."""
    names = loaded("validate", str(ROOT / "fixtures" / "sample.pgn"))
    assert "pgntools.reader" in names
    assert not names & set(HEAVY + ("pgntools.runner.parallel", "pgntools.runner.chunks", "pgntools.runner.worker"))
    assert "signal" not in names  # (the SIGTERM handler is set through _signal: no enums of signals)
    assert not names & set(DEFERRED)  # (pgntools/entry.py: Click's cleandoc and uuid's platform.system())


def test_plain_input_without_outputs_loads_no_compression_nor_temporary_files(tmp_path):
    """A plain input, nothing written but the summary line: no compression module, no tempfile
    (an AtomicOutput's), which a compressed input and a file output do load."""
    import bz2

    sample = ROOT / "fixtures" / "sample.pgn"
    assert not loaded("validate", str(sample)) & set(COMPRESSION_AND_FILES)
    compressed = tmp_path / "sample.pgn.bz2"
    compressed.write_bytes(bz2.compress(sample.read_bytes()))
    assert "bz2" in loaded("validate", str(compressed))


def test_a_file_output_loads_no_tempfile(tmp_path):
    """An output file (AtomicOutput's part file) and --summary: made without tempfile, which would
    bring shutil, random, bz2, lzma and zlib; the files are complete and nothing else is left."""
    out, summary = tmp_path / "out.pgn", tmp_path / "summary.json"
    names = loaded("validate", str(ROOT / "fixtures" / "sample.pgn"), "-o", str(out), "--summary", str(summary))
    assert not names & set(COMPRESSION_AND_FILES)
    assert out.read_text().startswith('[Event "Paris Opera"]') and '"games": ' in summary.read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.pgn", "summary.json"]
    assert oct(out.stat().st_mode & 0o777) == oct(0o644)  # (private while written, as before)


def test_one_chunk_bound_matches_the_parallel_minimum():
    from pgntools.runner import parallel, run

    assert run.ONE_CHUNK <= parallel.MIN_CHUNK


def test_import_pgntools_loads_no_typing():
    """`import pgntools` (the console script's first step) loads the errors only, not typing: the
    entry point pauses the collector before typing and Click make their objects."""
    done = subprocess.run([sys.executable, "-S", "-c", "import sys, pgntools; print('typing' in sys.modules)"],
                          cwd=ROOT, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


# The command line through pgntools.cli.main, where nothing is deferred (a library's import)
UNDEFERRED = "import sys; from pgntools.cli import main; sys.argv[0] = 'pgntools'; main()"
# ... and through the entry point (the console script, python -m pgntools)
DEFERRING = "import sys; from pgntools.entry import main; sys.argv[0] = 'pgntools'; main()"


def both_ways(*args, env=None):
    """(exit status, stdout, stderr) of `pgntools ARGS` without and with the deferred modules."""
    runs = [subprocess.run([sys.executable, "-c", code, *args], cwd=ROOT, capture_output=True, text=True, env=env)
            for code in (UNDEFERRED, DEFERRING)]
    return [(done.returncode, done.stdout, done.stderr) for done in runs]


def test_help_usage_errors_and_version_are_the_same_with_deferred_modules():
    """Each --help (whose docstrings of several lines load the real inspect for cleandoc), a usage
    error, --version: byte for byte what Click prints with every module loaded as usual."""
    for args in (["--help"], ["validate", "--help"], ["to-fen", "--help"], ["export", "--help"], ["filter", "--help"],
                 ["split", "--help"], ["stats", "--help"], ["book", "--help"], ["scan", "--help"], ["perft", "--help"],
                 ["--version"], ["validate", "--no-such-option"], ["perft", "13"], ["to-fen", "--format", "x"],
                 ["nonsense"]):
        plain, deferring = both_ways(*args)
        assert plain == deferring, args
        assert plain[0] == (0 if "--help" in args or "--version" in args else 2), args


def test_shell_completion_is_the_same_with_deferred_modules():
    import os

    for words, cword in (("pgntools val", "1"), ("pgntools validate --re", "2"), ("pgntools to-fen --format ", "3")):
        env = {**os.environ, "_PGNTOOLS_COMPLETE": "bash_complete", "COMP_WORDS": words, "COMP_CWORD": cword}
        plain, deferring = both_ways(env=env)
        assert plain == deferring and plain[0] == 0 and plain[1].strip(), words
    assert "validate" in plain[1] or "fen" in plain[1]


def test_a_validate_with_findings_is_the_same_with_deferred_modules(tmp_path):
    bad = tmp_path / "bad.pgn"
    bad.write_text('[Event "x"]\n[Result "*"]\n\n1. e4 e5 2. Ke3 *\n\n[Event "y"]\n[Result "1-0"]\n\n1. f3 e5 2. g4 Qh4# 1-0\n')
    plain, deferring = both_ways("validate", "-q", str(bad), "--report", "-")  # (-q: no timings)
    assert plain == deferring and plain[0] == 1 and "illegal" in plain[1]


DEFERRAL_CHECKS = """
import sys, threading, types
from pgntools import entry
entry._defer_inspect(); entry._defer_platform()
inspect, platform = sys.modules["inspect"], sys.modules["platform"]
assert type(inspect) is entry._Deferred and "signature" not in vars(inspect)
# the stand-ins answer exactly without loading; anything else loads the real module into the same object
assert inspect.cleandoc("One line.") == "One line." and type(inspect) is entry._Deferred
assert inspect.cleandoc("  Two\\n    lines\\n") == "Two\\nlines" and type(inspect) is types.ModuleType
import inspect as again
assert again is inspect and sys.modules["inspect"] is inspect and inspect.__file__.endswith("inspect.py")
assert str(inspect.signature(lambda a, b=1: a)) == "(a, b=1)"
if sys.platform == "linux":
    assert type(platform) is entry._Deferred and platform.system() == "Linux"
    import uuid  # (uuid calls platform.system() while it loads)
    assert type(platform) is entry._Deferred and uuid.UUID(int=1).int == 1
    assert "python_version" in dir(platform) and type(platform) is types.ModuleType
    assert platform.python_version() == "%d.%d.%d" % sys.version_info[:3] and platform.system() == "Linux"
# a module loaded already is left alone; one that does not exist is not made up
assert entry.defer("sys", {}) is None and entry.defer("no_such_module_here", {}) is None
# threads that first use a deferred module at once all get the loaded module
fractions = entry.defer("fractions", {})
results = []
def use():
    results.append(fractions.Fraction(1, 3) * 3)
threads = [threading.Thread(target=use) for _ in range(8)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
assert results == [1] * 8 and type(fractions) is types.ModuleType
print("ok")
"""


def test_deferred_modules_load_when_used_and_are_the_real_ones():
    done = subprocess.run([sys.executable, "-c", DEFERRAL_CHECKS], cwd=ROOT, capture_output=True, text=True)
    assert done.stdout.strip() == "ok", done.stderr


def test_only_the_entry_point_defers():
    """`import pgntools.cli` (a library user, CliRunner) gets the real modules; the entry point
    leaves the collector as it found it for the run."""
    code = "import sys, types, pgntools.cli; print(type(sys.modules['inspect']) is types.ModuleType)"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "True"
    code = ("import gc, sys\n{}\nfrom pgntools import entry\n"
            "sys.argv = ['pgntools', 'scan', 'fixtures/sample.pgn']\n"
            "try:\n    entry.main()\nexcept SystemExit:\n    print(gc.isenabled())")
    for before, expected in (("", "True"), ("gc.disable()", "False")):
        done = subprocess.run([sys.executable, "-c", code.format(before)], cwd=ROOT, capture_output=True, text=True,
                              check=True)
        assert done.stdout.strip().splitlines()[-1] == expected
