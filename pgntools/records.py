"""The records of the library API (``pgntools.read_games``): Game, Move and Finding (an error,
fix or note of one game; ``GameError`` is its old name), filled from batches by pgntools.reader.

A module of its own, imported when the first record is made: the commands work on batches and
never need these, and making dataclasses at import cost the command line's start-up ~8 ms
(``dataclasses`` itself and one generated ``__init__``/``__repr__``/``__eq__`` per class).
pgntools, pgntools.reader and pgntools.errors still offer these names (module ``__getattr__``).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, List, Optional, Tuple

# The report's keys for each category: the same four first for all three (one kind of record,
# issue 22), then each category's own (the keys fixes and notes had when they were dicts stay);
# item access also takes these names (finding["from"]).
COMMON_KEYS = ("kind", "ply", "token", "message")
REPORT_KEYS = {
    "error": COMMON_KEYS + ("line", "column", "offset"),
    "fix": COMMON_KEYS + ("from", "to"),
    "note": COMMON_KEYS + ("count",),
}
# Keys a report adds when they are set: a fix's ply and field (the tag, FEN field or rule it
# concerns; the result's fixes have none), the rule of a play_after_automatic_end note.
OPTIONAL_REPORT_KEYS = {"error": (), "fix": ("ply", "field"), "note": ("rule",)}
_ATTRIBUTE_OF = {"offset": "byte_offset", "from": "before", "to": "after", "rule": "field"}
_FIELDS = ("kind", "message", "game_index", "byte_offset", "line", "ply", "token", "column", "category", "count",
           "before", "after", "field")


@dataclass
class Finding:
    """One error, fix or note of one game: the same record for the three (``category``).

    ``kind`` is the stable snake_case name (README: error and note kinds; fixes are
    ``result_tag`` and ``result_marker``); ``message`` a one-line description; ``ply`` the
    1-based half-move, or None; ``token`` the text concerned, or None. Errors carry where they
    are in the input (``byte_offset``, ``line``, ``column``); notes count their occurrences
    (``count``; ply and token are the first one's); fixes say what was read and what is written
    instead (``before``, ``after``; None for a missing termination marker)."""

    kind: str
    message: str
    game_index: int
    byte_offset: Optional[int] = None
    line: Optional[int] = None
    ply: Optional[int] = None
    token: Optional[str] = None
    column: Optional[int] = None
    category: str = "error"
    count: int = 1
    before: Optional[str] = None
    after: Optional[str] = None
    field: Optional[str] = None  # what a fix concerns (tag, FEN field, rule); a play-on note's rule

    def to_dict(self) -> dict:
        return asdict(self)

    def report_dict(self) -> dict:
        """The finding as the report writes it: the keys of REPORT_KEYS[category]."""
        out = {key: getattr(self, _ATTRIBUTE_OF.get(key, key)) for key in REPORT_KEYS[self.category]}
        for key in OPTIONAL_REPORT_KEYS[self.category]:
            value = getattr(self, _ATTRIBUTE_OF.get(key, key))
            if value is not None:
                out[key] = value
        return out

    # A mapping of its fields too (dict(finding) == finding.to_dict()), so that code written
    # when notes and fixes were dicts still works: finding["kind"], finding["from"].
    def keys(self) -> Tuple[str, ...]:
        return _FIELDS

    def __getitem__(self, key: str) -> Any:
        name = _ATTRIBUTE_OF.get(key, key)
        if name not in _FIELDS:
            raise KeyError(key)
        return getattr(self, name)


GameError = Finding  # the name of the record when it held errors only


@dataclass
class Move:
    san: str
    uci: str
    clock: Optional[float] = None
    emt: Optional[float] = None
    eval_cp: Optional[int] = None
    eval_mate: Optional[int] = None
    nags: List[int] = field(default_factory=list)
    comment: Optional[str] = None


@dataclass
class Game:
    """One game as read and checked. ``status`` is "valid", "fixed", "invalid" or "truncated"
    (repair="truncate"); ``errors``, ``fixes`` and ``notes`` are lists of Finding.

    ``moves`` is built when first read (most scripts never look at every move): until then the
    game keeps its batch's move columns alive. ``san`` and ``uci`` do not build it."""

    index: int
    source: str
    offset: int
    length: int
    line: int
    tags: List[Tuple[str, str]]
    status: str
    result: str
    result_tag: Optional[str]
    result_marker: Optional[str]
    outcome: Optional[str]
    outcome_ply: Optional[int]
    ply_count: int
    chess960: bool
    start_fen: str
    errors: List[Finding]
    notes: List[Finding]
    fixes: List[Finding]
    moves: List[Move] = field(default_factory=list)
    final_fen: Optional[str] = None
    pgn: Optional[str] = None
    automatic_end: Optional[str] = None       # the first automatic draw the mainline reached (played on or not)
    automatic_end_ply: Optional[int] = None
    variant: str = "standard"                 # the rules (the games table's variant column)

    @property
    def headers(self) -> dict:
        return dict(self.tags)

    @property
    def uci(self) -> List[str]:
        rows = self.__dict__["_moves"]
        if type(rows) is MoveRows:
            return rows.table.strings("uci")[rows.start:rows.end]
        return [m.uci for m in rows]

    @property
    def san(self) -> List[str]:
        rows = self.__dict__["_moves"]
        if type(rows) is MoveRows:
            return rows.table.strings("san")[rows.start:rows.end]
        return [m.san for m in rows]

    def __getstate__(self):  # a pickled game takes its moves, not its batch
        state = dict(self.__dict__)
        state["_moves"] = self.moves
        return state


class MoveRows:
    """A game's rows [start, end) of its batch's move table (pgntools.reader.MoveTable), not yet
    made into Move records."""

    __slots__ = ("table", "start", "end")

    def __init__(self, table, start: int, end: int):
        self.table, self.start, self.end = table, start, end


def _get_moves(game: Game) -> List[Move]:
    rows = game.__dict__["_moves"]
    if type(rows) is MoveRows:
        rows = game.__dict__["_moves"] = rows.table.moves(rows.start, rows.end)
    return rows


def _set_moves(game: Game, value) -> None:
    game.__dict__["_moves"] = value


# After @dataclass: the generated __init__, __eq__ and __repr__ (and dataclasses.asdict) go
# through the property, so a Game still behaves as a plain dataclass with a moves field.
Game.moves = property(_get_moves, _set_moves, doc="The mainline moves (Move records), built on first access.")
