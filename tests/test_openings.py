"""Opening classification (issue 19): the C classifier against a reference implementation of the
same rule with python-chess, on the games of the shared corpora, and the CLI around it
(validate --classify, export's opening columns, --where, the summary).

The reference (test-only) reads the opening table's TSV files itself, plays each line with
python-chess and keys the final position by its EPD (python-chess writes the en-passant square
only when a capture is legal, as the rule wants); a game's opening is the deepest of its first
40 mainline positions found there, and none when python-chess says the game does not start from
the standard position of standard chess. The mainline compared is the one export wrote (the
moves table): whether that mainline is right is tests/test_reader_differential.py's business.

Default run: files up to 1 MB in full, bigger ones on a sample (the first 200 games and every
25th); ``-m slow`` every game of every file.
"""
from __future__ import annotations

import csv
import functools
import json
import subprocess
import sys
from pathlib import Path
from typing import Dict, Optional, Tuple

import pytest

from pgn_helpers import CHESS_REASON, CORPORA_DIR, CORPORA_REASON, SMALL_FILE, corpus_params, in_sample, skip_unless_a_move

chess = pytest.importorskip("chess", reason=CHESS_REASON)
chess_pgn = pytest.importorskip("chess.pgn", reason=CHESS_REASON)
pq = pytest.importorskip("pyarrow.parquet")

REPO = Path(__file__).resolve().parents[1]
TABLE_DIR = REPO / "pgntools" / "data" / "openings"
MAX_PLY = 40


# ---------------------------------------------------------------- the reference

@functools.lru_cache(maxsize=None)
def reference_table() -> Dict[str, Tuple[str, str]]:
    """EPD -> (eco, name), from the TSV files read here, each line played by python-chess."""
    table: Dict[str, Tuple[str, str]] = {}
    for path in sorted(TABLE_DIR.glob("*.tsv")):
        with open(path, encoding="utf-8", newline="") as f:
            for row in csv.DictReader(f, delimiter="\t"):
                board = chess.Board()
                for token in row["pgn"].split():
                    if not token.rstrip(".").isdigit():
                        board.push_san(token)
                epd = board.epd()
                assert epd not in table, f"{path.name}: {row['name']} names the position of {table[epd]}"
                table[epd] = (row["eco"], row["name"])
    return table


def reference_opening(start_fen: str, variant: Optional[str], ucis) -> Optional[Tuple[str, str, int]]:
    """(eco, name, ply) of the deepest named position of the first 40 plies, or None."""
    headers = chess_pgn.Headers()
    if variant is not None:
        headers["Variant"] = variant
    try:
        if headers.is_chess960() or headers.variant() is not chess.Board:
            return None
    except ValueError:  # a variant python-chess does not know: not standard chess
        return None
    board = chess.Board(start_fen)
    if board.epd() != chess.Board().epd():
        return None
    table, found = reference_table(), None
    for ply, uci in enumerate(ucis[:MAX_PLY], 1):
        board.push(chess.Move.null() if uci == "0000" else chess.Move.from_uci(uci))
        named = table.get(board.epd())
        if named:
            found = (*named, ply)
    return found


def is_standard(variant: Optional[str]) -> bool:
    return variant is None or variant.lower() in ("", "standard", "from position", "normal", "chess")


# ---------------------------------------------------------------- helpers

def pgntools(*args, expect=(0,), cwd=REPO) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", "pgntools", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, timeout=600)
    assert done.returncode in expect, f"pgntools {' '.join(map(str, args))} -> {done.returncode}: {done.stderr}"
    return done


def exported(tmp_path: Path, source: Path, *more) -> Tuple[list, Dict[int, list]]:
    """export's games rows (as dicts) and each game's UCI moves."""
    out = tmp_path / f"out-{source.stem}"
    pgntools("export", "--parquet", out, source, "-q", "--jobs", "1", *more, expect=(0, 1))
    games = pq.read_table(out / "games", columns=["game_id", "start_fen", "variant", "status", "opening_eco",
                                                  "opening_name", "opening_ply", "eco", "opening"]).to_pylist()
    moves: Dict[int, list] = {}
    for row in pq.read_table(out / "moves", columns=["game_id", "uci"]).to_pylist():
        moves.setdefault(row["game_id"], []).append(row["uci"])
    return games, moves


def write(tmp_path: Path, text: str, name: str = "in.pgn") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# ---------------------------------------------------------------- the corpora against the reference

def check_corpus(path: Path, tmp_path: Path, full: bool):
    skip_unless_a_move(path)
    games, moves = exported(tmp_path, path)
    checked = named = 0
    problems = []
    for g in games:
        if not (full or in_sample(g["game_id"])):
            continue
        if g["status"] == "invalid" and (g["start_fen"] is None or not is_standard(g["variant"])):
            continue  # an unreadable start or variant: no position to start from
        try:
            want = reference_opening(g["start_fen"], g["variant"], moves.get(g["game_id"], []))
        except ValueError:  # python-chess cannot read the start FEN: it must not be classified
            want = None
        got = (g["opening_eco"], g["opening_name"], g["opening_ply"]) if g["opening_eco"] is not None else None
        checked += 1
        named += got is not None
        if got != want:
            problems.append(f"game {g['game_id']}: pgntools {got}, python-chess {want}")
    assert not problems, f"{len(problems)} of {checked} games differ:\n" + "\n".join(problems[:20])
    return checked, named


