"""The Parquet writer of export's moves table (pgntools/parquet/part_file.py over the C encoders
of pgntools/_c/parquet_encode.c).

Three independent checks: the RLE/bit-packed hybrid against a decoder written here from the
Parquet spec (Encodings.md); whole files read back by pyarrow against the same batches turned into
Arrow tables by pyarrow itself (pgntools.tables.build.moves_table, as the Dask API builds them);
and the same files read by DuckDB, a second Parquet reader, against pyarrow's reading.
"""
from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import CORPORA_DIR, require_corpora
from test_export import ANNOTATED, CHESS960, FLAGS, MATE, PLAIN

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

from pgntools import _core  # noqa: E402
from pgntools._core import rle_hybrid  # noqa: E402
from pgntools.parquet.arrow_ipc import ipc_schema  # noqa: E402
from pgntools.parquet.part_file import GAME_FIELDS, MOVE_FIELDS, ParquetPartFile  # noqa: E402
from pgntools.reader import iter_batches  # noqa: E402
from pgntools.tables import schema  # noqa: E402
from pgntools.tables.build import games_table, moves_table  # noqa: E402

# ---------------------------------------------------------------- the hybrid encoding


def decode_hybrid(data: bytes, width: int, count: int) -> list:
    """Parquet's RLE/bit-packed hybrid (without the length prefix), as Encodings.md defines it."""
    values, pos = [], 0
    while pos < len(data):
        header = shift = 0
        while True:
            byte = data[pos]
            pos += 1
            header |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                break
        if header & 1:  # bit-packed: groups of 8 values, least significant bits first
            size = (header >> 1) * width
            packed = int.from_bytes(data[pos:pos + size], "little")
            values += [(packed >> (k * width)) & ((1 << width) - 1) for k in range((header >> 1) * 8)]
            pos += size
        else:  # a run: the count, then the value in whole bytes
            size = (width + 7) // 8
            values += [int.from_bytes(data[pos:pos + size], "little")] * (header >> 1)
            pos += size
    assert len(values) - count in range(8), "only the last group may be padded"
    return values[:count]


def random_levels(rng: random.Random, width: int, n: int) -> list:
    """Runs of every length (the encoder's cases: runs of 8+, short runs, noise) between random values."""
    values = []
    while len(values) < n:
        value = rng.randrange(1 << width)
        values += [value] * rng.choice([1, 1, 2, 7, 8, 9, 15, 16, 17, 64, 600])
    return values[:n]


@pytest.mark.parametrize("seed", range(60))
def test_hybrid_round_trip(seed):
    rng = random.Random(seed)
    width = rng.choice([1, 2, 3, 7, 8, 9, 12, 16, 17, 24, 31])
    values = random_levels(rng, width, rng.randrange(0, 3000))
    assert decode_hybrid(rle_hybrid(values, width), width, len(values)) == values


def test_hybrid_runs_are_short_and_groups_bounded():
    assert rle_hybrid([5] * 100_000, 3) == bytes([0xC0, 0x9A, 0x0C, 5])  # one run: varint(100000 << 1), value
    assert rle_hybrid([], 4) == b""
    noise = [k % 7 for k in range(8 * 200)]  # no run: bit-packed runs of at most 63 groups, as Arrow writes
    encoded = rle_hybrid(noise, 3)
    assert encoded[0] == 63 << 1 | 1 and len(encoded) == 4 + 200 * 3
    assert decode_hybrid(encoded, 3, len(noise)) == noise


# ---------------------------------------------------------------- whole files


def write_part(path: Path, batches, arrow_schema: pa.Schema, compression: str, rows_per_group: int,
               table: str = "moves"):
    declared = schema.GAME_COLUMNS if table == "games" else schema.move_columns(True, True, True)
    columns = [c for c in declared if c.name in arrow_schema.names]
    assert schema.arrow_schema(columns) == arrow_schema
    part = ParquetPartFile(open(path, "wb"), table, columns, compression)
    for batch in batches:
        part.add(batch)
        if part.group_rows >= rows_per_group:
            part.end_row_group()
    part.close()


