"""The typed year and month (issue 35 item 6) decided by the reader's tag prefilter before the
replay (TV_YEAR, TV_MONTH of tag_filter.h): `--where year = 2024` replays no game of another year,
and keeps what the batch evaluator keeps on the games table's year and month columns; Polars'
scan_pgn pushes a filter on them down as such a condition."""
from __future__ import annotations

import pytest

from pgntools.reader import iter_batches
from pgntools.where import Choose, compile_where
from test_where_tags import evaluated, hostile, with_filter  # noqa: F401 (a fixture)

# Date and UTCDate of every form: the year (and its month) is Date's when Date's year is known,
# else UTCDate's (the columns' rule, schema.TagDate)
DATES = [("2024.03.05", None), ("2024.??.??", "2023.07.01"), ("????.??.??", "2023.07.01"), (None, "2022.12.31"),
         ("????.05.??", None), ("????.??.??", "????.??.??"), ("?", "2021.01.??"), ("2024.13.01", "2020.02.02"),
         ("1851.??.??", None), (None, None), ("2024.1.1", "2019.11.11"), ("0000.01.01", None), ("2024.03.??", "x")]


def _pgn() -> bytes:
    games = []
    for i, (date, utc) in enumerate(DATES):
        tags = f'[Event "g{i}"]\n' + (f'[Date "{date}"]\n' if date else "") + (f'[UTCDate "{utc}"]\n' if utc else "")
        games.append(tags + "\n1. e4 e5 2. Nf3 *\n")
    return "\n".join(games).encode()


@pytest.fixture(scope="module")
def dates(tmp_path_factory):
    path = tmp_path_factory.mktemp("dates") / "dates.pgn"
    path.write_bytes(_pgn())
    return path


def test_the_year_and_month_columns_of_these_games():
    """What the prefilter must agree with, written out: the columns' values."""
    import pgntools

    table = pgntools.to_arrow(_pgn(), columns=["year", "month"]).read_all()
    assert table.column("year").to_pylist() == [2024, 2024, 2023, 2022, None, None, 2021, 2020, 1851, None, 2019,
                                                None, 2024]
    assert table.column("month").to_pylist() == [3, None, 7, 12, None, None, 1, 2, None, None, 11, None, 3]


EXPRESSIONS = ["year = 2024", "year = 2023", "year >= 2022", "year < 2000", "year != 2024", "year between 2020 and 2023",
               "year in (1851, 2022)", "year is null", "year is not null", "month = 3", "month in (7, 12)",
               "month is null", "not month > 6", "year = 2024 and month = 3", "year = 2024 or month = 7",
               "not (year = 2024 and month is null)", "year > 2020.5", "month = 3 or event = 'g1'"]


@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_the_reader_decides_year_and_month_as_the_evaluator(dates, expression):
    choose = Choose(expression)
    assert choose.decided and "tag_filter" in choose.needs, expression
    kept = with_filter(dates, expression)
    assert kept == evaluated(dates, expression)
    assert with_filter(dates, expression, batch_games=3) == kept


def test_a_game_of_another_year_is_not_replayed(dates):
    """The reader drops it before the replay: the batches hold only the kept games (the others
    counted), and a game whose moves are illegal is no error when its year is not asked for."""
    bad = _pgn() + b'\n[Event "bad"]\n[Date "1999.01.01"]\n\n1. e4 e5 2. Ke3 *\n'
    choose = Choose("year = 2024")
    needs = {k: v for k, v in choose.needs.items() if k != "numbered"}
    batches = list(iter_batches(bad, **needs))
    assert sum(b.n_games for b in batches) == 3  # g0, g1, g12
    assert sum(b.read_count() for b in batches) == len(DATES) + 1
    assert all(b.column("status").tolist() == [0] * b.n_games for b in batches)  # the illegal game never replayed


@pytest.mark.parametrize("expression", ["year = 2024", "month is null and white = 'a'", "year in (2023, 2024)"])
def test_year_and_month_on_the_hostile_tags(hostile, expression):  # noqa: F811
    assert with_filter(hostile, expression) == evaluated(hostile, expression)


def test_polars_pushes_a_year_or_month_filter_down():
    pl = pytest.importorskip("polars")
    from pgntools.polars import pushable_columns, pushed_down

    columns = pushable_columns()
    assert pushed_down(pl.col("year") == 2024, columns) == "year = 2024"
    assert pushed_down((pl.col("year") >= 2020) & (pl.col("month") < 4), columns) == "(year >= 2020) and (month < 4)"
    assert compile_where("year = 2024").checked is not None


def test_scan_pgn_filtered_on_year_keeps_what_polars_keeps():
    pl = pytest.importorskip("polars")
    import pgntools
    import pgntools.polars

    query = lambda frame: frame.filter((pl.col("year") == 2024) & (pl.col("month") == 3)).select("event")  # noqa: E731
    scanned = query(pgntools.polars.scan_pgn(_pgn())).collect()
    eager = query(pl.from_arrow(pgntools.to_arrow(_pgn())))
    assert scanned.to_dicts() == eager.to_dicts() == [{"event": "g0"}, {"event": "g12"}]
