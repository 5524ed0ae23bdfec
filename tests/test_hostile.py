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
    input errors; not export's manifest, which records the inputs' sizes)."""
    got = {}
    for path in sorted(folder.rglob("*")):
        if not path.is_file() or path.name.startswith("input.") or path.name == "_pgntools_export.json":
            continue
        name = path.relative_to(folder).as_posix()
        if path.suffix == ".parquet":
            rows = got.setdefault(path.parent.relative_to(folder).as_posix(), [])
            rows += pq.read_table(path).to_pylist()
            rows.sort(key=lambda row: (row["game_id"], row.get("ply", 0)))
        elif path.name == "summary.json":
            summary = json.loads(path.read_text())
            got[name] = {k: v for k, v in summary.items() if k not in ("seconds", "bytes", "pgn_bytes", "input_errors")}
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
    result = run_in(clean_dir, monkeypatch, [*BROKEN_COMMANDS[command](), "--jobs", 1],
                    expect=1 if command == "validate" else 0)  # (invalid games: exit 0 for data, issue 37 A4)
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


# ---------------------------------------------------------------- content built to hurt a reader

def run_child(args, timeout=60):
    """The CLI in a child process: a reader that hangs in C fails the test instead of the run."""
    try:
        return subprocess.run([sys.executable, "-m", "pgntools", *map(str, args)], capture_output=True,
                              timeout=timeout, cwd=REPO)
    except subprocess.TimeoutExpired:
        pytest.fail(f"pgntools {' '.join(map(str, args))} did not finish in {timeout} s")


def test_random_bytes(tmp_path):
    data = random.Random(8).randbytes(1_000_000)
    path = write(tmp_path, data, "random.bin")
    games = list(pgntools.read_games(path))  # the library reads what it can: games of junk, all invalid
    assert games and all(g.status == "invalid" for g in games)
    offsets = [g.offset for g in games]
    assert offsets == sorted(set(offsets)) and offsets[-1] < len(data)
    assert all(e.kind in ERROR_KINDS and 0 <= e.byte_offset < len(data) for g in games for e in g.errors)
    # the command line: no game with a legal move or a readable tag section is no PGN (issue 37 A2)
    report, summary = tmp_path / "report.jsonl", tmp_path / "summary.json"
    done = run_child(["validate", path, "--report", report, "--summary", summary, "-o", tmp_path / "out.pgn",
                      "--jobs", 1])
    assert done.returncode == 2 and "binary data, not PGN" in done.stderr.decode(), done.stderr
    assert not [p for p in tmp_path.iterdir() if p.name != "random.bin"]  # nothing written


def test_random_bytes_behind_a_compression_magic_or_suffix(tmp_path):
    junk = random.Random(9).randbytes(100_000)
    for name, data in (("junk.pgn.zst", b"\x28\xb5\x2f\xfd" + junk), ("junk.pgn.bz2", b"BZh9" + junk),
                       ("junk.pgn.xz", junk)):
        done = run_child(["validate", write(tmp_path, data, name), "--jobs", 1])
        assert done.returncode == 2 and name in done.stderr.decode(), done.stderr


def test_nul_bytes(tmp_path):
    data = (b'[Event "nul"]\n[Result "*"]\n\n1. e4\x00 e5 2. Nf3 *\n\n' + b"\x00" * 100_000
            + b'\n[Event "after"]\n[Result "*"]\n\n1. d4 d5 *\n\n')
    first, after = pgntools.read_games(write(tmp_path, data))
    assert kinds(first) == ["syntax_error"] and first.errors[0].token == "\x00"
    assert (first.errors[0].line, first.errors[0].column, first.errors[0].byte_offset) == (4, 6, data.index(b"\x00"))
    assert first.uci == ["e2e4", "e7e5", "g1f3"]  # a stray byte is no move: the replay goes on
    assert first.status == "invalid"
    assert after.status == "valid" and after.uci == ["d2d4", "d7d5"] and after.offset == data.index(b'[Event "after"]')
    only_nuls = write(tmp_path, b"\x00" * 100_000, "nuls.pgn")
    assert list(pgntools.read_games(only_nuls)) == []
    done = run_child(["validate", only_nuls, "--jobs", 1])  # not PGN (issue 22.6): says so, exit 2
    assert done.returncode == 2 and done.stderr.decode().strip() == f"pgntools: error: {only_nuls}: binary data, not PGN (no game found)"


@pytest.mark.parametrize("name, data", [("empty.pgn", b""), ("blank.pgn", b" \n\r\n\t\n"),
                                        ("empty.pgn.gz", gzip.compress(b"")), ("empty.pgn.zst", None)])
def test_empty_inputs(tmp_path, name, data):
    data = zstandard.ZstdCompressor().compress(b"") if data is None else data
    src = write(tmp_path, data, name)
    for command, args in COMMANDS.items():
        out = tmp_path / command
        out.mkdir()
        result = run([*args(out), "--jobs", 2, src], expect=0)
        assert result.stderr.startswith(f"{command}: 0 games: 0 valid, 0 fixed, 0 invalid")
        assert not leftovers(out)
        for path in out.rglob("*"):
            if path.suffix == ".parquet":
                assert pq.read_table(path).num_rows == 0
            elif path.name == "summary.json":
                assert json.loads(path.read_text())["games"] == 0
            elif path.suffix == ".csv":  # the columns, no rows
                assert path.read_bytes() == b'"game_id","ply","san","fen"\n'
            elif path.name == "_pgntools_export.json":  # export's manifest: complete, its empty parts
                assert json.loads(path.read_text())["complete"]
            elif path.is_file():
                assert path.read_bytes() == b""


def nested(depth: int) -> str:
    return ('[Event "deep"]\n[Result "*"]\n\n1. e4 ' + "( 1. d4 " * depth + ")" * depth
            + " 1... e5 2. Nf3 Nc6 3. Bc4 *\n\n")


def test_ten_thousand_nested_variations_through_every_command(tmp_path):
    depth = 10_000
    data = nested(depth) + '[Event "open"]\n[Result "*"]\n\n1. e4 ' + "( 1. d4 " * depth + "\n\n" + games_data(1).decode()
    src = write(tmp_path, data)
    out = tmp_path / "out.pgn"
    run(["validate", src, "-o", out, "--jobs", 1], expect=1)
    text = out.read_text()
    assert text.count("(") == depth and text.count(")") == depth and '[Event "valid 0"]' in text
    deep, unclosed, last = pgntools.read_games(src)
    assert deep.status == "valid" and deep.uci == ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4"]
    assert kinds(unclosed) == ["unterminated_variation"] and unclosed.errors[0].message.startswith(f"{depth} ")
    assert last.status == "valid"
    run(["export", "--parquet", tmp_path / "ds", src, "--jobs", 1], expect=0)  # (invalid: counted, issue 37 A4)
    moves = pq.read_table(tmp_path / "ds" / "moves").to_pylist()
    assert [m["uci"] for m in moves if m["game_id"] == 0] == deep.uci


def long_legal_game(plies: int) -> list:
    """SAN of a game whose first 150 plies are knight moves with no repetition (so the 75-move rule
    ends it after ply 150), continued with more knight moves to ``plies``.

    White's knights walk two 4-square cycles (b1 a3 b5 c3, g1 h3 g5 f3) through all 16 joint
    states in turn; Black's walk (b8 a6 b4 c6, g8 h6 g4 f6) a 10-state loop. 16 and 10 give 80
    distinct full moves: no position repeats within the 75 moves. No square is shared, so no
    capture; no knight there attacks a king, so no check."""
    white = [["b1", "a3", "b5", "c3"], ["g1", "h3", "g5", "f3"]]
    black = [["b8", "a6", "b4", "c6"], ["g8", "h6", "g4", "f6"]]
    # (knight, step) moves: a Hamiltonian walk of the 4 x 4 torus, and a 10-cycle of it
    white_walk = [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1]
    black_walk = [(0, 1)] * 3 + [(1, 1)] * 2 + [(0, -1)] * 3 + [(1, -1)] * 2
    wpos, bpos = [0, 0], [0, 0]
    sans = []
    for ply in range(plies):
        move = ply // 2
        if ply % 2 == 0:
            knight, step = white_walk[move % 16], 1
            cycle, pos = white[knight], wpos
        else:
            knight, step = black_walk[move % 10]
            cycle, pos = black[knight], bpos
        pos[knight] = (pos[knight] + step) % 4
        sans.append("N" + cycle[pos[knight]])
    return sans


def kinds_of_notes(game):
    return [n["kind"] for n in game.notes]


def test_a_hundred_thousand_ply_game(tmp_path):
    sans = long_legal_game(100_000)
    movetext = " ".join(f"{i // 2 + 1}. {s}" if i % 2 == 0 else s for i, s in enumerate(sans))
    data = f'[Event "long"]\n[Result "1/2-1/2"]\n\n{movetext} 1/2-1/2\n\n' + games_data(1).decode()
    src = write(tmp_path, data)
    long_game, nxt = pgntools.read_games(src, automatic_ends="enforce")
    assert long_game.outcome == "seventyfive_moves" and long_game.outcome_ply == 150 and long_game.ply_count == 150
    assert kinds(long_game) == ["move_after_game_end"]
    error = long_game.errors[0]
    assert (error.ply, error.token, error.line) == (151, sans[150], 4)
    assert long_game.san == sans[:150] and nxt.status == "valid"
    chess = pytest.importorskip("chess")  # the oracle agrees: 150 legal plies, then the automatic end
    board = chess.Board()
    for san in sans[:150]:
        board.push_san(san)
    assert board.is_seventyfive_moves() and not board.is_repetition(2)
    out = tmp_path / "out"
    out.mkdir()
    run(["to-fen", src, "--every-ply", "--include-invalid", "--format", "csv", "-o", out / "p.csv", "--jobs", 1,
         "--automatic-ends", "enforce"], expect=0)  # (the invalid game is counted: exit 0, issue 37 A4)
    rows = (out / "p.csv").read_text().splitlines()
    assert len(rows) == 1 + 151 + 8 and rows[151].split(",")[-1].strip('"') == board.fen()
    run(["export", "--parquet", out / "ds", src, "--jobs", 1, "--automatic-ends", "enforce"], expect=0)
    moves = pq.read_table(out / "ds" / "moves", columns=["game_id", "ply"]).to_pylist()
    assert sum(1 for m in moves if m["game_id"] == 0) == 150
    # by default the game plays on past the 75-move rule (noted): every ply replayed
    played_on = next(pgntools.read_games(src, moves=False))
    assert played_on.status == "valid" and played_on.ply_count == 100_000
    assert "play_after_automatic_end" in kinds_of_notes(played_on)


def test_ten_megabyte_comment_and_one_megabyte_tag_value(tmp_path):
    comment = ("ten megabytes of comment " * 420_000)[:10_000_000].strip()
    tag = "t" * 1_000_000
    data = (f'[Event "big"]\n[Annotator "{tag}"]\n[Result "*"]\n\n1. e4 {{{comment}}} e5 *\n\n' + games_data(1).decode()).encode()
    src = write(tmp_path, data)
    big, nxt = pgntools.read_games(src)
    assert big.headers["Annotator"] == tag and big.moves[0].comment == comment and big.status == "valid"
    assert nxt.offset == data.index(b'[Event "valid')
    out = tmp_path / "out.pgn"
    run(["validate", src, "-o", out, "--jobs", 2, "--chunk-bytes", 1 << 20], expect=0)
    [again, _] = pgntools.read_games(out)  # the output wraps the comment's words at 80 columns
    assert again.headers["Annotator"] == tag and " ".join(again.moves[0].comment.split()) == comment
    run(["export", "--parquet", tmp_path / "ds", src, "--with-comments", "--jobs", 1], expect=0)
    games = pq.read_table(tmp_path / "ds" / "games", columns=["tags"]).to_pylist()
    moves = pq.read_table(tmp_path / "ds" / "moves", columns=["comment"]).to_pylist()
    assert dict(games[0]["tags"])["Annotator"] == tag and moves[0]["comment"] == comment


def test_lines_of_megabytes(tmp_path):
    # 40,000 tagless games on one 1.4 MB line, then a game whose movetext is one 3 MB line.
    one_line = "1. e4 e5 2. Nf3 * " * 40_000 + "\n\n"
    comments = " ".join("{ " + "w" * 60 + " }" for _ in range(50_000))
    data = one_line + f'[Event "wide"]\n[Result "*"]\n\n1. d4 {comments} d5 2. c4 *\n\n'
    src = write(tmp_path, data)
    games = list(pgntools.read_games(src, moves=False))
    assert len(games) == 40_001 and all(g.status == "valid" for g in games)
    assert games[1].offset == len("1. e4 e5 2. Nf3 * ") and games[-1].ply_count == 3
    outputs = []
    for jobs in (1, 2):
        report = tmp_path / f"r{jobs}.jsonl"
        result = run(["validate", src, "--report", report, "-o", tmp_path / f"o{jobs}.pgn", "--jobs", jobs,
                      "--chunk-bytes", 100_000], expect=0)
        outputs.append((result.stderr.split(" (")[0], report.read_bytes(), (tmp_path / f"o{jobs}.pgn").read_bytes()))
    assert outputs[0] == outputs[1]


def test_mixed_encodings_in_one_file(tmp_path):
    utf8 = '[Event "Straße"]\n[White "Müller"]\n[Result "*"]\n\n1. e4 {très bien} e5 *\n\n'.encode()
    latin1 = '[Event "Café"]\n[White "Jörg"]\n[Result "*"]\n\n1. d4 {à suivre} d5 *\n\n'.encode("latin-1")
    bom = b"\xef\xbb\xbf" + '[Event "日本"]\n[Result "*"]\n\n1. c4 *\n\n'.encode()
    both = '[Event "Zoë"]\n[Result "*"]\n\n1. Nf3 {'.encode() + "olé".encode("latin-1") + b"} *\n\n"
    src = write(tmp_path, utf8 + latin1 + bom + both + utf8)
    games = list(pgntools.read_games(src))
    assert [g.headers["Event"] for g in games[:3]] == ["Straße", "Café", "日本"]
    assert games[1].headers["White"] == "Jörg" and games[1].moves[0].comment == "à suivre"
    assert ["latin1_encoding" in note_kinds(g) for g in games] == [False, True, False, True, False]
    assert games[3].moves[0].comment == "olé"  # a game not valid UTF-8 as a whole is read as Latin-1
    assert all(g.status == "valid" for g in games) and games[4].offset == len(utf8 + latin1 + bom + both)
    out = tmp_path / "out.pgn"
    run(["validate", src, "-o", out, "--jobs", 1], expect=0)
    text = out.read_bytes().decode("utf-8")  # the output is UTF-8 throughout
    assert '[Event "Café"]' in text and "{à suivre}" in text and text.count("Straße") == 2
    run(["export", "--parquet", tmp_path / "ds", src, "--jobs", 1], expect=0)
    events = pq.read_table(tmp_path / "ds" / "games", columns=["event"]).column("event").to_pylist()
    assert events == [g.headers["Event"] for g in games]


def test_two_hundred_thousand_tags(tmp_path):
    # Each tag is checked against the game's tags before it (a duplicate is noted, the first value
    # stands; a repeated Event starts the next game), and the output sorts them: both were n^2
    # (a minute for this 2.6 MB input).
    names = [f"T{i}" for i in range(200_000)]
    random.Random(3).shuffle(names)
    tags = [f'[{name} "{i}"]\n' for i, name in enumerate(names)]
    data = ('[Event "many"]\n' + "".join(tags) + f'[{names[150_000]} "again"]\n[Result "*"]\n\n1. e4 *\n\n'
            + '[Event "tags only"]\n' + "".join(tags[:100]) + '[Event "next"]\n[Result "*"]\n\n1. d4 *\n\n')
    src = write(tmp_path, data)
    out, report = tmp_path / "out.pgn", tmp_path / "report.jsonl"
    done = run_child(["validate", src, "-o", out, "--report", report, "--jobs", 1], timeout=30)
    assert done.returncode == 0, done.stderr
    many, tags_only, nxt = pgntools.read_games(out)
    assert [g.headers["Event"] for g in (many, tags_only, nxt)] == ["many", "tags only", "next"]
    assert len(many.tags) == 7 + 200_000 and many.headers[names[150_000]] == "150000"
    assert [k for k, _ in many.tags[7:]] == sorted(names)  # the export format: ASCII order
    notes = [json.loads(x)["notes"] for x in report.read_text().splitlines()][0]
    assert {"kind": "duplicate_tag", "ply": None, "count": 1, "token": f'[{names[150_000]} "again"]'} in [
        {k: n[k] for k in ("kind", "ply", "count", "token")} for n in notes]


def test_annotation_numbers_beyond_their_columns_are_not_read(tmp_path):
    # eval_cp is int32 centipawns and eval_mate int16: larger numbers wrapped around to any value
    # (#99999 read as mate in -31073, a 20-digit eval as +14,100,653 pawns). They are not read now,
    # as any malformed annotation; the largest that fit still are.
    comments = ["[%eval 99999999999999999999]", "[%eval 9999999.99]", "[%eval #99999]", "[%eval #-32767]",
                "[%eval -10000000]", "[%eval -9999999]", "[%clk 1:02:03:04]", "[%clk 1:02:03.5]"]
    movetext = " ".join(f"{san} {{ {c} }}" for san, c in zip("e4 e5 Nf3 Nc6 Bc4 Bc5 c3 Nf6".split(), comments))
    game = pgntools.read_games(write(tmp_path, f'[Event "numbers"]\n\n1. {movetext} *\n'))
    moves = next(game).moves
    assert [(m.eval_cp, m.eval_mate, m.clock) for m in moves] == [
        (None, None, None), (999_999_999, None, None), (None, None, None), (None, -32767, None),
        (None, None, None), (-999_999_900, None, None), (None, None, None), (None, None, 3723.5)]


def test_one_file_named_for_two_outputs(tmp_path):
    # Each output is renamed into place when complete: the last one would replace the other.
    src = write(tmp_path, games_data(8))
    (tmp_path / "dir").mkdir()
    (tmp_path / "link.txt").symlink_to(tmp_path / "dir" / "out.txt")
    for other in ("out.txt", "dir/../out.txt"):
        result = run(["validate", src, "-o", tmp_path / "out.txt", "--report", tmp_path / other, "--jobs", 1], expect=2)
        assert stderr_lines(result) == [f"pgntools: error: {tmp_path / 'out.txt'} and {tmp_path / other}: one file "
                                        "for two outputs"]
    result = run(["validate", src, "-o", tmp_path / "dir" / "out.txt", "--rejects", tmp_path / "link.txt"], expect=2)
    assert "one file for two outputs" in result.stderr and not list(tmp_path.rglob("*out.txt*"))
    result = run(["validate", src, "-o", "-", "--report", "-", "--jobs", 1], expect=2)  # stdout twice: they would mix
    assert "write to stdout" in result.stderr and result.stdout == ""
    (tmp_path / "dir" / "existing.txt").write_text("x")
    os.link(tmp_path / "dir" / "existing.txt", tmp_path / "hard.txt")  # a hard link: one file, two names
    result = run(["validate", src, "-o", tmp_path / "dir" / "existing.txt", "--report", tmp_path / "hard.txt"], expect=2)
    assert "one file for two outputs" in result.stderr and (tmp_path / "hard.txt").read_text() == "x"
    run(["validate", src, "-o", os.devnull, "--rejects", os.devnull, "--jobs", 1], expect=1)  # a device takes both