def hand_games(tmp_path: Path) -> Path:
    lichess_style = """[Event "Clocks"]\n[Result "*"]\n\n1. e4 { [%clk 0:03:00] [%eval 0.3] } 1... e5 $1 $14
{ [%clk 0:02:59.5] [%emt 0:00:01] } 2. Qh5 { [%eval #-3] a comment } 2... Nc6 $2 *\n\n"""
    path = tmp_path / "hand.pgn"
    path.write_text("\n".join([FLAGS, MATE, ANNOTATED, PLAIN, CHESS960, lichess_style]) + "\n")
    return path


def corpus_head(tmp_path: Path, relative: str, size: int = 3_000_000) -> Path:
    require_corpora()
    path = tmp_path / Path(relative).name
    with open(CORPORA_DIR / relative, "rb") as source:
        path.write_bytes(source.read(size))
    return path


INPUTS = {
    "hand": hand_games,
    "lichess": lambda tmp: corpus_head(tmp, "lichess/lichess-magnus-carlsen.pgn"),  # clocks, evals on every move
    "tcec": lambda tmp: corpus_head(tmp, "engine/tcec-sample.pgn"),                 # huge comments
    "chess960": lambda tmp: corpus_head(tmp, "chess960/tcec-season24-frc.pgn"),
    "master": lambda tmp: corpus_head(tmp, "bench/master-games-30k.pgn"),           # NAGs, invalid games
}


def read_batches(source: Path, batch_games: int = 64):
    return list(iter_batches(str(source), moves=True, comments=True, fen_every_ply=True, final_fen=True,
                             tag_columns=True, batch_games=batch_games, keys_every_ply=True))


@pytest.mark.parametrize("rows_per_group", [7, 131_072], ids=["tiny-groups", "default-groups"])
@pytest.mark.parametrize("name", sorted(INPUTS))
def test_moves_read_back_as_the_arrow_tables(tmp_path, name, rows_per_group):
    """Every column (the optional ones too) equals pyarrow's own table of the same batches, with
    the exact Arrow types; tiny row groups exercise dictionary resets and many pages."""
    batches = read_batches(INPUTS[name](tmp_path))
    full = schema.moves_schema(with_comment=True, with_fen=True, with_key=True)
    write_part(tmp_path / "m.parquet", batches, full, "zstd", rows_per_group)
    expected = pa.concat_tables([moves_table(b, with_comment=True, with_fen=True, with_key=True) for b in batches])
    got = pq.read_table(tmp_path / "m.parquet")
    assert got.schema == full
    assert expected.num_rows > 0
    for column in full.names:
        assert got.column(column).combine_chunks().equals(expected.column(column).combine_chunks()), column


@pytest.mark.parametrize("rows_per_group", [5, 65_536], ids=["tiny-groups", "default-groups"])
@pytest.mark.parametrize("name", sorted(INPUTS))
def test_games_read_back_as_the_arrow_tables(tmp_path, name, rows_per_group):
    """The same for games: tag columns, Elo integers, the tags map, the errors list of structs."""
    batches = read_batches(INPUTS[name](tmp_path), batch_games=16)
    write_part(tmp_path / "g.parquet", batches, schema.GAMES, "zstd", rows_per_group, table="games")
    expected = pa.concat_tables([games_table(b) for b in batches])
    got = pq.read_table(tmp_path / "g.parquet")
    # (utc_datetime: Parquet has no seconds unit; stored, as pyarrow stores it, in milliseconds)
    instants = schema.GAMES.get_field_index("utc_datetime")
    assert got.schema.field(instants).type == pa.timestamp("ms", "UTC")
    got = got.set_column(instants, "utc_datetime", got.column(instants).cast(pa.timestamp("s", "UTC")))
    assert got.schema == schema.GAMES
    if name == "lichess":  # (UTCDate and UTCTime on every game)
        assert got.column("utc_datetime").null_count == 0 and got.column("date").null_count == 0
    for column in schema.GAMES.names:
        assert got.column(column).combine_chunks().equals(expected.column(column).combine_chunks()), column
    if name == "master":  # the head of the master file has invalid games: their errors are there
        assert pa.compute.sum(pa.compute.list_value_length(got.column("errors"))).as_py() > 0


