"""The part of a --where expression the compiled reader decides on a game's tags, before the
replay (the C reader's tag filter, _c/tag_filter.h): a game for which the expression cannot be
true is neither replayed nor recorded, only counted.

The expression becomes a small program in postfix order, NOT / AND / OR over leaves, in SQL's
three-valued logic (as evaluate.py: a null tag is unknown, a game is kept when the whole
condition is true). The leaves the reader decides exactly, on a tag column or any tag
(`tags['Annotator']`): a comparison with a constant, `between` two constants, `in (...)` a set of
strings or numbers, `like` / `ilike` (Arrow's rules: its plain prefix, suffix and substring
patterns, where a backslash is a character, and its regular-expression form, where `\\` escapes
the next one; `ilike` only on an ASCII pattern, which the C side folds as RE2 does), `is [not]
null`, dates compared as intervals of days; a part that reads `speed` alone (evaluated here on
each of its few values, as a mask: TF_SPEED); a constant. Anything else (a replay field, a
regular expression, arithmetic, a function, two columns compared) is TF_UNKNOWN, "any truth
value": the C side then only drops the games the expression cannot keep whatever it is (a
necessary condition), and the expression is evaluated again on the games it keeps. A program
without TF_UNKNOWN decides the whole expression (decided_by_tags): nothing is evaluated after.
"""
from __future__ import annotations

import re
from typing import List, NamedTuple, Optional, Tuple

from pgntools import _core
from pgntools.tables.game_fields import names
from pgntools.tables.schema import TagDate
from pgntools.where.check import Checked
from pgntools.where.parser import FLIPPED, Node

C = _core.TAG_FILTER_CODES
OPS = {"<": C["LT"], "<=": C["LE"], "=": C["EQ"], "!=": C["NE"], ">": C["GT"], ">=": C["GE"]}


class Clause(NamedTuple):
    """One instruction of the reader's tag filter (a TagClause of tag_filter.h)."""
    op: int
    tag: int = -1            # a tag column (_core.TAG_COLUMNS), or -1: the tag named `name`
    kind: int = C["STRING"]  # how the value is read (TV_*)
    value: float = 0.0       # a number compared with
    true_mask: int = 0       # TF_SPEED: the speed codes for which it is true, null
    null_mask: int = 0
    truth: int = 0           # TF_CONST: its truth set
    text: bytes = b""        # a string or day compared with, a LIKE pattern (tag_filter.h's form)
    name: bytes = b""
    items: tuple = ()        # TF_IN: sorted bytes, or sorted floats (TV_NUMBER, TV_YEAR, TV_MONTH)
    tag2: int = -1           # TV_YEAR, TV_MONTH: the second date tag's column (the typed column's)


UNKNOWN = Clause(C["UNKNOWN"])
Program = List[Clause]


def conjuncts(node: Node) -> List[Node]:
    if node.kind == "and":
        return [part for arg in node.args for part in conjuncts(arg)]
    return [node]


def _compiled(tree: Node) -> Tuple[Tuple[Clause, ...], bool]:
    """The program of an expression (empty: it decides nothing) and whether it is exact. A
    conjunct of the top-level AND that is unknown is left out (true AND unknown can be true)."""
    program: Program = []
    exact = True
    for part in conjuncts(tree):
        code = _program(part)
        if code == [UNKNOWN]:
            exact = False
            continue
        exact = exact and UNKNOWN not in code
        program += code + ([Clause(C["AND"])] if program else [])
    if not exact and not _can_drop(program):
        return (), False  # (not (x and unknown): true or unknown for every game, nothing to drop)
    return tuple(program), exact and bool(program)


def _not(a: int) -> int:
    return ((a & 1) << 2) | (a & 2) | ((a & 4) >> 2)


def _and(a: int, b: int) -> int:
    out = 1 if (a & 1) or (b & 1) else 0
    out |= 4 if (a & 4) and (b & 4) else 0
    return out | (2 if ((a & 2) and (b & 6)) or ((a & 4) and (b & 2)) else 0)


def _can_drop(program: Program) -> bool:
    """Whether the program can leave a game without TRUE in its truth set (tag_filter.c's
    arithmetic on the sets each part can give, its leaves taken as any value): one that cannot
    drops nothing and is not worth running."""
    stack: List[frozenset] = []
    for clause in program:
        if clause.op == C["NOT"]:
            stack[-1] = frozenset(_not(a) for a in stack[-1])
        elif clause.op in (C["AND"], C["OR"]):
            b, a = stack.pop(), stack.pop()
            if clause.op == C["AND"]:
                stack.append(frozenset(_and(x, y) for x in a for y in b))
            else:
                stack.append(frozenset(_not(_and(_not(x), _not(y))) for x in a for y in b))
        elif clause.op == C["UNKNOWN"]:
            stack.append(frozenset([C["ANY"]]))
        else:
            stack.append(frozenset([C["FALSE"], C["NULL"], C["TRUE"]]))
    return bool(stack) and any(not (truths & C["TRUE"]) for truths in stack[-1])


