"""--split-variations (pgn-extract --splitvariants): each variation of a game written as a game of
its own, after the game's mainline without its variations.

A variation's game is the line that leads to it (the moves before the one it replaces, with their
comments and NAGs) followed by the variation's own moves; its variations become games in turn
(depth first, in the order they stand), and its Result is * (the variation has no result).

It reads the export-format PGN pgntools writes (pgn_writer.c: one game's tags, a blank line, the
movetext, its result), so it knows its shape: numbers "12." and "12...", '(' and ')', comments in
braces, NAGs, one result at the end."""
from __future__ import annotations

import re
from typing import List, Optional, Tuple

_TOKEN = re.compile(r"\{[^}]*\}|\(|\)|\d+\.(?:\.\.)?|\$\d+|[^\s(){}]+")
RESULTS = ("1-0", "0-1", "1/2-1/2", "*")


class Move:
    """A move of a line: its number ((fullmove, black) or None), text, NAGs and comments after it,
    and the variations that replace it."""

    __slots__ = ("number", "text", "after", "variations")

    def __init__(self, number, text):
        self.number, self.text, self.after, self.variations = number, text, [], []


class Line:
    __slots__ = ("before", "moves")  # the comments before its first move, its moves

    def __init__(self):
        self.before: List[str] = []
        self.moves: List[Move] = []


def parse_movetext(text: str) -> Tuple[Line, Optional[str]]:
    """The tree of a movetext, and its result (None: no result written)."""
    root = Line()
    stack: List[Line] = [root]
    number: Optional[Tuple[int, bool]] = None
    last: Optional[Tuple[int, bool]] = None  # the number of the previous move of the current line
    lasts: List[Optional[Tuple[int, bool]]] = []
    result = None
    for token in _TOKEN.findall(text):
        line = stack[-1]
        if token == "(":
            variation = Line()
            line.moves[-1].variations.append(variation)  # (the writer writes no variation before a move)
            stack.append(variation)
            lasts.append(last)
            last = number = None  # (the writer numbers a variation's first move)
        elif token == ")":
            stack.pop()
            last = lasts.pop()
            number = None
        elif token[0] == "{" or token[0] == "$":  # (a comment's line ends were the writer's wrapping)
            (line.moves[-1].after if line.moves else line.before).append(" ".join(token.split()))
        elif token[0].isdigit() and token.endswith("."):
            number = (int(token.rstrip(".")), token.endswith("..."))
        elif token in RESULTS and len(stack) == 1:
            result = token
        else:
            if number is None and last is not None:  # a Black move after White's, unnumbered
                number = (last[0], True) if not last[1] else (last[0] + 1, False)
            move = Move(number, token)
            line.moves.append(move)
            last, number = number, None
    return root, result


def _lines(line: Line, prefix: List[Move], before: List[str]) -> List[Tuple[List[str], List[Move]]]:
    """The games of a line (its prefix: the moves before it): itself, then each variation's, depth first."""
    out = [(before, prefix + line.moves)]
    for i, move in enumerate(line.moves):
        for variation in move.variations:
            if variation.moves:  # (an empty variation "()" is no line)
                out.extend(_lines(variation, prefix + line.moves[:i], before))
    return out


def movetext_of(before: List[str], moves: List[Move], result: Optional[str], width: int) -> str:
    """A line's movetext: numbers where the export format puts them, wrapped at ``width`` (0: one line)."""
    words: List[str] = list(before)
    need_number = True
    for move in moves:
        if move.number is not None and (not move.number[1] or need_number):
            words.append(f"{move.number[0]}{'...' if move.number[1] else '.'}")
        words.append(move.text)
        words.extend(move.after)
        need_number = bool(move.after) and any(w.startswith("{") for w in move.after)
    if result is not None:
        words.append(result)
    return _wrap(" ".join(words), width)


def _wrap(text: str, width: int) -> str:
    if width <= 0:
        return text
    lines, line = [], ""
    for word in text.split(" "):
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = " " + word if word.startswith("[") else word  # (a line that starts with '[' reads as a tag)
        else:
            line = f"{line} {word}" if line else word
    if line:
        lines.append(line)
    return "\n".join(lines)


def split_game(pgn: str, width: int = 79) -> str:
    """One export-format game as its mainline's game and its variations' games."""
    head, sep, movetext = pgn.partition("\n\n") if pgn.startswith("[") else ("", "", pgn)
    if "(" not in movetext:  # no variation (a '(' in a comment costs only the re-cut)
        return pgn
    root, result = parse_movetext(movetext.strip())
    games = []
    for n, (before, moves) in enumerate(_lines(root, [], root.before)):
        tags = head if n == 0 else re.sub(r'^\[Result "[^"]*"\]$', '[Result "*"]', head, count=1, flags=re.M)
        marker = result if n == 0 else ("*" if result is not None else None)
        body = movetext_of(before, moves, marker, width)
        games.append(f"{tags}\n\n{body}\n\n" if head else f"{body}\n\n")
    return "".join(games)
