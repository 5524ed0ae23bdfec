"""The one declaration of the tables (pgntools/tables/schema.py) and what is derived from it: the
README's column tables, the Parquet files, the Dask meta; and the "add a column" recipe."""
from __future__ import annotations

from pathlib import Path

import pytest

from conftest import REPO_ROOT
from pgn_helpers import cli_run
from pgntools import _core
from pgntools.tables import schema
from pgntools.tables.schema import Column, Fixed, Tag

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

GAME = '[Event "e"]\n[White "w"]\n[Black "b"]\n[Result "1-0"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n'


def test_readme_column_tables_are_the_declaration():
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    assert schema.update_readme(readme) == readme, \
        ("README's column tables differ from pgntools/tables/schema.py: "
         "run python -m pgntools.tables.schema --update README.md")


def test_tag_columns_are_the_tags_the_reader_finds():
    """Every tag the C reader keeps out of the `tags` map has a column of its text (none is lost);
    the tags only a typed column reads (Date) stay in the map, as the C reader keeps them."""
    assert {c.tag for c in schema.GAME_COLUMNS if c.tag} | set(schema.TEXT_IN_MAP) == set(_core.TAG_COLUMNS)
    assert list(schema.TEXT_IN_MAP) == _core.TEXT_IN_MAP_TAGS == ["Date"]


def test_every_column_says_what_it_holds():
    for columns in (schema.GAME_COLUMNS, schema.move_columns(True, True, True), schema.POSITION_COLUMNS,
                    schema.position_row_columns(True)):
        for c in columns:
            assert c.doc, c.name
            assert len({c.name for c in columns}) == len(columns)


def export(tmp_path: Path) -> Path:
    source = tmp_path / "g.pgn"
    source.write_text(GAME + "\n" + GAME.replace('"e"', '"f"'))
    out = tmp_path / "out"
    result = cli_run(["export", "--no-progress", "--jobs", "1", "--parquet", str(out), str(source)])  # in-process
    assert result.exit_code == 0, result.stderr
    return source


def test_add_a_column_through_the_declaration(tmp_path, monkeypatch):
    """The recipe: one Column (here from a batch column export does not write, the game's line)
    shows in the Parquet files (with its Arrow type), the Dask meta and the README's table."""
    line = Column("first_line", "int64", True, Fixed("line"), "1-based line of the game's first byte")
    monkeypatch.setattr(schema, "GAME_COLUMNS", [*schema.GAME_COLUMNS, line])
    source = export(tmp_path)
    games = pq.read_table(tmp_path / "out" / "games")
    assert games.schema.field("first_line").type == pa.int64()
    assert games.column("first_line").to_pylist() == [1, 1 + GAME.count("\n") + 1]
    assert "| `first_line` | `int64` | 1-based line of the game's first byte |" in schema.readme_tables()["games"]
    dask = pytest.importorskip("pgntools.dask")
    pytest.importorskip("dask.dataframe")
    frame = dask.read_games(source)
    assert list(frame.columns) == [c.name for c in schema.GAME_COLUMNS]
    assert frame.compute(scheduler="sync")["first_line"].tolist() == [1, 1 + GAME.count("\n") + 1]


def test_a_tag_column_from_the_declaration(tmp_path, monkeypatch):
    """A second Tag column of a tag the reader finds needs no C: the Event again, under another name."""
    monkeypatch.setattr(schema, "GAME_COLUMNS", [*schema.GAME_COLUMNS, Column("event_again", "string", True, Tag("Event"),
                                                                              "the Event tag")])
    export(tmp_path)
    games = pq.read_table(tmp_path / "out" / "games")
    assert games.column("event_again").to_pylist() == ["e", "f"]


@pytest.mark.parametrize("table", ["games", "moves", "positions", "position_rows"])
def test_names_are_snake_case_and_unique_regardless_of_case(table):
    """SQL engines fold case (DuckDB renamed a second `result` to result_1, Spark refused the table)."""
    import re

    columns = {"games": schema.GAME_COLUMNS, "moves": schema.move_columns(True, True, True),
               "positions": schema.POSITION_COLUMNS, "position_rows": schema.position_row_columns(True)}[table]
    names = [c.name for c in columns]
    assert all(re.fullmatch(r"[a-z][a-z0-9]*(_[a-z0-9]+)*", n) for n in names), names
    assert len({n.lower() for n in names}) == len(names)


def test_bits_and_codes_are_the_c_cores():
    """Flag and has bits and the names of codes come from batch.h (via _core), not from literals."""
    from pgntools import reader

    flags = [c.source.bit for c in schema.MOVE_COLUMNS if isinstance(c.source, schema.Flag)]
    assert sorted(flags) == sorted(_core.MOVE_FLAGS.values())
    has = [c.source.has for c in schema.move_columns(True, True, True) if getattr(c.source, "has", 0)]
    assert sorted(has) == sorted(_core.HAS_BITS.values())
    assert reader.STATUSES[reader.STATUS_INVALID] == "invalid" and reader.PIECES[1:] == schema.PIECE_NAMES


def test_a_column_of_the_wrong_width_is_refused():
    """A Fixed column must have its batch column's type (the encoders read the bytes as that type)."""
    from pgntools.parquet.part_file import field

    with pytest.raises(ValueError, match="does not hold int32"):
        field(Column("line32", "int32", True, Fixed("line"), "the line, too narrow"), "games")
