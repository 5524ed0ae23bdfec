"""The --where language: a small SQL-like expression over the columns of export's `games` table,
parsed by hand (recursive descent; no eval, no parser library: the grammar is a screenful and
its error messages are ours) and type-checked before any input is read.

Grammar (lowest precedence first; keywords are case-insensitive, names fold to lower case):

    expr       := and ('or' and)*
    and        := not ('and' not)*
    not        := 'not' not | predicate
    predicate  := sum [ op sum
                      | ['not'] 'in' '(' literal (',' literal)* ')'
                      | ['not'] 'between' sum 'and' sum
                      | ['not'] ('like' | 'ilike') STRING
                      | ['!'] '~' STRING
                      | 'is' ['not'] 'null' ]
    op         := '=' | '==' | '!=' | '<>' | '<' | '<=' | '>' | '>='
    sum        := product (('+' | '-') product)*
    product    := unary (('*' | '/') unary)*
    unary      := '-' unary | primary
    primary    := NUMBER | STRING | TRUE | FALSE | NAME | 'tags' '[' STRING ']' | FUNC '(' expr, ... ')' | '(' expr ')'

NUMBER is decimal (`2500`, `0.5`, `1e3`) or, for the 64-bit keys, hex (`0x9d39247e33776d41`);
whole numbers run to 2**64 - 1, so every key can be written.

Types: number, string, date (a PGN date column), bool (a predicate). The names and their types
are the games columns of pgntools.tables.game_fields.
"""
from __future__ import annotations

import re
from typing import List, NamedTuple, Optional

from pgntools.where.errors import WhereError  # (its own module: --dedup alone loads no grammar)


# ---------------------------------------------------------------- tokens

class Token(NamedTuple):
    kind: str   # "num", "str", "name", "qname" (a "quoted" name), "op", "end"
    value: object
    pos: int


KEYWORDS = {"and", "or", "not", "in", "between", "like", "ilike", "is", "null", "true", "false"}
OPERATORS = ("==", "!=", "<>", "<=", ">=", "!~", "=", "<", ">", "~", "+", "-", "*", "/", "(", ")", ",", "[", "]")
_NUMBER = re.compile(r"(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?")
_HEX = re.compile(r"0[xX][0-9A-Fa-f]+")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
FLIPPED = {"<": ">", "<=": ">=", "=": "=", "!=": "!=", ">": "<", ">=": "<="}  # a OP b is b FLIPPED[OP] a
INT64_MAX = (1 << 63) - 1
UINT64_MAX = (1 << 64) - 1  # the largest literal: a 64-bit key (final_key, written in hex or decimal)


def tokenize(text: str) -> List[Token]:
    tokens, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
            continue
        if c == "'" or c == '"':  # 'a string' ('' inside is one '), "a name"
            j, chars = i + 1, []
            while True:
                if j >= n:
                    raise WhereError("unterminated " + ("string" if c == "'" else "quoted name"), text, i)
                if text[j] == c:
                    if j + 1 < n and text[j + 1] == c:
                        chars.append(c)
                        j += 2
                        continue
                    break
                chars.append(text[j])
                j += 1
            tokens.append(Token("str" if c == "'" else "qname", "".join(chars), i))
            i = j + 1
            continue
        m = _HEX.match(text, i) or _NUMBER.match(text, i)
        if m and (c.isdigit() or c == "."):
            literal = m.group(0)
            if _NAME.match(text, m.end()):
                raise WhereError(f"a number cannot be followed by a letter: {text[i:m.end() + 1]!r}", text, m.end())
            hex_ = literal[:2].lower() == "0x"
            value = int(literal, 16) if hex_ else float(literal) if any(ch in literal for ch in ".eE") else int(literal)
            if isinstance(value, int) and value > UINT64_MAX:
                raise WhereError(f"number too large (the largest is {UINT64_MAX:#x}, a 64-bit key)", text, i)
            tokens.append(Token("num", value, i))
            i = m.end()
            continue
        m = _NAME.match(text, i)
        if m:
            tokens.append(Token("name", m.group(0), i))
            i = m.end()
            continue
        for op in OPERATORS:
            if text.startswith(op, i):
                tokens.append(Token("op", op, i))
                i += len(op)
                break
        else:
            raise WhereError(f"unexpected character {c!r}", text, i)
    tokens.append(Token("end", None, n))
    return tokens


