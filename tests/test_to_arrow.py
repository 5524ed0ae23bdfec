"""pgntools.to_arrow (issue 35): every table as a pyarrow RecordBatchReader, read by DuckDB,
Polars and pandas; its schema before any game is read; columns recorded only when asked for;
the batch's buffers handed to Arrow without a copy; the sources a Python caller has.

The oracles are things we did not write: python-chess (the SAN of every mainline move, the final
FEN), DuckDB, Polars and pandas reading the readers.
"""
from __future__ import annotations

import bz2
import gc
import gzip
import io
import lzma
from pathlib import Path

import pytest

from conftest import CHESS_REASON, CORPORA_DIR

pa = pytest.importorskip("pyarrow")
chess_pgn = pytest.importorskip("chess.pgn", reason=CHESS_REASON)

import pgntools  # noqa: E402
from pgntools.arrow_tables import table_spec  # noqa: E402
from pgntools.errors import InputError  # noqa: E402
from pgntools.tables import schema  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "fixtures" / "sample.pgn"
LICHESS = CORPORA_DIR / "lichess" / "lichess-magnus-carlsen.pgn"
GAMES = b"""[Event "A"]
[White "Ann"]
[Black "Bob"]
[WhiteElo "2510"]
[Result "1-0"]

1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0

[Event "B"]
[White "Cid"]
[Black "Dee"]
[WhiteElo "1400"]
[Result "1/2-1/2"]

1. d4 d5 2. c4 e6 1/2-1/2

[Event "C"]
[White "Eve"]
[Black "Fay"]
[Result "0-1"]

1. e4 e5 2. Ke2 Ke7 3. Kd5 0-1
"""


def oracle_sans(data: bytes) -> list:
    """python-chess's SAN of each game's mainline (up to an illegal move)."""
    handle, out = io.StringIO(data.decode()), []
    while (game := chess_pgn.read_game(handle)) is not None:
        board, sans = game.board(), []
        for move in game.mainline_moves():
            sans.append(board.san(move))
            board.push(move)
        out.append(sans)
    return out


# ---------------------------------------------------------------- the reader and its schema


@pytest.mark.parametrize("table, declared", [("games", schema.GAME_COLUMNS), ("moves", schema.MOVE_COLUMNS),
                                             ("positions", schema.POSITION_ROW_COLUMNS),
                                             ("fens", schema.POSITION_COLUMNS)])
def test_the_schema_is_known_before_any_game_is_read(table, declared):
    taken = []

    def chunks():
        taken.append(1)
        yield GAMES

    reader = pgntools.to_arrow(chunks(), table)
    assert isinstance(reader, pa.RecordBatchReader)
    assert reader.schema == schema.arrow_schema(declared)
    assert not taken  # nothing read yet
    rows = reader.read_all()
    assert taken and rows.schema == reader.schema and rows.num_rows > 0


def test_the_moves_table_holds_python_chess_moves():
    moves = pgntools.to_arrow(GAMES, "moves", columns=["game_id", "ply", "san"]).read_all()
    assert moves.column_names == ["game_id", "ply", "san"]
    got = [[] for _ in range(3)]
    for game, ply, san in zip(*(moves.column(c).to_pylist() for c in ("game_id", "ply", "san"))):
        assert ply == len(got[game]) + 1
        got[game].append(san)
    expected = oracle_sans(GAMES)
    assert got == expected and len(got[2]) == 4  # the third game stops at its illegal move Kd5


def test_the_games_table_says_what_read_games_says():
    games = pgntools.to_arrow(GAMES).read_all().to_pylist()
    records = list(pgntools.read_games(GAMES))
    assert [g["status"] for g in games] == [r.status for r in records] == ["valid", "valid", "invalid"]
    assert [g["white_elo"] for g in games] == [2510, 1400, None]
    assert [g["final_fen"] for g in games[:2]] == [r.final_fen for r in records[:2]]
    assert games[2]["errors"][0]["kind"] == "illegal_move" and "Kd5" in games[2]["errors"][0]["message"]


def test_columns_are_returned_in_the_order_asked_and_unknown_ones_named():
    reader = pgntools.to_arrow(GAMES, columns=["white_elo", "white"])
    assert reader.schema.names == ["white_elo", "white"]
    assert reader.read_all().to_pylist()[0] == {"white_elo": 2510, "white": "Ann"}
    with pytest.raises(ValueError, match=r"WhiteElo \(did you mean white_elo\?\)"):
        pgntools.to_arrow(GAMES, columns=["WhiteElo"])
    with pytest.raises(ValueError, match="table must be one of games, moves, positions, fens"):
        pgntools.to_arrow(GAMES, "plies")


