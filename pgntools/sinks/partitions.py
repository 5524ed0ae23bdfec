"""export --partition-by FIELD[,FIELD]: each game's hive partition, e.g. year=2024/month=01/speed=blitz,
the layout of the Lichess Parquet dataset, which DuckDB (hive_partitioning), Polars, pyarrow and
Spark read as columns.

A field is a column of the games table that holds one string or whole number a game: ``year``
and ``month`` (of the game's Date, else its UTCDate: the table's own columns, so a directory and
the rows in it agree), speed, event, eco, white_elo, ... A value that is missing (or a date's
``??``) goes to ``FIELD=__HIVE_DEFAULT_PARTITION__``, as Hive and
Spark write a null; other values are percent-escaped where a path could not hold them.
"""
from __future__ import annotations

from typing import Dict, List, Sequence, Tuple

from pgntools.errors import OutputError
from pgntools.reader import GameBatch
from pgntools.tables import schema

NULL = "__HIVE_DEFAULT_PARTITION__"
DATE_FIELDS = ("year", "month")  # (columns too; named first in the help)
_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.+ ")


def _scalar_columns() -> Dict[str, schema.Column]:
    """The games columns a partition may be named after: one string, code or integer a game."""
    kinds = ("string", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", schema.STATUS)
    return {c.name: c for c in schema.GAME_COLUMNS if c.type in kinds and c.name not in ("game_id", "offset")}


def check_fields(fields: Sequence[str]) -> List[str]:
    """The --partition-by fields, checked (OutputError names the ones there are)."""
    columns = _scalar_columns()
    known = list(DATE_FIELDS) + sorted(set(columns) - set(DATE_FIELDS))
    for field in fields:
        if field not in known:
            raise OutputError(f"--partition-by: unknown field {schema.suggest(field, known)}; "
                              f"a field is one of {', '.join(known)}")
    if len(set(fields)) != len(fields):
        raise OutputError("--partition-by: a field is named twice")
    return list(fields)


def escape(value: str) -> str:
    """A value as a path segment (Hive's escaping: %XX for what a path cannot hold)."""
    if not value:
        return NULL
    text = "".join(c if c in _SAFE else "".join(f"%{b:02X}" for b in c.encode()) for c in value)
    return "%2E" + text[1:] if text.startswith(".") else text  # (no hidden directory)


class Partitioner:
    """Splits a batch into its partitions' views (pgntools.selection.take_games)."""

    def __init__(self, fields: Sequence[str]):
        self.fields = check_fields(fields)
        columns = _scalar_columns()
        self.columns = [columns[name] for name in self.fields]
        self.needs = schema.reader_needs_of(self.columns)

    def split(self, batch: GameBatch) -> List[Tuple[str, GameBatch]]:
        """(partition path, the batch's games in it) for each partition the batch's games are in,
        in the order of their first game."""
        from pgntools.selection import take_games
        from pgntools.tables.build import table

        values = table(batch, "games", self.columns).to_pydict()
        groups: Dict[str, List[int]] = {}
        for g in range(batch.n_games):
            path = "/".join(f"{field}={escape(self._value(field, values, g))}" for field in self.fields)
            groups.setdefault(path, []).append(g)
        if len(groups) == 1:
            return [(next(iter(groups)), batch)]
        return [(path, take_games(batch, games)) for path, games in groups.items()]

    @staticmethod
    def _value(field: str, values: dict, g: int) -> str:
        value = values[field][g]
        if value is None:
            return ""
        width = {"year": 4, "month": 2}.get(field)  # (year=2024/month=01, as Lichess's dataset)
        return f"{value:0{width}d}" if width else str(value)