# ---------------------------------------------------------------- the tree

class Node(NamedTuple):
    """One node of the expression: ``kind`` (see the parser), its ``args`` (nodes or literal
    values), where it starts in the text, and its type (filled by the type check)."""
    kind: str
    args: tuple
    pos: int
    type: str = ""


FUNCTIONS = {  # name: (argument types, result type)
    "abs": (("number",), "number"),
    "lower": (("string",), "string"),
    "upper": (("string",), "string"),
    "length": (("string",), "number"),
    "regexp_matches": (("string", "pattern"), "bool"),
}


class Parser:
    def __init__(self, text: str):
        self.text = text
        self.tokens = tokenize(text)
        self.i = 0

    # ---- helpers

    @property
    def tok(self) -> Token:
        return self.tokens[self.i]

    def error(self, message: str, tok: Optional[Token] = None):
        tok = tok or self.tok
        return WhereError(message, self.text, tok.pos)

    def next(self) -> Token:
        tok = self.tokens[self.i]
        self.i += 1
        return tok

    def is_op(self, *ops: str) -> bool:
        return self.tok.kind == "op" and self.tok.value in ops

    def is_kw(self, *words: str) -> bool:
        return self.tok.kind == "name" and self.tok.value.lower() in words

    def expect_op(self, op: str) -> Token:
        if not self.is_op(op):
            raise self.error(f"expected {op!r}, found {describe(self.tok)}")
        return self.next()

    def expect_kw(self, word: str) -> Token:
        if not self.is_kw(word):
            raise self.error(f"expected {word.upper()}, found {describe(self.tok)}")
        return self.next()

    # ---- grammar

    def parse(self) -> Node:
        if self.tok.kind == "end":
            raise self.error("empty expression")
        node = self.expr()
        if self.tok.kind != "end":
            raise self.error(f"unexpected {describe(self.tok)} (an operator or AND/OR was expected)")
        return node

    def expr(self) -> Node:
        node = self.conjunction()
        while self.is_kw("or"):
            tok = self.next()
            node = Node("or", (node, self.conjunction()), tok.pos)
        return node

    def conjunction(self) -> Node:
        node = self.negation()
        while self.is_kw("and"):
            tok = self.next()
            node = Node("and", (node, self.negation()), tok.pos)
        return node

    def negation(self) -> Node:
        if self.is_kw("not"):
            tok = self.next()
            return Node("not", (self.negation(),), tok.pos)
        return self.predicate()

    def predicate(self) -> Node:
        left = self.sum()
        tok = self.tok
        if self.is_op("=", "==", "!=", "<>", "<", "<=", ">", ">="):
            op = {"==": "=", "<>": "!="}.get(tok.value, tok.value)
            self.next()
            return Node("compare", (op, left, self.sum()), tok.pos)
        if self.is_op("~", "!~"):
            self.next()
            node = Node("regex", (left, self.pattern()), tok.pos)
            return Node("not", (node,), tok.pos) if tok.value == "!~" else node
        if self.is_kw("is"):
            self.next()
            negated = bool(self.is_kw("not")) and bool(self.next())
            self.expect_kw("null")
            return Node("is_not_null" if negated else "is_null", (left,), tok.pos)
        negated = False
        if self.is_kw("not"):
            self.next()
            negated = True
            if not self.is_kw("in", "between", "like", "ilike"):
                raise self.error(f"expected IN, BETWEEN, LIKE or ILIKE after NOT, found {describe(self.tok)}")
        tok = self.tok
        if self.is_kw("in"):
            self.next()
            self.expect_op("(")
            items = [self.literal()]
            while self.is_op(","):
                self.next()
                items.append(self.literal())
            self.expect_op(")")
            node = Node("in", (left, tuple(items)), tok.pos)
        elif self.is_kw("between"):
            self.next()
            low = self.sum()
            self.expect_kw("and")
            node = Node("between", (left, low, self.sum()), tok.pos)
        elif self.is_kw("like", "ilike"):
            self.next()
            node = Node("like", (left, self.pattern(), tok.value.lower() == "ilike"), tok.pos)
        else:
            return left
        return Node("not", (node,), tok.pos) if negated else node

    def pattern(self) -> Node:
        if self.tok.kind != "str":
            raise self.error(f"expected a pattern in single quotes, found {describe(self.tok)}")
        tok = self.next()
        return Node("literal", (tok.value,), tok.pos, "string")

    def literal(self) -> Node:
        tok = self.tok
        negative = self.is_op("-")
        if negative:
            self.next()
        if self.tok.kind == "num":
            value = self.next().value
            return Node("literal", (-value if negative else value,), tok.pos, "number")
        if self.tok.kind == "str" and not negative:
            return Node("literal", (self.next().value,), tok.pos, "string")
        raise self.error(f"expected a number or a 'string', found {describe(self.tok)}")

    def sum(self) -> Node:
        node = self.product()
        while self.is_op("+", "-"):
            tok = self.next()
            node = Node("arith", (tok.value, node, self.product()), tok.pos)
        return node

    def product(self) -> Node:
        node = self.unary()
        while self.is_op("*", "/"):
            tok = self.next()
            node = Node("arith", (tok.value, node, self.unary()), tok.pos)
        return node

    def unary(self) -> Node:
        if self.is_op("-"):
            tok = self.next()
            return Node("negate", (self.unary(),), tok.pos)
        return self.primary()

    def primary(self) -> Node:
        tok = self.tok
        if tok.kind == "num":
            self.next()
            return Node("literal", (tok.value,), tok.pos, "number")
        if tok.kind == "str":
            self.next()
            return Node("literal", (tok.value,), tok.pos, "string")
        if tok.kind == "name" and tok.value.lower() in ("true", "false"):
            self.next()
            return Node("literal", (tok.value.lower() == "true",), tok.pos, "bool")
        if self.is_op("("):
            self.next()
            node = self.expr()
            self.expect_op(")")
            return node
        if tok.kind == "qname" or (tok.kind == "name" and tok.value.lower() not in KEYWORDS):
            self.next()
            name = tok.value.lower()
            if tok.kind == "name" and name == "tags" and self.is_op("["):
                self.next()
                if self.tok.kind != "str":
                    raise self.error(f"expected a tag name in single quotes, found {describe(self.tok)}")
                tag = self.next().value
                self.expect_op("]")
                return Node("tag", (tag,), tok.pos)
            if tok.kind == "name" and self.is_op("("):
                if name not in FUNCTIONS:
                    raise self.error(f"unknown function {tok.value}; the functions: {', '.join(sorted(FUNCTIONS))}", tok)
                self.next()
                args = [self.expr()]
                while self.is_op(","):
                    self.next()
                    args.append(self.expr())
                self.expect_op(")")
                return Node("call", (name, tuple(args)), tok.pos)
            return Node("column", (name,), tok.pos)
        raise self.error(f"expected a value, found {describe(tok)}")


def describe(tok: Token) -> str:
    if tok.kind == "end":
        return "the end of the expression"
    if tok.kind == "str":
        return f"the string {tok.value!r}"
    if tok.kind == "qname":
        return f'the name "{tok.value}"'
    if tok.kind == "name" and tok.value.lower() in KEYWORDS:
        return tok.value.upper()
    return repr(str(tok.value))


def parse(text: str) -> Node:
    """The tree of an expression (not yet type-checked: see pgntools.where.check)."""
    return Parser(text).parse()
