"""Inputs: plain and compressed files, stdin, several inputs in order, unreadable inputs.

The same games read from a plain file, from .gz/.bz2/.xz/.zst, from a '.pgn' that is really
gzip, and through stdin must give identical records (offsets in the decompressed stream).
"""
from __future__ import annotations

import bz2
import io
import gzip
import json
import lzma
import os
import subprocess
import sys
from pathlib import Path

import pytest

import pgntools
from pgntools import _core
from pgn_helpers import record, report_lines, write

REPO = Path(__file__).resolve().parents[1]

# A mixture of what real files hold: tags, comments with clocks and evals, NAGs, variations,
# CRLF line ends, a Latin-1 game, a game without tags, an invalid game, a result to fix.
PIECES = [
    b'[Event "Blitz {n}"]\n[Site "Online"]\n[White "A"]\n[Black "B"]\n[Result "0-1"]\n\n'
    b'1. e4 {[%clk 0:03:00] [%eval 0.2]} c5 {[%clk 0:02:58.5]} 2. Nf3 d6 $1 3. d4 (3. Bb5+ Bd7) '
    b'3... cxd4 4. Nxd4 Nf6 5. Nc3 a6 {Najdorf [%eval #-12]} 0-1\n\n',
    b'[Event "Club {n}"]\r\n[Result "1/2-1/2"]\r\n\r\n1. d4 d5 2. c4 e6 3. Nc3 Nf6\r\n4. Bg5 Be7 *\r\n\r\n',
    '[Event "Café {n}"]\n[White "Müller"]\n\n1. e4 {très} e5 2. Nf3 Nc6 3. Bb5 a6 *\n\n'.encode("latin-1"),
    b"1. c4 e5 2. Nc3 Nf6 3. g3 d5 4. cxd5 Nxd5 *\n\n",
    b'[Event "Bad {n}"]\n\n1. e4 e5 2. Ke3 Nc6 *\n\n',
    b'[Event "Mate {n}"]\n[Result "1-0"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 0-1\n\n',
]


def make_games(copies: int) -> bytes:
    out = []
    for n in range(copies):
        for piece in PIECES:
            out.append(piece.replace(b"{n}", str(n).encode()))
    return b"".join(out)


@pytest.fixture(scope="module")
def plain_data() -> bytes:
    # ~0.5 MB, 6,000 games (the small-buffer test below makes refills happen mid-game).
    return make_games(1000)


@pytest.fixture(scope="module")
def reference(plain_data, tmp_path_factory):
    path = write(tmp_path_factory.mktemp("plain"), plain_data, "games.pgn")
    return [record(g) for g in pgntools.read_games(str(path))]


def zstd_compress(data: bytes) -> bytes:
    zstandard = pytest.importorskip("zstandard")
    return zstandard.ZstdCompressor(level=3).compress(data)


COMPRESSORS = {
    "gz": gzip.compress,
    "bz2": bz2.compress,
    "xz": lzma.compress,
    "zst": zstd_compress,
}


def test_reference_read_is_what_the_input_holds(reference, plain_data):
    assert len(reference) == 1000 * len(PIECES)
    statuses = [r["status"] for r in reference[:len(PIECES)]]
    assert statuses == ["valid", "fixed", "valid", "valid", "invalid", "fixed"]
    for r in reference[:200]:
        assert plain_data[r["offset"]:r["offset"] + 1] in (b"[", b"1")


@pytest.mark.parametrize("suffix", sorted(COMPRESSORS))
def test_compressed_inputs_give_identical_records(tmp_path, plain_data, reference, suffix):
    path = write(tmp_path, COMPRESSORS[suffix](plain_data), f"games.pgn.{suffix}")
    games = list(pgntools.read_games(str(path)))
    assert [record(g) for g in games] == reference
    assert {g.source for g in games} == {str(path)}


@pytest.mark.parametrize("suffix", sorted(COMPRESSORS))
def test_compression_is_recognised_by_magic_bytes_not_only_suffix(tmp_path, plain_data, reference, suffix):
    path = write(tmp_path, COMPRESSORS[suffix](plain_data), "really-compressed.pgn")
    assert [record(g) for g in pgntools.read_games(str(path))] == reference


def test_small_buffer_gives_identical_records(tmp_path, plain_data, reference):
    path = write(tmp_path, gzip.compress(plain_data), "games.pgn.gz")
    games = pgntools.read_games(str(path), buffer_size=4096, batch_games=7)
    assert [record(g) for g in games] == reference


def test_iter_batches_columns_match_records(tmp_path, plain_data, reference):
    path = write(tmp_path, plain_data)
    batches = list(pgntools.iter_batches(str(path), batch_games=100))
    assert sum(b.n_games for b in batches) == len(reference)
    assert [b.first_game for b in batches] == list(range(0, len(reference), 100))
    offsets = [o for b in batches for o in b.column("offset").tolist()]
    assert offsets == [r["offset"] for r in reference]


