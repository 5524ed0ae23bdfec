"""The reader computes the mainline key, the final position's key and the per-ply counters only
for a run that reads them (issue 23: work a command does not need is not done): what asks for
them (the games table's columns, --where, split --by, --dedup), that a run that did not ask has
those columns empty (and reading one fails loudly, never shows zeros), and that the values and
the batch boundaries are those of a reader that computes everything."""
from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from pgntools.options import ReaderOptions
from pgntools.reader import iter_batches
from pgntools.tables import schema
from pgntools.where import Choose, Where

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "fixtures" / "sample.pgn"
PROGRAM = REPO / "fixtures" / "game-program.pgn"
KEY_COLUMNS = ("hashed", "movetext_hash", "movetext_hash2", "position_hash", "position_hash2")
COUNTER_COLUMNS = ("captures", "checks", "underpromotions", "max_halfmove_clock")
OPTIONAL = {"movetext_hash": ("movetext_hash", "movetext_hash2"), "position_hash": ("position_hash", "position_hash2"),
            "counters": COUNTER_COLUMNS}
CLOCK_BITS = 1 | 2  # has_clock, has_eval (pgntools.reader.DERIVED_BITS)


def cli(*args, expect=(0, 1)):
    done = subprocess.run([sys.executable, "-m", "pgntools", *map(str, args)], cwd=REPO, capture_output=True)
    assert done.returncode in expect, done.stderr.decode()
    return done


def columns_of(paths, **options):
    """Every batch's columns (copied), read with these reader options."""
    out = []
    for batch in iter_batches([str(p) for p in paths], options=ReaderOptions(**options), detach=True):
        out.append({name: bytes(batch.raw[name]) for name in (*KEY_COLUMNS, *COUNTER_COLUMNS, "derived", "status")}
                   | {"n_games": batch.n_games})
    return out


def test_a_run_without_sinks_asks_for_none_of_them():
    options = ReaderOptions().for_sinks([])
    assert not options.movetext_hash and not options.position_hash and not options.counters
    # the library's own default reads everything, as before
    assert ReaderOptions().movetext_hash and ReaderOptions().position_hash and ReaderOptions().counters


@pytest.mark.parametrize("selection, asked", [
    (Choose(dedup="moves"), {"movetext_hash"}),
    (Choose(dedup="position"), {"position_hash"}),
    (Choose(where="captures > 3"), {"counters"}),
    (Choose(where="has_clock or max_halfmove_clock > 40"), {"counters"}),
    (Choose(where="movetext_hash = 7"), {"movetext_hash"}),
    (Choose(where="max_repetitions >= 3 and white_elo > 2000"), set()),  # (the repetitions are always counted)
    (Where("underpromotions > 0"), {"counters"}),
])
def test_what_a_selection_asks_for(selection, asked):
    options = ReaderOptions().for_sinks([dict(selection.needs)])
    assert {name for name in OPTIONAL if getattr(options, name)} == asked


def test_the_games_table_asks_for_what_its_columns_read():
    everything = schema.reader_needs_of(schema.GAME_COLUMNS)
    assert everything["movetext_hash"] and everything["counters"] and "position_hash" not in everything
    only = schema.select(schema.GAME_COLUMNS, ["white", "ply_count", "max_repetitions"], ["game_id"])
    assert not {"movetext_hash", "counters", "position_hash"} & set(schema.reader_needs_of(only))
    has_clock = [c for c in schema.GAME_COLUMNS if c.name == "has_clock"]
    assert schema.reader_needs_of(has_clock) == {"counters": True}


