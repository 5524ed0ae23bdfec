"""PGN as a Spark data source (PySpark >= 4.1's Python data sources). Needs the spark extra:
``pip install 'pgntools-chess[spark]'`` (and a Java runtime, as any PySpark).

    import pgntools.spark
    pgntools.spark.register(spark)
    games = spark.read.format("pgn").load("/data/lichess/2024-*.pgn.zst")
    moves = spark.read.format("pgn").option("table", "moves").load("/data/lichess/")
    games.where("white_elo > 2500").groupBy("eco").count()

The driver only lists the inputs: a partition names a compressed file, or a byte range of a plain
one (``partitionBytes``, 64 MiB by default), and the executor reads it itself — no PGN bytes pass
through the driver, so the paths must be readable at the same place on every executor (a shared
filesystem). A byte range is cut where a game likely starts (a tag line after a blank line that
follows movetext, the seam of ``--jobs``); neighbouring ranges find the same seam, so each game is
read once.

Options (all strings, as Spark passes them):
- ``table``: ``games`` (one row a game, export's games table) or ``moves`` (one row a mainline ply);
- ``where``: a ``--where`` expression, decided on the executors (tag conditions before the replay);
- ``partitionBytes``: the plain input's bytes a partition reads (0: one partition a file);
- ``withComments``, ``withFen``, ``withKeys`` (moves), ``strict``, ``fixResults``: as in export.

Spark's filters on the games table (``=``, ``<``, ``>=``, ``in``, ``is null``, ``starts with``, ...
on its columns) are pushed down as that ``where`` when the expression language can say them, so a
tag condition drops games before they are replayed (Spark >= 4.1 refuses a reader that takes
filters unless ``spark.sql.python.filterPushdown.enabled`` is on: ``register`` turns it on).

The tables have no ``game_id`` (the input order, which a byte range cannot know without reading
what comes before it): join moves to games on ``game_uid``, the game's stable id in every run.
"""
from __future__ import annotations

import os
from typing import Iterator, List, Optional, Sequence, Tuple

from pyspark.sql.datasource import (DataSource, DataSourceReader, EqualTo, Filter, GreaterThan,
                                    GreaterThanOrEqual, In, InputPartition, IsNotNull, IsNull, LessThan,
                                    LessThanOrEqual, Not, StringContains, StringEndsWith, StringStartsWith)

from pgntools.dask import DATAFRAME_CHUNK

__all__ = ["PgnDataSource", "register"]

PARTITION_BYTES = DATAFRAME_CHUNK  # (as a Dask partition)
TABLES = ("games", "moves")


def register(spark) -> None:
    """Makes ``spark.read.format("pgn")`` read PGN, with Spark's filters pushed to the reader."""
    spark.conf.set("spark.sql.python.filterPushdown.enabled", "true")
    spark.dataSource.register(PgnDataSource)


# ---------------------------------------------------------------- options and schema

def _flag(options, name: str, default: bool = False) -> bool:
    value = options.get(name)
    if value is None:
        return default
    if value.lower() not in ("true", "false"):
        raise ValueError(f"option {name}: 'true' or 'false', not {value!r}")
    return value.lower() == "true"


