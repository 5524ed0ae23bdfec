"""The selection stage (issue 17, for issue 18's --where): a Selection sees each batch between
the reader and the sinks and hands them a view of some of its games. A selection that keeps every
other game writes what a run over those games alone writes (PGN byte for byte; report records but
for where the games are), keeps the input's game ids, offsets and lines, and does so in-process
and with worker threads."""
from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from pgntools import _core
from pgntools.options import ReaderOptions, Workers
from pgntools.reader import iter_batches
from pgntools.runner.run import Run
from pgntools.selection import CHILD_TABLES, GAME_STRINGS, NAG_TABLE, TAG_SLOTS, Keep, take_games
from pgntools.sinks.base import SinkSpec
from pgntools.sinks.pgn import PgnSink, RejectsSink
from pgntools.sinks.report import ReportSink
from test_parallel import TRICKY, fixtures_input, tricky_input

EVEN_GAMES = Keep(lambda batch: [batch.game_id(g) % 2 == 0 for g in range(batch.n_games)])
SPECS = [SinkSpec("pgn", PgnSink), SinkSpec("rejects", RejectsSink), SinkSpec("report", ReportSink)]


def games_input() -> bytes:
    return tricky_input(3) + fixtures_input()


def whole_games() -> list:
    """Games that end where their text ends (no comment left open until the next game): valid,
    invalid, fixed, with notes, variations, clocks, Latin-1 tags."""
    tricky = [TRICKY[i].encode() for i in (5, 6, 8, 9, 10)] + [b'[Event "caf\xe9"]\n[Result "*"]\n\n1. e4 *\n']
    return [g.strip() for g in game_bytes(fixtures_input())] + [g.strip() for g in tricky] * 3


def game_bytes(data: bytes):
    """Each game's bytes (offset, length as the scanner found them)."""
    out = []
    for raw in _core.BatchReader(io.BytesIO(data), replay=False):
        offsets = memoryview(raw["offset"]).cast("q")
        lengths = memoryview(raw["length"]).cast("q")
        out += [data[o:o + n] for o, n in zip(offsets, lengths)]
    return out


def run(tmp: Path, name: str, source: Path, selection=None, jobs: int = 1) -> dict:
    out = tmp / name
    out.mkdir()
    paths = {"pgn": out / "out.pgn", "rejects": out / "rejects.pgn", "report": out / "report.jsonl",
             "summary": out / "summary.json"}
    extra = {"selection": selection} if selection is not None else {}
    summary = Run("validate", [str(source)], ReaderOptions(), outputs={k: str(v) for k, v in paths.items()},
                  progress=False, workers=Workers(jobs, None, 700 if jobs > 1 else None), **extra).execute(SPECS)
    report = [json.loads(line) for line in paths["report"].read_text().splitlines()]
    return {"pgn": paths["pgn"].read_bytes(), "rejects": paths["rejects"].read_bytes(), "report": report,
            "summary": summary}


WHERE = ("game", "offset", "line", "file")


def without_place(records):
    return [{k: v for k, v in r.items() if k not in WHERE} | {"errors": [
        {k: v for k, v in e.items() if k not in ("line", "column", "offset")} for e in r["errors"]]}
        for r in records]


@pytest.mark.parametrize("jobs", [1, 2])
def test_every_other_game_is_as_if_those_games_were_alone(tmp_path, jobs):
    games = whole_games()
    assert len(games) > 20
    source = tmp_path / "in.pgn"
    source.write_bytes(b"\n\n".join(games) + b"\n")
    alone = tmp_path / "even.pgn"
    alone.write_bytes(b"\n\n".join(games[0::2]) + b"\n")

    full = run(tmp_path, "full", source, jobs=jobs)
    selected = run(tmp_path, "selected", source, EVEN_GAMES, jobs=jobs)
    by_itself = run(tmp_path, "alone", alone, jobs=jobs)

    assert selected["pgn"] == by_itself["pgn"] and selected["pgn"]
    assert selected["rejects"] == by_itself["rejects"] and selected["rejects"] != full["rejects"]
    # the report names each game as the whole input does: its id, offset and line
    assert selected["report"] == [r for r in full["report"] if r["game"] % 2 == 0]
    assert without_place(selected["report"]) == without_place(by_itself["report"])
    assert len(selected["report"]) > 5 and {r["status"] for r in selected["report"]} >= {"invalid", "fixed"}
    assert selected["report"] != by_itself["report"]  # (the places differ)
    counts = lambda s: (s.games, s.valid, s.fixed, s.invalid, dict(s.errors), dict(s.notes))
    assert counts(selected["summary"]) == counts(by_itself["summary"])


