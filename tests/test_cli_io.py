"""The command line's inputs and outputs as a pipeline sees them (issue 22, points 1, 5, 6, 7, 9),
each through the real CLI in a child process (``python -m pgntools``, cwd = the repository):

- an input is never overwritten: an output onto an input (same path, symlink, hard link) is a
  usage error before anything is read or written; two outputs to stdout too; export --overwrite
  replaces only the parts an earlier export wrote;
- outputs compressed by suffix, zip inputs member by member, stdin read when no FILES are given;
- input that is not PGN says what it looks like; junk between games is counted;
- options that cannot both hold are usage errors; to-fen's format from the output's suffix;
  a --scheduler address checked and given up on after --connect-timeout.
"""
from __future__ import annotations

import bz2
import gzip
import json
import lzma
import os
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

zstandard = pytest.importorskip("zstandard")
pq = pytest.importorskip("pyarrow.parquet")

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "fixtures" / "sample.pgn"

DECOMPRESS = {".gz": gzip.decompress, ".bz2": bz2.decompress, ".xz": lzma.decompress,
              ".zst": lambda data: zstandard.ZstdDecompressor().decompressobj().decompress(data)}


def pgntools(*args, input=None, timeout=120, env=None, stdin=None, stdout=None):
    """``python -m pgntools ARGS`` in a child process; returns the CompletedProcess (bytes)."""
    kwargs = {"stdin": stdin} if stdin is not None else {"input": input if input is not None else b""}
    try:
        return subprocess.run([sys.executable, "-m", "pgntools", *map(str, args)], cwd=REPO, timeout=timeout,
                              stdout=stdout if stdout is not None else subprocess.PIPE, stderr=subprocess.PIPE,
                              env={**os.environ, **(env or {})}, **kwargs)
    except subprocess.TimeoutExpired:
        pytest.fail(f"pgntools {' '.join(map(str, args))} did not finish in {timeout} s")


def error_lines(done) -> list:
    return done.stderr.decode().strip().splitlines()


@pytest.fixture
def sample(tmp_path) -> Path:
    path = tmp_path / "games.pgn"
    path.write_bytes(SAMPLE.read_bytes())
    return path


# ---------------------------------------------------------------- 1. an input is never an output

def aliases(tmp_path: Path, source: Path) -> dict:
    """The input under its own path, through a symlink, and through a hard link."""
    symlink, hardlink = tmp_path / "symlink.pgn", tmp_path / "hardlink.pgn"
    symlink.symlink_to(source)
    os.link(source, hardlink)
    return {"same path": source, "symlink": symlink, "hard link": hardlink}


OUTPUT_OPTIONS = {  # option -> a command that writes it
    "-o": ["validate"], "--rejects": ["validate"], "--report": ["to-fen"], "--summary": ["export", "--parquet", "ds"],
}


@pytest.mark.parametrize("option", sorted(OUTPUT_OPTIONS))
@pytest.mark.parametrize("kind", ["same path", "symlink", "hard link"])
def test_an_output_onto_an_input_is_a_usage_error_and_the_input_is_unchanged(tmp_path, sample, option, kind):
    before = sample.read_bytes()
    target = aliases(tmp_path, sample)[kind]
    other = tmp_path / "other.pgn"  # a second input: the check covers every input
    other.write_bytes(before)
    command = OUTPUT_OPTIONS[option]
    done = pgntools(*command, other, sample, option, target, "--jobs", 1)
    assert done.returncode == 2, done.stderr
    assert error_lines(done) == [f"pgntools: error: {option} {target} is the input {sample} (the same file): "
                                 "an input is never overwritten; write the output elsewhere"]
    assert sample.read_bytes() == before and target.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["games.pgn", "other.pgn", "symlink.pgn",
                                                                 "hardlink.pgn"])  # nothing written, no temporary


