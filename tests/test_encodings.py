"""Issue 20: input that is not UTF-8. UTF-16 files (with a byte order mark or without) are
decoded to UTF-8 for every command; a UTF-8 byte order mark is skipped; a game that is not
UTF-8 is read as Windows-1252 (a note). Expected texts come from Python's codecs, not from
pgntools."""
from __future__ import annotations

import codecs
import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pgntools
from pgn_helpers import cli_run, report_lines
from pgntools.inputs.text_encoding import utf16_encoding

REPO = Path(__file__).resolve().parents[1]
GAME = ('[Event "Café Ré ♞"]\n[White "Müller"]\n[Black "Ça"]\n[Result "1-0"]\n\n'
        "1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 {menace: Qxf7#} 4. Qxf7# 1-0\n\n")
BAD = GAME.replace("4. Qxf7#", "4. Qxf8#")
TEXT = GAME * 3 + BAD + GAME  # game 3 is invalid

ENCODINGS = {
    "utf-16-bom": lambda s: s.encode("utf-16"),  # the machine's order, with its BOM (PowerShell's)
    "utf-16-le-bom": lambda s: codecs.BOM_UTF16_LE + s.encode("utf-16-le"),
    "utf-16-be-bom": lambda s: codecs.BOM_UTF16_BE + s.encode("utf-16-be"),
    "utf-16-le": lambda s: s.encode("utf-16-le"),
    "utf-16-be": lambda s: s.encode("utf-16-be"),
    "utf-8-bom": lambda s: codecs.BOM_UTF8 + s.encode("utf-8"),
}


def pgntools_cli(*args, input=None):
    return subprocess.run([sys.executable, "-m", "pgntools", *args], cwd=REPO, input=input, capture_output=True)


@pytest.mark.parametrize("encoding", list(ENCODINGS))
def test_utf16_and_bom_inputs_read_as_their_utf8_text(tmp_path, encoding):
    utf8 = tmp_path / "utf8.pgn"
    utf8.write_bytes(TEXT.encode("utf-8"))
    src = tmp_path / "in.pgn"
    src.write_bytes(ENCODINGS[encoding](TEXT))
    runs = {}
    for name, path in (("utf8", utf8), ("other", src)):
        run = pgntools_cli("validate", str(path), "-o", str(tmp_path / f"{name}.out.pgn"),
                           "--report", str(tmp_path / f"{name}.jsonl"), "--summary", str(tmp_path / f"{name}.json"))
        assert run.returncode == 1, run.stderr  # the one invalid game
        runs[name] = run
    # the same games, the same output, and the same report but for the file's name: offsets and
    # lines count the UTF-8 text (a BOM's 3 bytes come first in the UTF-8-BOM file)
    assert (tmp_path / "other.out.pgn").read_bytes() == (tmp_path / "utf8.out.pgn").read_bytes()
    assert "Café Ré ♞" in (tmp_path / "other.out.pgn").read_text(encoding="utf-8")
    (want,), (got,) = report_lines((tmp_path / "utf8.jsonl").read_text()), \
        report_lines((tmp_path / "other.jsonl").read_text())
    shift = 3 if encoding == "utf-8-bom" else 0
    assert got["game"] == want["game"] == 3
    assert (got["offset"], got["errors"][0]["offset"]) == (want["offset"] + shift, want["errors"][0]["offset"] + shift)
    assert got["line"] == want["line"] and got["errors"][0]["line"] == want["errors"][0]["line"]
    summary = json.loads((tmp_path / "other.json").read_text())
    assert (summary["games"], summary["valid"], summary["invalid"]) == (5, 4, 1)
    assert summary["bytes"] == src.stat().st_size and summary["pgn_bytes"] == len(TEXT.encode("utf-8")) + shift


@pytest.mark.parametrize("encoding", ["utf-16-bom", "utf-16-be"])
def test_every_command_and_stdin_and_compressed_utf16(tmp_path, encoding):
    data = ENCODINGS[encoding](GAME)
    src = tmp_path / "in.pgn.gz"
    src.write_bytes(gzip.compress(data))
    fen = "r1bqkb1r/pppp1Qpp/2n2n2/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 0 4"
    assert pgntools_cli("to-fen", str(src)).stdout.decode().split() == fen.split()
    assert pgntools_cli("to-fen", "-", input=data).stdout.decode().split() == fen.split()
    filtered = pgntools_cli("filter", "-", "-o", "-", input=data)
    assert filtered.returncode == 0 and filtered.stdout.decode("utf-8") == GAME  # the game's text, as UTF-8
    pq = pytest.importorskip("pyarrow.parquet")
    assert pgntools_cli("export", str(src), "--parquet", str(tmp_path / "ds"), "--with-comments").returncode == 0
    games = pq.read_table(tmp_path / "ds" / "games").to_pylist()
    assert [(g["event"], g["white"]) for g in games] == [("Café Ré ♞", "Müller")]
    moves = pq.read_table(tmp_path / "ds" / "moves").to_pylist()
    assert moves[5]["comment"] == "menace: Qxf7#"
    (game,) = pgntools.read_games(str(src))
    assert game.headers["Black"] == "Ça" and game.status == "valid"


