"""The tables as Polars LazyFrames through Polars' IO-plugin interface (needs polars >= 1.0):

    import pgntools.polars, polars as pl
    strong = pgntools.polars.scan_pgn("games.pgn.zst").filter(pl.col("white_elo") > 2500).select("site")
    strong.collect()

The scan is pgntools.to_arrow underneath. Projection pushdown: only the columns the query uses
are asked for (so only what they need is recorded: a query of tags replays no move). Predicate
pushdown: of a query's filter on the games table, the conditions --where decides from the tags
alone (comparisons of the Elo columns; equality and ``str.starts_with`` on the other tag
columns, joined by ``&`` and ``|``) become ``where=``, so a game they reject is never replayed. The whole filter is then
applied by Polars to the rows made, so what cannot be pushed down (or is decided differently:
dates, whose --where values are intervals; ``?`` and ``-``, null to --where) is still exact.
"""
from __future__ import annotations

import json
from typing import Iterator, List, Optional

__all__ = ["scan_pgn"]

# Polars' comparison operators (Expr.meta.serialize's names) as --where's, and flipped (literal first).
_COMPARISONS = {"Eq": "=", "NotEq": "!=", "Lt": "<", "LtEq": "<=", "Gt": ">", "GtEq": ">="}
_FLIPPED = {"Eq": "Eq", "NotEq": "NotEq", "Lt": "Gt", "LtEq": "GtEq", "Gt": "Lt", "GtEq": "LtEq"}
_NUMBERS = ("int32", "int16", "uint8")  # (Elo tags; year, month)
_NULL_TEXT = ("?", "-")  # tag values --where reads as null (the table holds them as text)


def scan_pgn(source, table: str = "games", **options) -> "pl.LazyFrame":  # noqa: F821
    """``source``'s ``table`` (games, moves, positions or fens) as a LazyFrame; ``source`` and
    ``options`` as pgntools.to_arrow's (not ``columns`` and ``where``: the query's select and
    filter say them). Bad options raise now, as to_arrow's do."""
    import polars as pl
    from polars.io.plugins import register_io_source

    from pgntools.arrow_tables import to_arrow

    for name in ("columns", "where"):
        if name in options:
            raise TypeError(f"scan_pgn: {name}= is the query's (select and filter), not an option")
    schema = to_arrow(source, table, **options).schema  # (checks the source and options, reads no game)
    polars_schema = pl.from_arrow(schema.empty_table()).schema
    tags = pushable_columns() if table == "games" else {}

    def batches(with_columns: Optional[List[str]], predicate, n_rows: Optional[int],
                batch_size: Optional[int]) -> Iterator[pl.DataFrame]:
        wanted = list(with_columns) if with_columns is not None else list(schema.names)
        read = list(wanted)
        where = None
        if predicate is not None:
            read += [name for name in predicate.meta.root_names() if name not in read]
            where = pushed_down(predicate, tags)
        kept = 0
        for batch in to_arrow(source, table, columns=read, where=where, **options):
            frame = pl.from_arrow(batch)
            if predicate is not None:
                frame = frame.filter(predicate)
            frame = frame.select(wanted)
            if n_rows is not None:
                frame = frame.head(n_rows - kept)
            kept += frame.height
            yield frame
            if n_rows is not None and kept >= n_rows:
                return

    return register_io_source(batches, schema=polars_schema, explain_name="pgntools.scan_pgn",
                              explain_detail=f"table={table}")


def pushable_columns() -> dict:
    """{name: type} of the games columns the --where tag prefilter decides on: the tags' text
    and numbers, and the typed year and month (read in C from the date tags by the rule that
    makes the columns, pgn_year_date)."""
    from pgntools.tables.schema import GAME_COLUMNS, TagDate

    return {c.name: c.type for c in GAME_COLUMNS
            if c.tag or (isinstance(c.source, TagDate) and c.source.part in ("year", "month"))}


def pushed_down(predicate, tags: dict) -> Optional[str]:
    """The --where condition of what of ``predicate`` the tag prefilter decides, never keeping
    fewer games than the predicate does (None when nothing can be pushed down)."""
    try:
        tree = json.loads(predicate.meta.serialize(format="json"))
    except Exception:  # (a Polars without the JSON form: nothing pushed down, the filter still applies)
        return None
    return _condition(tree, tags)


def _condition(node, tags: dict) -> Optional[str]:
    if not isinstance(node, dict) or len(node) != 1:
        return None
    (kind, body), = node.items()
    if kind == "BinaryExpr":
        op = body["op"]
        if op in ("And", "LogicalAnd"):  # (either side alone keeps at least the games both keep)
            parts = [p for p in (_condition(body["left"], tags), _condition(body["right"], tags)) if p]
            return " and ".join(f"({p})" for p in parts) or None
        if op in ("Or", "LogicalOr"):
            left, right = _condition(body["left"], tags), _condition(body["right"], tags)
            return f"({left}) or ({right})" if left and right else None
        if op in _COMPARISONS:
            column, value = _column(body["left"]), _literal(body["right"])
            if column is None:
                column, value, op = _column(body["right"]), _literal(body["left"]), _FLIPPED[op]
            return _comparison(column, op, value, tags)
        return None
    if kind == "Function":
        function, inputs = body.get("function"), body.get("input", [])
        if len(inputs) != 2 or _column(inputs[0]) not in tags or tags[_column(inputs[0])] != "string":
            return None
        if function == {"StringExpr": "StartsWith"}:
            prefix = _literal(inputs[1])
            if isinstance(prefix, str) and prefix and not any(c in prefix for c in "%_?-"):
                return f"{_column(inputs[0])} like {_quoted(prefix + '%')}"
    return None


def _comparison(column: Optional[str], op: str, value, tags: dict) -> Optional[str]:
    if column not in tags or value is None:
        return None
    if tags[column] in _NUMBERS and isinstance(value, (int, float)) and not isinstance(value, bool):
        return f"{column} {_COMPARISONS[op]} {value!r}"
    if tags[column] == "string" and op == "Eq" and _plain_text(value) and column not in ("date", "utc_date"):
        return f"{column} = {_quoted(value)}"
    return None


def _plain_text(value) -> bool:
    return isinstance(value, str) and value not in _NULL_TEXT


def _column(node) -> Optional[str]:
    return node.get("Column") if isinstance(node, dict) and isinstance(node.get("Column"), str) else None


def _literal(node):
    """A literal's Python value (an int, float or str), else None."""
    if not isinstance(node, dict) or "Literal" not in node:
        return None
    literal = node["Literal"]
    for form in ("Dyn", "Scalar"):
        value = literal.get(form) if isinstance(literal, dict) else None
        if isinstance(value, dict) and len(value) == 1:
            (kind, inner), = value.items()
            if kind in ("Int", "Float", "String", "Int64", "Int32", "Float64"):
                return inner
    return None


def _quoted(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"