def test_in_process_and_threads_select_the_same(tmp_path):
    source = tmp_path / "in.pgn"
    source.write_bytes(games_input() * 2)
    one, two = run(tmp_path, "one", source, EVEN_GAMES, 1), run(tmp_path, "two", source, EVEN_GAMES, 2)
    assert (one["pgn"], one["rejects"], one["report"]) == (two["pgn"], two["rejects"], two["report"])


@pytest.mark.parametrize("detach", [False, True])
def test_a_view_of_some_games_slices_every_column(tmp_path, detach):
    pa = pytest.importorskip("pyarrow")
    from pgntools.tables.build import games_table, moves_table

    source = tmp_path / "in.pgn"
    source.write_bytes(games_input())
    options = ReaderOptions(moves=True, comments=True, fen_every_ply=True, final_fen=True, pgn=True, raw_invalid=True,
                            tag_columns=True, detach=detach)
    batch = next(iter_batches(str(source), options=options))
    keep = [g for g in range(batch.n_games) if g % 3 != 1]
    view = take_games(batch, keep)
    assert view.n_games == len(keep) and [view.game_id(k) for k in range(len(keep))] == keep
    # the records: tags, moves (SAN, UCI, clocks, evals, NAGs, comments), errors, notes, PGN
    assert view.games() == [batch.games()[g] for g in keep]
    # the tables (tag slots, the tag map, the move columns), but for game_id (the tables number
    # a batch's games from its first: they do not know views yet)
    index = pa.array(keep)
    assert games_table(view).drop(["game_id"]).equals(games_table(batch).take(index).drop(["game_id"]))
    move_rows = moves_table(batch, True, True)
    kept_moves = move_rows.filter(pa.compute.is_in(move_rows.column("game_id"), value_set=pa.array(keep, pa.int64())))
    assert moves_table(view, True, True).drop(["game_id"]).equals(kept_moves.drop(["game_id"]))
    # all games: the same columns
    whole = take_games(batch, range(batch.n_games))
    assert {k: whole.raw[k] for k in batch.raw} == {k: batch.raw[k] for k in batch.raw}
    # columns that were not recorded stay empty
    bare = next(iter_batches(str(source), options=ReaderOptions(moves=True, detach=detach)))
    assert take_games(bare, keep).games() == [bare.games()[g] for g in keep]


