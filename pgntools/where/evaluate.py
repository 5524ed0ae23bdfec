"""Evaluating a checked --where expression on one batch, column at a time with Arrow compute
(no Python object per game): the columns come from their declared batch sources
(pgntools.tables.build), SQL's three-valued logic is Arrow's Kleene logic, and a game is kept
when the expression is true (false and null drop it).

Nulls: an absent tag, and a tag whose value is `?` or `-` (PGN's "unknown"), are null; so is a
rating that is not a whole number, and a date part written `??` makes the date an interval
(`2023.??.??` is some day of 2023): a comparison is true when it holds for every day of the
interval, false when for none, null otherwise.
"""
from __future__ import annotations

from array import array
from typing import Dict

import pyarrow as pa
import pyarrow.compute as pc

from pgntools.reader import GameBatch
from pgntools.tables import build
from pgntools.tables.arrays import ints, scalar, strings, text
from pgntools.tables.game_fields import names
from pgntools.where.check import Checked
from pgntools.where.parser import FLIPPED, INT64_MAX, Node

UNKNOWN = text(["?", "-"])
NULL_STRING = pa.nulls(1, pa.string())[0]
NULL_BOOL = pa.nulls(1, pa.bool_())[0]
# Constants made from buffers: a Python value given to Arrow compute imports pandas (see pgntools/tables/arrays.py).
TRUE, FALSE = pc.equal(ints([0, 0], pa.int8()), ints([0, 1], pa.int8()))
EMPTY, FIRST, LAST_MONTH, LAST_DAY, DOT = text(["", "01", "12", "31", "."])
# A PGN date: year, month and day, each digits or question marks.
DATE = r"^(?P<y>[0-9]{4}|\?{4})\.(?P<m>[0-9]{2}|\?{2})\.(?P<d>[0-9]{2}|\?{2})$"


def _literal(value) -> pa.Scalar:
    if isinstance(value, bool):  # (before int: a bool is one)
        return TRUE if value else FALSE
    if isinstance(value, str):
        return text([value])[0]
    if isinstance(value, float):
        return scalar(value, pa.float64())
    return scalar(value, pa.int64() if value <= INT64_MAX else pa.uint64())


def compare(op: str, a, b):
    """a OP b, over the whole range of both: a key (uint64) against a signed number (int64) is
    not left to Arrow, which casts both to int64 and fails on half of all keys."""
    a_unsigned, b_unsigned = pa.types.is_uint64(a.type), pa.types.is_uint64(b.type)
    if a_unsigned == b_unsigned or not pa.types.is_signed_integer((b if a_unsigned else a).type):
        return COMPARE[op](a, b)  # (a float side: Arrow compares as doubles)
    if a_unsigned:  # the signed side on the left
        op, a, b = FLIPPED[op], b, a
    # a signed, b unsigned: a negative a is below every b; any other compares as uint64
    negative = pc.less(a, scalar(0, pa.int64()))
    as_unsigned = pc.max_element_wise(a, scalar(0, pa.int64())).cast(pa.uint64())
    below = TRUE if op in ("<", "<=", "!=") else FALSE
    return pc.if_else(negative, below, COMPARE[op](as_unsigned, b))


