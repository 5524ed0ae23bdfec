"""Exit statuses that fit `set -e` pipelines (issue 22, point 4), through the real command line:
--exit-zero, an I/O failure's own status (74), a closed pipe ending quietly (141), --quiet."""
from __future__ import annotations

import gzip
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "fixtures" / "sample.pgn"  # 5 games: 3 valid, 1 fixed, 1 invalid
SUMMARY = "5 games: 3 valid, 1 fixed, 1 invalid"
COMMANDS = {  # each command that ends with a summary, with the arguments it needs
    "validate": ["validate"],
    "to-fen": ["to-fen"],
    "export": ["export", "--parquet", "{tmp}/out"],
}
needs_dev_full = pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full on this system")


def pgntools(*args, cwd=REPO, **kwargs):
    return subprocess.run([sys.executable, "-m", "pgntools", *map(str, args)], cwd=cwd, capture_output=True,
                          text=True, timeout=300, **kwargs)


def command(name, tmp_path):
    return [arg.format(tmp=tmp_path) for arg in COMMANDS[name]]


@pytest.fixture(scope="module")
def big(tmp_path_factory) -> Path:
    """The sample 4,000 times (6.6 MB): its FEN lines (~1 MB) and PGN fill any pipe buffer."""
    path = tmp_path_factory.mktemp("big") / "big.pgn"
    path.write_bytes(SAMPLE.read_bytes() * 4000)
    return path


# ---------------------------------------------------------------- --exit-zero

def test_validate_exit_zero_makes_invalid_games_exit_0_and_still_reports_them(tmp_path):
    plain = pgntools("validate", SAMPLE)
    assert plain.returncode == 1, plain.stderr
    report = tmp_path / "report.jsonl"
    zero = pgntools("validate", "--exit-zero", "--report", report, SAMPLE)
    assert zero.returncode == 0, zero.stderr
    assert SUMMARY in zero.stderr  # the invalid game is still counted ...
    assert '"status": "invalid"' in report.read_text()  # ... and reported
    assert zero.stdout == plain.stdout


DATA_COMMANDS = {  # the commands whose job is to produce data (issue 37 A4): 0 when they completed
    "to-fen": ["to-fen", "-o", "{tmp}/fen.txt"],
    "export": ["export", "--parquet", "{tmp}/out"],
    "stats": ["stats", "--json", "{tmp}/stats.json"],
    "book": ["book", "-o", "{tmp}/book.bin"],
    "split": ["split", "--games", "2", "-o", "{tmp}/part{n}.pgn"],
    "filter": ["filter", "-o", "{tmp}/some.pgn", "--limit", "100"],
}


@pytest.mark.parametrize("name", DATA_COMMANDS)
def test_data_commands_exit_0_with_invalid_games_and_1_with_fail_on_invalid(tmp_path, name):
    args = [arg.format(tmp=tmp_path / "a", n="{n}") for arg in DATA_COMMANDS[name]]
    (tmp_path / "a").mkdir()
    summary = tmp_path / "summary.json"
    done = pgntools(*args, "--summary", summary, SAMPLE)
    assert done.returncode == 0, done.stderr
    assert "3 valid, 1 fixed, 1 invalid" in done.stderr and '"invalid": 1' in summary.read_text()  # counted, not hidden
    outputs = sorted(p.name for p in (tmp_path / "a").rglob("*"))
    assert outputs  # the data was written
    (tmp_path / "b").mkdir()
    failing = pgntools(*[arg.format(tmp=tmp_path / "b", n="{n}") for arg in DATA_COMMANDS[name]],
                       "--fail-on-invalid", SAMPLE)
    assert failing.returncode == 1 and "1 invalid" in failing.stderr, failing.stderr
    assert sorted(p.name for p in (tmp_path / "b").rglob("*")) == outputs  # the same outputs
    (tmp_path / "c").mkdir()
    still = pgntools(*[arg.format(tmp=tmp_path / "c", n="{n}") for arg in DATA_COMMANDS[name]], "--exit-zero",
                     SAMPLE, "--quiet")  # the old way to ask for 0: accepted
    assert still.returncode == 0, still.stderr


