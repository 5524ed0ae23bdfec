"""The type check of a parsed --where expression, over the names of the language (the games
columns of pgntools.tables.game_fields): every mistake a user can make in an expression is found
here, before any input is read."""
from __future__ import annotations

import re
from typing import Dict, List, NamedTuple, Optional, Tuple

from pgntools.tables.game_fields import close_names, names
from pgntools.where.parser import FUNCTIONS, INT64_MAX, Node, WhereError


def unknown_name(node: Node, text: str) -> WhereError:
    name = text[node.pos:node.pos + len(node.args[0])] if text[node.pos:node.pos + 1] != '"' else node.args[0]
    valid = sorted(names())
    close = close_names(name, valid)
    hint = f"did you mean {' or '.join(close)}? " if close else ""
    return WhereError(f"unknown name {name}: {hint}the names are {', '.join(valid)}, and tags['Name'] for any tag",
                      text, node.pos)


class Checked(NamedTuple):
    tree: Node
    columns: Tuple[str, ...]      # the columns the expression reads
    other_tags: Tuple[str, ...]   # the tags read as tags['Name']
    replay: bool                  # it reads a field the replay fills

    @property
    def needs(self) -> Dict[str, object]:
        needs: Dict[str, object] = {}
        for column in self.columns:
            needs.update(names()[column].needs)
        if self.other_tags:  # tags['Name'] reads the tag rows' values (and the reader's tag filter the slots)
            needs.update(tag_columns=True, tag_values=True)
        if "game_id" in self.columns:  # a parallel run's chunks then know their games' ids
            needs["numbered"] = True
        return needs


