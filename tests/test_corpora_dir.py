"""PGNTOOLS_CORPORA points the tests at corpora kept elsewhere (issue 37 A7)."""
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def corpora_dir_with(env_value):
    env = {k: v for k, v in os.environ.items() if k != "PGNTOOLS_CORPORA"}
    if env_value is not None:
        env["PGNTOOLS_CORPORA"] = env_value
    code = "import conftest, pgn_helpers, test_parallel; print(conftest.CORPORA_DIR, pgn_helpers.CORPORA_DIR, test_parallel.CORPORA)"
    done = subprocess.run([sys.executable, "-c", code], cwd=HERE, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_pgntools_corpora_points_the_tests_elsewhere(tmp_path):
    assert corpora_dir_with(str(tmp_path)) == [str(tmp_path)] * 3
    assert corpora_dir_with(None) == [str(HERE.parents[1] / "shared" / "corpora")] * 3