def _program(node: Node) -> Program:
    """A condition's program; [UNKNOWN] when the reader cannot decide it on the tags at all."""
    kind, args = node.kind, node.args
    read = _names_read(node)
    if node.type == "bool" and read == {"speed"}:
        return [_speed_clause(node)]
    if node.type == "bool" and not read:
        return [_constant(node)]
    if kind in ("and", "or"):
        a, b = _program(args[0]), _program(args[1])
        if [UNKNOWN] in (a, b) and (kind == "or" or a == b):
            return [UNKNOWN]  # (unknown OR x can always be true: nothing to decide)
        return a + b + [Clause(C[kind.upper()])]
    if kind == "not":
        a = _program(args[0])
        return a if a == [UNKNOWN] else a + [Clause(C["NOT"])]
    return _leaf(node) or [UNKNOWN]


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


# ---------------------------------------------------------------- leaves on one tag

class TagRead(NamedTuple):
    """How a leaf reads a node's value from the tags: a tag column (or -1 and the tag's name), the
    value's type in the language, the C reading of it (TV_*), a second tag column (TV_YEAR, TV_MONTH)."""
    tag: int
    name: bytes
    type: str
    kind: int
    tag2: int = -1


def _tag_of(node: Node) -> Optional[TagRead]:
    """How the reader reads a node that is a tag's value or a typed date's year or month, or None."""
    if node.kind == "tag":
        name = node.args[0]
        return TagRead(_core.TAG_COLUMNS.index(name) if name in _core.TAG_COLUMNS else -1, _encoded(name), "string",
                       C["STRING"])
    if node.kind == "column":
        column = names()[node.args[0]].column
        type_ = names()[node.args[0]].type
        if column.tag in _core.TAG_COLUMNS:
            kind = {"number": C["NUMBER"], "date": C["DATE_STRING"]}.get(type_, C["STRING"])
            return TagRead(_core.TAG_COLUMNS.index(column.tag), b"", type_, kind)
        source = column.source
        if isinstance(source, TagDate) and source.part in ("year", "month"):  # (schema: the tags it is of)
            first, second = (_core.TAG_COLUMNS.index(t) for t in (source.tags * 2)[:2])
            return TagRead(first, b"", "number", C[source.part.upper()], second)
    return None