@pytest.mark.parametrize("pattern", ["none", "first", "last", "head", "tail", "one_dropped", "pairs"])
def test_views_of_runs_of_games(tmp_path, pattern):
    """take_games gathers runs of consecutive games in C: runs at either end, one game, none."""
    source = tmp_path / "in.pgn"
    source.write_bytes(games_input())
    options = ReaderOptions(moves=True, comments=True, final_fen=True, pgn=True, raw_invalid=True, tag_columns=True)
    batch = next(iter_batches(str(source), options=options))
    n = batch.n_games
    keep = {"none": [], "first": [0], "last": [n - 1], "head": list(range(n // 2)), "tail": list(range(n // 2, n)),
            "one_dropped": [g for g in range(n) if g != n // 3],
            "pairs": [g for g in range(n) if g % 4 < 2]}[pattern]
    view = take_games(batch, keep)
    assert view.n_games == len(keep)
    assert view.games() == [batch.games()[g] for g in keep]
    assert list(view.column("offset")) == [batch.column("offset")[g] for g in keep]


def test_the_gathering_helpers_check_their_ranges():
    import array

    ranges = array.array("q", [0, 3]).tobytes()
    assert _core.take_rows(b"abcdef", 2, ranges) == b"abcdef"
    with pytest.raises(ValueError):
        _core.take_rows(b"abcd", 2, ranges)
    with pytest.raises(ValueError):
        _core.take_strings(array.array("i", [0, 1]).tobytes(), b"x", ranges)
    with pytest.raises(ValueError):
        _core.take_table(array.array("i", [0, 2]).tobytes(), 5, ranges)
    assert _core.game_runs(array.array("q", [0, 1, 2, 5, 7, 8]).tobytes()) == \
        array.array("q", [0, 3, 5, 6, 7, 9]).tobytes()


def test_every_batch_column_has_a_place_in_the_views():
    """A new C batch column must be declared per game or in a child table (pgntools.selection)."""
    children = {name for numeric, strings in CHILD_TABLES.values() for name in (*numeric, *strings)}
    declared = children | set(CHILD_TABLES) | {*NAG_TABLE[1], TAG_SLOTS, *GAME_STRINGS}
    raw = next(_core.BatchReader(io.BytesIO(b"1. e4 *\n")))
    strings = {name for name, value in raw.items() if isinstance(value, tuple)}
    assert strings <= declared, strings - declared  # every string column is placed
    per_game_numeric = set(_core.COLUMN_FORMATS) - declared
    assert per_game_numeric == {"offset", "length", "line", "ply_count", "status", "result", "result_tag",
                                "result_marker", "outcome", "outcome_ply", "fixes", "chess960", "variant", "replayed",
                                "automatic_end", "automatic_end_ply", "opening_state", "opening_ply",
                                "hashed", "movetext_hash", "movetext_hash2", "position_hash", "position_hash2", "final_key",
                                "speed", "derived", "captures", "checks", "underpromotions", "max_halfmove_clock",
                                "max_repetitions", "first_move", "game_number"}


def test_tables_number_a_view_by_the_input(tmp_path):
    """The Arrow/Parquet tables of a view name its games by their ids in the input (issue 18)."""
    source = tmp_path / "in.pgn"
    source.write_bytes(games_input())
    out = tmp_path / "out.csv"
    pytest.importorskip("pyarrow")
    from pgntools.sinks.fen import PositionSink

    run = Run("to-fen", [str(source)], ReaderOptions(), outputs={"positions": str(out)}, progress=False,
              selection=EVEN_GAMES)
    spec = SinkSpec("positions", lambda o: PositionSink(o, "csv", True, None, False))
    run.execute([spec])
    ids = {int(line.split(",")[0]) for line in out.read_text().splitlines()[1:]}
    assert ids and all(i % 2 == 0 for i in ids) and len(ids) > 2


def test_a_view_takes_only_the_columns_read(tmp_path):
    """A view's columns are gathered on first use (validate --summary --dedup reads a few)."""
    source = tmp_path / "in.pgn"
    source.write_bytes(games_input())
    batch = next(iter_batches(str(source), options=ReaderOptions(moves=True, tag_columns=True)))
    keep = [g for g in range(batch.n_games) if g % 2]
    view = take_games(batch, keep)
    before = set(view.raw.taken)
    assert list(view.column("status")) == [batch.column("status")[g] for g in keep]
    assert set(view.raw.taken) - before == {"status"}
    assert "san" in view.raw and "no_such_column" not in view.raw
    view.raw["san"]  # a child table's column: the whole table (its start column, every column of it)
    assert {"move_start", "from_square", "uci", "nag_start", "nag"} <= set(view.raw.taken)
    assert "tag_name" not in view.raw.taken
    with pytest.raises(KeyError):
        view.raw["no_such_column"]