class Evaluation:
    """One batch's evaluation: its columns made once, each as the language sees it."""

    def __init__(self, checked: Checked, batch: GameBatch):
        self.batch, self.n = batch, batch.n_games
        columns = [names()[c].column for c in checked.columns]
        table = build.table(batch, "games", columns) if columns else None
        self.columns: Dict[str, pa.Array] = {}
        for i, column in enumerate(columns):
            self.columns[column.name] = self.cleaned(table.column(i).combine_chunks(), names()[column.name].type)
        self.dates: Dict[str, tuple] = {}

    def cleaned(self, values: pa.Array, type_: str) -> pa.Array:
        if isinstance(values.type, pa.DictionaryType):
            values = values.dictionary_decode()
        if type_ == "number":  # (a key stays uint64: see compare)
            integer = pa.types.is_integer(values.type) and not pa.types.is_uint64(values.type)
            return values.cast(pa.int64()) if integer else values
        if type_ == "bool":
            return values
        # strings: the unknown values, and an empty code name (no result), are null
        unknown = pc.or_(pc.is_in(values, value_set=UNKNOWN), pc.equal(values, EMPTY))
        if type_ == "date":  # a date of unknown year is unknown
            unknown = pc.or_(unknown, pc.starts_with(values, "????"))
        return pc.if_else(unknown, NULL_STRING, values)

    def tag(self, name: str) -> pa.Array:
        """tags['Name'] for each game: the first value of that tag, null when absent or unknown."""
        tag_names, values = strings(self.batch, "tag_name"), strings(self.batch, "tag_value")
        starts = build.offsets(self.batch, "tag_start", len(tag_names))
        owner = build.parents(starts, len(tag_names))
        match = pc.equal(tag_names, text([name])[0])
        positions = pc.index_in(pa.arange(0, self.n).cast(owner.type), value_set=pc.filter(owner, match))
        return self.cleaned(pc.take(pc.filter(values, match), positions), "string")

    def keep(self, root: Node) -> pa.Array:
        """The games where the expression is true (booleans, no nulls)."""
        result = self.eval(root)
        if isinstance(result, pa.Scalar):  # a constant expression
            result = pa.repeat(result, self.n)
        return pc.fill_null(result, FALSE)

    # ---- nodes

    def eval(self, node: Node):
        return getattr(self, "eval_" + node.kind)(node, *node.args)

    def eval_literal(self, node: Node, value):
        return _literal(value)

    def eval_column(self, node: Node, name: str):
        return self.columns[name]

    def eval_tag(self, node: Node, name: str):
        return self.tag(name)

    def eval_and(self, node: Node, left: Node, right: Node):
        return pc.and_kleene(self.eval(left), self.eval(right))

    def eval_or(self, node: Node, left: Node, right: Node):
        return pc.or_kleene(self.eval(left), self.eval(right))

    def eval_not(self, node: Node, value: Node):
        return pc.invert(self.eval(value))

    def eval_is_null(self, node: Node, value: Node):
        return pc.is_null(self.eval(value))

    def eval_is_not_null(self, node: Node, value: Node):
        return pc.is_valid(self.eval(value))

    def eval_compare(self, node: Node, op: str, left: Node, right: Node):
        if left.type == "date":
            return self.compare_dates(op, self.interval(left), self.interval(right))
        return compare(op, self.eval(left), self.eval(right))

    def eval_between(self, node: Node, value: Node, low: Node, high: Node):
        return pc.and_kleene(self.eval_compare(node, ">=", value, low), self.eval_compare(node, "<=", value, high))

    def eval_in(self, node: Node, value: Node, items):
        if value.type == "date":
            result = None
            for item in items:
                equal = self.eval_compare(node, "=", value, item)
                result = equal if result is None else pc.or_kleene(result, equal)
            return result
        values = self.eval(value)
        found = pc.is_in(values, value_set=_items(items, values.type))
        return pc.if_else(pc.is_null(values), NULL_BOOL, found)

    def eval_like(self, node: Node, value: Node, pattern: Node, ignore_case: bool):
        return pc.match_like(self.eval(value), pattern.args[0], ignore_case=ignore_case)

    def eval_regex(self, node: Node, value: Node, pattern: Node):
        return pc.match_substring_regex(self.eval(value), pattern.args[0])

    def eval_arith(self, node: Node, op: str, left: Node, right: Node):
        a, b = self.eval(left), self.eval(right)
        if op == "/":  # as DuckDB: a real quotient; by zero, null
            a, b = a.cast(pa.float64()), b.cast(pa.float64())
            b = pc.if_else(pc.equal(b, scalar(0.0, pa.float64())), pa.nulls(1, pa.float64())[0], b)
            return pc.divide(a, b)
        return {"+": pc.add, "-": pc.subtract, "*": pc.multiply}[op](a, b)

    def eval_negate(self, node: Node, value: Node):
        return pc.negate(self.eval(value))

    def eval_call(self, node: Node, name: str, args):
        if name == "regexp_matches":
            return pc.match_substring_regex(self.eval(args[0]), args[1].args[0])
        value = self.eval(args[0])
        return {"abs": pc.abs, "lower": pc.utf8_lower, "upper": pc.utf8_upper, "length": pc.utf8_length}[name](value)

    # ---- dates: intervals [low, high] of 'YYYY.MM.DD' strings

    def interval(self, node: Node):
        if node.kind == "literal":
            value = _literal(node.args[0])
            return value, value
        name = node.args[0]
        if name not in self.dates:
            self.dates[name] = date_interval(self.columns[name])
        return self.dates[name]

    @staticmethod
    def compare_dates(op: str, a, b):
        (a_low, a_high), (b_low, b_high) = a, b
        if op in (">", ">="):  # b < a, b <= a
            (a_low, a_high), (b_low, b_high) = (b_low, b_high), (a_low, a_high)
            op = "<" if op == ">" else "<="
        if op in ("<", "<="):
            strict = op == "<"
            true = (pc.less if strict else pc.less_equal)(a_high, b_low)
            false = (pc.greater_equal if strict else pc.greater)(a_low, b_high)
        else:  # = and !=: equal when both are the same single day, different when they do not overlap
            true = pc.and_(pc.and_(pc.equal(a_low, a_high), pc.equal(b_low, b_high)), pc.equal(a_low, b_low))
            false = pc.or_(pc.less(a_high, b_low), pc.less(b_high, a_low))
            if op == "!=":
                true, false = false, true
        return pc.if_else(true, TRUE, pc.if_else(false, FALSE, NULL_BOOL))