def test_a_games_table_of_tags_replays_no_move():
    needs = table_spec("games", ["white", "white_elo", "game_id"]).needs
    assert needs["replay"] is False and not needs.get("moves")
    assert "replay" not in table_spec("games", ["white", "status"]).needs
    # the illegal game is not replayed, so it is not found out: its row is there with its tags
    assert pgntools.to_arrow(GAMES, columns=["white", "white_elo"]).read_all().num_rows == 3
    # a moves table asks for no tag value
    assert not table_spec("moves", ["san"]).needs.get("tag_values")


def test_where_dedup_and_limit_select_the_games():
    assert pgntools.to_arrow(GAMES, where="white_elo > 2000", columns=["white"]).read_all().column(
        "white").to_pylist() == ["Ann"]
    # (the invalid game 2 has no mainline key, so its repeat 5 is no duplicate)
    assert pgntools.to_arrow([GAMES, GAMES], dedup="moves", columns=["game_id"]).read_all().column(
        "game_id").to_pylist() == [0, 1, 2, 5]
    assert pgntools.to_arrow(GAMES, "moves", limit=1, columns=["game_id"]).read_all().column(
        "game_id").to_pylist() == [0] * 7  # (the first game's plies)
    with pytest.raises(pgntools.PgnToolsError):
        pgntools.to_arrow(GAMES, where="white_elo >")


def test_options_are_checked_when_the_reader_is_made():
    with pytest.raises(ValueError, match="automatic_ends"):
        pgntools.to_arrow(GAMES, automatic_ends="stop")
    with pytest.raises(ValueError, match="sample_plies"):
        pgntools.to_arrow(GAMES, "positions", sample_plies=0)


def test_the_fens_table_ends_where_python_chess_ends():
    fens = pgntools.to_arrow(SAMPLE.read_bytes(), "fens").read_all().to_pylist()
    handle, expected = io.StringIO(SAMPLE.read_text()), {}
    index = 0
    while (game := chess_pgn.read_game(handle)) is not None:
        if not game.errors:
            expected[index] = game.end().board().fen()
        index += 1
    got = {row["game_id"]: row["fen"] for row in fens}
    assert got and all(got[g] == expected[g] for g in got)


def test_positions_is_a_reader_of_the_positions_table():
    reader = pgntools.positions(SAMPLE, sample_plies=3, seed=2)
    assert isinstance(reader, pa.RecordBatchReader)
    assert reader.read_all() == pgntools.to_arrow(SAMPLE, "positions", sample_plies=3, seed=2).read_all()


# ---------------------------------------------------------------- readers we did not write


def test_duckdb_polars_and_pandas_read_the_readers():
    duckdb = pytest.importorskip("duckdb")
    pl = pytest.importorskip("polars")
    games = pgntools.to_arrow(GAMES, columns=["white", "white_elo", "result"])
    assert duckdb.sql("select white from games where white_elo > 2000").fetchall() == [("Ann",)]
    moves = pl.from_arrow(pgntools.to_arrow(GAMES, "moves"))
    assert moves.filter(pl.col("is_mate"))["san"].to_list() == ["Qxf7#"]
    assert moves["piece"].dtype == pl.Categorical or moves["piece"].dtype == pl.Enum or str(
        moves["piece"].dtype).startswith("Categorical")
    frame = pgntools.to_arrow(GAMES, columns=["white_elo", "status"]).read_pandas(types_mapper=pd_arrow_dtype)
    assert str(frame["white_elo"].dtype) == "int32[pyarrow]"
    assert frame["white_elo"].isna().tolist() == [False, False, True]


def test_a_reader_without_rows_still_has_its_schema_in_polars_and_duckdb():
    duckdb = pytest.importorskip("duckdb")
    pl = pytest.importorskip("polars")
    frame = pl.from_arrow(pgntools.to_arrow(GAMES, "moves", where="white = 'nobody'", columns=["game_id", "san"]))
    assert frame.shape == (0, 2) and frame.columns == ["game_id", "san"]
    empty = pgntools.to_arrow(b"", columns=["white"])
    assert duckdb.sql("select count(*) from empty").fetchall() == [(0,)]


def pd_arrow_dtype(arrow_type):
    pd = pytest.importorskip("pandas")
    return pd.ArrowDtype(arrow_type)


# ---------------------------------------------------------------- no copy out of the core


def test_the_arrays_are_over_the_batch_memory_and_outlive_the_reader():
    from pgntools.reader import iter_batches

    batch = next(iter_batches(GAMES, moves=True, detach=True))
    first, second = batch.buffer("from_square"), batch.buffer("from_square")
    assert type(first).__name__ == "StoreView"
    assert pa.py_buffer(first).address == pa.py_buffer(second).address  # the same memory, not two copies
    assert bytes(memoryview(first)) == batch.raw["from_square"]


@pytest.mark.skipif(not LICHESS.is_file(), reason="the shared corpora are not here")
def test_batches_kept_after_the_reader_is_done_keep_their_values():
    """The buffers of a batch Arrow holds are never reused for a later batch."""
    kept = list(pgntools.to_arrow(LICHESS, "moves", columns=["game_id", "san", "clock"], batch_games=256))
    gc.collect()
    again = [b.to_pydict() for b in pgntools.to_arrow(LICHESS, "moves", columns=["game_id", "san", "clock"],
                                                      batch_games=256)]
    assert len(kept) > 10
    assert [b.to_pydict() for b in kept] == again


