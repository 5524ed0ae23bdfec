"""`--where EXPR`: the games to keep, as an SQL-like condition over the columns of export's
`games` table (issue 18). ``compile_where(text)`` parses and checks an expression (a
``WhereError`` says what and where); the ``Where`` it returns is a selection: it keeps the games
of a batch for which the condition is true.

The language (the README's reference): parser.py (grammar), check.py (names and types),
evaluate.py (a batch at a time, with Arrow compute; null semantics).
"""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence

from pgntools.selection import ByIndices, take_games
from pgntools.where.check import Checked, check, names
from pgntools.where.parser import WhereError, parse

__all__ = ["Choose", "Where", "WhereError", "compile_where", "names"]


class Where(ByIndices):
    """The games for which ``text`` is true (false and null drop a game). Picklable (the text is
    parsed again where it is unpickled), so a parallel run's workers select as the parent does.

    ``tag_only``: the condition reads tags only (no field the replay fills), so it could be
    decided before the replay."""

    before_replay = None  # (a Choose hands the tag conjuncts to the reader through its needs)

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

    def __repr__(self):
        return f"Where({self.text!r})"


def compile_where(text: str) -> Where:
    """The selection of an expression, checked (a WhereError when it cannot run)."""
    return Where(text)


class Choose(ByIndices):
    """The selection of the command line's --where, --sample/--seed and --limit: the games the
    condition keeps, of those the sample's share, the first ``limit`` of them. With a limit the
    selection is ``done`` once it has that many (the run then stops reading); a limit counts
    the games of one run in input order, so it needs the run read in one thread."""

    before_replay = None  # (the tag filter goes to the reader through needs)

    def __init__(self, where: Optional[str] = None, sample: Optional[float] = None, seed: int = 0,
                 limit: Optional[int] = None, dedup: Optional[str] = None, positions: Sequence[str] = (),
                 materials: Sequence[str] = ()):
        from pgntools.where.position import signatures, targets

        self.where = Where(where) if where else None
        self.decided = False  # the reader's tag filter decides the whole condition (nothing to evaluate)
        if self.where is not None:
            from pgntools.where.prefilter import decided_by_tags

            self.decided = decided_by_tags(self.where.checked)
        self.position_texts, self.material_texts = tuple(positions), tuple(materials)
        self.targets, self.signatures = targets(positions), signatures(materials)  # (SelectionError)
        self.sample, self.seed, self.limit = sample, seed, limit
        self.dedup = None
        if dedup:
            from pgntools.dedup import Dedup

            self.dedup = Dedup(dedup)
        self.chosen = 0   # games selected so far (for the limit)
        self.done = limit is not None and limit <= 0
        self.duplicates: list = []  # the last batch's games --dedup dropped

    def __reduce__(self):
        return (Choose, (self.where.text if self.where else None, self.sample, self.seed, self.limit,
                         self.dedup.mode if self.dedup else None, self.position_texts, self.material_texts))

    @property
    def needs(self) -> Dict[str, object]:
        needs = dict(self.where.needs) if self.where else {}
        if self.where is not None:
            from pgntools.where.prefilter import tag_filter

            clauses = tag_filter(self.where.checked)
            if clauses:  # games that fail them are not replayed (the reader decides on their tags)
                needs["tag_filter"] = clauses
        if self.targets:  # decided by the reader at each ply (--where-position)
            needs["positions"] = self.targets
        if self.signatures:
            needs["materials"] = self.signatures
        if self.sample is not None or self.dedup is not None:
            needs["numbered"] = True  # by game id: a parallel run numbers its chunks
        return needs

    def select(self, batch):
        """As ByIndices, and the games --dedup dropped as the view's ``duplicates`` (for --report)."""
        self.duplicates = []
        view = super().select(batch)
        if self.duplicates:
            view = take_games(batch, list(range(batch.n_games))) if view is batch else view
            view.duplicates, view.dedup_mode = self.duplicates, self.dedup.mode
        return view

    def kept(self, batch) -> List[int]:
        """The batch-local indices of the games chosen, ascending."""
        if self.done:
            return []
        # a condition the reader decided on the tags (game_number: it did, in this batch) is true
        # for every game it recorded
        decided = self.decided and (batch.raw.get("game_number") or not batch.n_games)
        evaluate = self.where is not None and not decided
        if evaluate or self.sample is not None:
            import pyarrow.compute as pc  # (--dedup, --limit, positions or a decided condition alone: no pyarrow)

            from pgntools.where.sample import batch_sampled
        mask = None
        if evaluate:
            from pgntools.where.evaluate import Evaluation

            mask = Evaluation(self.where.checked, batch).keep(self.where.checked.tree)
        if self.sample is not None and self.dedup is None:
            share = batch_sampled(batch, self.sample, self.seed)
            mask = share if mask is None else pc.and_(mask, share)
        if mask is None:
            indices = list(range(batch.n_games))
        else:
            found = pc.indices_nonzero(mask)
            indices = memoryview(found.buffers()[1]).cast("Q")[found.offset:found.offset + len(found)].tolist()
        for asked, bit in ((self.targets, "reached_position"), (self.signatures, "reached_material")):
            if asked:  # the reader's bit: the game reached one of them (a byte a game: no Arrow,
                from pgntools.reader import DERIVED_BITS  # whose import is 0.3 s of CPU)

                derived, bit = batch.raw["derived"], DERIVED_BITS[bit]
                indices = [g for g in indices if derived[g] & bit]
        if self.dedup is not None:  # after --where, before --sample: a sample of the distinct games
            indices, self.duplicates = self.dedup.decide(batch, indices)
        if self.sample is not None and self.dedup is not None:
            share = batch_sampled(batch, self.sample, self.seed)
            flags = share.to_pylist()
            indices = [g for g in indices if flags[g]]
        if self.limit is not None:
            indices = indices[:self.limit - self.chosen]
            self.chosen += len(indices)
            self.done = self.chosen >= self.limit
            if self.done and self.duplicates:  # those after the last game chosen were never reached
                last = batch.game_id(indices[-1]) if indices else -1
                self.duplicates = [d for d in self.duplicates if d.game < last]
        return indices
