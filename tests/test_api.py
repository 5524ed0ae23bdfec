"""The friendly API (issue 22, point 8): one record type for errors, fixes and notes, and
Game records that cost little until their moves are read."""
from __future__ import annotations

import dataclasses
import json
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

import pgntools
from pgntools.records import REPORT_KEYS, Finding, MoveRows

REPO = Path(__file__).resolve().parents[1]

# game 0: an illegal move; game 1: a fix (marker '*' beside a decided tag) and notes (UCI and
# long algebraic movetext, a missing check marker); game 2: clean
GAMES = """[Event "bad"]
[Result "*"]

1. e4 e5 2. Ke3 *

[Event "fixed"]
[Result "1-0"]

1. e2e4 e7e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7 *

[Event "clean"]
[Result "1/2-1/2"]

1. e4 {[%clk 0:03:00]} e5 $1 1/2-1/2
"""


@pytest.fixture()
def games(tmp_path):
    path = tmp_path / "games.pgn"
    path.write_text(GAMES)
    return path, list(pgntools.read_games(str(path)))


def test_errors_fixes_and_notes_are_one_record_type(games):
    _, (bad, fixed, clean) = games
    error, = bad.errors
    fix, = fixed.fixes
    assert fixed.notes and clean.errors == clean.fixes == clean.notes == []
    for finding, category in [(error, "error"), (fix, "fix")] + [(n, "note") for n in fixed.notes]:
        assert type(finding) is Finding and finding.category == category
        assert finding.kind and finding.message and finding.game_index in (0, 1)
        assert [f.name for f in dataclasses.fields(finding)] == [f.name for f in dataclasses.fields(Finding)]
    assert pgntools.GameError is Finding and pgntools.Finding is Finding
    assert (error.kind, error.ply, error.token, error.line) == ("illegal_move", 3, "Ke3", 4)
    assert "Ke3" in error.message
    assert (fix.kind, fix.before, fix.after) == ("result_marker", "*", "1-0")
    assert fix.message == "termination marker '*' corrected to '1-0'"
    notes = {n.kind: n for n in fixed.notes}
    assert notes["long_algebraic"].count == 2 and notes["long_algebraic"].token == "e2e4"
    assert notes["long_algebraic"].message == "long algebraic notation (2 times, first 'e2e4' at ply 1)"
    assert notes["missing_check_marker"].message == "a missing check marker: 'Qxf7' at ply 7"


def test_findings_read_like_the_dicts_they_were(games):
    _, (bad, fixed, _) = games
    fix, = fixed.fixes
    assert (fix["kind"], fix["from"], fix["to"]) == ("result_marker", "*", "1-0")
    assert {n["kind"] for n in fixed.notes} >= {"long_algebraic", "missing_check_marker"}
    assert dict(bad.errors[0]) == bad.errors[0].to_dict() == dataclasses.asdict(bad.errors[0])
    assert bad.errors[0]["offset"] == bad.errors[0].byte_offset
    with pytest.raises(KeyError):
        fix["nothing"]


def test_the_report_keeps_its_json_shapes(games):
    path, (bad, fixed, _) = games
    proc = subprocess.run([sys.executable, "-m", "pgntools", "validate", str(path), "--report", "-"],
                          capture_output=True, text=True, cwd=REPO, timeout=60)
    assert proc.returncode == 1, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [line["game"] for line in lines] == [0, 1]
    for line, game in zip(lines, (bad, fixed)):
        for name, category in (("errors", "error"), ("fixes", "fix"), ("notes", "note")):
            assert [list(entry) for entry in line[name]] == [list(REPORT_KEYS[category])] * len(line[name])
            assert line[name] == [f.report_dict() for f in getattr(game, name)]
    assert lines[1]["fixes"] == [{"kind": "result_marker", "ply": None, "token": None,
                                  "message": "termination marker '*' corrected to '1-0'", "from": "*", "to": "1-0"}]


def test_moves_are_built_when_first_read(games):
    _, (bad, fixed, clean) = games
    assert type(clean.__dict__["_moves"]) is MoveRows  # nothing built yet
    assert clean.san == ["e4", "e5"] and clean.uci == ["e2e4", "e7e5"]
    assert type(clean.__dict__["_moves"]) is MoveRows  # san and uci do not build the moves
    first, second = clean.moves
    assert (first.san, first.clock, first.comment) == ("e4", 180.0, "[%clk 0:03:00]")
    assert (second.san, second.nags) == ("e5", [1])
    assert clean.moves is clean.moves  # built once
    assert [m.san for m in bad.moves] == ["e4", "e5"] == bad.san  # up to the illegal move
    assert fixed.san == [m.san for m in fixed.moves] and len(fixed.moves) == 7


