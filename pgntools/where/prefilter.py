"""The part of a --where expression the compiled reader decides before the replay: the
conjuncts of its top-level AND that compare a tag column with a literal, and those on `speed`
alone (the C reader's tag filter, _c/tag_filter.h). A game that fails one of them is neither
replayed nor recorded (only counted); the whole expression is still evaluated on the games
recorded, so each clause here only has to be true whenever its conjunct is (a necessary
condition); those here are exact (true exactly when the conjunct is: a date with `??` parts is
compared in C as the interval of days the evaluator makes of it), so when every conjunct has
one the expression is decided by the reader alone (decided_by_tags).

`speed` (the reader's code of the TimeControl tag) takes one of a few values, so a conjunct on
it alone (`speed = 'blitz'`, `speed in ('blitz', 'rapid')`, `speed like 'b%' or speed is null`,
...) is decided exactly: it is evaluated here, once, on each value (and on null) by the batch
evaluator itself, and the values it keeps go to C as a mask (TF_SPEED).
"""
from __future__ import annotations

import re
from typing import List, Optional, Tuple

from pgntools import _core
from pgntools.where.check import Checked, names
from pgntools.where.parser import Node

# The C enum of tag_filter.h, in its order.
TF_LT, TF_LE, TF_EQ, TF_NE, TF_GT, TF_GE, TF_PREFIX, TF_NOT_NULL, TF_SPEED = range(9)
TF_DATE = 9  # TF_DATE + TF_LT .. TF_DATE + TF_GE: a PGN date (an interval of days) against a day
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
    if type_ == "date":  # ('YYYY.MM.DD': the type check made the literal one)
        return [(tag, TF_DATE + OPS[op], False, 0.0, str(value).encode())] if len(str(value)) == 10 else []
    return [(tag, OPS[op], False, 0.0, str(value).encode())]


def _names_read(node: Node) -> set:
    """The columns a node reads ("tags[]" for a tags['Name'] lookup)."""
    if not isinstance(node, Node):
        return set()
    if node.kind == "column":
        return {node.args[0]}
    if node.kind == "tag":
        return {"tags[]"}
    found: set = set()
    for arg in node.args:
        for part in (arg if isinstance(arg, tuple) and not isinstance(arg, Node) else (arg,)):  # (IN's items)
            found |= _names_read(part)
    return found


def _speed_clause(node: Node) -> List[Clause]:
    """A conjunct that reads `speed` and nothing else, as TF_SPEED: the mask of the speed codes
    (0: null) for which it is true."""
    try:
        kept = [_on_value(node, name or None) is True for name in _core.SPEEDS]
    except _NotSimple:  # (LIKE, a regex, a function: the batch evaluator, on every value at once)
        kept = _evaluated(node)
    mask = sum(1 << code for code, keep in enumerate(kept) if keep)
    if mask == (1 << len(_core.SPEEDS)) - 1:
        return []  # true for every game: nothing to decide
    assert len(_core.SPEEDS) <= 32
    return [(_core.TAG_COLUMNS.index("TimeControl"), TF_SPEED, False, float(mask), b"")]


class _NotSimple(Exception):
    pass


def _on_value(node: Node, speed: Optional[str]):
    """A condition on `speed` alone for one value of it (None: null), in SQL's three-valued logic
    (True, False, None), for the forms of a few lines here; others raise _NotSimple. (Without
    pyarrow: a run whose condition the reader decides needs no Arrow at all.)"""
    kind, args = node.kind, node.args
    if kind == "column":
        return speed
    if kind == "literal":
        return args[0]
    if kind in ("and", "or"):
        values = [_on_value(a, speed) for a in args]
        decided, other = (False, True) if kind == "and" else (True, False)
        if decided in values:
            return decided
        return None if None in values else other
    if kind == "not":
        value = _on_value(args[0], speed)
        return None if value is None else not value
    if kind in ("is_null", "is_not_null"):
        return (_on_value(args[0], speed) is None) == (kind == "is_null")
    if kind == "compare":
        a, b = _on_value(args[1], speed), _on_value(args[2], speed)
        return None if a is None or b is None else _COMPARE[args[0]](a, b)
    if kind == "between":
        value, low, high = (_on_value(a, speed) for a in args)
        low_ok = None if value is None or low is None else value >= low
        high_ok = None if value is None or high is None else value <= high
        return _on_value(Node("and", (Node("literal", (low_ok,), 0), Node("literal", (high_ok,), 0)), 0), speed)
    if kind == "in":
        value = _on_value(args[0], speed)
        return None if value is None else value in [_on_value(item, speed) for item in args[1]]
    raise _NotSimple(kind)


_COMPARE = {"=": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
            "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}


def _evaluated(node: Node) -> List[bool]:
    """The condition on each speed code's value (code 0: null), by the batch evaluator."""
    from pgntools.sinks.arrays import text
    from pgntools.where.evaluate import Evaluation

    evaluation = Evaluation.__new__(Evaluation)  # (no batch: the one column is every value speed takes)
    evaluation.batch, evaluation.n, evaluation.dates = None, len(_core.SPEEDS), {}
    evaluation.columns = {"speed": evaluation.cleaned(text(_core.SPEEDS), "string")}
    return evaluation.keep(node).to_pylist()


def _decided(node: Node) -> Tuple[List[Clause], bool]:
    """The clauses of one conjunct, and whether they decide it exactly (true for a game exactly
    when the conjunct is; else only whenever it is)."""
    kind, args = node.kind, node.args
    if node.type == "bool" and _names_read(node) == {"speed"}:
        return _speed_clause(node), True
    if kind == "compare":
        op, left, right = args
        if left.kind == "literal":
            op, left, right = FLIPPED[op], right, left
        clauses = _compare(op, left, right)
        return clauses, bool(clauses)
    if kind == "between":
        value, low, high = args
        clauses = _compare(">=", value, low) + _compare("<=", value, high)
        return clauses, len(clauses) == 2
    if kind == "like" and not args[2]:  # case-sensitive LIKE 'prefix%'
        found = _tag_column(args[0])
        pattern = args[1].args[0]
        if found and found[1] == "string" and _PREFIX.match(pattern):
            return [(found[0], TF_PREFIX, False, 0.0, pattern[:-1].encode())], True
        return [], False
    if kind == "is_not_null":
        found = _tag_column(args[0])
        if found and found[1] in ("string", "number"):
            return [(found[0], TF_NOT_NULL, found[1] == "number", 0.0, b"")], True
    return [], False


def tag_filter(checked: Checked) -> Tuple[Clause, ...]:
    """The reader's tag filter for an expression (empty: nothing to decide before the replay)."""
    return tuple(clause for part in conjuncts(checked.tree) for clause in _decided(part)[0])


def decided_by_tags(checked: Checked) -> bool:
    """Whether the reader's tag filter decides the whole expression: every game it keeps is one
    the expression keeps (no evaluation of the games it recorded is needed)."""
    return all(_decided(part)[1] for part in conjuncts(checked.tree))
