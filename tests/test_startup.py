"""Start-up as a user of the command line or the library sees it: the command's module leaves
the cyclic collector as it found it, the lazy public names of `import pgntools` are the real
objects, and a file output is complete when the command ends. (The one-game start-up target of
issue 23, with its stand-ins for inspect and platform and its checks of which modules a run
loads, was retired by issue 34: a run reads gigabytes.)"""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_import_cli_leaves_the_collector_as_it_was():
    """The cyclic collector is paused while pgntools.cli builds the commands, and on again after
    (still off when the importer had turned it off)."""
    code = "import gc, sys; {} import pgntools.cli; print(gc.isenabled())"
    for before, expected in (("", "True"), ("gc.disable();", "False")):
        done = subprocess.run([sys.executable, "-c", code.format(before)], cwd=ROOT, capture_output=True,
                              text=True, check=True)
        assert done.stdout.strip() == expected


def test_the_lazy_public_names_are_the_real_objects():
    """Board, read_games, iter_batches and the records load on first use from `import pgntools`,
    and are the objects of their modules."""
    code = ("import sys, pgntools; "
            "from pgntools import Board, read_games, iter_batches, Game, GameError; "
            "import pgntools._core, pgntools.reader, pgntools.records; "
            "assert Board is pgntools._core.Board and read_games is pgntools.reader.read_games; "
            "assert iter_batches is pgntools.reader.iter_batches and Game is pgntools.records.Game; "
            "assert GameError is pgntools.records.GameError and 'Board' in dir(pgntools); "
            "print('ok')")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "ok"


def test_a_file_output_is_complete_and_alone(tmp_path):
    """An output file (AtomicOutput's part file renamed) and --summary: complete, with the usual
    permissions, and nothing else left in the directory."""
    out, summary = tmp_path / "out.pgn", tmp_path / "summary.json"
    done = subprocess.run([sys.executable, "-m", "pgntools", "validate", str(ROOT / "fixtures" / "sample.pgn"),
                           "-o", str(out), "--summary", str(summary)], cwd=ROOT, capture_output=True)
    assert done.returncode == 1  # (the sample holds an invalid game)
    assert out.read_text().startswith('[Event "Paris Opera"]') and '"games": ' in summary.read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.pgn", "summary.json"]
    assert oct(out.stat().st_mode & 0o777) == oct(0o644)  # (private while written, as before)


def test_one_chunk_bound_matches_the_parallel_minimum():
    from pgntools.runner import parallel, run

    assert run.ONE_CHUNK <= parallel.MIN_CHUNK
