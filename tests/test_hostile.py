"""Hostile and broken inputs (issue 8): inputs that are not files, outputs that cannot be written,
damaged compressed streams, and content built to hurt a reader (random and NUL bytes, huge
comments, tags, lines and games, deep variations, mixed encodings), through the CLI and
``read_games``.

Every input is generated here; the expected counts, moves and locations follow from how it was
built. A damaged stream is checked against the same command run on a clean stream of exactly
the games before the damage: the outputs must be identical.
"""
from __future__ import annotations

import bz2
import gzip
import json
import lzma
import os
import random
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import pgntools
from pgn_helpers import cli_run, kinds, note_kinds, write
from pgntools.reader import ERROR_KINDS

REPO = Path(__file__).resolve().parents[1]

zstandard = pytest.importorskip("zstandard")
pq = pytest.importorskip("pyarrow.parquet")

# As the command-line tools write them: zstd with a checksum, bz2 in 100 KB blocks (it decodes a
# block only when it has all of it: small blocks keep the tests' inputs small).
COMPRESS = {"gz": gzip.compress, "bz2": lambda data: bz2.compress(data, 1), "xz": lzma.compress,
            "zst": lambda data: zstandard.ZstdCompressor(write_checksum=True).compress(data)}

# Games of every status, so that each output (PGN, rejects, report, positions) gets rows; a
# random comment in each keeps them from compressing 50 to 1 (as real games do not).
PIECES = [
    '[Event "valid {n}"]\n[Result "1-0"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 {{ {r} }} Nf6 4. Qxf7# 1-0\n\n',
    '[Event "fixed {n}"]\n[Result "*"]\n\n1. f3 e5 2. g4 {{ {r} }} Qh4# *\n\n',
    '[Event "invalid {n}"]\n[Result "*"]\n\n1. e4 e5 2. Ke3 {{ {r} }} Nc6 *\n\n',
    '[Event "notes {n}"]\n[Result "*"]\n\n1. e2e4 {{ [%clk 0:03:00] {r} }} e5 (1... c5 2. Nf3) 2. Ngf3 *\n\n',
]


def games_data(n_games: int, seed: int = 1) -> bytes:
    rng = random.Random(seed)
    return "".join(PIECES[i % len(PIECES)].format(n=i, r=rng.randbytes(12).hex()) for i in range(n_games)).encode()


def run(args, expect=None):
    result = cli_run([str(a) for a in args])
    if expect is not None:
        assert result.exit_code == expect, (result.exit_code, result.stderr)
    return result


def stderr_lines(result) -> list:
    return result.stderr.strip().splitlines()


def leftovers(folder: Path) -> list:
    """Temporary files left in a folder tree (hidden .part / .tmp names)."""
    return [p for p in folder.rglob(".*") if p.is_file()]


# ---------------------------------------------------------------- inputs that are not files

