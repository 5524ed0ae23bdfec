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
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

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


def _ends(starts: Sequence[int], total: int) -> List[int]:
    return list(starts[1:]) + [total]


def _take_rows(raw, name: str, ranges: Sequence[Tuple[int, int]]) -> bytes:
    """The rows [a, b) of each range of a numeric column, concatenated."""
    data = raw[name]
    if not data:
        return b""
    width = memoryview(data).cast(_core.COLUMN_FORMATS[name]).itemsize
    view = memoryview(data)
    return b"".join([view[a * width:b * width] for a, b in _coalesced(ranges)])


def _take_strings(pair: Tuple[bytes, bytes], ranges: Sequence[Tuple[int, int]], rows: int) -> Tuple[bytes, bytes]:
    """The strings [a, b) of each range of a string column (Arrow layout), as a new column. A
    column without its ``rows`` strings was not recorded (its offsets are empty or one 0): kept."""
    offsets_raw, data = pair
    offsets = memoryview(offsets_raw).cast("i")
    if len(offsets) != rows + 1:
        return pair
    out = [array("i", [0]).tobytes()]
    pieces = []
    end = 0
    for a, b in _coalesced(ranges):  # (a C loop a range: no Python int per row)
        base = offsets[a]
        out.append(_core.offsets_shifted(offsets_raw, a + 1, b + 1, end - base))
        pieces.append(data[base:offsets[b]])
        end += offsets[b] - base
    return b"".join(out), b"".join(pieces)


def _coalesced(ranges: Sequence[Tuple[int, int]]) -> List[Tuple[int, int]]:
    """The ranges with each one that starts where the last ended joined to it."""
    out: List[Tuple[int, int]] = []
    for a, b in ranges:
        if out and out[-1][1] == a:
            out[-1] = (out[-1][0], b)
        else:
            out.append((a, b))
    return out


def _starts(ranges: Sequence[Tuple[int, int]]) -> Tuple[array, List[int]]:
    """New start rows of the kept ranges (int32), and the old row -> new row shift of each."""
    starts, shifts, at = array("i"), [], 0
    for a, b in ranges:
        starts.append(at)
        shifts.append(at - a)
        at += b - a
    return starts, shifts


def take_games(batch: GameBatch, indices: Sequence[int]) -> GameBatch:
    """A batch of the given games of ``batch`` (batch-local indices, ascending): every per-game
    column, each child table's rows (tags, moves and their NAGs, errors, notes) and the string
    buffers sliced to them, their start columns renumbered; ids, offsets and lines kept."""
    raw = batch.raw
    n = batch.n_games
    indices = list(indices)
    out: dict = {"n_games": len(indices), "first_game": batch.first_game}
    per_game = [(g, g + 1) for g in indices]
    handled = {"n_games", "first_game", TAG_SLOTS, *GAME_STRINGS}
    tag_shift: Optional[List[int]] = None
    for start_column, (numeric, strings) in CHILD_TABLES.items():
        starts = _numbers(raw, start_column).tolist()
        total = _child_rows(raw, numeric, strings)
        ends = _ends(starts, total)
        ranges = [(starts[g], ends[g]) for g in indices]
        new_starts, shifts = _starts(ranges)
        out[start_column] = new_starts.tobytes() if starts else b""
        if start_column == "tag_start":
            tag_shift = shifts
        for name in numeric:
            out[name] = _take_rows(raw, name, ranges)
        for name in strings:
            out[name] = _take_strings(raw[name], ranges, total)
        handled.update((start_column, *numeric, *strings))
        if start_column == "move_start":  # the NAG lists of the kept moves
            nag_starts = _numbers(raw, NAG_TABLE[0]).tolist()
            nag_ends = _ends(nag_starts, len(raw[NAG_TABLE[1][0]]))
            nag_ranges = [(nag_starts[a], nag_ends[b - 1]) for a, b in ranges if b > a]
            out[NAG_TABLE[0]] = _renumbered(nag_starts, ranges, nag_ranges)
            out[NAG_TABLE[1][0]] = _take_rows(raw, NAG_TABLE[1][0], nag_ranges)
            handled.add(NAG_TABLE[1][0])
    for name in GAME_STRINGS:
        out[name] = _take_strings(raw[name], per_game, n)
    out[TAG_SLOTS] = _take_tag_slots(raw[TAG_SLOTS], n, indices, tag_shift or [])
    for name in raw.keys():  # every other column has one row per game
        if name not in handled:
            out[name] = _take_rows(raw, name, per_game) if raw[name] else raw[name]
    view = GameBatch(out, batch.source, batch.first_game)
    view.ids = [batch.game_id(g) for g in indices]
    view.games_read = batch.n_games
    return view


def _child_rows(raw, numeric: Sequence[str], strings: Sequence[str]) -> int:
    """The rows of a child table: the most any of its columns holds (a column that was not
    recorded holds none)."""
    counts = [len(raw[name][0]) // 4 - 1 for name in strings] + [len(_numbers(raw, name)) for name in numeric]
    return max([0, *counts])


def _renumbered(nag_starts: List[int], move_ranges, nag_ranges) -> bytes:
    """The nag_start column of the kept moves, pointing into the kept NAG rows."""
    if not nag_starts:
        return b""
    out = array("i")
    shift_of = iter(nag_ranges)
    at = 0
    for a, b in move_ranges:
        if b == a:
            continue
        first, last = next(shift_of)
        out.extend(at + s - first for s in nag_starts[a:b])
        at += last - first
    return out.tobytes()


def _take_tag_slots(data: bytes, n: int, indices: Sequence[int], shifts: Sequence[int]) -> bytes:
    """tag_slots (tag by tag: TAG_COLUMN_COUNT runs of n games) of the kept games, renumbered."""
    if not data:
        return b""
    slots = memoryview(data).cast("i")
    out = array("i")
    for t in range(len(slots) // n if n else 0):
        out.extend(slots[t * n + g] + shifts[k] if slots[t * n + g] else 0 for k, g in enumerate(indices))
    return out.tobytes()