@pytest.mark.parametrize("path", corpus_params())
def test_classification_agrees_with_python_chess(path, tmp_path):
    checked, named = check_corpus(path, tmp_path, full=path.stat().st_size <= SMALL_FILE)
    assert checked > 0 or path.stat().st_size < 200 or "chess-js" in str(path)


@pytest.mark.slow
@pytest.mark.parametrize("path", corpus_params())
def test_classification_agrees_with_python_chess_on_every_game(path, tmp_path):
    check_corpus(path, tmp_path, full=True)


def test_the_master_games_are_nearly_all_named(tmp_path):
    """A sanity check beside the sample above: the benchmark file's games get names."""
    master = CORPORA_DIR / "bench" / "master-games-30k.pgn"
    if not master.exists():
        pytest.skip(CORPORA_REASON)
    with open(master, "rb") as f:
        head = write(tmp_path, f.read(2_000_000).decode("utf-8", "replace").rsplit("[Event ", 1)[0])
    games, _ = exported(tmp_path, head)
    assert len(games) > 1000
    assert sum(g["opening_eco"] is not None for g in games) >= 0.99 * len(games)


# ---------------------------------------------------------------- the rule on small games

def test_the_table_builds_from_the_shipped_files_and_matches_the_reference():
    from pgntools import openings

    rows = openings.rows()
    reference = reference_table()
    assert len(rows) == len(reference) == 3807
    assert sorted(rows) == sorted(reference.values())
    assert (TABLE_DIR / "COPYING.txt").exists() and "51b886249b9e" in (TABLE_DIR / "SOURCE").read_text()


def test_the_table_is_the_same_whatever_the_order_of_its_lines():
    # openings_build plays only the moves a line does not share with the line before: built from
    # the lines shuffled (other prefixes shared) and from them in order, every reference position
    # gets its own line's name
    import random

    import pgntools
    from pgntools import _core, openings

    lines = [line for line in openings.table_text().splitlines() if line and not line.startswith(b"eco\t")]
    shuffled = lines[:]
    random.Random(23).shuffle(shuffled)
    tables = [openings.table(), _core.OpeningTable(b"\n".join(shuffled) + b"\n")]
    for epd, want in reference_table().items():
        board = pgntools.Board(epd + " 0 1")
        for table in tables:
            assert table.row(table.find(board)) == want, epd


def test_a_transposition_finds_the_name_of_the_position(tmp_path):
    # the table's line for this position is 1. d4 d5 2. Nf3; the game gets there as 1. Nf3 d5 2. d4
    want = reference_table()[chess.Board("rnbqkbnr/ppp1pppp/8/3p4/3P4/5N2/PPP1PPPP/RNBQKB1R b KQkq - 1 2").epd()]
    games, _ = exported(tmp_path, write(tmp_path, "1. Nf3 d5 2. d4 *\n"))
    assert (games[0]["opening_eco"], games[0]["opening_name"], games[0]["opening_ply"]) == (*want, 3)