def test_an_input_on_stdin_is_not_an_output_either(tmp_path, sample):
    before = sample.read_bytes()
    with open(sample, "rb") as stdin:
        done = pgntools("validate", "-", "-o", aliases(tmp_path, sample)["hard link"], stdin=stdin)
    assert done.returncode == 2 and b"is the input stdin (the same file)" in done.stderr
    with open(sample, "ab") as stdout:  # `pgntools validate x.pgn -o - >> x.pgn`
        done = pgntools("validate", sample, "-o", "-", stdout=stdout)
    assert done.returncode == 2 and f"-o stdout is the input {sample}".encode() in done.stderr
    assert sample.read_bytes() == before


@pytest.mark.parametrize("kind", ["same path", "symlink", "hard link"])
def test_an_export_part_that_is_an_input_is_refused(tmp_path, sample, kind):
    dataset = tmp_path / "ds"
    assert pgntools("export", "--parquet", dataset, sample).returncode == 0
    part = dataset / "games" / "part-00000.parquet"
    before = part.read_bytes()
    target = aliases(tmp_path, part)[kind] if kind != "same path" else part
    done = pgntools("export", "--parquet", dataset, "--overwrite", target, "--jobs", 1)
    assert done.returncode == 2
    assert error_lines(done) == [f"pgntools: error: --parquet {dataset}: its part {part} is the input {target}: "
                                 "an input is never overwritten; export elsewhere"]
    assert part.read_bytes() == before


def test_two_outputs_to_stdout_are_a_usage_error(sample):
    done = pgntools("validate", sample, "-o", "-", "--report", "-")
    assert done.returncode == 2 and done.stdout == b""
    assert error_lines(done) == ["pgntools: error: -o and --report write to stdout ('-'), where they would mix: "
                                 "give all but one of them a file"]
    done = pgntools("to-fen", sample, "--report", "-", "--summary", "-")  # to-fen's -o is '-' by default
    assert done.returncode == 2 and b"-o, --report and --summary write to stdout" in done.stderr


def test_the_readme_first_example_writes_only_report_lines(tmp_path):
    readme = (REPO / "README.md").read_text()
    command = next(line for line in readme.splitlines() if "pgntools validate fixtures/sample.pgn" in line)
    args = command.split("pgntools ", 1)[1].split()
    done = pgntools(*args)
    assert done.returncode == 1, done.stderr
    lines = [json.loads(line) for line in done.stdout.decode().splitlines()]
    assert lines and all(set(line) >= {"game", "file", "status", "errors"} for line in lines)
    assert [line["status"] for line in lines].count("invalid") == 1


def part_names(dataset: Path, table: str) -> list:
    return sorted(p.name for p in (dataset / table).iterdir())


def rows(dataset: Path, table: str) -> int:
    return sum(pq.read_table(p).num_rows for p in (dataset / table).glob("part-*.parquet"))


def test_export_overwrite_replaces_only_an_earlier_exports_parts(tmp_path, sample):
    dataset = tmp_path / "ds"
    big = tmp_path / "big.pgn"
    big.write_bytes(sample.read_bytes() * 40)  # 200 games, in several parts (50 games a part) of small chunks
    assert pgntools("export", "--parquet", dataset, big, "--jobs", 4, "--chunk-bytes", 4000,
                    "--target-part-size", 50 * 600).returncode == 0
    old_parts = part_names(dataset, "games")
    assert len(old_parts) > 2 and rows(dataset, "games") == 200
    foreign = {dataset / "README.txt": b"mine", dataset / "games" / "notes.txt": b"keep",
               dataset / "moves" / "my-table.parquet": b"not ours"}
    for path, data in foreign.items():
        path.write_bytes(data)

    refused = pgntools("export", "--parquet", dataset, sample)  # without --overwrite: refused, as before
    assert refused.returncode == 2 and b"already holds part files" in refused.stderr
    assert part_names(dataset, "games") == sorted(old_parts + ["notes.txt"])

    done = pgntools("export", "--parquet", dataset, "--overwrite", sample, "--jobs", 1)
    assert done.returncode == 0, done.stderr
    assert part_names(dataset, "games") == ["notes.txt", "part-00000.parquet"]
    assert part_names(dataset, "moves") == ["my-table.parquet", "part-00000.parquet"]
    assert rows(dataset, "games") == 5  # the new export's rows only
    assert all(path.read_bytes() == data for path, data in foreign.items())


