"""The installed wheel's smoke test (run by .ci/wheel-smoke.sh with the venv's python, from a
directory outside the checkout, on a PATH without a C compiler).

    python wheel_smoke.py REPO
"""
import importlib.metadata
import os
import shutil
import subprocess
import sys
import tempfile

repo = sys.argv[1]
sample = os.path.join(repo, "fixtures", "sample.pgn")
DIST = "pgntools-chess"


def check(condition, what):
    if not condition:
        sys.exit(f"wheel-smoke: FAILED: {what}")
    print(f"  ok: {what}")


def run(*args, stdin=None):
    return subprocess.run(["pgntools", *args], capture_output=True, text=True, input=stdin)


# Where we are: no compiler on PATH, and pgntools from the venv, not from the checkout.
for compiler in ("cc", "gcc", "clang"):
    check(shutil.which(compiler) is None, f"no {compiler} on PATH")
check(os.path.realpath(repo) not in map(os.path.realpath, sys.path), "the checkout is not on sys.path")
import pgntools  # noqa: E402
import pgntools._core  # noqa: E402

check(pgntools.__file__.startswith(sys.prefix), f"pgntools imported from the venv ({pgntools.__file__})")
check(pgntools._core.__file__.startswith(sys.prefix), "the compiled module too")
check(shutil.which("pgntools").startswith(sys.prefix), "the pgntools command is the venv's")

# The version: one number, however it is asked for.
version = pgntools.__version__
check(importlib.metadata.version(DIST) == version, f"{DIST} {version} in importlib.metadata")
result = run("--version")
check(result.returncode == 0 and result.stdout.strip() == f"pgntools, version {version}", "pgntools --version")

# validate: one invalid game of five (exit 1), the counts on stderr, the valid and fixed games out.
with tempfile.TemporaryDirectory() as tmp:
    clean = os.path.join(tmp, "clean.pgn")
    result = run("validate", sample, "-o", clean, "--report", os.path.join(tmp, "report.jsonl"))
    check(result.returncode == 1, f"validate exits 1 (got {result.returncode}: {result.stderr.strip()})")
    check("5 games: 3 valid, 1 fixed, 1 invalid" in result.stderr, f"validate's counts ({result.stderr.strip()})")
    with open(clean) as f:
        check(f.read().count("[Event ") == 4, "validate -o wrote the 4 valid and fixed games")
    with open(os.path.join(tmp, "report.jsonl")) as f:
        check(len(f.readlines()) >= 1, "validate --report wrote its lines")

    result = run("to-fen", sample)
    lines = result.stdout.splitlines()
    check(result.returncode == 0 and len(lines) == 4 and all(len(line.split()) == 6 for line in lines),
          "to-fen: 4 six-field FEN lines, exit 0 (a data command completed; issue 37 A4)")
    result = run("to-fen", "-", stdin=open(sample).read())
    check(result.stdout.splitlines() == lines, "to-fen reads stdin")

    out = os.path.join(tmp, "out")
    result = run("export", "--parquet", out, sample)
    check(result.returncode == 0, f"export exits 0: it completed (an invalid game is counted, issue 37 A4) ({result.stderr.strip()})")
    import pyarrow.dataset

    games = pyarrow.dataset.dataset(os.path.join(out, "games"), format="parquet").to_table()
    moves = pyarrow.dataset.dataset(os.path.join(out, "moves"), format="parquet").to_table()
    check(games.num_rows == 5, "export: 5 rows in games/, read back with the venv's pyarrow")
    status = games.column("status").to_pylist()
    check(sorted(status) == ["fixed", "invalid", "valid", "valid", "valid"], f"export: the statuses ({status})")
    check(moves.num_rows > 0 and set(moves.column("game_id").to_pylist()) <= set(range(5)), "export: moves/ rows")

# The Python API and the compiled core.
check(pgntools.Board().perft(3) == 8902, "Board().perft(3) == 8902")
check(len(list(pgntools.read_games(sample))) == 5, "read_games reads the 5 games")
print("wheel-smoke: the installed wheel works")