def test_columns_not_asked_for_are_empty_and_the_rest_unchanged():
    paths = [SAMPLE, PROGRAM, REPO / "tests" / "data" / "automatic-ends.pgn"]
    full = columns_of(paths)
    for option, names in OPTIONAL.items():
        part = columns_of(paths, **{option: False})
        assert [b["n_games"] for b in part] == [b["n_games"] for b in full]
        for before, after in zip(full, part):
            for name in (*KEY_COLUMNS, *COUNTER_COLUMNS, "status"):
                assert after[name] == (b"" if name in names else before[name]), (option, name)
            expected = bytes(d & ~CLOCK_BITS for d in before["derived"]) if option == "counters" else before["derived"]
            assert after["derived"] == expected
    none = columns_of(paths, movetext_hash=False, position_hash=False)
    assert all(b["hashed"] == b"" for b in none)
    assert any(b["hashed"].count(1) for b in full) and any(any(b["captures"]) for b in full)


def test_batches_end_at_the_same_game_whatever_is_read(tmp_path):
    # batches cut by size (max_batch_bytes): the optional columns count as filled, so the cut
    # does not move (outputs cut at batches, the Parquet pages, stay the same)
    big = tmp_path / "many.pgn"
    big.write_bytes((SAMPLE.read_bytes() + b"\n") * 40)
    cut = dict(max_batch_bytes=20_000, batch_games=10_000)
    full = [b["n_games"] for b in columns_of([big], **cut)]
    bare = [b["n_games"] for b in columns_of([big], movetext_hash=False, position_hash=False, counters=False, **cut)]
    assert len(full) > 3 and bare == full


def test_a_column_the_run_did_not_ask_for_cannot_be_written():
    from pgntools.parquet.part_file import ParquetPartFile

    batch = next(iter(iter_batches([str(SAMPLE)], options=ReaderOptions(movetext_hash=False, counters=False))))
    for name in ("movetext_hash", "captures"):
        column = [c for c in schema.GAME_COLUMNS if c.name == name]
        part = ParquetPartFile(io.BytesIO(), "games", column, "none")
        with pytest.raises(ValueError, match=f"games column '{name}': the reader did not fill it"):
            part.add(batch)
    pytest.importorskip("pyarrow")
    from pgntools.tables import build

    with pytest.raises(ValueError, match="the reader did not fill it"):
        build.table(batch, "games", [c for c in schema.GAME_COLUMNS if c.name == "checks"])


def test_export_where_and_split_read_the_values_of_a_full_reader(tmp_path):
    """Through the CLI: export's columns, --where and split --by see what a reader computing
    everything computes (the library's default read)."""
    pq = pytest.importorskip("pyarrow.parquet")
    files = [SAMPLE, PROGRAM]
    wanted = ("movetext_hash", "captures", "checks", "underpromotions", "max_halfmove_clock", "has_clock", "has_eval")
    cli("export", "--no-progress", "--jobs", "1", "--parquet", tmp_path / "out", "--columns", ",".join(wanted), *files)
    games = pq.read_table(tmp_path / "out" / "games").to_pylist()
    from pgntools.tables import build

    expected = []
    for batch in iter_batches([str(p) for p in files]):
        expected += build.table(batch, "games", [c for c in schema.GAME_COLUMNS if c.name in wanted]).to_pylist()
    assert [{k: g[k] for k in wanted} for g in games] == expected
    assert any(g["captures"] for g in games) and any(g["has_clock"] for g in games)
    for expression, keep in (("captures >= 5", lambda g: g["captures"] >= 5),
                             ("has_clock and checks > 2", lambda g: g["has_clock"] and g["checks"] > 2),
                             ("movetext_hash > 0", lambda g: g["movetext_hash"] is not None and g["movetext_hash"] > 0)):
        done = cli("filter", "--no-progress", "--where", expression, "-o", "-", *files)
        assert done.stdout.count(b"[Event ") == sum(map(keep, games)), expression
    cli("split", "--no-progress", "--by", "captures", "-o", tmp_path / "by" / "{captures}.pgn", *files)
    parts = {p.stem: p.read_bytes().count(b"[Event ") for p in (tmp_path / "by").iterdir()}
    counts: dict = {}
    for g in games:
        counts[str(g["captures"])] = counts.get(str(g["captures"]), 0) + 1
    assert parts == counts