STDIN_SCRIPT = """
import json, sys
from dataclasses import asdict
import pgntools
from pgntools import _core
games = [asdict(g) for g in pgntools.read_games("-")]
for g in games:
    g.pop("source")
    g["tags"] = [list(t) for t in g["tags"]]
json.dump(games, sys.stdout)
"""


@pytest.mark.parametrize("compressed", [False, True], ids=["plain", "gzip"])
def test_stdin_gives_identical_records(plain_data, reference, compressed):
    count = 1200  # a prefix of whole games keeps the subprocess quick
    head = plain_data[:reference[count]["offset"]]
    data = gzip.compress(head) if compressed else head
    proc = subprocess.run([sys.executable, "-c", STDIN_SCRIPT], input=data, capture_output=True,
                          cwd=REPO, timeout=120)
    assert proc.returncode == 0, proc.stderr.decode()
    assert json.loads(proc.stdout) == json.loads(json.dumps(reference[:count]))


def test_validate_reads_stdin_like_a_file(tmp_path, plain_data):
    data = plain_data[:200_000]
    path = write(tmp_path, data)
    run = [sys.executable, "-m", "pgntools", "validate", "--report", "-", "--no-progress"]
    from_file = subprocess.run(run + [str(path)], capture_output=True, cwd=REPO, timeout=120)
    from_stdin = subprocess.run(run + ["-"], input=data, capture_output=True, cwd=REPO, timeout=120)
    assert from_file.returncode == from_stdin.returncode == 1  # the "Bad" games are invalid
    file_lines, stdin_lines = report_lines(from_file.stdout), report_lines(from_stdin.stdout)
    assert {r["file"] for r in file_lines} == {str(path)}
    for r in file_lines + stdin_lines:
        r.pop("file")
    assert stdin_lines == file_lines
    assert any(r["status"] == "invalid" for r in stdin_lines)


# ---------------------------------------------------------------- several inputs

def test_several_inputs_continue_game_indexes(tmp_path):
    one = write(tmp_path, b'[Event "a"]\n\n1. e4 *\n\n[Event "b"]\n\n1. d4 *\n', "one.pgn")
    two = write(tmp_path, gzip.compress(b'[Event "c"]\n\n1. c4 *\n'), "two.pgn.gz")
    three = write(tmp_path, b'[Event "d"]\n\n1. Nf3 *\n\n[Event "e"]\n\n1. g3 *\n', "three.pgn")
    games = list(pgntools.read_games([str(one), str(two), str(three)]))
    assert [g.index for g in games] == [0, 1, 2, 3, 4]
    assert [g.headers["Event"] for g in games] == ["a", "b", "c", "d", "e"]
    assert [g.source for g in games] == [str(one), str(one), str(two), str(three), str(three)]
    assert [g.offset for g in games] == [0, 22, 0, 0, 23]  # offsets restart in each input
    assert [g.uci for g in games] == [["e2e4"], ["d2d4"], ["c2c4"], ["g1f3"], ["g2g3"]]


def test_path_objects_are_accepted(tmp_path):
    path = write(tmp_path, b"1. e4 e5 *\n")
    assert [g.uci for g in pgntools.read_games(path)] == [["e2e4", "e7e5"]]


def test_empty_inputs_have_no_games(tmp_path):
    empty = write(tmp_path, b"", "empty.pgn")
    blank = write(tmp_path, b"\n\n  \n", "blank.pgn")
    empty_gz = write(tmp_path, gzip.compress(b""), "empty.pgn.gz")
    assert list(pgntools.read_games([str(empty), str(blank), str(empty_gz)])) == []


# ---------------------------------------------------------------- unreadable input