def test_a_game_record_is_still_a_dataclass(games):
    _, (_, _, clean) = games
    as_dict = dataclasses.asdict(clean)
    assert as_dict["moves"][0]["san"] == "e4" and as_dict["tags"][0] == ("Event", "clean")
    again = dataclasses.replace(clean)
    assert again == clean and again.moves == clean.moves
    clean.moves = []
    assert clean.moves == [] and clean.san == []


def test_a_pickled_game_takes_its_moves_not_its_batch(games):
    _, (_, fixed, _) = games
    data = pickle.dumps(fixed)
    again = pickle.loads(data)
    assert again == fixed and again.san == fixed.san
    assert type(again.__dict__["_moves"]) is list
    assert b"from_square" not in data  # no batch columns went with it


def test_reading_without_moves(games):
    path, _ = games
    game = next(pgntools.read_games(str(path), moves=False))
    assert game.moves == [] and game.san == [] and game.ply_count == 2


# ---------------------------------------------------------------- a tag value its column cannot hold (22.9)

ELO_GAMES = """[Event "bad elo"]
[WhiteElo "2700"]
[BlackElo "2700x"]
[Result "1-0"]

1. e4 e5 1-0

[Event "unknown elo"]
[WhiteElo "?"]
[BlackElo "-"]
[Result "1-0"]

1. e4 e5 1-0

[Event "long elo"]
[WhiteElo "1234567890"]
[BlackElo ""]
[Result "1-0"]

1. e4 e5 1-0
"""


def cli(*args, cwd=REPO):
    return subprocess.run([sys.executable, "-m", "pgntools", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, timeout=120)


def test_an_elo_that_is_not_a_number_is_noted_and_kept(tmp_path):
    path = tmp_path / "elo.pgn"
    path.write_text(ELO_GAMES)
    out = tmp_path / "out.pgn"
    proc = cli("validate", path, "-o", out, "--report", "-")
    assert proc.returncode == 0, proc.stderr  # a note, not an error
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [line["game"] for line in lines] == [0, 2]  # "?", "-" and "" mean unknown: nothing to note
    note = lines[0]["notes"]
    assert [{k: n[k] for k in ("kind", "ply", "count", "token")} for n in note] == [
        {"kind": "invalid_tag_value", "ply": None, "count": 1, "token": '[BlackElo "2700x"]'}]
    assert "BlackElo" in note[0]["message"]
    assert lines[1]["notes"][0]["token"] == '[WhiteElo "1234567890"]'  # past int32's 9 digits
    assert '[BlackElo "2700x"]' in out.read_text()  # kept as written in the PGN output
    game = next(pgntools.read_games(str(path)))
    assert game.headers["BlackElo"] == "2700x"
    note, = game.notes
    assert note.kind == "invalid_tag_value" and "BlackElo" in note.message and "2700x" in note.message
    assert "invalid_tag_value" in pgntools.reader.NOTE_KINDS


def test_an_elo_that_is_not_a_number_is_null_in_its_column(tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    path = tmp_path / "elo.pgn"
    path.write_text(ELO_GAMES)
    proc = cli("export", path, "--parquet", tmp_path / "ds")
    assert proc.returncode == 0, proc.stderr
    games = pq.read_table(tmp_path / "ds" / "games").to_pylist()
    elo = [(g[white], g[black]) for g in games for white, black in [_elo_names(g)]]
    assert elo == [(2700, None), (None, None), (None, None)]


def _elo_names(row):
    white = next(k for k in row if k.lower() in ("whiteelo", "white_elo"))
    black = next(k for k in row if k.lower() in ("blackelo", "black_elo"))
    return white, black


def test_the_reader_notes_exactly_the_integer_tag_columns():
    from pgntools import _core
    from pgntools.tables import schema

    int32_tags = {c.tag for c in schema.GAME_COLUMNS if c.tag and c.type == "int32"}
    assert int32_tags == set(_core.INTEGER_TAGS) == {"WhiteElo", "BlackElo"}