def test_exit_zero_keeps_usage_errors_and_unreadable_inputs_non_zero(tmp_path):
    missing = pgntools("validate", "--exit-zero", tmp_path / "missing.pgn")
    assert missing.returncode == 2 and "no such file" in missing.stderr
    usage = pgntools("to-fen", "--exit-zero", "--no-such-option", SAMPLE)
    assert usage.returncode == 2
    corrupt = tmp_path / "broken.pgn.gz"
    corrupt.write_bytes(gzip.compress(SAMPLE.read_bytes() * 20)[:-300])  # truncated
    broken = pgntools("validate", "--exit-zero", corrupt)
    assert broken.returncode == 2 and "pgntools: error: " in broken.stderr


@needs_dev_full
def test_exit_zero_keeps_a_full_disk_non_zero():
    result = pgntools("validate", "--exit-zero", "-o", "/dev/full", SAMPLE)
    assert result.returncode == 74, result.stderr


# ---------------------------------------------------------------- I/O failures: 74, never 1

@needs_dev_full
@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("args", [["validate", "-o", "/dev/full"], ["to-fen", "-o", "/dev/full"],
                                  ["validate", "--report", "/dev/full"]], ids=["validate-o", "to-fen-o", "report"])
def test_a_full_disk_exits_74_with_one_line(tmp_path, big, args, jobs):
    result = pgntools(*args, "--jobs", jobs, big)
    assert result.returncode == 74, result.stderr  # not 1: invalid games and a failed write differ
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and "No space left on device" in lines[0], result.stderr
    assert "Traceback" not in result.stderr


@needs_dev_full
def test_a_full_disk_leaves_no_other_output_under_its_name(tmp_path):
    rejects, report = tmp_path / "bad.pgn", tmp_path / "report.jsonl"
    result = pgntools("validate", "-o", "/dev/full", "--rejects", rejects, "--report", report, SAMPLE)
    assert result.returncode == 74
    assert list(tmp_path.iterdir()) == []


@needs_dev_full
@pytest.mark.parametrize("args", [["validate", "-o", "-", SAMPLE], ["to-fen", SAMPLE], ["scan", SAMPLE],
                                  ["perft", "2"], ["--help"], ["--version"]],
                         ids=["validate", "to-fen", "scan", "perft", "help", "version"])
def test_stdout_on_a_full_disk_exits_74_with_one_line(args):
    with open("/dev/full", "w") as full:
        result = subprocess.run([sys.executable, "-m", "pgntools", *map(str, args)], cwd=REPO, stdout=full,
                                stderr=subprocess.PIPE, text=True, timeout=300)
    assert result.returncode == 74, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and "No space left on device" in lines[0], result.stderr


# ---------------------------------------------------------------- a closed pipe: quiet, 141

def through_head(args, tmp_path, cwd=REPO):
    """`python -m pgntools ARGS | head -1` in bash: (pgntools' status, head's output, pgntools' stderr)."""
    err = tmp_path / "stderr.txt"
    line = subprocess.run(
        ["bash", "-c", 'set -o pipefail; "$@" 2>"$ERR" | head -1; echo "${PIPESTATUS[0]}"', "pipe",
         sys.executable, "-m", "pgntools", *map(str, args)],
        cwd=cwd, capture_output=True, text=True, timeout=300, env={**os.environ, "ERR": str(err)})
    *out, status = line.stdout.splitlines()
    return int(status), out, err.read_text()


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_to_fen_into_a_closed_pipe_ends_quietly_with_141(tmp_path, big, jobs):
    status, out, err = through_head(["to-fen", "--jobs", jobs, big], tmp_path)
    assert out == ["1n1Rkb1r/p4ppp/4q3/4p1B1/4P3/8/PPP2PPP/2K5 b k - 1 17"]
    assert err == ""  # no message, no traceback, no "Exception ignored ... BrokenPipeError"
    assert status == 141


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_closed_pipe_leaves_no_other_output_under_its_name(tmp_path, big, jobs):
    outputs = tmp_path / "outputs"
    outputs.mkdir()
    status, out, err = through_head(["validate", "--jobs", jobs, "-o", "-", "--rejects", outputs / "bad.pgn",
                                     "--report", outputs / "report.jsonl", "--summary", outputs / "s.json", big],
                                    tmp_path)
    assert (status, out, err) == (141, ['[Event "Paris Opera"]'], "")
    assert list(outputs.iterdir()) == []  # as on Ctrl-C: no file, and no temporary one left