@pytest.mark.parametrize("compression", ["none", "snappy", "gzip", "zstd"])
def test_columns_subset_and_codecs(tmp_path, compression):
    batches = list(iter_batches(str(hand_games(tmp_path)), moves=True, batch_games=1))
    chosen = pa.schema([schema.MOVES.field(n) for n in ("game_id", "ply", "san", "clock", "nags")])
    write_part(tmp_path / "m.parquet", batches, chosen, compression, 5)
    got = pq.read_table(tmp_path / "m.parquet")
    expected = pa.concat_tables(moves_table(b) for b in batches).select(chosen.names)
    assert got.equals(expected)
    codecs = {pq.ParquetFile(tmp_path / "m.parquet").metadata.row_group(0).column(i).compression for i in range(5)}
    assert codecs == {"UNCOMPRESSED" if compression == "none" else compression.upper()}


def test_empty_file_has_the_schema(tmp_path):
    write_part(tmp_path / "m.parquet", [], schema.MOVES, "zstd", 100)
    table = pq.read_table(tmp_path / "m.parquet")
    assert table.num_rows == 0 and table.schema == schema.MOVES


@pytest.mark.parametrize("table", ["moves", "games"])
def test_statistics_per_row_group(tmp_path, table):
    """Every integer column and every dictionary-encoded string column (tags, SAN) carries its
    null count and min/max in every row group (what engines skip row groups by: game_id, Date,
    white_elo, ...); they are right, with nulls and all-null groups, strings ordered byte-wise."""
    batches = read_batches(hand_games(tmp_path), batch_games=1)
    arrow_schema = schema.GAMES if table == "games" else schema.MOVES
    write_part(tmp_path / "t.parquet", batches, arrow_schema, "zstd", 2 if table == "games" else 9, table=table)
    parquet = pq.ParquetFile(tmp_path / "t.parquet")
    assert parquet.metadata.num_row_groups > 2
    checked = set()
    for group in range(parquet.metadata.num_row_groups):
        rows = parquet.read_row_group(group)
        meta = parquet.metadata.row_group(group)
        for index in range(meta.num_columns):
            column = meta.column(index)
            name = column.path_in_schema
            stats = column.statistics
            if "." in name or stats is None:
                continue
            values = [v for v in rows.column(name).to_pylist() if v is not None]
            assert stats.null_count == rows.num_rows - len(values), name
            if values:
                assert stats.has_min_max, name
                key = (lambda v: v.encode()) if isinstance(values[0], str) else None
                assert (stats.min, stats.max) == (min(values, key=key), max(values, key=key)), name
            checked.add(name)
    expected = {"game_id", "ply", "san", "uci"} if table == "moves" else {"game_id", "white_elo", "event", "date", "white"}
    assert expected <= checked
    assert not {"piece", "status", "final_fen"} & checked  # fixed dictionaries and plain strings: none


def test_schema_fields_and_encoders_agree():
    assert [f.name for f in MOVE_FIELDS] == schema.moves_schema(with_comment=True, with_fen=True, with_key=True).names
    assert [f.name for f in GAME_FIELDS] == schema.GAMES.names