class Settings:
    """What a read asks for, from the data source's options (picklable: sent to the executors)."""

    def __init__(self, options):
        self.table = options.get("table", "games").lower()
        if self.table not in TABLES:
            raise ValueError(f"option table: one of {', '.join(TABLES)}, not {self.table!r}")
        self.where = options.get("where") or None
        self.partition_bytes = int(options.get("partitionBytes", PARTITION_BYTES))
        self.with_comments = _flag(options, "withComments")
        self.with_fen = _flag(options, "withFen")
        self.with_keys = _flag(options, "withKeys")
        self.strict = _flag(options, "strict")
        self.fix_results = _flag(options, "fixResults", True)
        if self.where:
            from pgntools.where import compile_where

            compile_where(self.where)  # a WhereError names the token now, not on an executor

    def spec(self):
        """The table's columns, what the reader records for them and a batch's rows: as to_arrow's."""
        from pgntools.arrow_tables import table_spec

        return table_spec(self.table, with_fen=self.with_fen, with_comments=self.with_comments,
                          with_keys=self.with_keys)

    def arrow_schema(self):
        """The table's Arrow schema as Spark receives it (pgntools.tables.schema's columns)."""
        from pgntools.tables.schema import arrow_schema

        return _spark_arrow_schema(arrow_schema([c for c in self.spec().columns if c.name != "game_id"]))

    def selection(self, pushed: Sequence[str]):
        """The --where of the ``where`` option and of the filters Spark pushed, or KEEP_ALL."""
        from pgntools.selection import KEEP_ALL
        from pgntools.where import Choose

        parts = ([self.where] if self.where else []) + list(pushed)
        return Choose(" and ".join(f"({p})" for p in parts)) if parts else KEEP_ALL

    def reader_options(self, spec, selection):
        from pgntools.options import ReaderOptions

        needs = dict(spec.needs)
        if getattr(selection, "where", None) is not None and not selection.where.tag_only:
            needs.pop("replay", None)  # (the selection reads what the replay fills)
        base = ReaderOptions(strict=self.strict, fix_results=self.fix_results)
        return base.for_sinks([needs, dict(selection.needs), {"detach": True}])


def _spark_type(type_):
    """An Arrow type Spark reads: dictionaries as their values; Spark has no unsigned integers, so
    each as the next wider signed one, and uint64 (the Polyglot keys) as decimal(20, 0); nested
    types element by element."""
    import pyarrow as pa

    if pa.types.is_dictionary(type_):
        return _spark_type(type_.value_type)
    wider = {pa.uint8(): pa.int16(), pa.uint16(): pa.int32(), pa.uint32(): pa.int64(),
             pa.uint64(): pa.decimal128(20, 0)}
    if type_ in wider:
        return wider[type_]
    if pa.types.is_map(type_):
        return pa.map_(_spark_type(type_.key_type), _spark_type(type_.item_type))
    if pa.types.is_list(type_) or pa.types.is_large_list(type_):
        return pa.list_(_spark_type(type_.value_type))
    if pa.types.is_struct(type_):
        return pa.struct([f.with_type(_spark_type(f.type)) for f in type_])
    return type_


def _spark_arrow_schema(schema):
    import pyarrow as pa

    return pa.schema([f.with_type(_spark_type(f.type)) for f in schema])


# ---------------------------------------------------------------- Spark filters as --where

def _column(attribute: Tuple[str, ...], columns) -> Optional[str]:
    name = attribute[0] if len(attribute) == 1 else None
    return name if name in columns else None


def _literal(value) -> Optional[str]:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    return None  # (dates, decimals, ...: left to Spark)


def _like(name: str, pattern: str, text: str) -> Optional[str]:
    """``name like 'pattern'`` with ``text`` in the place of {} (None when text holds a wildcard)."""
    if any(c in text for c in "%_\\"):
        return None
    return f"{name} like '{pattern.format(text.replace(chr(39), chr(39) * 2))}'"


def filter_as_where(flt: Filter, columns) -> Optional[str]:
    """The --where text of one Spark filter, or None when it is not one the reader can decide."""
    if isinstance(flt, Not):
        inner = filter_as_where(flt.child, columns)
        return f"not ({inner})" if inner else None
    name = _column(flt.attribute, columns)
    if name is None:
        return None
    if isinstance(flt, IsNull):
        return f"{name} is null"
    if isinstance(flt, IsNotNull):
        return f"{name} is not null"
    if isinstance(flt, In):
        items = [_literal(v) for v in flt.value]
        return f"{name} in ({', '.join(items)})" if items and None not in items else None
    ops = {EqualTo: "=", GreaterThan: ">", GreaterThanOrEqual: ">=", LessThan: "<", LessThanOrEqual: "<="}
    for kind, op in ops.items():
        if type(flt) is kind:
            value = _literal(flt.value)
            return f"{name} {op} {value}" if value else None
    patterns = {StringStartsWith: "{}%", StringEndsWith: "%{}", StringContains: "%{}%"}
    for kind, pattern in patterns.items():
        if type(flt) is kind:
            return _like(name, pattern, flt.value)
    return None


