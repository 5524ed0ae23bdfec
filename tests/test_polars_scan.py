"""pgntools.polars.scan_pgn (issue 35, item 5): the tables as Polars LazyFrames through the IO
plugin interface; projection pushdown (only the columns used are asked for) and predicate
pushdown of what the --where tag prefilter decides (a rejected game is never replayed). The
oracle is Polars itself: the same query over the whole table read eagerly."""
from __future__ import annotations

import datetime

from pathlib import Path

import pytest

pl = pytest.importorskip("polars")
pytest.importorskip("pyarrow")

import pgntools  # noqa: E402
import pgntools.arrow_tables  # noqa: E402
import pgntools.polars  # noqa: E402
from pgntools.polars import pushed_down  # noqa: E402
from pgntools.tables.schema import GAME_COLUMNS  # noqa: E402

SAMPLE = Path(__file__).resolve().parent.parent / "fixtures" / "sample.pgn"
TAGS = {c.name: c.type for c in GAME_COLUMNS if c.tag}
GAMES = b"""[White "Ann"]\n[WhiteElo "2600"]\n[Site "a"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0

[White "?"]\n[WhiteElo "2700"]\n[Site "b"]\n\n1. e4 e5 2. Ke2 Ke7 3. Kd5 0-1

[White "Cid"]\n[WhiteElo "1400"]\n[Site "c"]\n\n1. d4 d5 *

[White "Ann"]\n[Site "d"]\n[Date "2023.??.??"]\n\n1. c4 *
"""


@pytest.fixture
def calls(monkeypatch):
    """The to_arrow calls the scans make (their columns and where)."""
    made = []
    real = pgntools.arrow_tables.to_arrow

    def spy(source, table="games", columns=None, where=None, **options):
        made.append({"table": table, "columns": columns, "where": where})
        return real(source, table, columns, where, **options)
    monkeypatch.setattr(pgntools.arrow_tables, "to_arrow", spy)
    return made


QUERIES = {
    "elo": lambda f: f.filter(pl.col("white_elo") > 2500).select("site"),
    "literal first": lambda f: f.filter(pl.lit(2000) <= pl.col("white_elo")).select("site", "white"),
    "name and elo": lambda f: f.filter((pl.col("white") == "Ann") & (pl.col("white_elo") > 100)).select("site"),
    "or": lambda f: f.filter((pl.col("white") == "Cid") | (pl.col("white_elo") >= 2700)).select("site"),
    "question mark": lambda f: f.filter(pl.col("white") == "?").select("site"),
    "not equal": lambda f: f.filter(pl.col("white") != "Ann").select("site"),
    "starts with": lambda f: f.filter(pl.col("white").str.starts_with("A")).select("site", "status"),
    "date": lambda f: f.filter(pl.col("date") >= datetime.date(2023, 1, 1)).select("site", "year", "month"),
    "status": lambda f: f.filter(pl.col("status") == "invalid").select("site"),
    "head": lambda f: f.select("site").head(2),
}


@pytest.mark.parametrize("query", QUERIES)
def test_a_scan_gives_what_polars_gives_over_the_whole_table(query, calls):
    eager = pl.from_arrow(pgntools.to_arrow(GAMES)).lazy()
    expected = QUERIES[query](eager).collect()
    got = QUERIES[query](pgntools.polars.scan_pgn(GAMES)).collect()
    assert got.to_dicts() == expected.to_dicts()


def test_only_the_columns_used_are_asked_for_and_tag_conditions_pushed_down(calls):
    QUERIES["elo"](pgntools.polars.scan_pgn(GAMES)).collect()
    scan = calls[-1]
    assert sorted(scan["columns"]) == ["site", "white_elo"]
    assert scan["where"] == "white_elo > 2500"
    # a game the pushed-down condition rejects is never replayed: the illegal game 1 (Elo 2700) is,
    # the others are not asked for; no column of the replay is asked for either
    QUERIES["name and elo"](pgntools.polars.scan_pgn(GAMES)).collect()
    assert calls[-1]["where"] == "(white = 'Ann') and (white_elo > 100)"


@pytest.mark.parametrize("expression, where", [
    (pl.col("white_elo") > 2500, "white_elo > 2500"),
    (pl.lit(2500) < pl.col("black_elo"), "black_elo > 2500"),
    ((pl.col("white") == "a") | (pl.col("black") == "b"), "(white = 'a') or (black = 'b')"),
    ((pl.col("white") == "a") | (pl.col("ply_count") > 2), None),      # one side is no tag: nothing
    ((pl.col("white") == "a") & (pl.col("ply_count") > 2), "(white = 'a')"),  # the tag side alone
    (pl.col("white") == "O'Hara", "white = 'O''Hara'"),
    (pl.col("white") == "?", None),               # null to --where, text to Polars
    (pl.col("white") != "a", None),               # '?' != 'a' in Polars, null in --where
    (pl.col("date") == datetime.date(2023, 1, 1), None),  # a day to Polars, an interval to --where
    (pl.col("event").str.starts_with("Rated"), "event like 'Rated%'"),
    (pl.col("event").str.starts_with("50%"), None),
    (~(pl.col("white") == "a"), None),
])
def test_what_is_pushed_down(expression, where):
    assert pushed_down(expression, TAGS) == where


def test_other_tables_and_options(calls):
    moves = pgntools.polars.scan_pgn(SAMPLE, "moves").filter(pl.col("is_mate")).select("game_id", "san").collect()
    eager = pl.from_arrow(pgntools.to_arrow(SAMPLE, "moves")).filter(pl.col("is_mate")).select("game_id", "san")
    assert moves.to_dicts() == eager.to_dicts() and moves.height > 0
    assert calls[-1]["where"] is None  # (the moves table has no tag to push down)
    with pytest.raises(TypeError, match="columns= is the query's"):
        pgntools.polars.scan_pgn(SAMPLE, columns=["white"])
    with pytest.raises(ValueError, match="table must be one of"):
        pgntools.polars.scan_pgn(SAMPLE, "plies")