def open_fifo_for_writing(fifo: Path, child: subprocess.Popen, timeout: float = 60):
    """The FIFO's writing end once ``child`` opens it for reading (a child that ends first fails
    the test instead of blocking it)."""
    import errno

    deadline = time.monotonic() + timeout
    while True:
        try:
            fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
            break
        except OSError as exc:
            if exc.errno != errno.ENXIO:  # (no reader yet)
                raise
        if child.poll() is not None:
            pytest.fail(f"pgntools ended before reading its input: {child.stderr.read().decode()}")
        if time.monotonic() > deadline:
            child.kill()
            pytest.fail("pgntools did not open its input")
        time.sleep(0.05)
    os.set_blocking(fd, True)
    return os.fdopen(fd, "wb")


def test_an_interrupted_export_overwrite_leaves_the_old_parts(tmp_path, sample):
    """The old parts go only once the new ones are complete: an export stopped while it reads
    leaves the earlier dataset as it was (and no temporary files)."""
    dataset = tmp_path / "ds"
    assert pgntools("export", "--parquet", dataset, sample).returncode == 0
    before = {p: p.read_bytes() for p in dataset.rglob("*") if p.is_file()}
    fifo = tmp_path / "slow.pgn"
    os.mkfifo(fifo)
    child = subprocess.Popen([sys.executable, "-m", "pgntools", "export", "--parquet", str(dataset), "--overwrite",
                              "--jobs", "1", str(fifo)], cwd=REPO, stderr=subprocess.PIPE)
    with open_fifo_for_writing(fifo, child) as feed:
        feed.write(sample.read_bytes() * 300)  # games read and written, the input not at its end
        feed.flush()
        time.sleep(1.0)
        child.send_signal(signal.SIGTERM)
        assert child.wait(timeout=60) == 143, child.stderr.read()
    child.stderr.close()
    after = {p: p.read_bytes() for p in dataset.rglob("*") if p.is_file()}
    assert after == before


# ---------------------------------------------------------------- 5. compressed outputs, zip inputs, stdin

@pytest.mark.parametrize("suffix", sorted(DECOMPRESS))
@pytest.mark.parametrize("jobs", [1, 2])
def test_outputs_are_compressed_by_suffix(tmp_path, sample, suffix, jobs):
    plain, packed = tmp_path / "plain", tmp_path / "packed"
    for folder, ending in ((plain, ""), (packed, suffix)):
        folder.mkdir()
        done = pgntools("validate", sample, "-o", folder / f"out.pgn{ending}", "--rejects", folder / f"bad.pgn{ending}",
                        "--report", folder / f"report.jsonl{ending}", "--summary", folder / f"summary.json{ending}",
                        "--jobs", jobs, "--chunk-bytes", 500)
        assert done.returncode == 1, done.stderr
    for name in ("out.pgn", "bad.pgn", "report.jsonl"):
        data = (packed / f"{name}{suffix}").read_bytes()
        assert data != (plain / name).read_bytes() and DECOMPRESS[suffix](data) == (plain / name).read_bytes()
    summaries = [json.loads(text) for text in ((plain / "summary.json").read_bytes(),
                                               DECOMPRESS[suffix]((packed / f"summary.json{suffix}").read_bytes()))]
    assert [{k: v for k, v in s.items() if k != "seconds"} for s in summaries][0]["games"] == 5
    assert summaries[0]["invalid"] == summaries[1]["invalid"] == 1
    fen = tmp_path / f"final.fen{suffix}"
    assert pgntools("to-fen", sample, "-o", fen, "--jobs", jobs).returncode == 0
    assert DECOMPRESS[suffix](fen.read_bytes()) == pgntools("to-fen", sample).stdout
    # a compressed output is an input like any other
    again = pgntools("validate", packed / f"out.pgn{suffix}", "-o", "-")
    assert again.returncode == 0 and again.stdout == (plain / "out.pgn").read_bytes()


def test_stdout_stays_plain(sample):
    done = pgntools("validate", sample, "-o", "-", "--report", "/dev/null")
    assert done.returncode == 1 and done.stdout.startswith(b'[Event "')