def test_export_with_its_report_into_a_closed_pipe_leaves_no_parts(tmp_path, big):
    status, out, err = through_head(["export", "--jobs", "2", "--parquet", tmp_path / "out", "--report", "-", big],
                                    tmp_path)
    assert (status, err) == (141, "") and out[0].startswith('{"game": ')
    left = [p for p in (tmp_path / "out").rglob("*") if p.is_file()]
    assert left == []


def test_the_installed_command_ends_quietly_too(tmp_path, big):
    # the console script (pgntools.cli:main) and python -m run the same main(); here from
    # outside the repository, with the repository on PYTHONPATH
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    err = tmp_path / "stderr.txt"
    script = f"from pgntools.cli import main; import sys; sys.argv[0] = 'pgntools'; main()"
    line = subprocess.run(["bash", "-c", f'"$@" 2>{err} | head -1 >/dev/null; echo "${{PIPESTATUS[0]}}"', "pipe",
                           sys.executable, "-c", script, "to-fen", "--jobs", "1", str(big)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300, env=env)
    assert line.stdout.strip() == "141" and err.read_text() == ""


# ---------------------------------------------------------------- --quiet

@pytest.mark.parametrize("name", COMMANDS)
@pytest.mark.parametrize("flag", ["-q", "--quiet"])
def test_quiet_drops_the_summary_line(tmp_path, name, flag):
    loud = pgntools(*command(name, tmp_path / "a"), SAMPLE)
    assert SUMMARY in loud.stderr
    quiet = pgntools(*command(name, tmp_path / "b"), flag, SAMPLE)
    assert (quiet.returncode, quiet.stderr) == (1 if name == "validate" else 0, "")  # (issue 37 A4)
    assert quiet.stdout == loud.stdout


def test_quiet_still_prints_errors(tmp_path):
    missing = pgntools("validate", "-q", tmp_path / "missing.pgn")
    assert missing.returncode == 2 and missing.stderr.startswith("pgntools: error: ")
    corrupt = tmp_path / "broken.pgn.gz"
    corrupt.write_bytes(gzip.compress(SAMPLE.read_bytes() * 20)[:-300])
    broken = pgntools("validate", "-q", corrupt)
    assert broken.returncode == 2 and broken.stderr.count("\n") == 1 and "pgntools: error: " in broken.stderr
    if os.path.exists("/dev/full"):
        full = pgntools("to-fen", "--quiet", "-o", "/dev/full", SAMPLE)
        assert full.returncode == 74 and "No space left on device" in full.stderr


def test_quiet_with_exit_zero_is_silent_success(tmp_path):
    result = pgntools("validate", "-q", "--exit-zero", SAMPLE)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


# ---------------------------------------------------------------- documented

@pytest.mark.parametrize("name", COMMANDS)
def test_each_command_documents_its_exit_statuses(name):
    text = pgntools(name, "--help").stdout
    verdict = "--exit-zero" if name == "validate" else "--fail-on-invalid"  # (issue 37 A4)
    for needle in (verdict, "--quiet", "Exit status", "74", "141", "130/143"):
        assert needle in text, (name, needle)


def test_the_group_help_lists_every_exit_status():
    text = pgntools("--help").stdout
    for code in ("0", "1", "2", "74", "141", "130", "143", "70"):
        assert f"\n    {code} " in text or f", {code} " in text, code


@needs_dev_full
def test_in_process_the_exits_are_the_same(tmp_path):
    # Click's CliRunner gives the command a stdout that is no file: pointing it at /dev/null after
    # a failure must not turn the failure into another one
    from click.testing import CliRunner

    from pgntools.cli import cli

    result = CliRunner().invoke(cli, ["validate", "-o", "/dev/full", str(SAMPLE)])
    assert result.exit_code == 74 and "No space left on device" in result.output