def _encoded(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")  # (a lone surrogate matches no tag value: UTF-8 is valid)


def _leaf(node: Node) -> Optional[Program]:
    kind, args = node.kind, node.args
    if kind == "compare":
        return _compare(*args)
    if kind == "between":
        value, low, high = args
        a, b = _compare(">=", value, low) or [UNKNOWN], _compare("<=", value, high) or [UNKNOWN]
        return None if a == b == [UNKNOWN] else a + b + [Clause(C["AND"])]
    found = _tag_of(args[0]) if kind in ("in", "like", "is_null", "is_not_null") else None
    if found is None:
        return None
    tag, name, type_ = found.tag, found.name, found.type
    if kind == "in":
        return _in(found, args[1])
    if kind == "like":
        if found.tag2 >= 0:
            return None  # (a typed year or month as text: left to the evaluator)
        pattern = like_pattern(args[1].args[0], args[2])
        if args[2] and not pattern.isascii():
            return None  # (ilike folds non-ASCII letters as RE2 does: left to the evaluator)
        kind_ = C["DATE_STRING"] if type_ == "date" else C["STRING"]
        return [Clause(C["ILIKE" if args[2] else "LIKE"], tag, kind_, text=_encoded(pattern), name=name)]
    if kind in ("is_null", "is_not_null"):
        return [Clause(C["IS_NULL" if kind == "is_null" else "NOT_NULL"], tag, found.kind, name=name, tag2=found.tag2)]
    return None


def _literal(node: Node):
    """A literal (a negated number too: `-1` is negate(1)), as (value,); None otherwise."""
    if node.kind == "literal":
        return (node.args[0],)
    if node.kind == "negate":
        inner = _literal(node.args[0])
        if inner and isinstance(inner[0], (int, float)) and not isinstance(inner[0], bool):
            return (-inner[0],)
    return None


def _compare(op: str, left: Node, right: Node) -> Optional[Program]:
    if _literal(left):
        op, left, right = FLIPPED[op], right, left
    found, constant = _tag_of(left), _literal(right)
    if found is None or constant is None:
        return None
    tag, name, type_ = found.tag, found.name, found.type
    value = constant[0]
    if type_ == "number":  # (numbers are compared as doubles: exact for the 9-digit values a tag holds)
        return None if isinstance(value, (str, bool)) else [Clause(OPS[op], tag, found.kind, float(value), name=name,
                                                                   tag2=found.tag2)]
    if type_ == "date":  # ('YYYY.MM.DD': the type check made the literal one)
        day = _encoded(str(value))
        return [Clause(OPS[op], tag, C["DATE"], text=day, name=name)] if len(day) == 10 else None
    return [Clause(OPS[op], tag, C["STRING"], text=_encoded(str(value)), name=name)]


def _in(found: TagRead, items) -> Optional[Program]:
    tag, name, type_ = found.tag, found.name, found.type
    values = [item.args[0] for item in items]
    if type_ == "date":  # as the evaluator: equal to one of the days (intervals: OR's logic)
        program: Program = []
        for value in values:
            day = _encoded(str(value))
            if len(day) != 10:
                return None
            program += [Clause(C["EQ"], tag, C["DATE"], text=day, name=name)] + ([Clause(C["OR"])] if program else [])
        return program
    if type_ == "number":
        if any(isinstance(v, (str, bool)) for v in values):
            return None
        return [Clause(C["IN"], tag, found.kind, name=name, items=tuple(sorted(float(v) for v in values)),
                       tag2=found.tag2)]
    return [Clause(C["IN"], tag, C["STRING"], name=name, items=tuple(sorted(_encoded(str(v)) for v in values)))]


# LIKE patterns Arrow's match_like runs as a plain substring, prefix or suffix search (its body is
# then taken as it is, a backslash too), tried in this order; any other runs as a regular
# expression where a backslash makes the next character itself (a last one is dropped).
_PLAIN = ((re.compile(r"%+([^%_]*[^\\%_])?%+"), "%{}%"), (re.compile(r"([^%_]*[^\\%_])?%+"), "{}%"),
          (re.compile(r"%+([^%_]*)"), "%{}"))


def like_pattern(pattern: str, ignore_case: bool) -> str:
    """A LIKE pattern in tag_filter.h's form (% and _ wildcards, \\ before a %, _ or \\ that is
    itself), matching what Arrow's match_like matches (ilike: never the plain searches)."""
    if not ignore_case:
        for form, shape in _PLAIN:
            found = form.fullmatch(pattern)
            if found:
                return shape.format(_escaped(found.group(1) or ""))
    out, escaped = [], False
    for c in pattern:
        if escaped or c not in "%_\\":
            out.append(_escaped(c))
            escaped = False
        elif c == "\\":
            escaped = True
        else:
            out.append(c)
    return "".join(out)


def _escaped(text: str) -> str:
    return re.sub(r"([%_\\])", r"\\\1", text)


# ---------------------------------------------------------------- speed, constants

def _speed_clause(node: Node) -> Clause:
    """A condition that reads `speed` and nothing else, as TF_SPEED: its truth value for each
    speed code (0: null)."""
    try:
        values = [_on_value(node, name or None) for name in _core.SPEEDS]
    except _NotSimple:  # (LIKE, a regex, a function: the batch evaluator, on every value at once)
        values = _evaluated(node)
    assert len(_core.SPEEDS) <= 32
    true_mask = sum(1 << code for code, value in enumerate(values) if value is True)
    null_mask = sum(1 << code for code, value in enumerate(values) if value is None)
    return Clause(C["SPEED"], true_mask=true_mask, null_mask=null_mask)


def _constant(node: Node) -> Clause:
    """A condition that reads no column (`true`, `1 = 1`): its value, or unknown."""
    try:
        value = _on_value(node, None)
    except _NotSimple:
        return UNKNOWN
    return Clause(C["CONST"], truth=C["TRUE"] if value is True else C["NULL"] if value is None else C["FALSE"])


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


def _evaluated(node: Node) -> list:
    """The condition on each speed code's value (code 0: null), by the batch evaluator: True,
    False or None."""
    import pyarrow as pa

    from pgntools.tables.arrays import text
    from pgntools.where.evaluate import Evaluation

    evaluation = Evaluation.__new__(Evaluation)  # (no batch: the one column is every value speed takes)
    evaluation.batch, evaluation.n, evaluation.dates = None, len(_core.SPEEDS), {}
    evaluation.columns = {"speed": evaluation.cleaned(text(_core.SPEEDS), "string")}
    result = evaluation.eval(node)
    if isinstance(result, pa.Scalar):
        return [result.as_py()] * len(_core.SPEEDS)
    return result.to_pylist()


# ---------------------------------------------------------------- the program of an expression

def tag_filter(checked: Checked) -> Tuple[Clause, ...]:
    """The reader's tag filter for an expression (empty: nothing to decide before the replay)."""
    return _compiled(checked.tree)[0]


def decided_by_tags(checked: Checked) -> bool:
    """Whether the reader's tag filter decides the whole expression: the games it keeps are those
    the expression keeps (no evaluation of the games it recorded is needed)."""
    return _compiled(checked.tree)[1]


def reads_tags(program: Tuple[Clause, ...]) -> bool:
    """Whether a program reads tag values (not only the speed or constants)."""
    return any(clause.op < C["SPEED"] for clause in program)