def zip_of(path: Path, members: dict, method=zipfile.ZIP_DEFLATED) -> Path:
    with zipfile.ZipFile(path, "w", method) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def report_of(done) -> list:
    return [json.loads(line) for line in done.stdout.decode().splitlines()]


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_zip_input_is_read_member_by_member(tmp_path, sample, jobs):
    games = sample.read_bytes()
    archive = zip_of(tmp_path / "games.zip", {"first.pgn": games, "notes/readme.txt": b"not read",
                                              "dir/second.PGN": games * 3, "third.pgn.gz": gzip.compress(games)})
    done = pgntools("validate", archive, "--report", "-", "--jobs", jobs, "--chunk-bytes", 700)
    assert done.returncode == 1, done.stderr
    report = report_of(done)
    files = [(line["file"], line["game"]) for line in report]
    expected_games = [r["game"] for r in report_of(pgntools("validate", sample, "--report", "-"))]
    names = ["first.pgn"] + ["dir/second.PGN"] * 3 + ["third.pgn.gz"]
    assert files == [(f"{archive}:{name}", 5 * copy + game) for copy, name in enumerate(names)
                     for game in expected_games]
    # offsets and lines are those of the member itself
    assert [line["offset"] for line in report if line["file"].endswith("first.pgn")] == \
           [line["offset"] for line in report_of(pgntools("validate", sample, "--report", "-"))]
    clean = pgntools("validate", archive, "-o", "-", "--jobs", jobs, "--chunk-bytes", 700)
    one = pgntools("validate", sample, "-o", "-").stdout
    assert clean.stdout == one * 5
    summary = json.loads(pgntools("validate", archive, "--summary", "-", "--jobs", jobs).stdout)
    assert summary["games"] == 25 and summary["invalid"] == 5
    assert summary["bytes"] <= archive.stat().st_size  # the archive's (compressed) bytes, as for .gz


def test_a_zip_on_stdin(tmp_path, sample):
    archive = zip_of(tmp_path / "games.zip", {"a.pgn": sample.read_bytes(), "b.pgn": sample.read_bytes()})
    with open(archive, "rb") as stdin:
        done = pgntools("validate", "-", "--report", "-", stdin=stdin)
    assert done.returncode == 1 and {line["file"] for line in report_of(done)} == {"<stdin>:a.pgn", "<stdin>:b.pgn"}