def test_parallel_runs_of_a_utf16_file_match_one_job(tmp_path):
    # several chunks: workers must get the decoded text, never the file's UTF-16 bytes
    src = tmp_path / "big.pgn"
    src.write_bytes(((GAME * 40 + BAD) * 600).encode("utf-16"))
    outputs = {}
    for jobs in ("1", "2", "3"):
        for numbered in (True, False):  # --report: chunks cut by the scanner; without: at seams
            args = ["validate", str(src), "--jobs", jobs, "-o", str(tmp_path / f"o{jobs}{numbered}.pgn")]
            if numbered:
                args += ["--report", str(tmp_path / f"r{jobs}.jsonl")]
            assert pgntools_cli(*args).returncode == 1
            outputs[jobs, numbered] = (tmp_path / f"o{jobs}{numbered}.pgn").read_bytes()
    assert len(set(outputs.values())) == 1
    assert outputs["1", True].count(b"[Event ") == 40 * 600
    reports = {(tmp_path / f"r{jobs}.jsonl").read_bytes() for jobs in ("1", "2", "3")}
    assert len(reports) == 1 and len(report_lines(reports.pop())) == 600


def test_utf16_text_without_a_game_says_so(tmp_path):
    src = tmp_path / "notes.txt"
    src.write_bytes("just some words\nno chess here\n".encode("utf-16"))
    run = pgntools_cli("validate", str(src))
    assert run.returncode == 2
    assert run.stderr.decode().strip() == f"pgntools: error: {src}: text with no PGN game in it (UTF-16), not PGN (no game found)"


def test_the_utf16_sniffer_takes_no_utf8_or_8bit_text_for_utf16():
    assert utf16_encoding(TEXT.encode("utf-8")[:256]) is None
    assert utf16_encoding(TEXT.encode("cp1252", "replace")[:256]) is None
    assert utf16_encoding(b"\x00" * 256) is None  # binary data stays binary data
    assert utf16_encoding(bytes(range(256))) is None
    assert utf16_encoding("[Event".encode("utf-16-le")) == "utf-16-le"
    assert utf16_encoding("1. e4 e5".encode("utf-16-be")) == "utf-16-be"


@settings(max_examples=40, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc", "Cn", "Co"), blacklist_characters='"\\{}[]\r'), max_size=40),
       st.sampled_from(["utf-16", "utf-16-le", "utf-16-be", "utf-8"]))
def test_any_tag_text_reads_back_from_any_encoding(tmp_path_factory, value, encoding):
    value = " ".join(value.split())  # (the writer keeps a value as read; lines end a tag)
    text = f'[Event "{value}"]\n[Result "*"]\n\n1. e4 *\n'
    src = tmp_path_factory.mktemp("enc") / "g.pgn"
    # (without a BOM, UTF-16 is known by the NUL bytes of the ASCII its first 256 bytes hold: a
    # game's tags, as here, before any other text)
    first = '[Event "x"]\n[Site "?"]\n[Date "2020.01.01"]\n[Round "1"]\n[White "A"]\n[Black "B"]\n[Result "*"]\n\n*\n\n'
    src.write_bytes((first + text).encode(encoding))
    games = list(pgntools.read_games(str(src)))
    assert [g.headers["Event"] for g in games] == ["x", value]


# ---------------------------------------------------------------- 8-bit text: Windows-1252

def test_a_game_that_is_not_utf8_is_read_as_windows_1252(tmp_path):
    # ChessBase and other Windows exports: é (E9) as in Latin-1, ’ (92) and € (80) only in Windows-1252
    text = '[Event "Caf\u00e9 \u2019Open\u2019 \u20ac5"]\n[Result "*"]\n\n1. e4 { \u201cbest\u201d } *\n'
    src = tmp_path / "cp1252.pgn"
    src.write_bytes(text.encode("cp1252") + b"\n" + GAME.encode("utf-8"))
    games = list(pgntools.read_games(str(src)))
    assert games[0].headers["Event"] == "Caf\u00e9 \u2019Open\u2019 \u20ac5"
    assert games[0].moves[0].comment == "\u201cbest\u201d"
    assert [n["kind"] for n in games[0].notes] == ["latin1_encoding"]
    assert games[1].headers["Event"] == "Café Ré ♞" and games[1].notes == []  # each game on its own
    run = cli_run(["validate", str(src), "-o", str(tmp_path / "o.pgn"), "-q"])
    assert run.exit_code == 0
    assert '[Event "Caf\u00e9 \u2019Open\u2019 \u20ac5"]' in (tmp_path / "o.pgn").read_text(encoding="utf-8")


def test_every_8bit_byte_reads_as_windows_1252_as_the_whatwg_decoder_does(tmp_path):
    raw = bytes(b for b in range(0x80, 0x100))
    src = tmp_path / "bytes.pgn"
    src.write_bytes(b'[Event "' + raw + b'"]\n[Result "*"]\n\n*\n')
    (game,) = pgntools.read_games(str(src))
    # Python's cp1252 leaves 81, 8D, 8F, 90, 9D undefined; WHATWG's windows-1252 (browsers) maps them to U+0081...
    want = "".join(bytes([b]).decode("cp1252", "ignore") or chr(b) for b in raw)
    assert game.headers["Event"] == want
