"""filter's pgn-extract extras (issue 37 B): --unselected, --duplicates, --dedup-keep duplicates,
--dedup-against and --where-moves. python-chess decides which games each keeps; pgn-extract
(when installed) keeps the same games for -n, -d, -U, -D -c and -v."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pgn_helpers import CHESS_REASON

chess_pgn = pytest.importorskip("chess.pgn", reason=CHESS_REASON)
import chess  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
PGN_EXTRACT = shutil.which("pgn-extract") or shutil.which("/usr/games/pgn-extract")
LINES = ["e4 e5 Nf3 Nc6 Bb5 a6", "e4 c5 Nf3 d6 d4 cxd4", "d4 d5 c4 e6 Nc3 Nf6", "e4 e5 Nf3 Nf6 Nxe5 d6",
         "c4 e5 Nc3 Nf6 g3 d5", "e4 e5 Nf3 Nc6 Bc4 Bc5", "d4 Nf6 c4 e6 Nf3 b6", "e4 e6 d4 d5 Nc3 Bb4"]
ORDER = [0, 1, 2, 0, 3, 4, 1, 5, 0, 6, 7, 2, 3]  # the lines of the games, repeats included


def game_text(n: int, line: str) -> str:
    board, game = chess.Board(), chess_pgn.Game()
    game.headers["Event"] = f"G{n}"
    node = game
    for san in line.split():
        node = node.add_variation(board.push_san(san))
    game.headers["Result"] = "*"
    return str(game) + "\n\n"


def games_file(tmp_path, name="in.pgn", order=ORDER, base=0) -> Path:
    path = tmp_path / name
    path.write_text("".join(game_text(base + n, LINES[k]) for n, k in enumerate(order)))
    return path


def events(path: Path) -> list:
    return re.findall(r'\[Event "([^"]*)"\]', path.read_text()) if path.exists() else []


def pgntools(*args):
    return subprocess.run([sys.executable, "-m", "pgntools", *map(str, args)], cwd=REPO, capture_output=True,
                          text=True, timeout=120)


def extract(*args) -> subprocess.CompletedProcess:
    return subprocess.run([PGN_EXTRACT, "-s", *map(str, args)], capture_output=True, text=True, timeout=60)


JOBS = ["1", "2"]


@pytest.mark.parametrize("jobs", JOBS)
@pytest.mark.parametrize("where", ["event in ('G1', 'G4', 'G9')", "ply_count >= 6 and event != 'G2'"])
def test_unselected_is_every_other_game_byte_for_byte(tmp_path, jobs, where):
    source = games_file(tmp_path)
    out, rest = tmp_path / "o.pgn", tmp_path / "rest.pgn"
    done = pgntools("filter", source, "-o", out, "--unselected", rest, "--where", where, "-j", jobs,
                    "--chunk-bytes", "1")
    assert done.returncode == 0, done.stderr
    every = events(source)
    assert sorted(events(out) + events(rest), key=every.index) == every
    assert set(events(out)).isdisjoint(events(rest))
    blocks = source.read_text().split("\n\n[")  # byte for byte: each game as it was
    for event in events(rest):
        block = next(b for b in blocks if f'Event "{event}"' in b)
        assert block.split("\n", 1)[1].strip() in rest.read_text()


def test_unselected_with_limit_stops_where_the_run_stopped(tmp_path):
    source = games_file(tmp_path)
    out, rest = tmp_path / "o.pgn", tmp_path / "rest.pgn"
    done = pgntools("filter", source, "-o", out, "--unselected", rest, "--where-moves", "1. d4", "--limit", "2")
    assert done.returncode == 0, done.stderr
    assert events(out) == ["G2", "G9"]
    assert events(rest) == ["G0", "G1", "G3", "G4", "G5", "G6", "G7", "G8"]


def first_seen(order):
    seen, firsts, repeats = set(), [], []
    for n, k in enumerate(order):
        (repeats if k in seen else firsts).append(f"G{n}")
        seen.add(k)
    return firsts, repeats


@pytest.mark.parametrize("jobs", JOBS)
def test_duplicates_gets_the_repeats_dedup_drops(tmp_path, jobs):
    source = games_file(tmp_path)
    out, dups = tmp_path / "o.pgn", tmp_path / "d.pgn"
    done = pgntools("filter", source, "-o", out, "--dedup", "moves", "--duplicates", dups, "-j", jobs,
                    "--chunk-bytes", "1")
    assert done.returncode == 0, done.stderr
    firsts, repeats = first_seen(ORDER)
    assert events(out) == firsts and events(dups) == repeats


@pytest.mark.parametrize("jobs", JOBS)
def test_dedup_keep_duplicates_writes_only_the_repeats(tmp_path, jobs):
    source = games_file(tmp_path)
    out = tmp_path / "o.pgn"
    done = pgntools("filter", source, "-o", out, "--dedup-keep", "duplicates", "-j", jobs, "--chunk-bytes", "1")
    assert done.returncode == 0, done.stderr
    assert events(out) == first_seen(ORDER)[1]


def test_dedup_against_drops_the_games_of_the_other_file(tmp_path):
    source = games_file(tmp_path)
    other = games_file(tmp_path, "other.pgn", order=[2, 7], base=100)
    out, report = tmp_path / "o.pgn", tmp_path / "r.jsonl"
    done = pgntools("filter", source, "-o", out, "--dedup-against", other, "--report", report)
    assert done.returncode == 0, done.stderr
    assert events(out) == [f"G{n}" for n, k in enumerate(ORDER) if k not in (2, 7)]  # (its own repeats stay)
    records = [json.loads(line) for line in report.read_text().splitlines()]
    dropped = {r["game"]: r for r in records if r["status"] == "duplicate"}
    assert sorted(dropped) == [n for n, k in enumerate(ORDER) if k in (2, 7)]
    assert all(r["duplicate_in"] == "--dedup-against" for r in dropped.values())
    assert {r["duplicate_of"] for r in dropped.values()} == {0, 1}  # (the games of other.pgn)
    both = tmp_path / "both.pgn"
    done = pgntools("filter", source, "-o", both, "--dedup-against", other, "--dedup", "moves")
    assert done.returncode == 0, done.stderr
    assert events(both) == [g for g in first_seen(ORDER)[0] if ORDER[int(g[1:])] not in (2, 7)]


def test_duplicates_without_dedup_is_a_usage_error(tmp_path):
    source = games_file(tmp_path)
    done = pgntools("filter", source, "-o", tmp_path / "o.pgn", "--duplicates", tmp_path / "d.pgn")
    assert done.returncode == 2 and "--duplicates writes the games --dedup drops" in done.stderr


# ---------------------------------------------------------------- --where-moves

def python_chess_matches(source: Path, pattern: list, anywhere: bool) -> list:
    """The games (Event) whose mainline SAN matches, decided by python-chess."""
    kept = []
    with open(source) as stream:
        while (game := chess_pgn.read_game(stream)) is not None:
            board, sans = game.board(), []
            for move in game.mainline_moves():
                sans.append(board.san(move).rstrip("+#"))
                board.push(move)
            starts = range(len(sans) - len(pattern) + 1) if anywhere else range(1 if len(sans) >= len(pattern) else 0)
            if any(all(p == "*" or p == sans[s + k] for k, p in enumerate(pattern)) for s in starts):
                kept.append(game.headers["Event"])
    return kept


PATTERNS = [("1. e4 e5 2. Nf3", ["e4", "e5", "Nf3"], False), ("e4 * Nf3 Nc6", ["e4", "*", "Nf3", "Nc6"], False),
            ("1.d4 Nf6 2.c4", ["d4", "Nf6", "c4"], False), ("1. e4 e5 2. Ng1f3 Nc6+", ["e4", "e5", "Nf3", "Nc6"], False),
            ("... Nf3 Nc6", ["Nf3", "Nc6"], True), ("...Nf3 * Nxe5", ["Nf3", "*", "Nxe5"], True),
            ("... c5 Nf3 d6 d4", ["c5", "Nf3", "d6", "d4"], True), ("... Nc3 Bb4", ["Nc3", "Bb4"], True)]


@pytest.mark.parametrize("jobs", JOBS)
@pytest.mark.parametrize("text, pattern, anywhere", PATTERNS)
def test_where_moves_keeps_what_python_chess_matches(tmp_path, text, pattern, anywhere, jobs):
    source = games_file(tmp_path)
    out = tmp_path / "o.pgn"
    done = pgntools("filter", source, "-o", out, "--where-moves", text, "-j", jobs, "--chunk-bytes", "1")
    assert done.returncode == 0, done.stderr
    expected = python_chess_matches(source, pattern, anywhere)
    assert events(out) == expected and expected


@pytest.mark.parametrize("text, message", [("1. e4 Zz9", "'Zz9' is not a move"),
                                           ("1. e4 e5 2. Ke3", "move 3, 'Ke3', is not legal after e4 e5"),
                                           ("1.", "no move in")])
def test_where_moves_that_do_not_parse_name_the_token(tmp_path, text, message):
    done = pgntools("filter", games_file(tmp_path), "-o", tmp_path / "o.pgn", "--where-moves", text)
    assert done.returncode == 2 and message in done.stderr, done.stderr


# ---------------------------------------------------------------- against pgn-extract

needs_extract = pytest.mark.skipif(PGN_EXTRACT is None, reason="pgn-extract is not installed")


@needs_extract
def test_duplicates_and_keep_duplicates_as_pgn_extract(tmp_path):
    source = games_file(tmp_path)
    out, dups = tmp_path / "o.pgn", tmp_path / "d.pgn"
    assert pgntools("filter", source, "-o", out, "--dedup", "moves", "--duplicates", dups).returncode == 0
    theirs_dups = tmp_path / "pe-d.pgn"
    theirs = extract(f"-d{theirs_dups}", source)
    assert events(out) == re.findall(r'\[Event "([^"]*)"\]', theirs.stdout)
    assert events(dups) == events(theirs_dups)
    kept = tmp_path / "k.pgn"
    assert pgntools("filter", source, "-o", kept, "--dedup-keep", "duplicates").returncode == 0
    assert events(kept) == re.findall(r'\[Event "([^"]*)"\]', extract("-U", source).stdout)


@needs_extract
def test_dedup_against_as_pgn_extract_check_file(tmp_path):
    source = games_file(tmp_path)
    other = games_file(tmp_path, "other.pgn", order=[2, 7], base=100)
    out = tmp_path / "o.pgn"
    assert pgntools("filter", source, "-o", out, "--dedup", "moves", "--dedup-against", other).returncode == 0
    assert events(out) == re.findall(r'\[Event "([^"]*)"\]', extract("-D", f"-c{other}", source).stdout)


@needs_extract
@pytest.mark.parametrize("text", ["1. e4 e5 2. Nf3", "1. e4 * 2. Nf3 Nc6", "1. d4"])
def test_where_moves_and_unselected_as_pgn_extract_variations(tmp_path, text):
    source = games_file(tmp_path)
    variations = tmp_path / "v.txt"
    variations.write_text(text + "\n")
    out, rest, theirs_rest = tmp_path / "o.pgn", tmp_path / "u.pgn", tmp_path / "pe-u.pgn"
    done = pgntools("filter", source, "-o", out, "--unselected", rest, "--where-moves", text)
    assert done.returncode == 0, done.stderr
    theirs = extract(f"-v{variations}", f"-n{theirs_rest}", source)
    assert events(out) == re.findall(r'\[Event "([^"]*)"\]', theirs.stdout)
    assert events(rest) == events(theirs_rest)