# ---------------------------------------------------------------- partitions

def input_files(path: str) -> List[str]:
    """The files of ``path``: a file, a directory's PGN files or a glob's (inputs/expand.py), sorted."""
    from pgntools.inputs.expand import expand_inputs
    from pgntools.storage import is_url

    if is_url(path):
        raise ValueError(f"{path}: the pgn data source reads paths every executor sees (a shared filesystem), not URLs")
    files = expand_inputs([path])
    missing = [f for f in files if not os.path.isfile(f)]
    if missing:
        raise FileNotFoundError(f"{missing[0]}: no such file")
    return files


def _is_plain(path: str) -> bool:
    from pgntools.inputs.streams import open_inputs
    from pgntools.runner.chunks import _plain_path

    for inp in open_inputs([path]):  # (a zip archive's first member: not the archive's bytes)
        with inp:
            return inp.name == path and _plain_path(path, inp, with_paths=True) is not None
    return False


def plan(paths: Sequence[str], partition_bytes: int) -> List[InputPartition]:
    """One partition a compressed file, a byte range of ``partition_bytes`` of a plain one."""
    parts = []
    for path in paths:
        size = os.path.getsize(path)
        if partition_bytes > 0 and size > partition_bytes and _is_plain(path):
            for start in range(0, size, partition_bytes):
                parts.append(InputPartition((path, start, min(start + partition_bytes, size))))
        else:
            parts.append(InputPartition((path, 0, None)))
    return parts


def _range_batches(path: str, start: int, end: int, options) -> Iterator:
    """The batches of the games of a plain file that start in its seam-aligned range
    [seam(start), seam(end))."""
    from pgntools.runner.chunks import Chunk, _seam_in_file, chunk_batches

    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        first = _seam_in_file(f, start, size) if start else 0
        last = _seam_in_file(f, end, size) if end < size else size
    if first >= last:
        return
    chunk = Chunk(0, path, first, None, None, None, last - first, path=path, file_size=size, last=True)
    yield from chunk_batches(chunk, chunk.read(), options)


def _batches(partition_value, options) -> Iterator:
    from pgntools.reader import iter_batches

    path, start, end = partition_value
    if end is None:
        yield from iter_batches(path, options=options)
    else:
        yield from _range_batches(path, start, end, options)


# ---------------------------------------------------------------- the data source

class PgnDataSource(DataSource):
    """``spark.read.format("pgn")``: games or moves of PGN files (plain or compressed)."""

    @classmethod
    def name(cls) -> str:
        return "pgn"

    def schema(self):
        from pyspark.sql.pandas.types import from_arrow_schema

        return from_arrow_schema(Settings(self.options).arrow_schema())

    def reader(self, schema) -> "PgnReader":
        return PgnReader(Settings(self.options), self.options.get("path"))


class PgnReader(DataSourceReader):
    def __init__(self, settings: Settings, path: Optional[str]):
        if not path:
            raise ValueError("spark.read.format('pgn').load(PATH): a file, directory or glob of PGN inputs")
        self.settings = settings
        self.paths = input_files(path)
        self.pushed: List[str] = []

    def pushFilters(self, filters: List[Filter]) -> Iterator[Filter]:
        """Keeps the filters the --where language says; Spark evaluates the others. (Spark may
        plan several queries with one reader: each call says all the filters of one.)"""
        self.pushed = []
        if self.settings.table != "games":
            yield from filters
            return
        from pgntools.tables import schema

        columns = {c.name for c in schema.GAME_COLUMNS}
        for flt in filters:
            text = filter_as_where(flt, columns)
            if text is None:
                yield flt
            else:
                self.pushed.append(text)

    def partitions(self) -> List[InputPartition]:
        return plan(self.paths, self.settings.partition_bytes)

    def read(self, partition: InputPartition):
        settings = self.settings
        spec = settings.spec()
        selection = settings.selection(self.pushed)
        options = settings.reader_options(spec, selection)
        target = settings.arrow_schema()
        for batch in _batches(partition.value, options):
            view = selection.select(batch)
            if view.n_games:
                yield from spec.rows(view).drop_columns(["game_id"]).cast(target).to_batches()
