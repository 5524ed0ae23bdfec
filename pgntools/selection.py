"""Per-game selection: the one stage of a run between the reader and the sinks where a game is
dropped (or kept), so that `--where`, `--dedup`, `--limit` (issue 18) plug in for every command.

A ``Selection`` sees each batch after the replay (so it may decide on results, statuses,
outcomes) and returns the batch to hand to the sinks: the same batch, or a view of some of its
games (``take_games``). Tag-level predicates belong before the replay, in the compiled reader
(a game that fails them is skipped at scanner speed): ``before_replay`` is where a selection will
hand one to the reader; none exists yet, so it is None.

A view keeps the input's numbering: its games keep their ids (``GameBatch.game_id``), offsets
and lines, so a report names the game as the whole input does.
"""
from __future__ import annotations

from array import array
from collections import abc
from typing import Dict, List, Mapping, Sequence, Tuple

from pgntools import _core
from pgntools.reader import GameBatch


class Selection:
    """The protocol (and the selection that keeps every game)."""

    #: What the selection needs from the reader (ReaderOptions fields), as Sink.needs.
    needs: Mapping[str, object] = {}
    #: A tag-level predicate for the compiled reader, decided before the replay (not yet: None).
    before_replay = None

    def select(self, batch: GameBatch) -> GameBatch:
        return batch


KEEP_ALL = Selection()


class ByIndices(Selection):
    """A selection that says which games of a batch it keeps (``kept``: batch-local indices,
    ascending): the batch itself when it keeps them all, else a view of those."""

    def kept(self, batch: GameBatch) -> List[int]:
        raise NotImplementedError

    def select(self, batch: GameBatch) -> GameBatch:
        if not batch.n_games:
            return batch
        indices = self.kept(batch)
        return batch if len(indices) == batch.n_games else take_games(batch, indices)


class Keep(ByIndices):
    """Keeps the games for which ``keep(batch)`` returns True (a list of flags, one per game):
    the building block of result-level predicates."""

    def __init__(self, keep):
        self.keep = keep

    def kept(self, batch: GameBatch) -> List[int]:
        flags = self.keep(batch)
        return [g for g in range(batch.n_games) if flags[g]]


# ---------------------------------------------------------------- batch views

# The batch's child tables: each game's rows start at its `*_start` column; their numeric and
# string columns (the C batch's, _c/batch.h). The NAG list is a child of the move table.
CHILD_TABLES: Dict[str, Tuple[Tuple[str, ...], Tuple[str, ...]]] = {
    "tag_start": (("tag_in_map",), ("tag_name", "tag_value")),
    "move_start": (("ply", "from_square", "to_square", "piece", "captured", "promotion", "flags", "halfmove_clock",
                    "has", "clock", "emt", "eval_cp", "eval_mate", "nag_start", "key"), ("san", "uci", "comment", "fen")),
    "error_start": (("error_kind", "error_ply", "error_offset", "error_line", "error_column", "error_detail"),
                    ("error_token",)),
    "note_start": (("note_kind", "note_ply", "note_count"), ("note_token",)),
    "fix_start": (("fix_kind", "fix_ply"), ("fix_field", "fix_from", "fix_to")),
    "position_start": (("position_ply", "position_key", "position_has", "position_result", "position_white_elo",
                        "position_black_elo", "position_speed", "position_clock", "position_eval_cp",
                        "position_eval_mate", *(f"position_{c}_{p}" for c in ("white", "black")
                                                for p in ("pawns", "knights", "bishops", "rooks", "queens", "kings")),
                        "position_turn", "position_castling", "position_ep_file"),
                       ("position_fen", "position_uci", "position_san", "position_eco")),
    "clock_start": (("clock_ply", "clock_seconds"), ()),  # the clock table (stats: clock_rows)
}
NAG_TABLE = ("nag_start", ("nag",))  # one list of NAG values per move row
GAME_STRINGS = ("start_fen", "final_fen", "pgn", "raw", "opening_eco", "opening_name")  # one string per game (when recorded)
TAG_SLOTS = "tag_slots"  # TAG_COLUMN_COUNT per game, tag by tag: 1 + the tag's row, or 0


def _numbers(raw, name: str) -> memoryview:
    data = raw[name]
    return memoryview(data).cast(_core.COLUMN_FORMATS[name]) if data else memoryview(b"").cast("B")


def _width(name: str) -> int:
    return _WIDTHS.setdefault(name, array(_core.COLUMN_FORMATS[name]).itemsize)


_WIDTHS: Dict[str, int] = {}


def _take_rows(raw, name: str, ranges: bytes) -> bytes:
    """The rows of each range (int64 pairs) of a numeric column, concatenated."""
    data = raw[name]
    return _core.take_rows(data, _width(name), ranges) if data else b""


def _take_strings(pair: Tuple[bytes, bytes], ranges: bytes, rows: int) -> Tuple[bytes, bytes]:
    """The strings of each range of a string column (Arrow layout), as a new column. A column
    without its ``rows`` strings was not recorded (its offsets are empty or one 0): kept."""
    offsets, data = pair
    if len(offsets) != 4 * (rows + 1):
        return pair
    return _core.take_strings(offsets, data, ranges)