COMMANDS = {
    "validate": lambda out: ["validate", "-o", out / "out.pgn", "--rejects", out / "bad.pgn",
                             "--report", out / "report.jsonl", "--summary", out / "summary.json"],
    "to-fen": lambda out: ["to-fen", "-o", out / "out.csv", "--format", "csv", "--report", out / "report.jsonl"],
    "export": lambda out: ["export", "--parquet", out / "dataset", "--summary", out / "summary.json"],
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("jobs", [1, 2])
@pytest.mark.parametrize("bad", ["missing", "directory"])
def test_a_missing_file_or_a_directory_fails_before_any_output(tmp_path, command, jobs, bad):
    good = write(tmp_path, games_data(40), "good.pgn")
    bad_path = tmp_path / "no-such.pgn" if bad == "missing" else tmp_path / "a-folder"
    if bad == "directory":
        bad_path.mkdir()
    out = tmp_path / "out"
    out.mkdir()
    result = run([*COMMANDS[command](out), "--jobs", jobs, "--chunk-bytes", 2000, good, bad_path], expect=2)
    lines = stderr_lines(result)
    assert len(lines) == 1 and lines[0].startswith("pgntools: error: ") and str(bad_path) in lines[0]
    assert ("directory" if bad == "directory" else "no such file") in lines[0]
    assert list(out.iterdir()) == []  # not even a temporary file or the dataset folder


@pytest.mark.parametrize("problem", ["missing-input", "unwritable-output"])
def test_the_checks_come_before_reading_any_input(tmp_path, problem):
    # stdin is a pipe that stays open and empty: a run that began to read it would wait forever.
    args = ["validate", "-", tmp_path / "missing.pgn"] if problem == "missing-input" else \
        ["validate", "-", "-o", tmp_path / "missing-folder" / "out.pgn"]
    err = tmp_path / "stderr"
    with open(err, "wb") as err_file:
        proc = subprocess.Popen([sys.executable, "-m", "pgntools", *map(str, args), "--jobs", "2"],
                                stdin=subprocess.PIPE, stderr=err_file, cwd=REPO)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            pytest.fail("the run began to read its input before checking the paths")
        finally:
            proc.stdin.close()
    lines = err.read_text().strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1 and "missing" in lines[0]


def test_read_games_names_the_missing_file(tmp_path):
    with pytest.raises(pgntools.InputError, match="no-such.pgn"):
        list(pgntools.read_games([str(write(tmp_path, games_data(2))), str(tmp_path / "no-such.pgn")]))


# ---------------------------------------------------------------- outputs that cannot be written

OUTPUT_OPTIONS = [
    ("validate", "-o"), ("validate", "--rejects"), ("validate", "--report"), ("validate", "--summary"),
    ("to-fen", "-o"), ("to-fen", "--report"), ("export", "--parquet"), ("export", "--summary"),
]
# (export --parquet creates a missing folder, as mkdir -p does: not a failure)
UNWRITABLE = [(c, o, w) for c, o in OUTPUT_OPTIONS for w in ("under-a-file", "missing-folder")
              if (o, w) != ("--parquet", "missing-folder")]


@pytest.mark.parametrize("command, option, where", UNWRITABLE, ids=[f"{c}{o}-{w}" for c, o, w in UNWRITABLE])
def test_an_unwritable_output_fails_before_any_work(tmp_path, command, option, where):
    src = write(tmp_path, games_data(40), "games.pgn")
    blocker = write(tmp_path, b"a plain file, not a folder", "blocker")
    bad = blocker / "out" if where == "under-a-file" else tmp_path / "no-such-folder" / "out"
    out = tmp_path / "out"
    out.mkdir()
    args = COMMANDS[command](out)
    args[args.index(option) + 1] = bad
    result = run([*args, "--jobs", 1, src], expect=2)
    lines = stderr_lines(result)
    assert len(lines) == 1 and lines[0].startswith("pgntools: error: ") and str(bad.parent) in lines[0]
    assert "games" not in lines[0]  # no summary line: no game was read
    assert [p for p in out.rglob("*") if p.is_file()] == []  # the other outputs were not begun


def test_an_output_that_is_a_directory(tmp_path):
    src = write(tmp_path, games_data(4))
    result = run(["validate", src, "-o", tmp_path, "--jobs", 1], expect=2)
    assert "is a directory" in result.stderr and len(stderr_lines(result)) == 1
    result = run(["export", "--parquet", src, src, "--jobs", 1], expect=2)  # OUT_DIR is a file: usage error
    assert str(src) in result.stderr and "is a file" in result.stderr


def test_output_to_a_fifo_is_written_in_place(tmp_path):
    # Renaming a finished temporary file over a FIFO (or /dev/null, /dev/stdout) would replace it
    # with a plain file: such outputs are written in place.
    src = write(tmp_path, games_data(8))
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()), daemon=True)
    reader.start()
    result = run(["validate", src, "-o", fifo, "--jobs", 1], expect=1)
    reader.join(10)
    assert fifo.is_fifo() and not leftovers(tmp_path)
    expected = run(["validate", src, "-o", "-", "--jobs", 1]).stdout_bytes
    assert received == [expected] and expected.count(b"[Event ") == 6, result.stderr


def test_output_through_a_symlink_keeps_the_link(tmp_path):
    src = write(tmp_path, games_data(8))
    target = tmp_path / "real.pgn"
    link = tmp_path / "link.pgn"
    link.symlink_to(target)
    run(["validate", src, "-o", link, "--jobs", 1], expect=1)
    assert link.is_symlink() and target.read_bytes().count(b"[Event ") == 6 and not leftovers(tmp_path)


