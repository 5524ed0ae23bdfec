"""Typed dates (issue 35, item 6): the games table's `date` is an Arrow date32 (null when a part
is unknown or the day does not exist), `year` and `month` integers whenever known, `utc_datetime`
UTCDate and UTCTime as a timestamp[s, UTC]; the Date tag's text stays in `tags`. The same values
in to_arrow, export --parquet (the own encoder), the Dask partitions and --where, read by DuckDB
(DATE, TIMESTAMP WITH TIME ZONE), Polars and pandas.

The oracle of the C date reading is Python's datetime, over every shape of date text."""
from __future__ import annotations

import datetime
import itertools
from pathlib import Path

import pytest
from click.testing import CliRunner

pa = pytest.importorskip("pyarrow")

import pgntools  # noqa: E402
from pgntools.cli import cli  # noqa: E402

UTC = datetime.timezone.utc


def game(event: str, **tags) -> str:
    lines = [f'[Event "{event}"]'] + [f'[{name} "{value}"]' for name, value in tags.items()]
    return "\n".join(lines) + '\n[Result "*"]\n\n1. e4 e5 *\n\n'


GAMES = "".join([
    game("full", Date="2024.01.05", UTCDate="2024.01.05", UTCTime="12:34:56"),
    game("year only", Date="1851.??.??"),
    game("no such day", Date="2023.02.29", UTCDate="2023.03.01", UTCTime="25:00:00"),
    game("unknown, UTC known", Date="????.??.??", UTCDate="2022.07.??"),
    game("leap day", Date="2024.02.29", UTCDate="2024.02.29", UTCTime="23:59:59"),
    game("no tags"),
    game("not a date", Date="2024-01-05", UTCDate="2024.01.05"),
    game("month unknown", Date="1999.??.17", UTCDate="1999.12.31", UTCTime="00:00:00"),
    game("before 1970", Date="1900.03.01", UTCDate="1969.12.31", UTCTime="23:59:59"),
])
# event: (date, year, month, utc_datetime)
EXPECTED = {
    "full": (datetime.date(2024, 1, 5), 2024, 1, datetime.datetime(2024, 1, 5, 12, 34, 56, tzinfo=UTC)),
    "year only": (None, 1851, None, None),
    "no such day": (None, 2023, 2, None),           # (UTCTime 25:00:00 is no time)
    "unknown, UTC known": (None, 2022, 7, None),    # year and month from UTCDate when Date has no year
    "leap day": (datetime.date(2024, 2, 29), 2024, 2, datetime.datetime(2024, 2, 29, 23, 59, 59, tzinfo=UTC)),
    "no tags": (None, None, None, None),
    "not a date": (None, 2024, 1, None),            # Date is no PGN date: UTCDate's year; no UTCTime
    "month unknown": (None, 1999, None, datetime.datetime(1999, 12, 31, tzinfo=UTC)),
    "before 1970": (datetime.date(1900, 3, 1), 1900, 3, datetime.datetime(1969, 12, 31, 23, 59, 59, tzinfo=UTC)),
}
COLUMNS = ["event", "date", "year", "month", "utc_datetime", "tags"]


@pytest.fixture
def source(tmp_path) -> Path:
    path = tmp_path / "dates.pgn"
    path.write_text(GAMES)
    return path


def typed(rows) -> dict:
    return {r["event"]: (r["date"], r["year"], r["month"], r["utc_datetime"]) for r in rows}


def test_to_arrow_types_and_values(source):
    reader = pgntools.to_arrow(source, columns=COLUMNS)
    assert reader.schema.field("date").type == pa.date32()
    assert reader.schema.field("year").type == pa.int16() and reader.schema.field("month").type == pa.uint8()
    assert reader.schema.field("utc_datetime").type == pa.timestamp("s", "UTC")
    rows = reader.read_all().to_pylist()
    assert typed(rows) == EXPECTED
    # the Date tag's text stays in the tags map, as written
    texts = {r["event"]: dict(r["tags"]).get("Date") for r in rows}
    assert texts["year only"] == "1851.??.??" and texts["not a date"] == "2024-01-05" and texts["no tags"] is None


def test_export_parquet_holds_the_same_values_duckdb_reads_the_types(source, tmp_path):
    duckdb = pytest.importorskip("duckdb")
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["export", "--no-progress", "--parquet", str(out), str(source)])
    assert result.exit_code == 0, result.output
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    games = f"read_parquet('{out}/games/*.parquet')"
    types = dict(con.execute(f"SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM {games})").fetchall())
    assert (types["date"], types["year"], types["month"], types["utc_datetime"]) == (
        "DATE", "SMALLINT", "UTINYINT", "TIMESTAMP WITH TIME ZONE")
    got = con.execute(f"SELECT event, date, year, month, utc_datetime FROM {games}").fetchall()
    assert {e: (d, y, m, None if u is None else u.astimezone(UTC)) for e, d, y, m, u in got} == EXPECTED
    # SQL on the types: a date range, the instants' order, the row groups' statistics (min/max)
    assert con.execute(f"SELECT count(*) FROM {games} WHERE date BETWEEN DATE '2024-01-01' AND DATE '2024-12-31'"
                       ).fetchone() == (2,)
    assert con.execute(f"SELECT event FROM {games} WHERE utc_datetime IS NOT NULL ORDER BY utc_datetime LIMIT 1"
                       ).fetchone() == ("before 1970",)