def take_games(batch: GameBatch, indices: Sequence[int]) -> GameBatch:
    """A batch of the given games of ``batch`` (batch-local indices, ascending): every per-game
    column, each child table's rows (tags, moves and their NAGs, errors, notes) and the string
    buffers sliced to them, their start columns renumbered; ids, offsets and lines kept.

    The work is done in C a column at a time over runs of consecutive kept games (so dropping a
    few duplicates of a batch costs a copy of its columns, not a Python loop over its rows), and
    only for the columns the sinks read (``TakenColumns``: validate --summary reads a few)."""
    indices = list(indices)
    runs = _core.game_runs(array("q", indices).tobytes())
    view = GameBatch(TakenColumns(batch.raw, len(indices), batch.first_game, runs), batch.source, batch.first_game)
    view.ids = array("q", _core.take_rows(all_ids(batch), 8, runs))  # (in C: no Python a game)
    view.games_read = batch.read_count()
    return view


class TakenColumns(abc.Mapping):
    """The columns of a view of some games (``runs``: game_runs of their indices) of a batch's
    columns ``raw``, each taken on first use (a child table's columns together) and kept. Read
    while the batch's own columns are (as the batch itself: a sink that keeps a batch past its
    write asks the reader to detach)."""

    def __init__(self, raw, n_games: int, first_game: int, runs: bytes):
        self.raw, self.runs, self.n = raw, runs, raw["n_games"]
        self.taken: dict = {"n_games": n_games, "first_game": first_game}
        self.taken.update((name, raw[name]) for name in _core.BATCH_COUNTS if name in raw)  # the batch's numbers
        self.names = frozenset((*raw.keys(), "n_games", "first_game"))

    def __getitem__(self, name: str):
        taken = self.taken
        if name not in taken:
            if name not in self.names:
                raise KeyError(name)
            table = _TABLE_OF.get(name)
            if table is not None:
                self._take_table(table)
            elif name in GAME_STRINGS:
                taken[name] = _take_strings(self.raw[name], self.runs, self.n)
            elif name == TAG_SLOTS:
                self._take_table("tag_start")  # (the slots move with the tag rows)
            else:  # one row per game
                data = self.raw[name]
                taken[name] = _take_rows(self.raw, name, self.runs) if data else data
        return taken[name]

    def _take_table(self, start_column: str):
        raw, taken = self.raw, self.taken
        numeric, strings = CHILD_TABLES[start_column]
        total = _child_rows(raw, numeric, strings)
        starts = raw[start_column]
        new_starts, ranges, shifts = _core.take_table(starts, total, self.runs if starts else b"")
        taken[start_column] = new_starts if starts else b""
        for name in numeric:
            taken[name] = _take_rows(raw, name, ranges)
        for name in strings:
            taken[name] = _take_strings(raw[name], ranges, total)
        if start_column == "tag_start":
            slots = raw[TAG_SLOTS]
            taken[TAG_SLOTS] = _core.take_slots(slots, self.n, self.runs, shifts) if slots else b""
        if start_column == "move_start":  # the NAG lists of the kept moves (a child of the move rows)
            nag_start, (nag,) = NAG_TABLE
            if raw[nag_start]:
                taken[nag_start], nag_ranges, _ = _core.take_table(raw[nag_start], len(raw[nag]), ranges)
                taken[nag] = _take_rows(raw, nag, nag_ranges)
            else:
                taken[nag_start], taken[nag] = b"", raw[nag][:0]

    def __contains__(self, name) -> bool:
        return name in self.names

    def __reduce__(self):  # pickled (sent elsewhere): every column, as a plain mapping
        return (dict, ({name: self[name] for name in self.names},))

    def __iter__(self):
        return iter(self.names)

    def __len__(self) -> int:
        return len(self.names)


# the child table each column belongs to (its start column), the NAG lists the move table's
_TABLE_OF = {name: start for start, (numeric, strings) in CHILD_TABLES.items()
             for name in (start, *numeric, *strings)}
_TABLE_OF.update({NAG_TABLE[0]: "move_start", NAG_TABLE[1][0]: "move_start"})


def all_ids(batch: GameBatch) -> bytes:
    """The ids of every game of the batch (int64 bytes)."""
    if batch.ids is None:
        return _core.id_range(batch.first_game, batch.n_games)
    return batch.ids.tobytes() if isinstance(batch.ids, array) else array("q", batch.ids).tobytes()


def _child_rows(raw, numeric: Sequence[str], strings: Sequence[str]) -> int:
    """The rows of a child table: the most any of its columns holds (a column that was not
    recorded holds none)."""
    counts = [len(raw[name][0]) // 4 - 1 for name in strings] + [len(raw[name]) // _width(name) for name in numeric]
    return max([0, *counts])


def unselected(view: GameBatch) -> List[int]:
    """The indices, in the batch the selection saw (``view.selected_from``), of the games it read
    and did not keep (before the game --limit stopped at); [] when it kept them all."""
    batch = getattr(view, "selected_from", None)
    if batch is None:
        return []
    kept = set(memoryview(all_ids(view)).cast("q"))
    ids = memoryview(all_ids(batch)).cast("q")
    return [g for g in range(batch.n_games - getattr(view, "unread", 0)) if ids[g] not in kept]


def repeated(view: GameBatch) -> List[int]:
    """The indices, in the batch the selection saw, of the games --dedup dropped as repeats."""
    batch, duplicates = getattr(view, "selected_from", None), getattr(view, "duplicates", None)
    if batch is None or not duplicates:
        return []
    dropped = {d.game for d in duplicates}
    ids = memoryview(all_ids(batch)).cast("q")
    return [g for g in range(batch.n_games) if ids[g] in dropped]