# ---------------------------------------------------------------- damaged compressed streams

def damaged(data: bytes, suffix: str, damage: str) -> bytes:
    """``data`` compressed, then cut in the middle or with 64 bytes flipped in the middle."""
    packed = bytearray(COMPRESS[suffix](data))
    middle = len(packed) // 2
    if damage == "truncated":
        return bytes(packed[:middle])
    for i in range(middle, middle + 64):
        packed[i] ^= 0x55
    return bytes(packed)


def broken_at(error: pgntools.InputError) -> int:
    message = str(error)
    return int(message.split("at decompressed byte ")[1].split()[0])


@pytest.mark.parametrize("suffix", sorted(COMPRESS))
@pytest.mark.parametrize("damage", ["truncated", "corrupt"])
def test_read_games_yields_the_games_before_the_damage_then_raises(tmp_path, suffix, damage):
    data = games_data(6_000)  # ~600 KB of PGN
    path = write(tmp_path, damaged(data, suffix, damage), f"games.pgn.{suffix}")
    whole = [(g.offset, g.headers, g.status) for g in pgntools.read_games(write(tmp_path, data, "plain.pgn"))]
    got = []
    with pytest.raises(pgntools.InputError) as info:
        for game in pgntools.read_games(path):
            got.append((game.offset, game.headers, game.status))
    message = str(info.value)
    assert message.startswith(f"{path}: {damage} ") and "games before it were read" in message
    at = broken_at(info.value)
    assert at > len(data) * 0.3 and all(offset < at for offset, _, _ in got)
    n = len(got)
    if damage == "truncated":
        # exactly the games that ended before the break: as in the undamaged stream
        assert got == whole[:n]
        end = [o for o, _, _ in whole[1:]] + [len(data)]  # where each game's bytes end
        assert end[n - 1] <= at + 2 and at < end[n] and at > len(data) // 2 - (128 << 10)
    else:
        # Damaged data may decode to garbage before the format notices (gzip checks its CRC only at
        # the end, zstd at the end of a frame): the games before the damaged spot are still all there.
        lead = next((i for i, (a, b) in enumerate(zip(got, whole)) if a != b), n)
        assert lead > len(whole) * 0.3


BROKEN_COMMANDS = {
    "validate": lambda: ["validate", "-o", "out.pgn", "--rejects", "bad.pgn", "--report", "report.jsonl",
                         "--summary", "summary.json"],
    "to-fen": lambda: ["to-fen", "-o", "out.csv", "--format", "csv", "--every-ply", "--report", "report.jsonl"],
    "export": lambda: ["export", "--parquet", "dataset", "--summary", "summary.json"],
}


def outputs_of(folder: Path) -> dict:
    """Every output in a folder as comparable data: bytes, a Parquet dataset's tables as rows (a
    parallel run may write more part files), the summary without its timing, byte count and
    input errors."""
    got = {}
    for path in sorted(folder.rglob("*")):
        if not path.is_file() or path.name.startswith("input."):
            continue
        name = path.relative_to(folder).as_posix()
        if path.suffix == ".parquet":
            rows = got.setdefault(path.parent.relative_to(folder).as_posix(), [])
            rows += pq.read_table(path).to_pylist()
            rows.sort(key=lambda row: (row["game_id"], row.get("ply", 0)))
        elif path.name == "summary.json":
            summary = json.loads(path.read_text())
            got[name] = {k: v for k, v in summary.items() if k not in ("seconds", "bytes", "input_errors")}
        else:
            got[name] = path.read_bytes()
    return got


def run_in(folder: Path, monkeypatch, args, expect):
    """Runs a command in ``folder`` on its file input.pgn.SUFFIX (outputs name the input by that
    relative name, so two folders' outputs compare)."""
    monkeypatch.chdir(folder)
    [name] = [p.name for p in folder.iterdir() if p.name.startswith("input.")]
    return run([*args, name], expect=expect)


# Damage that decodes to no garbage before it is noticed (see above), so that the games before it
# are exactly those of the undamaged stream.
EXACT_DAMAGE = [("gz", "truncated"), ("zst", "truncated"), ("bz2", "truncated"), ("xz", "corrupt")]


