"""The part of a --where expression the compiled reader decides before the replay: the
conjuncts of its top-level AND that compare a tag column with a literal (the C reader's tag
filter, _c/tag_filter.h). A game that fails one of them is not replayed; the whole expression
is still evaluated on every batch afterwards, so each clause here only has to be true whenever
its conjunct is (a necessary condition): that is what lets dates with `??` parts pass through.
"""
from __future__ import annotations

import re
from typing import List, Tuple

from pgntools import _core
from pgntools.where.check import Checked, names
from pgntools.where.parser import Node

# The C enum of tag_filter.h, in its order.
TF_LT, TF_LE, TF_EQ, TF_NE, TF_GT, TF_GE, TF_PREFIX, TF_NOT_NULL = range(8)
OPS = {"<": TF_LT, "<=": TF_LE, "=": TF_EQ, "!=": TF_NE, ">": TF_GT, ">=": TF_GE}
FLIPPED = {"<": ">", "<=": ">=", "=": "=", "!=": "!=", ">": "<", ">=": "<="}
EXACT = 1 << 53  # numbers compared as doubles in C: exact below this
_PREFIX = re.compile(r"^[^%_\\]*%$")  # a LIKE pattern that is a prefix, and nothing else

Clause = Tuple[int, int, bool, float, bytes]


def conjuncts(node: Node) -> List[Node]:
    if node.kind == "and":
        return [part for arg in node.args for part in conjuncts(arg)]
    return [node]


def _tag_column(node: Node):
    """(tag column index, type) of a column node naming a tag with a column of its own, or None."""
    if node.kind != "column":
        return None
    column = names()[node.args[0]].column
    if column.tag is None or column.tag not in _core.TAG_COLUMNS:
        return None
    return _core.TAG_COLUMNS.index(column.tag), names()[node.args[0]].type


def _compare(op: str, column: Node, literal: Node) -> List[Clause]:
    found = _tag_column(column)
    if found is None or literal.kind != "literal":
        return []
    tag, type_ = found
    value = literal.args[0]
    if type_ == "number":
        if isinstance(value, str) or abs(value) >= EXACT:
            return []
        return [(tag, OPS[op], True, float(value), b"")]
    if type_ == "date" and op not in (">", ">="):
        # '2023.??.??' compares as bytes above every day of 2023: a necessary condition for > and >=
        # only (the interval's first day is below the bytes)
        return []
    return [(tag, OPS[op], False, 0.0, str(value).encode())]


def _clauses(node: Node) -> List[Clause]:
    kind, args = node.kind, node.args
    if kind == "compare":
        op, left, right = args
        if left.kind == "literal":
            op, left, right = FLIPPED[op], right, left
        return _compare(op, left, right)
    if kind == "between":
        value, low, high = args
        return _compare(">=", value, low) + _compare("<=", value, high)
    if kind == "like" and not args[2]:  # case-sensitive LIKE 'prefix%'
        found = _tag_column(args[0])
        pattern = args[1].args[0]
        if found and found[1] == "string" and _PREFIX.match(pattern):
            return [(found[0], TF_PREFIX, False, 0.0, pattern[:-1].encode())]
        return []
    if kind == "is_not_null":
        found = _tag_column(args[0])
        if found and found[1] in ("string", "number"):
            return [(found[0], TF_NOT_NULL, found[1] == "number", 0.0, b"")]
    return []


def tag_filter(checked: Checked) -> Tuple[Clause, ...]:
    """The reader's tag filter for an expression (empty: nothing to decide before the replay)."""
    return tuple(clause for part in conjuncts(checked.tree) for clause in _clauses(part))
