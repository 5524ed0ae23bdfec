"""The error of a --where expression (a module of its own, so that a run that names it without
parsing an expression, e.g. --dedup alone, loads no grammar)."""
from __future__ import annotations

from typing import Optional

from pgntools.errors import PgnToolsError


class WhereError(PgnToolsError, ValueError):
    """A --where expression that cannot be run: a syntax error, an unknown name, a type mismatch.
    The message points at the character (a caret under the expression)."""

    def __init__(self, message: str, text: str = "", pos: Optional[int] = None):
        self.reason, self.text, self.pos = message, text, pos
        if pos is None:
            super().__init__(f"--where: {message}")
        else:
            super().__init__(f"--where: {message} (at character {pos + 1})\n  {text}\n  {' ' * pos}^")