@pytest.mark.parametrize("suffix", [
"gz", "bz2", "xz", "zst"])
def test_truncated_compressed_stream_raises_input_error_naming_the_file(tmp_path, plain_data, suffix):
    compressed = COMPRESSORS[suffix](plain_data)
    path = write(tmp_path, compressed[: len(compressed) // 2], f"truncated.pgn.{suffix}")
    with pytest.raises(pgntools.InputError) as info:
        for _ in pgntools.read_games(str(path)):
            pass
    assert str(path) in str(info.value)


def test_corrupt_gzip_raises_input_error(tmp_path, plain_data):
    compressed = bytearray(gzip.compress(plain_data))
    compressed[len(compressed) // 2] ^= 0xFF
    path = write(tmp_path, bytes(compressed), "corrupt.pgn.gz")
    with pytest.raises(pgntools.InputError, match="corrupt.pgn.gz"):
        list(pgntools.read_games(str(path)))


@pytest.mark.parametrize("suffix, expected_cause", [("gz", "error"), ("xz", "LZMAError"), ("zip", "error")])
def test_corrupt_data_of_each_decompressor_is_an_input_error(tmp_path, plain_data, suffix, expected_cause):
    """Corrupt deflate data (zlib.error, a gzip stream's or a zip member's) and corrupt xz data
    (lzma.LZMAError, not an OSError): each one InputError naming the input, not an internal error
    (the compression modules load only for such inputs, so their errors are added then)."""
    import zipfile

    if suffix == "zip":
        packed = io.BytesIO()
        with zipfile.ZipFile(packed, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr("games.pgn", plain_data)
        compressed = bytearray(packed.getvalue())
        compressed[30 + len("games.pgn")] = 0x07  # the member's first deflate block: the reserved type 3
    elif suffix == "gz":
        compressed = bytearray(gzip.compress(plain_data))
        compressed[10] = 0x07  # after the 10-byte header, the first deflate block: the reserved type 3
    else:
        compressed = bytearray(lzma.compress(plain_data))
        middle = len(compressed) // 3
        compressed[middle:middle + 64] = b"\xff" * 64
    path = write(tmp_path, bytes(compressed), "corrupt.zip" if suffix == "zip" else f"corrupt.pgn.{suffix}")
    with pytest.raises(pgntools.InputError, match="corrupt") as info:
        list(pgntools.read_games(str(path)))
    assert type(info.value.__cause__).__name__ == expected_cause


def test_missing_file_raises_input_error(tmp_path):
    missing = tmp_path / "no-such-file.pgn"
    with pytest.raises(pgntools.InputError, match="no-such-file.pgn"):
        list(pgntools.read_games(str(missing)))


def test_directory_raises_input_error(tmp_path):
    with pytest.raises(pgntools.InputError, match=str(tmp_path)):
        list(pgntools.read_games(str(tmp_path)))


def test_input_error_is_a_pgntools_error():
    assert issubclass(pgntools.InputError, pgntools.PgnToolsError)


@pytest.mark.skipif(os.geteuid() == 0 if hasattr(os, "geteuid") else True,
                    reason="file permissions do not apply to root")
def test_unreadable_file_raises_input_error(tmp_path):
    path = write(tmp_path, b"1. e4 *\n", "secret.pgn")
    path.chmod(0)
    with pytest.raises(pgntools.InputError, match="secret.pgn"):
        list(pgntools.read_games(str(path)))


def test_batches_end_by_size_too():
    """Games with big comments end a batch early (about 1 MB of columns), so memory does not
    follow what 1,024 such games would take; no game is lost or split."""
    comment = "x" * 100_000
    games = "".join(f'[Event "{i}"]\n\n1. e4 {{{comment}}} e5 *\n\n' for i in range(40)).encode()
    batches = list(_core.BatchReader(io.BytesIO(games), moves=True, comments=True, pgn=True))
    sizes = [sum(len(v) if isinstance(v, bytes) else len(v[0]) + len(v[1]) for v in b.values()
                 if isinstance(v, (bytes, tuple))) for b in batches]
    assert len(batches) > 5
    assert sum(b["n_games"] for b in batches) == 40
    assert max(sizes) < (1 << 20) + 3 * len(comment)  # the limit, plus the game that crossed it


def test_without_tag_values_only_the_values_are_left_out(plain_data):
    """tag_values=False (validate without -o or --report): every tag row stays, its value empty;
    everything else is as with the values, and pgn=True keeps them (the export format needs them)."""
    def batches(**options):
        return list(_core.BatchReader(io.BytesIO(plain_data), final_fen=True, **options))

    full, bare = batches(), batches(tag_values=False)
    assert len(full) == len(bare)
    for a, b in zip(full, bare):
        offsets, values = b["tag_value"]
        assert len(offsets) == len(a["tag_value"][0]) > 4  # as many rows...
        assert offsets == bytes(len(offsets)) and values == b""  # ...all empty
        assert a["n_games"] and {k: v for k, v in a.items() if k != "tag_value"} == \
               {k: v for k, v in b.items() if k != "tag_value"}
    assert batches(pgn=True) == batches(pgn=True, tag_values=False)


def test_detached_batches_hold_the_same_columns(plain_data):
    """detach=True (export's writer thread copies the columns, not the reader): each batch
    equals the copied one, whether all are kept while the next ones are read or each is dropped
    first (its buffers then go back to the reader and are filled again)."""
    options = dict(moves=True, comments=True, final_fen=True, pgn=True, tag_columns=True, batch_games=300)
    copied = list(_core.BatchReader(io.BytesIO(plain_data), **options))
    assert len(copied) > 5
    kept = list(_core.BatchReader(io.BytesIO(plain_data), detach=True, **options))
    assert kept == copied
    count = 0
    for batch, expected in zip(_core.BatchReader(io.BytesIO(plain_data), detach=True, **options), copied):
        assert batch["san"] == expected["san"] and batch["tag_slots"] == expected["tag_slots"]
        assert batch == expected and "status" in batch and batch.get("no such column") is None
        count += 1
    assert count == len(copied)
