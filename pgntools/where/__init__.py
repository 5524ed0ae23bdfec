"""`--where EXPR`: the games to keep, as an SQL-like condition over the columns of export's
`games` table (issue 18). ``compile_where(text)`` parses and checks an expression (a
``WhereError`` says what and where); the ``Where`` it returns is a selection: it keeps the games
of a batch for which the condition is true.

The language (the README's reference): parser.py (grammar), check.py (names and types),
evaluate.py (a batch at a time, with Arrow compute; null semantics).
"""
from __future__ import annotations

from typing import Dict, List

from pgntools.where.check import Checked, check, names
from pgntools.where.parser import WhereError, parse

__all__ = ["Where", "WhereError", "compile_where", "names"]


class Where:
    """The games for which ``text`` is true (false and null drop a game). Picklable (the text is
    parsed again where it is unpickled), so a parallel run's workers select as the parent does.

    ``tag_only``: the condition reads tags only (no field the replay fills), so it could be
    decided before the replay."""

    before_replay = None  # a tag-only condition is decided after the replay for now

    def __init__(self, text: str):
        self.text = text
        self.checked: Checked = check(parse(text), text)

    def __reduce__(self):
        return (Where, (self.text,))

    @property
    def tag_only(self) -> bool:
        return not self.checked.replay

    @property
    def needs(self) -> Dict[str, object]:
        return self.checked.needs

    def kept(self, batch) -> List[int]:
        """The batch-local indices of the games the condition keeps, ascending."""
        if not batch.n_games:
            return []
        import pyarrow.compute as pc

        from pgntools.where.evaluate import Evaluation

        indices = pc.indices_nonzero(Evaluation(self.checked, batch).keep(self.checked.tree))
        return memoryview(indices.buffers()[1]).cast("Q")[indices.offset:indices.offset + len(indices)].tolist()

    def select(self, batch):
        if not batch.n_games:
            return batch
        indices = self.kept(batch)
        if len(indices) == batch.n_games:
            return batch
        from pgntools.selection import take_games

        return take_games(batch, indices)

    def __repr__(self):
        return f"Where({self.text!r})"


def compile_where(text: str) -> Where:
    """The selection of an expression, checked (a WhereError when it cannot run)."""
    return Where(text)