@pytest.mark.parametrize("name", ["hand", "lichess", "chess960", "master"])  # master: columns all null
def test_duckdb_reads_what_pyarrow_reads(tmp_path, name):
    """DuckDB's own Parquet reader (no Arrow schema) sees the same values in every column."""
    duckdb = pytest.importorskip("duckdb", reason="DuckDB is a test dependency (pip install -e '.[test]')")
    source = INPUTS[name](tmp_path)
    batches = read_batches(source)
    write_part(tmp_path / "m.parquet", batches, schema.moves_schema(True, True), "zstd", 1000)
    write_part(tmp_path / "g.parquet", batches, schema.GAMES, "zstd", 100, table="games")
    con = duckdb.connect()
    for name in ("m.parquet", "g.parquet"):
        got = con.execute(f"SELECT * FROM read_parquet('{tmp_path / name}')").fetchall()
        expected = pq.read_table(tmp_path / name).to_pylist()
        assert len(got) == len(expected) > 0
        for row, want in zip(got, expected):
            assert list(row) == [dict(v) if k == "tags" and v is not None else v for k, v in want.items()]
    # filters that DuckDB answers with the row groups' statistics: right counts, no group wrongly skipped
    for name, column in [("g.parquet", "white"), ("g.parquet", "date"), ("g.parquet", "white_elo"),
                         ("m.parquet", "san"), ("m.parquet", "game_id")]:
        values = [v for v in pq.read_table(tmp_path / name, columns=[column]).column(0).to_pylist() if v is not None]
        for value in sorted(set(values))[:: max(1, len(set(values)) // 5)]:
            query = f"SELECT count(*) FROM read_parquet('{tmp_path / name}') WHERE \"{column}\" = ?"
            assert con.execute(query, [value]).fetchone()[0] == values.count(value), (column, value)


@pytest.mark.parametrize("table", ["moves", "games"])
def test_parquet_schema_is_the_one_pyarrow_writes(tmp_path, table):
    """Column paths, physical and logical types, repetition: as pyarrow's writer gives them for
    the same Arrow schema, so readers without the Arrow schema (DuckDB, Spark) see the same."""
    arrow_schema = schema.GAMES if table == "games" else schema.moves_schema(True, True)
    write_part(tmp_path / "ours.parquet", [], arrow_schema, "zstd", 10, table=table)
    pq.write_table(arrow_schema.empty_table(), tmp_path / "pyarrow.parquet")
    ours, theirs = pq.ParquetFile(tmp_path / "ours.parquet").schema, pq.ParquetFile(tmp_path / "pyarrow.parquet").schema
    assert ours.equals(theirs), f"ours:\n{ours}\npyarrow:\n{theirs}"


@pytest.mark.parametrize("name", ["games", "moves", "moves+comment+fen+key", "positions", "a selection"])
def test_arrow_schema_message_reads_back_in_pyarrow(name):
    """The footer's ARROW:schema, serialized without pyarrow, is the schema pyarrow reads (its
    FlatBuffer verifier runs on it): dictionary ids, map and list children, nullability."""
    columns = {"games": schema.GAME_COLUMNS, "moves": schema.MOVE_COLUMNS,
               "moves+comment+fen+key": schema.move_columns(True, True, True), "positions": schema.POSITION_COLUMNS,
               "a selection": schema.select(schema.GAME_COLUMNS, ["status", "tags", "errors"], ["game_id"])}[name]
    message = ipc_schema(columns)
    assert message[:4] == b"\xff\xff\xff\xff" and len(message) % 8 == 0
    got = pa.ipc.read_schema(pa.py_buffer(message))
    assert got.equals(schema.arrow_schema(columns), check_metadata=True), got


def test_export_writes_the_tables_to_arrow_hands_out(tmp_path):
    """export --parquet's files hold to_arrow's tables (the one batch → Arrow path feeds both):
    every column, value for value."""
    from click.testing import CliRunner

    import pgntools
    from pgntools.cli import cli

    source = tmp_path / "g.pgn"
    source.write_text("\n".join([FLAGS, MATE, ANNOTATED, PLAIN, CHESS960]))
    result = CliRunner().invoke(cli, ["export", "--no-progress", "--parquet", str(tmp_path / "out"), str(source)])
    assert result.exit_code == 0, result.output
    for table in ("games", "moves"):
        written = pq.read_table(tmp_path / "out" / table)
        handed = pgntools.to_arrow(source, table).read_all()
        if table == "games":  # (Parquet has no seconds unit: milliseconds, as pyarrow writes them)
            handed = handed.set_column(handed.schema.get_field_index("utc_datetime"), "utc_datetime",
                                       handed.column("utc_datetime").cast(pa.timestamp("ms", "UTC")))
        assert written.num_rows == handed.num_rows > 0
        for name in handed.schema.names:
            assert written.column(name).to_pylist() == handed.column(name).to_pylist(), (table, name)


# ---------------------------------------------------------------- the one-call feeder


def part_bytes(path: Path, batches, table: str, rows_per_group: int, feeder: bool) -> bytes:
    columns = schema.GAME_COLUMNS if table == "games" else schema.move_columns(True, True, True)
    part = ParquetPartFile(open(path, "wb"), table, columns, "zstd")
    fed_in_python = sorted(leaf.path[0] for leaf, _ in part.python_feeds)
    assert part.feeder is not None and (table == "games" or fed_in_python == ["game_uid"])  # (source, errors, fixes;
    #                                                                      game_uid: one C call after a hash)
    if not feeder:
        part.feeder = None  # every leaf fed by its Python feed, from the columns copied out of the batch
    for batch in batches:
        part.add(batch)
        if part.group_rows >= rows_per_group:
            part.end_row_group()
    part.close()
    return path.read_bytes()


@pytest.mark.parametrize("table", ["moves", "games"])
@pytest.mark.parametrize("name", sorted(INPUTS))
def test_feeder_writes_the_bytes_of_the_python_feeds(tmp_path, name, table):
    """_core.BatchFeeder (every batch-column leaf fed in one C call from the batch's own buffers,
    export's path) writes byte for byte the file the per-leaf Python feeds write from the
    columns copied out of the same batches; small batches and row groups exercise the edges
    (dictionary resets, tag slots game by game, NAG and tag lists, invalid games' errors)."""
    source = INPUTS[name](tmp_path)
    batches = list(iter_batches(str(source), moves=True, comments=True, fen_every_ply=True, final_fen=True,
                                tag_columns=True, tag_values=True, openings=True, batch_games=37,
                                keys_every_ply=True, detach=True))
    assert type(batches[0].raw) is _core.BatchColumns
    rows = 50 if table == "games" else 3000
    fast = part_bytes(tmp_path / "fast.parquet", batches, table, rows, feeder=True)
    slow = part_bytes(tmp_path / "slow.parquet", batches, table, rows, feeder=False)
    assert fast == slow
    assert pq.read_table(tmp_path / "fast.parquet").num_rows > 0


def random_fields(rng: random.Random, depth: int = 0) -> list:
    """A Thrift struct of every kind the footers use, ids ascending with small and large gaps."""
    fields, field_id = [], 0
    for _ in range(rng.randrange(0, 6)):
        field_id += rng.choice([1, 1, 2, 15, 16, 40])
        kind = rng.choice(["bool", "i8", "i32", "i64", "binary", "struct", "list"] if depth < 2 else ["i32", "binary"])
        if kind == "bool":
            value = rng.random() < 0.5
        elif kind == "i8":
            value = rng.randrange(-128, 128)
        elif kind in ("i32", "i64"):
            value = rng.choice([0, 1, -1, 63, -64, 2 ** 31 - 1, -2 ** 31, rng.randrange(-2 ** 40, 2 ** 40)])
        elif kind == "binary":
            value = rng.choice([b"", "ARROW:schema", bytes(rng.randrange(256) for _ in range(rng.randrange(300)))])
        elif kind == "struct":
            value = random_fields(rng, depth + 1)
        else:
            element = rng.choice(["i32", "binary", "struct"])
            count = rng.choice([0, 1, 14, 15, 16, 200])
            value = (element, [random_fields(rng, depth + 1) if element == "struct" else
                               (rng.randrange(2 ** 20) if element == "i32" else b"x" * rng.randrange(4))
                               for _ in range(count)])
        fields.append((field_id, kind, None if rng.random() < 0.1 else value))
    return fields


@pytest.mark.parametrize("seed", range(40))
def test_compiled_thrift_writes_the_python_bytes(seed):
    """_core.thrift_struct (the footers') writes what pgntools/parquet/thrift.py, the protocol as specified,
    writes: every field kind, id gaps over 15, lists of 15 or more, None fields left out."""
    from pgntools.parquet.thrift import thrift_struct

    fields = random_fields(random.Random(seed))
    assert _core.thrift_struct(fields) == thrift_struct(fields)


# ---------------------------------------------------------------- fed by Arrow (one batch → Arrow path)


@pytest.mark.parametrize("table", ["moves", "games"])
@pytest.mark.parametrize("name", sorted(INPUTS))
def test_arrow_feed_writes_the_bytes_of_the_batch_feed(tmp_path, name, table):
    """The encoders fed from the Arrow table tables/build.py makes of each batch (to_arrow's,
    ParquetPartFile.add_table: export's path) write byte for byte the file the batch columns
    feed them (ParquetPartFile.add): every type of leaf (fixed values with nulls, booleans,
    strings, dictionaries, the typed dates, NAG lists, the tags map, errors and fixes)."""
    from pgntools.tables.build import table as arrow_table

    columns = schema.GAME_COLUMNS if table == "games" else schema.move_columns(True, True, True)
    needs = {**schema.table_needs(table, columns), "comments": True, "fen_every_ply": True, "keys_every_ply": True,
             "tag_values": True, "tag_columns": True, "moves": True}
    needs.pop("replay", None)
    source = INPUTS[name](tmp_path)
    batches = list(iter_batches(str(source), batch_games=37, detach=True, **needs))
    rows = 50 if table == "games" else 3000
    by_batch = part_bytes(tmp_path / "batch.parquet", batches, table, rows, feeder=True)
    part = ParquetPartFile(open(tmp_path / "arrow.parquet", "wb"), table, columns, "zstd")
    for batch in batches:
        part.add_table(arrow_table(batch, table, columns))
        if part.group_rows >= rows:
            part.end_row_group()
    part.close()
    assert (tmp_path / "arrow.parquet").read_bytes() == by_batch
    assert pq.read_table(tmp_path / "arrow.parquet").num_rows > 0


def test_arrow_feed_takes_sliced_arrays(tmp_path):
    """A record batch that is a slice of a table (to_arrow's consumer may hand one on) is fed from
    its offset: the file holds the slice's rows."""
    from pgntools.tables.build import table as arrow_table

    source = tmp_path / "a.pgn"
    source.write_text("\n".join([FLAGS, MATE, ANNOTATED, PLAIN, CHESS960]))
    columns = [c for c in schema.GAME_COLUMNS if c.source is not None and not isinstance(c.type, tuple)
               or c.name in ("speed", "status", "result")]
    needs = {**schema.table_needs("games", columns), "tag_values": True}
    needs.pop("replay", None)
    batch = next(iter(iter_batches(str(source), detach=True, **needs)))
    whole = arrow_table(batch, "games", columns)
    part = ParquetPartFile(open(tmp_path / "s.parquet", "wb"), "games", columns, "zstd")
    part.add_table(whole.slice(1, 3))
    part.close()
    got = pq.read_table(tmp_path / "s.parquet")
    expected = whole.slice(1, 3)
    for name in got.schema.names:
        want = expected.column(name)
        if name == "utc_datetime":
            want = want.cast(pa.timestamp("ms", "UTC"))
        assert got.column(name).to_pylist() == want.to_pylist(), name