def test_the_deepest_named_position_wins_and_only_in_40_plies(tmp_path):
    # the Ruy Lopez at ply 5, then knights out and back: no named position after it
    shuffle = " ".join(f"{3 + i}. Nc3 Nf6 {4 + i}. Nb1 Ng8" for i in range(0, 40, 2))
    games, _ = exported(tmp_path, write(tmp_path, f"1. e4 e5 2. Nf3 Nc6 3. Bb5 {shuffle} *\n"))
    assert (games[0]["opening_eco"], games[0]["opening_name"], games[0]["opening_ply"]) == ("C60", "Ruy Lopez", 5)
    # the position after 2... Nc6 again and again up to ply 40; the Ruy Lopez at ply 41 is too deep
    back = " ".join(f"{3 + i}. Ng1 Nb8 {4 + i}. Nf3 Nc6" for i in range(0, 18, 2))
    games, _ = exported(tmp_path, write(tmp_path, f"1. e4 e5 2. Nf3 Nc6 {back} 21. Bb5 *\n", "b.pgn"))
    want = reference_table()[chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3").epd()]
    assert (games[0]["opening_eco"], games[0]["opening_name"], games[0]["opening_ply"]) == (*want, 40)


def test_games_from_another_start_or_without_moves_get_none(tmp_path):
    text = ('[FEN "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"]\n[SetUp "1"]\n\n1... e5 *\n\n'
            '[Variant "Chess960"]\n\n1. e4 e5 *\n\n'
            '[Event "no moves"]\n\n*\n\n'
            '[FEN "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"]\n[SetUp "1"]\n\n1. e4 e5 *\n')
    games, _ = exported(tmp_path, write(tmp_path, text))
    assert [g["opening_eco"] for g in games] == [None, None, None, "C20"]  # a FEN of the standard start counts
    summary = json.loads(pgntools("validate", "--classify", write(tmp_path, text), "--summary", "-", "-q").stdout)
    assert summary["openings"] == {"named": 1, "unnamed": 1, "custom_start": 2}


# ---------------------------------------------------------------- validate --classify

GAME_WITH_TAGS = '[Event "e"]\n[Result "*"]\n[ECO "C00"]\n[Opening "Something older"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 *\n\n'
GAME_WITHOUT = '[Event "f"]\n[Result "*"]\n\n1. d4 d5 *\n\n'


def tags_of(pgn: str):
    """Each game's tags, in order, of export-format PGN."""
    games = []
    for line in pgn.splitlines():
        if line.startswith("[Event "):
            games.append({})
        if line.startswith("["):
            name, value = line[1:-1].split(" ", 1)
            games[-1][name] = value[1:-1]
    return games


def test_classify_missing_keeps_the_games_tags_and_notes_the_difference(tmp_path):
    source = write(tmp_path, GAME_WITH_TAGS + GAME_WITHOUT)
    out, report = tmp_path / "out.pgn", tmp_path / "report.jsonl"
    pgntools("validate", "--classify", source, "-o", out, "--report", report)
    first, second = tags_of(out.read_text())
    assert (first["ECO"], first["Opening"]) == ("C00", "Something older")
    assert (second["ECO"], second["Opening"]) == ("D00", "Queen's Pawn Game")
    assert list(second) == ["Event", "Site", "Date", "Round", "White", "Black", "Result", "ECO", "Opening"]
    notes = [json.loads(line) for line in report.read_text().splitlines()]
    assert [(r["game"], [n["kind"] for n in r["notes"]]) for r in notes] == [(0, ["opening_tags_differ"])]
    assert notes[0]["notes"][0]["ply"] == 5 and notes[0]["notes"][0]["token"] == "C60 Ruy Lopez"


def test_classify_overwrite_replaces_them(tmp_path):
    source = write(tmp_path, GAME_WITH_TAGS + GAME_WITHOUT)
    out = tmp_path / "out.pgn"
    pgntools("validate", "--classify=overwrite", source, "-o", out)
    first, second = tags_of(out.read_text())
    assert (first["ECO"], first["Opening"]) == ("C60", "Ruy Lopez")
    assert out.read_text().count("[ECO ") == 2 and "Something older" not in out.read_text()
    assert (second["ECO"], second["Opening"]) == ("D00", "Queen's Pawn Game")


def test_without_classify_nothing_changes_and_a_bad_mode_is_a_usage_error(tmp_path):
    source = write(tmp_path, GAME_WITH_TAGS + GAME_WITHOUT)
    plain, classified = tmp_path / "plain.pgn", tmp_path / "c.pgn"
    pgntools("validate", source, "-o", plain)
    assert "[ECO " not in plain.read_text().split("[Event \"f\"]")[1]
    done = pgntools("validate", "--classify=sometimes", source, expect=(2,))
    assert "--classify" in done.stderr and "missing" in done.stderr
    pgntools("validate", source, "--classify", "--reduced", "-o", classified)  # reduced: the roster only
    assert "[ECO " not in classified.read_text()


def test_where_selects_on_the_opening_and_jobs_give_the_same_output(tmp_path):
    text = "".join(f'[Event "{i}"]\n\n{line} *\n\n' for i, line in enumerate(
        ["1. e4 c5", "1. d4 d5", "1. e4 c5 2. Nf3 d6", "1. Nf3", "1. e4 e5"] * 20))
    source = write(tmp_path, text)
    outs = []
    for jobs in ("1", "2"):
        out = tmp_path / f"sicilian{jobs}.pgn"
        pgntools("filter", source, "-o", out, "--where", "opening_eco like 'B%' and opening_ply >= 2",
                 "--jobs", jobs, "--chunk-bytes", "200")
        outs.append(out.read_bytes())
    assert outs[0] == outs[1] and outs[0].count(b"[Event ") == 40
    done = pgntools("filter", source, "-o", "-", "--where", "opening_name is null")
    assert done.stdout.count("[Event ") == 0


def test_classify_gives_the_same_output_for_any_jobs(tmp_path):
    text = "".join(f'[Event "{i}"]\n[Result "*"]\n[ECO "A00"]\n\n{line} *\n\n' for i, line in enumerate(
        ["1. e4 c5", "1. d4 d5", "1. e4 e5 2. Nf3 Nc6 3. Bb5", "1. a3", "1. Nf3 d5 2. d4"] * 12))
    source = write(tmp_path, text)
    outs = []
    for jobs in ("1", "2", "3"):
        out, report = tmp_path / f"out{jobs}.pgn", tmp_path / f"report{jobs}.jsonl"
        pgntools("validate", source, "--classify=overwrite", "-o", out, "--report", report, "--jobs", jobs,
                 "--chunk-bytes", "300")
        outs.append((out.read_bytes(), report.read_bytes()))
    assert outs[0] == outs[1] == outs[2]
    assert outs[0][0].count(b'[ECO "A00"]') == 12 and outs[0][1].count(b"opening_tags_differ") == 48