# ---------------------------------------------------------------- every source a Python caller has


def _chunked(data: bytes, size: int):
    for i in range(0, len(data), size):
        yield data[i:i + size]


SOURCES = {
    "bytes": lambda d: d,
    "bytearray": lambda d: bytearray(d),
    "memoryview": lambda d: memoryview(d),
    "BytesIO": lambda d: io.BytesIO(d),
    "StringIO": lambda d: io.StringIO(d.decode()),
    "chunks": lambda d: _chunked(d, 7),
    "gzip bytes": lambda d: gzip.compress(d),
    "bz2 BytesIO": lambda d: io.BytesIO(bz2.compress(d)),
    "xz chunks": lambda d: _chunked(lzma.compress(d), 5),
}


@pytest.mark.parametrize("kind", SOURCES)
def test_every_kind_of_source_reads_the_same_games(kind):
    expected = pgntools.to_arrow(GAMES, columns=["white", "status", "ply_count"]).read_all()
    got = pgntools.to_arrow(SOURCES[kind](GAMES), columns=["white", "status", "ply_count"]).read_all()
    assert got == expected
    assert [g.headers["White"] for g in pgntools.read_games(SOURCES[kind](GAMES))] == ["Ann", "Cid", "Eve"]


def test_zstd_file_objects_and_paths(tmp_path):
    zstandard = pytest.importorskip("zstandard")
    path = tmp_path / "games.pgn"
    path.write_bytes(GAMES)
    sources = [zstandard.ZstdCompressor().compress(GAMES), path, open(path, "rb"), open(path, encoding="utf-8")]
    games = pgntools.to_arrow(sources, columns=["game_id", "source", "white"]).read_all().to_pylist()
    assert [g["game_id"] for g in games] == list(range(12))
    assert [g["source"] for g in games[::3]] == ["<bytes>", str(path), str(path), str(path)]
    assert [g.headers["White"] for g in pgntools.read_games(path)] == ["Ann", "Cid", "Eve"]
    assert sum(b.n_games for b in pgntools.iter_batches(io.BytesIO(GAMES))) == 3


def test_a_str_of_pgn_is_refused_as_a_path():
    with pytest.raises(TypeError, match=r"never PGN text.*text.encode\(\)"):
        pgntools.to_arrow(GAMES.decode())
    with pytest.raises(TypeError, match="never PGN text"):
        pgntools.read_games(GAMES.decode())
    with pytest.raises(TypeError, match="never PGN text"):
        pgntools.iter_batches([GAMES, GAMES.decode()])


@pytest.mark.parametrize("source", [42, 2.5, {"a": 1}, None])
def test_a_source_of_another_kind_is_one_type_error_naming_the_kinds(source):
    with pytest.raises(TypeError, match=r"cannot read games from a \w+: a source is a path.*bytes.*file object.*"
                                        r"chunks.*a list of these"):
        pgntools.to_arrow(source)


def test_closed_and_exhausted_file_objects_are_clear_errors(tmp_path):
    closed = io.BytesIO(GAMES)
    closed.close()
    with pytest.raises(InputError, match="the file object is closed"):
        pgntools.to_arrow(closed).read_all()
    path = tmp_path / "games.pgn"
    path.write_bytes(GAMES)
    with open(path, "rb") as f:
        f.read()
        with pytest.raises(InputError, match=rf"{path}: the file object is already read to its end \(at byte "
                                             rf"{len(GAMES)}\)"):
            list(pgntools.read_games(f))


def test_a_chunk_that_is_not_bytes_is_named():
    with pytest.raises(InputError, match="chunk 2 is a str, not bytes"):
        pgntools.to_arrow(iter([GAMES[:10], "1. e4"])).read_all()


def test_a_missing_path_fails_when_the_reader_is_made(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        pgntools.to_arrow(tmp_path / "missing.pgn")


def test_urls_and_a_response_that_cannot_seek():
    fsspec = pytest.importorskip("fsspec")
    fs = fsspec.filesystem("memory")
    with fs.open("/issue35/games.pgn.gz", "wb") as f:
        f.write(gzip.compress(GAMES))
    url = "memory:///issue35/games.pgn.gz"
    assert pgntools.to_arrow(url, columns=["white"]).read_all().column("white").to_pylist() == ["Ann", "Cid", "Eve"]

    class Response(io.RawIOBase):  # as an HTTP body: read only, no seek, no name
        def __init__(self):
            self.body = io.BytesIO(GAMES)

        def readable(self):
            return True

        def readinto(self, b):
            return self.body.readinto(b)

    assert [g.headers["White"] for g in pgntools.read_games(Response())] == ["Ann", "Cid", "Eve"]