def test_a_damaged_zip_member_is_an_input_error(tmp_path, sample):
    archive = zip_of(tmp_path / "games.zip", {"a.pgn": sample.read_bytes() * 20}, zipfile.ZIP_STORED)
    data = bytearray(archive.read_bytes())
    data[len(data) // 2] ^= 0xFF  # a byte of the member: its CRC no longer matches
    archive.write_bytes(bytes(data))
    done = pgntools("validate", archive, "--summary", tmp_path / "summary.json", "--jobs", 1)
    assert done.returncode == 2, done.stderr
    assert f"{archive}:a.pgn: read error".encode() in done.stderr and b"Bad CRC-32" in done.stderr


def test_no_files_reads_stdin_when_it_is_not_a_terminal(sample):
    with open(sample, "rb") as stdin:
        done = pgntools("validate", "--report", "-", stdin=stdin)
    assert done.returncode == 1 and {line["file"] for line in report_of(done)} == {"<stdin>"}
    done = pgntools("to-fen", input=sample.read_bytes())
    assert done.returncode == 0 and done.stdout == pgntools("to-fen", sample).stdout


def test_no_files_on_a_terminal_is_the_usage_error(tmp_path):
    import pty

    leader, follower = pty.openpty()
    try:
        done = pgntools("validate", stdin=follower, timeout=60)
    finally:
        os.close(follower)
        os.close(leader)
    assert done.returncode == 2 and b"Missing argument 'FILES...'" in done.stderr


# ---------------------------------------------------------------- 6. input that is not PGN says so

def parquet_file(tmp_path, sample) -> bytes:
    out = tmp_path / "positions.parquet"
    assert pgntools("to-fen", sample, "--format", "parquet", "-o", out).returncode == 0
    return out.read_bytes()


NOT_PGN = {  # name -> (bytes, what the message says it looks like)
    "random.bin": (lambda tmp, sample: __import__("random").Random(3).randbytes(3000), "binary data"),
    "zeros.pgn": (lambda tmp, sample: bytes(5000), "binary data"),
    "picture.png": (lambda tmp, sample: b"\x89PNG\r\n\x1a\n" + bytes(200), "a PNG image"),
    "photo.jpg": (lambda tmp, sample: b"\xff\xd8\xff\xe0\x00\x10JFIF" + bytes(200), "a JPEG image"),
    # (a table is read as games from its movetext column: one without is named by its columns)
    "positions.parquet": (parquet_file, "a table without a movetext column (its columns: game_id, ply"),
    "table.csv": (lambda tmp, sample: b"game,ply,fen\n0,1,8/8/8/8/8/8/8/K6k w - - 0 1\n1,2,x\n", "CSV text"),
    "prose.txt": (lambda tmp, sample: "Dear player,\nno games here.\n".encode() * 50, "text with no PGN game in it"),
    "records.json": (lambda tmp, sample: b'[{"game": 1}]\n', "JSON text"),
}


@pytest.mark.parametrize("name", sorted(NOT_PGN))
@pytest.mark.parametrize("jobs", [1, 2])
def test_an_input_that_is_not_pgn_says_what_it_looks_like(tmp_path, sample, name, jobs):
    make, what = NOT_PGN[name]
    path = tmp_path / name
    path.write_bytes(make(tmp_path, sample))
    out = tmp_path / "out"
    out.mkdir()
    for command in (["validate", "-o", out / "clean.pgn"], ["to-fen", "-o", out / "fen.txt"],
                    ["export", "--parquet", out / "ds"], ["scan"]):
        done = pgntools(*command, path, "--jobs", jobs) if command[0] != "scan" else pgntools("scan", path)
        assert done.returncode == 2, (command, done.stderr)
        message = error_lines(done)
        suffix = "" if name.endswith(".parquet") else ", not PGN"
        assert len(message) == 1 and message[0].startswith(f"pgntools: error: {path}: {what}{suffix}"), message
    assert not [p for p in out.rglob("*") if p.is_file()]  # nothing written (the dataset directories only)


def test_random_bytes_and_markdown_that_parse_as_games_are_not_pgn(tmp_path):
    # (issue 37 A2) large random files held a "game" of junk, Markdown quoting a tag line read as 7
    # invalid games: no game with a tag section read cleanly or a legal move is no PGN: exit 2, nothing written
    import random
    inputs = {f"random{seed}.bin": random.Random(seed).randbytes(100_000) for seed in range(6)}
    inputs["notes.md"] = (b"# Notes\n\nA game starts with tags such as `[Event \"x\"]`:\n\n"
                          b"    [Event \"Casual\"\n    1. the header {see below}\n\n* item 1. one\n* item 2. two\n") * 20
    for name, data in inputs.items():
        path = tmp_path / name
        path.write_bytes(data)
        out = tmp_path / "out.pgn"
        done = pgntools("validate", path, "-o", out, "--jobs", 1)
        assert done.returncode == 2, (name, done.stderr)
        message = error_lines(done)
        assert len(message) == 1 and ", not PGN (" in message[0], message
        assert not out.exists()


def test_games_with_only_illegal_moves_are_still_pgn(tmp_path):
    path = tmp_path / "bad.pgn"
    path.write_bytes(b'[Event "a"]\n\n1. e5 *\n\n[Event "b"]\n\n1. Ke3 *\n')
    done = pgntools("validate", path)
    assert done.returncode == 1 and b"2 invalid" in done.stderr


def test_a_compressed_or_zipped_input_that_is_not_pgn(tmp_path):
    packed = tmp_path / "table.csv.gz"
    packed.write_bytes(gzip.compress(b"a,b,c\n1,2,3\n4,5,6\n"))
    done = pgntools("validate", packed)
    assert done.returncode == 2 and error_lines(done) == [f"pgntools: error: {packed}: CSV text, not PGN (no game found)"]
    archive = zip_of(tmp_path / "photos.zip", {"a.jpg": b"\xff\xd8\xff" + bytes(100), "b.txt": b"hello"})
    done = pgntools("validate", archive)
    assert done.returncode == 2 and error_lines(done) == [
        f"pgntools: error: {archive}: a ZIP archive with no .pgn member (a.jpg, b.txt), not PGN"]
    member = zip_of(tmp_path / "one.zip", {"games.pgn": b"\x89PNG\r\n\x1a\n" + bytes(50)})
    done = pgntools("validate", member)
    assert done.returncode == 2 and error_lines(done) == [
        f"pgntools: error: {member}:games.pgn: a PNG image, not PGN (no game found)"]


def test_empty_and_blank_inputs_are_not_errors(tmp_path):
    for data in (b"", b" \n\r\n\t\n", b"\xef\xbb\xbf\n"):
        path = tmp_path / "empty.pgn"
        path.write_bytes(data)
        done = pgntools("validate", path)
        assert done.returncode == 0 and b"0 games" in done.stderr


# ---------------------------------------------------------------- 7. options that cannot both hold

CONFLICTS = [
    (["to-fen", "--every-ply", "--ply", "3"], "--every-ply and --ply cannot both hold"),
    (["to-fen", "--c0"], "--c0 adds an EPD operation: it needs --format epd (the format is fen)"),
    (["to-fen", "--c0", "-o", "{tmp}/x.csv"], "--c0 adds an EPD operation: it needs --format epd (the format is csv)"),
    (["to-fen", "--include-invalid", "--keep-invalid"], "--include-invalid and --keep-invalid cannot both hold"),
    (["to-fen", "--keep-invalid", "--format", "csv"], "--keep-invalid writes a marker line, for --format fen or epd"),
    (["to-fen", "-o", "{tmp}/out.csv", "--format", "epd"], "-o {tmp}/out.csv names a csv file but --format is epd"),
    (["to-fen", "-o", "{tmp}/out.parquet.gz", "--format", "fen"], "names a parquet file but --format is fen"),
    (["validate", "--strip-comments"], "--strip-comments shapes the PGN of -o, and no -o is given"),
    (["validate", "--reduced", "--strip-variations"], "--strip-variations, --reduced shape the PGN of -o"),
    (["validate", "--report-level", "errors"], "--report-level chooses the games --report writes, and no --report"),
    (["export", "--parquet", "{tmp}/ds", "--columns", "san,fen"], "--columns names fen, a column that only --with-fen adds"),
    (["export", "--parquet", "{tmp}/ds", "--with-comments", "--columns", "san"],
     "--with-comments adds the comment column, which --columns leaves out"),
    (["perft", "1", "--chess960"], "--chess960 reads --fen as a Chess960 position, and no --fen is given"),
]


@pytest.mark.parametrize("args, reason", CONFLICTS, ids=[" ".join(a) for a, _ in CONFLICTS])
def test_options_that_cannot_both_hold_are_usage_errors(tmp_path, sample, args, reason):
    args = [a.format(tmp=tmp_path) for a in args]
    done = pgntools(*args, *([] if args[0] == "perft" else [sample]))
    assert done.returncode == 2, done.stderr
    lines = error_lines(done)
    assert len(lines) == 1 and lines[0].startswith("pgntools: error: ") and reason.format(tmp=tmp_path) in lines[0]
    assert done.stdout == b"" and sorted(p.name for p in tmp_path.iterdir()) == ["games.pgn"]


@pytest.mark.parametrize("name, fmt", [("out.csv", "csv"), ("out.jsonl", "jsonl"), ("out.parquet", "parquet"),
                                       ("out.epd", "epd"), ("out.fen", "fen"), ("out.txt", "fen"),
                                       ("out.csv.gz", "csv"), ("out.epd.zst", "epd"), ("OUT.JSONL.XZ", "jsonl")])
def test_to_fen_takes_the_format_from_the_output_suffix(tmp_path, sample, name, fmt):
    by_name, by_option = tmp_path / name, tmp_path / f"explicit-{name}"
    assert pgntools("to-fen", sample, "--every-ply", "-o", by_name).returncode == 0
    assert pgntools("to-fen", sample, "--every-ply", "-o", by_option, "--format", fmt).returncode == 0
    assert by_name.read_bytes() == by_option.read_bytes()
    data = by_name.read_bytes()
    suffix = Path(name.lower()).suffix
    if suffix in DECOMPRESS:
        data = DECOMPRESS[suffix](data)
    if fmt == "parquet":
        import io

        assert pq.read_table(io.BytesIO(data)).column_names == ["game_id", "ply", "san", "fen"]
    else:
        first = data.decode().splitlines()[0]
        assert {"csv": first == '"game_id","ply","san","fen"', "jsonl": first.startswith('{"game_id": 0, "ply": 0'),
                "epd": first.endswith('id "0:0";'), "fen": first.count("/") == 7 and " id " not in first}[fmt], first


@pytest.mark.parametrize("address", ["nonsense", "tcp://", "tcp://host", "http://host:8786", "host:99999", "host:port"])
def test_a_scheduler_address_is_checked_before_use(sample, address):
    done = pgntools("validate", sample, "--scheduler", address, timeout=30)
    assert done.returncode == 2 and b"is not a scheduler address: give tcp://HOST:PORT (or HOST:PORT)" in done.stderr
    assert b"Traceback" not in done.stderr


def free_port() -> int:
    import socket

    with socket.socket() as s:  # bound, then closed: nothing listens there afterwards
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("form", ["tcp://127.0.0.1:{port}", "127.0.0.1:{port}"])
def test_an_unreachable_scheduler_gives_up_after_the_connect_timeout(tmp_path, sample, form):
    pytest.importorskip("distributed")
    address = form.format(port=free_port())
    out = tmp_path / "out.pgn"
    done = pgntools("validate", sample, "-o", out, "--scheduler", address, "--connect-timeout", "1.5", timeout=60)
    assert done.returncode == 2, done.stderr
    lines = error_lines(done)
    tcp = address if address.startswith("tcp://") else f"tcp://{address}"
    assert len(lines) == 1 and lines[0].startswith(f"pgntools: error: cannot reach the Dask scheduler at {tcp}")
    assert "after 1.5 s" in lines[0] and not out.exists()


# ---------------------------------------------------------------- 9. small things a user sees

def test_to_fen_help_says_what_happens_to_invalid_games():
    text = " ".join(pgntools("to-fen", "--help").stdout.decode().split())
    assert "An invalid game gives no line (nor row), unless --include-invalid" in text
    assert "--keep-invalid" in text and "'# invalid game N'" in text


@pytest.mark.parametrize("fmt, extra", [("fen", []), ("fen", ["--ply", "2"]), ("epd", ["--every-ply"])])
@pytest.mark.parametrize("jobs", [1, 2])
def test_keep_invalid_writes_a_marker_line_in_step_with_the_games(tmp_path, sample, fmt, extra, jobs):
    many = tmp_path / "many.pgn"
    many.write_bytes(sample.read_bytes() * 4)  # games 4, 9, 14, 19 are invalid
    kept = pgntools("to-fen", many, "--format", fmt, "--keep-invalid", *extra, "--jobs", jobs, "--chunk-bytes", 900)
    plain = pgntools("to-fen", many, "--format", fmt, *extra, "--jobs", jobs, "--chunk-bytes", 900)
    assert kept.returncode == plain.returncode == 0
    lines = kept.stdout.decode().splitlines()
    markers = [line for line in lines if line.startswith("#")]
    assert markers == [f"# invalid game {n}" for n in (4, 9, 14, 19)]
    assert [line for line in lines if not line.startswith("#")] == plain.stdout.decode().splitlines()
    if not extra:  # one line a game: line N is game N
        assert len(lines) == 20 and all(lines[n] == f"# invalid game {n}" for n in (4, 9, 14, 19))
    if fmt == "epd":  # the marker stands where the game's ids would
        ids = [line.rsplit('id "', 1)[1].split(":")[0] if 'id "' in line else line.split()[-1] for line in lines]
        assert ids == sorted(ids, key=int)


@pytest.mark.parametrize("level, statuses", [("errors", {"invalid"}), ("fixes", {"invalid", "fixed"}),
                                             ("notes", {"invalid", "fixed", "valid"}), (None, {"invalid", "fixed", "valid"})])
def test_report_level(sample, level, statuses):
    args = ["--report-level", level] if level else []
    for command in (["validate"], ["to-fen", "-o", "/dev/null"]):
        done = pgntools(*command, sample, "--report", "-", *args)
        assert done.returncode == (1 if command == ["validate"] else 0)  # (to-fen: 0, issue 37 A4)
        got = report_of(done)
        assert {line["status"] for line in got} == statuses
        assert all(line["status"] != "valid" or line["notes"] for line in got)


def test_summary_bytes_are_the_inputs_as_stored_and_pgn_bytes_decompressed(tmp_path, sample):
    packed = tmp_path / "games.pgn.zst"
    packed.write_bytes(zstandard.ZstdCompressor().compress(sample.read_bytes() * 50))
    for jobs in (1, 2):
        for source, stored in ((sample, sample.stat().st_size), (packed, packed.stat().st_size)):
            got = json.loads(pgntools("validate", source, "--summary", "-", "--jobs", jobs,
                                      "--chunk-bytes", 2000).stdout)
            assert got["bytes"] == stored
            assert got["pgn_bytes"] == sample.stat().st_size * (50 if source == packed else 1)
    help_text = " ".join(pgntools("validate", "--help").stdout.decode().split())
    assert "bytes (of the inputs as stored: compressed bytes for compressed input), pgn_bytes (decompressed)" in help_text


def test_progress_shows_megabytes_and_games_per_second(tmp_path, sample):
    big = tmp_path / "big.pgn"
    big.write_bytes(sample.read_bytes() * 2000)
    done = pgntools("validate", big, "--progress", "--jobs", 1)
    bar = done.stderr.decode().replace("\r", "\n").splitlines()
    last = [line for line in bar if "games/s" in line and "[" in line][-1]
    assert "MB" in last and "MiB" not in last and "games/s" in last and "10.0k games" in last, last


HELP_WORDS = {  # words that belong to one command's arguments only
    "validate": ["--rejects", "--strip-comments"],
    "to-fen": ["--every-ply", "--keep-invalid", "EPD"],
    "export": ["OUT_DIR", "Parquet parts", "--with-fen"],
}


@pytest.mark.parametrize("command", sorted(HELP_WORDS))
def test_each_commands_help_mentions_only_its_own_arguments(command):
    text = pgntools(command, "--help").stdout.decode()
    for other, words in HELP_WORDS.items():
        for word in words:
            assert (word in text) == (other == command), (command, word)


JUNK = [b"Downloaded from example.org\r\n", b"\x00\x01binary\xff junk { a stray comment }\n", b"trailing words\n"]


@pytest.mark.parametrize("jobs", [1, 2])
def test_junk_before_and_between_games_is_counted_as_skipped_bytes(tmp_path, sample, jobs):
    games = sample.read_bytes().split(b"\n\n[")
    parts = [games[0], *(b"[" + g for g in games[1:])]
    data = JUNK[0] + b"\n" + parts[0] + b"\n\n" + JUNK[1] + b"\n" + b"\n\n".join(parts[1:]) + b"\n\n" + JUNK[2]
    path = tmp_path / "junk.pgn"
    path.write_bytes(data)
    done = pgntools("validate", path, "--summary", "-", "--jobs", jobs, "--chunk-bytes", 400)
    assert done.returncode == 1, done.stderr
    summary = json.loads(done.stdout)
    assert summary["games"] == 5 and summary["invalid"] == 1
    assert summary["skipped_bytes"] == sum(len(j.strip()) for j in JUNK)  # the text itself, not the blank lines
    assert f", {summary['skipped_bytes']:,} bytes of non-PGN text skipped (".encode() in done.stderr
    clean = json.loads(pgntools("validate", sample, "--summary", "-").stdout)
    assert clean["skipped_bytes"] == 0 and b"skipped" not in pgntools("validate", sample).stderr