def date_interval(values: pa.Array):
    """The first and last day each PGN date can be ('2023.??.??': 2023.01.01 to 2023.12.31);
    null for an unknown year or a value that is not a PGN date."""
    parts = pc.extract_regex(values, DATE)  # null where it does not match
    matched = pc.is_valid(parts)  # a null struct's fields hold empty strings, not nulls
    year, month, day = (pc.if_else(matched, parts.field(k), NULL_STRING) for k in "ymd")
    year = pc.if_else(pc.starts_with(year, "?"), NULL_STRING, year)
    month_known = pc.invert(pc.starts_with(month, "?"))
    day_known = pc.and_(month_known, pc.invert(pc.starts_with(day, "?")))

    def joined(m, d):
        return pc.binary_join_element_wise(year, m, d, DOT)

    low = joined(pc.if_else(month_known, month, FIRST), pc.if_else(day_known, day, FIRST))
    high = joined(pc.if_else(month_known, month, LAST_MONTH), pc.if_else(day_known, day, LAST_DAY))
    return low, high


def _items(items, type_: pa.DataType) -> pa.Array:
    """The literals of an IN list as one array (of the value's type, or float64 when one is)."""
    values = [item.args[0] for item in items]
    if all(isinstance(v, str) for v in values):
        return text(values)
    if pa.types.is_floating(type_) or any(isinstance(v, float) for v in values):
        return pa.Array.from_buffers(pa.float64(), len(values), [None, pa.py_buffer(array("d", values))])
    if pa.types.is_uint64(type_):  # (a negative item cannot match a key, a huge one any other number)
        return ints([v for v in values if v >= 0], pa.uint64())
    return ints([v for v in values if v <= INT64_MAX], pa.int64())


COMPARE = {"=": pc.equal, "!=": pc.not_equal, "<": pc.less, "<=": pc.less_equal, ">": pc.greater,
           ">=": pc.greater_equal}