def regex_error(pattern: str) -> Optional[str]:
    """Why Arrow's regular expressions (RE2, which evaluate.py runs) refuse ``pattern``, or None."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from pgntools.tables.arrays import text

    try:
        pc.match_substring_regex(text([""]), pattern)
    except pa.ArrowInvalid as exc:
        return str(exc).replace("Invalid regular expression: ", "")
    return None


DATE_LITERAL = re.compile(r"^(\d{4})[.-](\d{2})[.-](\d{2})$")


def check(tree: Node, text: str) -> Checked:
    """The tree with every node's type, or a WhereError at the first mistake."""
    columns: List[str] = []
    tags: List[str] = []

    def fail(message: str, node: Node):
        return WhereError(message, text, node.pos)

    def typed(node: Node, *args) -> Node:
        return node._replace(args=args)

    def visit(node: Node) -> Node:
        kind, args = node.kind, node.args
        if kind == "literal":
            return node
        if kind == "column":
            name = names().get(args[0])
            if name is None:
                raise unknown_name(node, text)
            columns.append(args[0])
            return node._replace(type=name.type)
        if kind == "tag":
            tags.append(args[0])
            return node._replace(type="string")
        if kind in ("and", "or", "not"):
            parts = [visit(a) for a in args]
            for part in parts:
                if part.type != "bool":
                    raise fail(f"{kind.upper()} needs a condition, not a {part.type}", part)
            return node._replace(args=tuple(parts), type="bool")
        if kind == "compare":
            op, left, right = args[0], visit(args[1]), visit(args[2])
            left, right = comparable(left, right, op)
            return node._replace(args=(op, left, right), type="bool")
        if kind == "between":
            value, low, high = (visit(a) for a in args)
            value, low = comparable(value, low, "between")
            value, high = comparable(value, high, "between")
            return node._replace(args=(value, low, high), type="bool")
        if kind == "in":
            value = visit(args[0])
            items = tuple(comparable(value, item, "in")[1] for item in args[1])
            return node._replace(args=(value, items), type="bool")
        if kind in ("like", "regex"):
            value = visit(args[0])
            if value.type not in ("string", "date"):
                raise fail(f"{'LIKE' if kind == 'like' else '~'} needs a string, not a {value.type}", value)
            if kind == "regex":
                valid_regex(args[1])
            return node._replace(args=(value, *args[1:]), type="bool")
        if kind in ("is_null", "is_not_null"):
            value = visit(args[0])
            return node._replace(args=(value,), type="bool")
        if kind == "arith":
            op, left, right = args[0], visit(args[1]), visit(args[2])
            for part in (left, right):
                if part.type != "number":
                    raise fail(f"{op!r} needs numbers, not a {part.type}", part)
                computable(part)
            return node._replace(args=(op, left, right), type="number")
        if kind == "negate":
            value = visit(args[0])
            if value.type != "number":
                raise fail(f"'-' needs a number, not a {value.type}", value)
            computable(value)
            return node._replace(args=(value,), type="number")
        if kind == "call":
            name, call_args = args
            wanted, result = FUNCTIONS[name]
            if len(call_args) != len(wanted):
                raise fail(f"{name}() takes {len(wanted)} argument{'s' * (len(wanted) > 1)}, "
                           f"not {len(call_args)}", node)
            checked = []
            for want, arg in zip(wanted, call_args):
                if want == "pattern":
                    if arg.kind != "literal" or arg.type != "string":
                        raise fail(f"{name}()'s pattern must be a 'string'", arg)
                    valid_regex(arg)
                    checked.append(arg)
                    continue
                arg = visit(arg)
                if arg.type != want and not (want == "string" and arg.type == "date"):
                    raise fail(f"{name}() needs a {want}, not a {arg.type}", arg)
                checked.append(arg)
            return node._replace(args=(name, tuple(checked)), type=result)
        raise AssertionError(kind)

    def comparable(left: Node, right: Node, op: str) -> Tuple[Node, Node]:
        """Both sides of a comparison, of one type (a date literal made a date); an enum's
        literal checked against the enum's values."""
        types = {left.type, right.type}
        if "bool" in types:  # has_clock = true (as SQL allows), but not has_clock < true or 1 = true
            if types != {"bool"} or op not in ("=", "!="):
                raise fail("a condition compares only with = or != to another (true, false, has_clock, ...)",
                           left if left.type == "bool" else right)
            return left, right
        if types == {"date", "string"}:
            literal = right if right.type == "string" else left
            if literal.kind != "literal":
                raise fail("a date is compared with a date or a 'YYYY.MM.DD' string", literal)
            m = DATE_LITERAL.match(literal.args[0])
            if not m:
                raise fail(f"{literal.args[0]!r} is not a date: write 'YYYY.MM.DD'", literal)
            date = literal._replace(args=(".".join(m.groups()),), type="date")
            return (date, right) if literal is left else (left, date)
        if len(types) > 1:
            other = right if left.kind == "column" or left.kind == "tag" else left
            raise fail(f"type mismatch: {show(left)} is a {left.type}, {show(right)} is a {right.type}", other)
        for value, literal in ((left, right), (right, left)):
            if value.kind == "column" and literal.kind == "literal":
                allowed = names()[value.args[0]].values
                if allowed and literal.args[0] not in allowed:
                    raise fail(f"{value.args[0]} is one of {', '.join(allowed)}, not {literal.args[0]!r}", literal)
        return left, right

    def computable(node: Node):
        """A key (a uint64 column) or a literal beyond int64 is compared, never computed with:
        arithmetic on it would be signed 64-bit and wrap."""
        if node.kind == "column" and names()[node.args[0]].column.type == "uint64":
            raise fail(f"{node.args[0]} is a 64-bit key: compare it (=, <, in (...)), do not compute with it", node)
        if node.kind == "literal" and isinstance(node.args[0], int) and node.args[0] > INT64_MAX:
            raise fail("a number above 2**63 - 1 is only compared with a key, not computed with", node)

    def show(node: Node) -> str:
        if node.kind == "literal":
            return repr(node.args[0])
        if node.kind == "column":
            return node.args[0]
        return "the expression"

    def valid_regex(node: Node):
        problem = regex_error(node.args[0])
        if problem:
            raise fail(f"invalid regular expression: {problem}", node)

    checked = visit(tree)
    if checked.type != "bool":
        raise fail(f"the expression is a {checked.type}, not a condition (compare it: ... = ..., ... > ...)", checked)
    replay = any(names()[c].replay for c in columns)
    return Checked(checked, tuple(dict.fromkeys(columns)), tuple(dict.fromkeys(tags)), replay)