def test_polars_and_pandas_read_the_types(source):
    pl = pytest.importorskip("polars")
    pd = pytest.importorskip("pandas")
    frame = pl.from_arrow(pgntools.to_arrow(source, columns=COLUMNS[:5]))
    assert frame.schema["date"] == pl.Date and frame.schema["year"] == pl.Int16
    assert isinstance(frame.schema["utc_datetime"], pl.Datetime) and frame.schema["utc_datetime"].time_zone == "UTC"
    assert typed(frame.to_dicts()) == EXPECTED
    table = pgntools.to_arrow(source, columns=COLUMNS[:5]).read_pandas(types_mapper=pd.ArrowDtype)
    assert str(table["utc_datetime"].dtype) == "timestamp[s, tz=UTC][pyarrow]"
    assert str(table["date"].dtype) == "date32[day][pyarrow]"
    full = table.set_index("event").loc["full"]
    assert full["utc_datetime"] == pd.Timestamp("2024-01-05 12:34:56", tz="UTC") and full["year"] == 2024


def test_dask_partitions_hold_the_types(source):
    pytest.importorskip("dask.dataframe")
    import pgntools.dask

    games = pgntools.dask.read_games(str(source))
    assert str(games.dtypes["date"]) == "date32[day][pyarrow]"
    assert str(games.dtypes["utc_datetime"]) == "timestamp[s, tz=UTC][pyarrow]"
    computed = games.compute().set_index("event")
    assert computed.loc["year only", "year"] == 1851 and computed["date"].isna().sum() == 6


@pytest.mark.parametrize("where, kept", [
    ("date >= '2024.01.01'", {"full", "leap day"}),
    ("date < '1900.01.01'", {"year only"}),   # (1851.??.?? is some day of 1851: every one before)
    ("date = '2024.01.05'", {"full"}),
    ("date >= '1851.06.01'", {"full", "no such day", "leap day", "month unknown", "before 1970"}),  # (1851.??.??: null)
    ("year = 1851", {"year only"}),
    ("year >= 2023 and month = 2", {"no such day", "leap day"}),
    ("year is null", {"no tags"}),
    ("month is null", {"year only", "no tags", "month unknown"}),
    ("year between 1900 and 2000", {"month unknown", "before 1970"}),
])
def test_where_on_the_dates(source, where, kept):
    """--where's date compares the tag's text as an interval of days (as before the type); year and
    month are numbers; the same games through to_arrow and the CLI."""
    rows = pgntools.to_arrow(source, columns=["event"], where=where).read_all().column("event").to_pylist()
    assert set(rows) == kept


def test_where_on_year_cli_and_to_arrow_agree(source, tmp_path):
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["export", "--no-progress", "--where", "year < 2000", "--parquet", str(out),
                                      str(source)])
    assert result.exit_code == 0, result.output
    import pyarrow.parquet as pq

    events = set(pq.read_table(out / "games", columns=["event"]).column("event").to_pylist())
    assert events == {"year only", "month unknown", "before 1970"}


def _python_day(text: str):
    """The oracle: Python's datetime on a YYYY.MM.DD text, None when any part is unknown or no day."""
    try:
        return datetime.datetime.strptime(text, "%Y.%m.%d").date() if len(text) == 10 else None
    except ValueError:
        return None


def test_every_shape_of_date_text_reads_as_python_reads_it(tmp_path):
    years = ["2024", "1900", "2000", "1600", "0001", "0000", "????", "20?4", "abcd"]
    months = ["01", "02", "12", "13", "00", "??", "1?"]
    days = ["01", "28", "29", "30", "31", "32", "00", "??"]
    texts = [f"{y}.{m}.{d}" for y, m, d in itertools.product(years, months, days)] + ["2024.1.5", "2024/01/05", ""]
    path = tmp_path / "shapes.pgn"
    path.write_text("".join(game(str(i), Date=t) for i, t in enumerate(texts)))
    rows = pgntools.to_arrow(path, columns=["date", "year", "month"]).read_all().to_pylist()
    assert len(rows) == len(texts)
    for text, row in zip(texts, rows):
        parts = text.split(".")
        shaped = len(text) == 10 and len(parts) == 3 and all(p.isdigit() or set(p) == {"?"} for p in parts) \
            and all(not p.isdigit() or 1 <= int(p) <= high for p, high in zip(parts, (9999, 12, 31)))
        year = int(parts[0]) if shaped and parts[0].isdigit() else None
        assert row["date"] == (_python_day(text) if shaped else None), text
        assert row["year"] == year, text
        assert row["month"] == (int(parts[1]) if year and parts[1].isdigit() else None), text
