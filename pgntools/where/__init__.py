"""`--where EXPR`: the games to keep, as an SQL-like condition over the columns of export's
`games` table (issue 18). ``compile_where(text)`` parses and checks an expression (a
``WhereError`` says what and where); the ``Where`` it returns is a selection: it keeps the games
of a batch for which the condition is true.

The language (the README's reference): parser.py (grammar), check.py (types; the names are the
games columns of pgntools.tables.game_fields), evaluate.py (a batch at a time, with Arrow
compute; null semantics).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Dict, List, NamedTuple, Optional, Sequence, Tuple

from pgntools import _core
from pgntools.selection import ByIndices, take_games
from pgntools.where.errors import WhereError

if TYPE_CHECKING:
    from pgntools.dedup import Candidates
    from pgntools.where.check import Checked


def __getattr__(name: str):  # names(): the games table's declaration (pgntools.tables.game_fields) loads on first use
    if name == "names":
        from pgntools.tables.game_fields import names

        return names
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = ["Choose", "Where", "WhereError", "compile_where", "names"]


class Where(ByIndices):
    """The games for which ``text`` is true (false and null drop a game). Picklable (the text is
    parsed again where it is unpickled), so a parallel run's workers select as the parent does.

    ``tag_only``: the condition reads tags only (no field the replay fills), so it could be
    decided before the replay."""

    before_replay = None  # (a Choose hands the tag part to the reader through its needs: where.prefilter)

    def __init__(self, text: str):
        from pgntools.where.check import check  # (a run without --where loads no checker: --dedup alone)
        from pgntools.where.parser import parse

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
    selection is ``done`` once it has that many (the run then stops reading). --dedup and a
    limit depend on the games before (``ordered``): ``local`` is each game's own choice (made
    wherever the game is read), ``decide`` the in-order rest, made in one place (in-process
    here, in ``kept``; in a parallel run by the parent: pgntools.runner.in_order)."""

    before_replay = None  # (the tag filter goes to the reader through needs)

    def __init__(self, where: Optional[str] = None, sample: Optional[float] = None, seed: int = 0,
                 limit: Optional[int] = None, dedup: Optional[str] = None, positions: Sequence[str] = (),
                 materials: Sequence[str] = (), dedup_keep: str = "first", dedup_against: Optional[str] = None,
                 moves: Optional[str] = None, record_dropped: bool = False):
        from pgntools.where.targets import signatures, targets

        self.where = Where(where) if where else None
        self.decided = False  # the reader's tag filter decides the whole condition (nothing to evaluate)
        # the games dropped are written somewhere (filter --unselected): the reader records every game
        # (no tag filter before the replay)
        self.record_dropped = record_dropped
        if self.where is not None and not record_dropped:
            from pgntools.where.prefilter import decided_by_tags

            self.decided = decided_by_tags(self.where.checked)
        self.position_texts, self.material_texts = tuple(positions), tuple(materials)
        self.targets, self.signatures = targets(positions), signatures(materials)  # (SelectionError)
        self.sample, self.seed, self.limit = sample, seed, limit
        self.dedup = None
        self.dedup_keep, self.dedup_against = dedup_keep, dedup_against
        if dedup or dedup_against or dedup_keep != "first":  # (--dedup-keep, --dedup-against: moves by default)
            from pgntools.dedup import Dedup

            self.dedup = Dedup(dedup or "moves", dedup_keep, dedup_against, within=bool(dedup) or dedup_keep != "first")
        self.moves_text = moves
        self.moves = None
        if moves:
            from pgntools.where.moves import MoveSequence

            self.moves = MoveSequence(moves)  # (SelectionError: a move that does not parse)
        self.chosen = 0   # games selected so far (for the limit)
        self.done = limit is not None and limit <= 0
        self.duplicates: list = []  # the last batch's games --dedup dropped
        self.unread = 0  # the games of the last batch after the one that reached --limit (feed: not read)

    def __reduce__(self):
        return (Choose, (self.where.text if self.where else None, self.sample, self.seed, self.limit,
                         self.dedup.mode if self.dedup and self.dedup.within else None, self.position_texts,
                         self.material_texts, self.dedup_keep, self.dedup_against, self.moves_text,
                         self.record_dropped))

    def recording_dropped(self) -> "Choose":
        """This selection, made to record the games it drops (filter --unselected writes them):
        no tag filter skips a game in the reader."""
        cls, args = self.__reduce__()
        return cls(*args[:-1], True)

    @property
    def needs(self) -> Dict[str, object]:
        needs = dict(self.where.needs) if self.where else {}
        if self.where is not None and not self.record_dropped:
            from pgntools.where.prefilter import reads_tags, tag_filter

            clauses = tag_filter(self.where.checked)
            if clauses:  # games it cannot keep are not replayed (the reader decides on their tags)
                needs["tag_filter"] = clauses
                if reads_tags(clauses):
                    needs.update(tag_columns=True, tag_values=True)
        if self.targets:  # decided by the reader at each ply (--where-position)
            needs["positions"] = self.targets
        if self.signatures:
            needs["materials"] = self.signatures
        if self.dedup is not None:  # the keys it compares (the reader computes none unless asked)
            needs.update(self.dedup.needs)
        if self.moves is not None:  # --where-moves: the mainline's moves
            needs.update(self.moves.needs)
        if self.sample is not None or self.ordered:
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

    @property
    def ordered(self) -> bool:
        """Whether a game's choice depends on the games before it (--dedup, --limit): made in
        input order in one place, the parent of a parallel run (pgntools.runner.in_order)."""
        return self.dedup is not None or self.limit is not None

    def kept(self, batch) -> List[int]:
        """The batch-local indices of the games chosen, ascending."""
        if self.done:
            self.unread = batch.n_games  # (--limit 0)
            return []
        indices = self.local(batch)
        if not self.ordered:
            return indices
        decision = self.decide(self.candidates(batch, indices))
        if decision.dropped:
            from pgntools.dedup import Duplicate

            offsets, lines = batch.column("offset"), batch.column("line")
            self.duplicates = [Duplicate(batch.game_id(indices[p]), batch.source, offsets[indices[p]],
                                         lines[indices[p]], repeats) for p, repeats in decision.dropped]
        kept = decision.kept
        if kept == range(len(indices)):  # all kept: as they were
            kept = indices
        elif len(indices) == batch.n_games:  # every game a candidate: the positions are the indices
            kept = list(kept)
        else:
            kept = [indices[p] for p in kept]
        if self.done:  # the games after the last one chosen were never reached: not read
            self.unread = batch.n_games - 1 - kept[-1]
        return kept

    def local(self, batch) -> List[int]:
        """The batch-local indices of the games --where, --where-position and --material keep
        (and --sample, without --dedup): each game's own choice, made wherever it is read."""
        # a condition the reader decided on the tags (game_number: it did, in this batch) is true
        # for every game it recorded
        decided = self.decided and (batch.raw.get("game_number") or not batch.n_games)
        evaluate = self.where is not None and not decided
        sample_here = self.sample is not None and self.dedup is None  # (with --dedup: in decide)
        mask = None
        if evaluate or sample_here:
            import pyarrow.compute as pc  # (--dedup, --limit, positions or a decided condition alone: no pyarrow)

            if evaluate:
                from pgntools.where.evaluate import Evaluation

                mask = Evaluation(self.where.checked, batch).keep(self.where.checked.tree)
            if sample_here:
                from pgntools.where.sample import batch_sampled

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
        if self.moves is not None:
            indices = self.moves.keep(batch, indices)
        return indices

    def candidates(self, batch, indices: Sequence[int]) -> "Candidates":
        """What the in-order choice needs of these games of the batch (``local``'s): their ids and,
        with --dedup, their keys (bytes: a worker sends them to the parent of a parallel run)."""
        from pgntools.dedup import Candidates, keys_of

        if self.dedup is None:
            return Candidates(ids_of(batch, indices), b"", b"", b"")
        return keys_of(batch, indices, self.dedup.mode)

    def decide(self, candidates: "Candidates") -> "Decision":
        """The in-order choice of some games (their ``candidates``, in input order, after all
        those decided before): --dedup (the first of each key), then --sample of the distinct
        games, then --limit. Positions into the candidates: those kept, and those --dedup dropped
        with the game each repeats."""
        from array import array

        ids = memoryview(candidates.ids).cast("q")
        positions: Sequence[int] = range(len(ids))
        dropped: list = []
        if self.dedup is not None:
            positions, dropped = self.dedup.decide_keys(candidates)
        if self.sample is not None and self.dedup is not None and len(positions):
            from pgntools.where.sample import sampled_ids

            flags = sampled_ids(array("q", [ids[p] for p in positions]), self.sample, self.seed)
            positions = [p for p, keep in zip(positions, flags) if keep]
        if self.limit is not None:
            positions = positions[:self.limit - self.chosen]
            self.chosen += len(positions)
            self.done = self.chosen >= self.limit
            if self.done and dropped:  # those after the last game chosen were never reached
                last = positions[-1] if len(positions) else -1
                dropped = [d for d in dropped if d[0] < last]
        return Decision(positions if isinstance(positions, range) else list(positions), dropped)


def ids_of(batch, indices: Sequence[int]) -> bytes:
    """The ids of the batch's games ``indices`` (int64 bytes)."""
    from array import array

    if batch.ids is None:
        if len(indices) == batch.n_games:
            return _core.id_range(batch.first_game, batch.n_games)
        first = batch.first_game
        return array("q", [first + g for g in indices]).tobytes()
    return array("q", [batch.ids[g] for g in indices]).tobytes()


class Decision(NamedTuple):
    """The in-order choice of some candidates: the positions kept, and (position, the game id it
    repeats) of each game --dedup dropped (Choose.decide)."""

    kept: List[int]
    dropped: List[Tuple[int, int]]