@pytest.mark.parametrize("command", sorted(BROKEN_COMMANDS))
@pytest.mark.parametrize("suffix, damage", EXACT_DAMAGE)
def test_a_damaged_stream_writes_the_games_before_it_and_exits_2(tmp_path, monkeypatch, command, suffix, damage):
    data = games_data(6_000)  # ~600 KB of PGN: several 64 KB pieces and parallel chunks
    broken_dir = tmp_path / "broken"
    broken_dir.mkdir()
    write(broken_dir, damaged(data, suffix, damage), f"input.pgn.{suffix}")
    runs = {}
    for jobs in (1, 2):
        folder = broken_dir / f"jobs{jobs}"
        folder.mkdir()
        (folder / f"input.pgn.{suffix}").symlink_to(broken_dir / f"input.pgn.{suffix}")
        result = run_in(folder, monkeypatch, [*BROKEN_COMMANDS[command](), "--jobs", jobs, "--chunk-bytes", 50_000],
                        expect=2)
        summary_line, error = stderr_lines(result)
        assert error.startswith(f"pgntools: error: input.pgn.{suffix}: {damage} ") and "at decompressed byte" in error
        assert not leftovers(folder)
        runs[jobs] = (summary_line.split(" (")[0], error, outputs_of(folder))
    assert runs[1] == runs[2]  # the same games, errors and outputs for any number of jobs
    # The outputs are those of a clean run over exactly the games before the damage.
    n_games = int(runs[1][0].split(": ")[1].split()[0].replace(",", ""))
    offsets = [g.offset for g in pgntools.read_games(write(tmp_path, data, "plain.pgn"), moves=False)]
    assert len(offsets) * 0.3 < n_games < len(offsets)
    clean_dir = tmp_path / "clean"
    clean_dir.mkdir()
    write(clean_dir, COMPRESS[suffix](data[:offsets[n_games]]), f"input.pgn.{suffix}")
    result = run_in(clean_dir, monkeypatch, [*BROKEN_COMMANDS[command](), "--jobs", 1], expect=1)
    assert result.stderr.strip().split(" (")[0] == runs[1][0]
    assert outputs_of(clean_dir) == runs[1][2]


@pytest.mark.parametrize("jobs", [1, 2])
def test_the_inputs_after_a_damaged_one_are_still_read(tmp_path, jobs):
    first, last = games_data(400), games_data(40).replace(b'"valid ', b'"last valid ')
    paths = [write(tmp_path, first, "first.pgn"), write(tmp_path, damaged(games_data(4000), "xz", "corrupt"),
                                                              "middle.pgn.xz"), write(tmp_path, last, "last.pgn")]
    report = tmp_path / "report.jsonl"
    result = run(["validate", *paths, "--report", report, "-o", tmp_path / "out.pgn", "--jobs", jobs,
                  "--chunk-bytes", 20_000], expect=2)
    lines = stderr_lines(result)
    assert len(lines) == 2 and "middle.pgn.xz" in lines[1] and "corrupt xz stream" in lines[1]
    records = [json.loads(x) for x in report.read_text().splitlines()]
    assert records[-1]["file"] == str(paths[2])  # the last input was read, its games numbered on
    games = int(lines[0].split(": ")[1].split()[0].replace(",", ""))
    assert records[-1]["game"] == games - 1 and games > 400 + 40
    assert b'[Event "last valid 36"]' in (tmp_path / "out.pgn").read_bytes()


def test_a_stream_damaged_at_its_start_gives_empty_outputs_and_exit_2(tmp_path):
    path = write(tmp_path, b"\x1f\x8b" + bytes(range(256)) * 4, "garbage.pgn.gz")  # gzip magic, then junk
    result = run(["validate", path, "-o", tmp_path / "out.pgn", "--summary", tmp_path / "s.json", "--jobs", 1],
                 expect=2)
    assert "garbage.pgn.gz" in stderr_lines(result)[-1] and "at decompressed byte 0" in result.stderr
    assert (tmp_path / "out.pgn").read_bytes() == b""
    assert json.loads((tmp_path / "s.json").read_text())["input_errors"] == [stderr_lines(result)[-1][17:]]
