"""`pgntools filter` and `--where` on every command (issue 18), through the real command line:
a filter that keeps every game reproduces each game's bytes; the selection is the one the
expression says (checked against the tags read back here), the same for --jobs 1 and 2; a bad
expression is a usage error before any input is read."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pgntools.reader import read_games

from pgntools.cli import cli

if "filter" not in cli.commands:  # the command lands with the selection stage (branch run, then where-run)
    pytest.skip("pgntools filter is not in this tree yet", allow_module_level=True)

REPO = Path(__file__).resolve().parents[1]
from corpora_dir import CORPORA_DIR  # noqa: E402

CORPUS = CORPORA_DIR / "lichess" / "lichess-magnus-carlsen.pgn"

GAMES = [
    '[Event "A"]\n[White "Anna"]\n[WhiteElo "2500"]\n[Result "1-0"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0',
    '[Event "B"]\r\n[White "Boris"]\r\n[WhiteElo "2300"]\r\n[Result "*"]\r\n\r\n1. d4 {a comment}\r\n(1. e4) d5 *',
    '[Event "C"]\n[White "Carl"]\n[WhiteElo "?"]\n[Result "0-1"]\n\n1. e4 e5 2. Ke3 0-1',  # invalid
    '[Event "D"]\n[White "D\xf6ra"]\n[WhiteElo "2700"]\n[Result "1/2-1/2"]\n\n1. Nf3   Nf6 $1  2. g3 g6 1/2-1/2',
    '[Event "E"]\n[White "Eve"]\n\n1. c4 *',
]
ENCODED = [g.encode("latin-1" if "\xf6" in g else "utf-8") for g in GAMES]


def pgntools(*args, input=None):
    return subprocess.run([sys.executable, "-m", "pgntools", *map(str, args)], cwd=REPO, input=input,
                          capture_output=True)


@pytest.fixture
def games_file(tmp_path):
    path = tmp_path / "in.pgn"
    path.write_bytes(b"".join(g + (b"\r\n\r\n" if b"\r\n" in g else b"\n\n") for g in ENCODED))
    return path


def test_keeping_every_game_reproduces_the_input(tmp_path, games_file):
    out = tmp_path / "out.pgn"
    done = pgntools("filter", games_file, "-o", out, "--where", "1 = 1", "--exit-zero")
    assert done.returncode == 0, done.stderr
    assert out.read_bytes() == games_file.read_bytes()
    plain = tmp_path / "plain.pgn"
    assert pgntools("filter", games_file, "-o", plain, "--exit-zero").returncode == 0
    assert plain.read_bytes() == games_file.read_bytes()


def test_selected_games_are_written_byte_for_byte(tmp_path, games_file):
    out = tmp_path / "out.pgn"
    done = pgntools("filter", games_file, "-o", out, "--where", "white_elo >= 2400 or white = 'Eve'",
                    "--summary", tmp_path / "s.json")
    assert done.returncode == 0, done.stderr  # the invalid game is not selected
    assert out.read_bytes() == ENCODED[0] + b"\n\n" + ENCODED[3] + b"\n\n" + ENCODED[4] + b"\n\n"
    summary = json.loads((tmp_path / "s.json").read_text())
    assert (summary["games"], summary["read"], summary["dropped"]) == (3, 5, 2)
    assert "3 of 5 games selected" in done.stderr.decode()


def test_an_invalid_selected_game_is_written_as_it_was(tmp_path, games_file):
    out, rejects = tmp_path / "out.pgn", tmp_path / "bad.pgn"
    done = pgntools("filter", games_file, "-o", out, "--rejects", rejects, "--where", "event in ('B', 'C')")
    assert done.returncode == 0  # some selected game is invalid: counted (exit 0, issue 37 A4)
    assert out.read_bytes() == ENCODED[1] + b"\r\n\r\n" + ENCODED[2] + b"\n\n"
    assert rejects.read_bytes() == ENCODED[2] + b"\n\n"


def test_normalize_writes_the_export_format_of_validate(tmp_path, games_file):
    out, expected = tmp_path / "out.pgn", tmp_path / "validated.pgn"
    where = "white_elo >= 2400 or white_elo is null"
    assert pgntools("filter", games_file, "-o", out, "--normalize", "--where", where).returncode == 0
    assert pgntools("validate", games_file, "-o", expected, "--where", where).returncode == 1
    assert out.read_bytes() == expected.read_bytes()
    written = out.read_text(encoding="utf-8")
    assert '[White "Anna"]' in written and '[White "Döra"]' in written and '[White "Eve"]' in written
    assert "Boris" not in written and "Carl" not in written  # not selected; invalid (never normalised)


@pytest.mark.parametrize("expression, message", [
    ("white_elo > 'abc'", "type mismatch"),
    ("WhiteElo > 2000", "did you mean white_elo?"),
    ("white_elo >", "expected a value"),
])
@pytest.mark.parametrize("command", [["filter", "-o", "OUT"], ["validate"], ["to-fen"], ["export", "--parquet", "OUT"]])
def test_a_bad_expression_is_a_usage_error_before_reading(tmp_path, command, expression, message):
    fifo = tmp_path / "never-read.pgn"  # a FIFO nobody writes: reading it would hang the run
    import os

    os.mkfifo(fifo)
    args = [str(tmp_path / a) if a == "OUT" else a for a in command]
    done = subprocess.run([sys.executable, "-m", "pgntools", *args, str(fifo), "--where", expression], cwd=REPO,
                          capture_output=True, timeout=60)
    assert done.returncode == 2
    err = done.stderr.decode()
    assert err.startswith("pgntools: error: --where: ") and message in err
    assert "^" in err.splitlines()[-1]
    assert not (tmp_path / "OUT").exists()


def test_where_drops_games_from_every_output(tmp_path, games_file):
    where = "white_elo >= 2400"
    fens = pgntools("to-fen", games_file, "--where", where)
    assert fens.returncode == 0, fens.stderr
    assert len(fens.stdout.splitlines()) == 2
    report = tmp_path / "report.jsonl"
    done = pgntools("validate", games_file, "--where", "white_elo is null", "--report", report)
    assert done.returncode == 1  # game 2 (invalid) is selected
    ids = [json.loads(line)["game"] for line in report.read_text().splitlines()]
    assert 2 in ids and all(i in (2, 4) for i in ids)  # the input's numbering is kept
    assert "2 of 5 games selected" in done.stderr.decode()


def test_where_on_export(tmp_path, games_file):
    duckdb = pytest.importorskip("duckdb")
    out = tmp_path / "ds"
    done = pgntools("export", "--parquet", out, games_file, "--where", "white_elo >= 2400", "--exit-zero")
    assert done.returncode == 0, done.stderr
    rows = duckdb.sql(f"select game_id, white from '{out}/games/*.parquet' order by game_id").fetchall()
    assert rows == [(0, "Anna"), (3, "Döra")]
    moves = duckdb.sql(f"select game_id, count(*) from '{out}/moves/*.parquet' group by 1 order by 1").fetchall()
    assert moves == [(0, 7), (3, 4)]


@pytest.mark.skipif(not CORPUS.exists(), reason="shared corpora not found")
def test_same_selection_for_jobs_1_and_2(tmp_path):
    where = "white_elo >= 2850 and (abs(white_elo - black_elo) <= 30 or result = '0-1')"
    outputs = []
    for jobs in (1, 2):
        out = tmp_path / f"out{jobs}.pgn"
        done = pgntools("filter", CORPUS, "-o", out, "--where", where, "--jobs", jobs, "--chunk-bytes", 200_000,
                        "--exit-zero")
        assert done.returncode == 0, done.stderr
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1]
    # the selection is what the expression says of the tags (read back here, not by pgntools' evaluator)
    expected = []
    for game in read_games(str(CORPUS)):
        welo, belo = game.headers.get("WhiteElo", "?"), game.headers.get("BlackElo", "?")
        if not (welo.isdigit() and belo.isdigit()):
            continue
        if int(welo) >= 2850 and (abs(int(welo) - int(belo)) <= 30 or game.result == "0-1"):
            expected.append(game.headers.get("Site"))
    written = [g.headers.get("Site") for g in read_games(str(tmp_path / "out1.pgn"))]
    assert written == expected and len(expected) > 10


@pytest.mark.skipif(not CORPUS.exists(), reason="shared corpora not found")
def test_sample_is_the_same_for_jobs_1_and_2(tmp_path):
    outputs = []
    for jobs in (1, 2):
        out = tmp_path / f"out{jobs}.pgn"
        done = pgntools("filter", CORPUS, "-o", out, "--sample", "0.05", "--seed", "3", "--jobs", jobs,
                        "--chunk-bytes", 300_000, "--exit-zero")
        assert done.returncode == 0, done.stderr
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1]
    n = sum(1 for _ in read_games(str(tmp_path / "out1.pgn")))
    assert 300 < n < 700  # ~5 % of 10,024


def test_limit_stops_after_n_selected_games(tmp_path, games_file):
    out = tmp_path / "out.pgn"
    done = pgntools("filter", games_file, "-o", out, "--where", "white_elo is not null", "--limit", 2)
    assert done.returncode == 0, done.stderr
    assert out.read_bytes() == ENCODED[0] + b"\n\n" + ENCODED[1] + b"\r\n\r\n"


def test_a_selection_that_drops_every_game_is_no_error(tmp_path, games_file):
    out = tmp_path / "out.pgn"
    done = pgntools("filter", games_file, "-o", out, "--where", "white_elo > 9000", "--summary", tmp_path / "s.json")
    assert done.returncode == 0, done.stderr
    assert out.read_bytes() == b""
    assert json.loads((tmp_path / "s.json").read_text())["dropped"] == 5
    assert "0 of 5 games selected" in done.stderr.decode()


def test_raw_games_text_joins_as_the_rule_says():
    """_core.raw_games_text against the rule it implements, written out in Python: the games with
    a non-empty string (and a wanted status), each with LF LF, or CR LF CR LF when it holds a CR LF
    (a lone CR, or a CR at its very end, does not count)."""
    import struct

    from pgntools import _core

    games = [b"a\r\nb", b"", b"c\rd", b"e\n", b"f\r", b"g\r\n"]
    status = bytes([0, 0, 2, 1, 2, 3])
    offsets, at = [0], 0
    for g in games:
        at += len(g)
        offsets.append(at)
    packed = struct.pack(f"{len(offsets)}i", *offsets)

    def rule(keep, own):
        return b"".join(g + (b"\r\n\r\n" if own and b"\r\n" in g else b"\n\n")
                        for g, s in zip(games, status) if g and (keep is None or s in keep))

    for keep in (None, bytes([2, 3]), b""):
        for own in (True, False):
            assert _core.raw_games_text(packed, b"".join(games), status, keep, own) == rule(keep, own)
    assert _core.raw_games_text(b"", b"", b"") == b""
    with pytest.raises(ValueError):  # offsets past the data
        _core.raw_games_text(packed, b"abc", status)
