"""--format json (issue 37 B; pgn-extract --json): one JSON object a game, read against python-chess."""
from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

from test_pgn_shape import GAMES, REPO, chess_pgn, games_of

INVALID = '[Event "Bad"]\n[Result "*"]\n\n1. e4 e5 2. Ke3 *\n\n'


def json_lines(tmp_path, command, *options):
    source = tmp_path / "in.pgn"
    source.write_text(GAMES + INVALID)
    out = tmp_path / "out.jsonl"
    done = subprocess.run([sys.executable, "-m", "pgntools", command, source, "-o", out, "--format", "json", *options],
                          cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode in (0, 1), done.stderr
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("command", ["validate", "filter"])
def test_each_valid_game_as_python_chess_reads_it(tmp_path, command):
    objects = json_lines(tmp_path, command)
    games = games_of(GAMES)
    assert len(objects) == len(games)  # (the invalid game is left out, as -o's PGN leaves it)
    for obj, game in zip(objects, games):
        assert obj["tags"] == dict(game.headers)
        assert obj["result"] == game.headers["Result"]
        assert obj["start_fen"] == game.board().fen()
        board, node = game.board(), game
        assert [m["ply"] for m in obj["moves"]] == list(range(1, len(obj["moves"]) + 1))
        for move in obj["moves"]:
            node = node.next()
            assert move["uci"] == node.move.uci()
            assert move["san"] == board.san(node.move)
            assert move.get("nags", []) == sorted(node.nags)
            assert " ".join(move.get("comment", "").split()) == " ".join(node.comment.split())
            board.push(node.move)
        assert node.next() is None


def test_json_with_a_selection(tmp_path):
    objects = json_lines(tmp_path, "filter", "--where", "event = 'Set up'")
    assert [o["tags"]["Event"] for o in objects] == ["Set up"]
    assert objects[0]["start_fen"] == "4k3/8/8/8/8/8/4P3/4K2R w K - 0 30"


@pytest.mark.parametrize("options", [["--max-plies", "3"], ["--strip-comments"], ["--normalize"]])
def test_json_with_pgn_options_is_a_usage_error(tmp_path, options):
    source = tmp_path / "in.pgn"
    source.write_text(GAMES)
    command = "filter" if options == ["--normalize"] else "validate"
    done = subprocess.run([sys.executable, "-m", "pgntools", command, source, "-o", tmp_path / "o", "--format", "json",
                           *options], cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 2 and "--format json writes JSON objects" in done.stderr


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_split_parts_hold_the_objects_validate_writes(tmp_path, jobs):
    """split --format json: each part holds its games' lines, written by validate's writer; the
    parts together are validate -o's lines, in input order."""
    whole = json_lines(tmp_path, "validate")
    source = tmp_path / "in.pgn"
    done = subprocess.run([sys.executable, "-m", "pgntools", "split", source, "--games", "2", "-o",
                           tmp_path / "parts" / "{n:02}.jsonl", "--format", "json", "--jobs", jobs],
                          cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    parts = sorted((tmp_path / "parts").iterdir())
    lines = [[json.loads(line) for line in p.read_text(encoding="utf-8").splitlines()] for p in parts]
    assert [len(part) for part in lines[:-1]] == [2] * (len(parts) - 1) and 1 <= len(lines[-1]) <= 2
    assert [obj for part in lines for obj in part] == whole


def test_split_by_field_as_json(tmp_path):
    source = tmp_path / "in.pgn"
    source.write_text(GAMES + INVALID)
    done = subprocess.run([sys.executable, "-m", "pgntools", "split", source, "-o", tmp_path / "by" / "{event}.jsonl",
                           "--format", "json"], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    for part in (tmp_path / "by").iterdir():
        events = {json.loads(line)["tags"]["Event"] for line in part.read_text(encoding="utf-8").splitlines()}
        assert len(events) == 1 and part.stem in {e.replace(" ", "_") for e in events} | events


def test_split_json_with_normalize_is_a_usage_error(tmp_path):
    source = tmp_path / "in.pgn"
    source.write_text(GAMES)
    done = subprocess.run([sys.executable, "-m", "pgntools", "split", source, "--games", "1", "-o",
                           tmp_path / "{n}.jsonl", "--format", "json", "--normalize"], cwd=REPO, capture_output=True,
                          text=True)
    assert done.returncode == 2 and "--format json writes JSON objects" in done.stderr


CLOCKED = ('[Event "Clocked"]\n[White "A \\"Q\\" B"]\n[Result "*"]\n\n'
           '1. e4 { [%clk 0:03:00] [%eval 0.25] the king\'s pawn, "quoted" \\\\ } 1... e5 $1 $14 { [%clk 0:02:59.5] } '
           '2. Nf3 { [%eval #-3] [%emt 0:00:02] } 2... Nc6 { café } *\n\n')


def test_lines_from_the_move_columns_are_json_dumps_of_the_records():
    """The writer makes the moves' JSON from the batch's move columns; each line is json.dumps of
    game_object (the Move records), byte for byte: clocks, evaluations, NAGs, escaped comments."""
    import pgntools
    from pgntools.options import ReaderOptions
    from pgntools.sinks.json_games import NEEDS, game_lines, game_object

    for batch in pgntools.iter_batches((GAMES + CLOCKED + INVALID).encode("utf-8"), options=ReaderOptions(**NEEDS)):
        lines = game_lines(batch)
        records = batch.games()
        assert sum(line is not None for line in lines) == sum(g.status in ("valid", "fixed") for g in records) >= 3
        for line, game in zip(lines, records):
            if line is not None:
                assert line == (json.dumps(game_object(game), ensure_ascii=False) + "\n").encode("utf-8")
        clocked = json.loads(lines[-2])
        assert clocked["moves"][0]["clock"] == 180 and clocked["moves"][0]["eval_cp"] == 25
        assert clocked["moves"][1]["nags"] == [1, 14] and clocked["moves"][2]["eval_mate"] == -3
        assert '"quoted"' in clocked["moves"][0]["comment"] and clocked["moves"][3]["comment"].strip() == "café"
