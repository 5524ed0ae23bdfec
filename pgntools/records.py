"""The records of the library API (``pgntools.read_games``): Game, Move and GameError, filled
from batches by pgntools.reader.

A module of its own, imported when the first record is made: the commands work on batches and
never need these, and making dataclasses at import cost the command line's start-up ~8 ms
(``dataclasses`` itself and one generated ``__init__``/``__repr__``/``__eq__`` per class).
pgntools, pgntools.reader and pgntools.errors still offer these names (module ``__getattr__``).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import List, Optional, Tuple


@dataclass
class GameError:
    """One problem found in one game. ``ply`` is the 1-based half-move, or None."""

    kind: str
    message: str
    game_index: int
    byte_offset: int
    line: int
    ply: Optional[int] = None
    token: Optional[str] = None
    column: Optional[int] = None

    def to_dict(self) -> dict:
        return asdict(self)


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
    """One game as read and checked. ``status`` is "valid", "fixed", "invalid" or "truncated" (repair="truncate")."""

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
    errors: List[GameError]
    notes: List[dict]
    fixes: List[dict]
    moves: List[Move] = field(default_factory=list)
    final_fen: Optional[str] = None
    pgn: Optional[str] = None
    automatic_end: Optional[str] = None       # the first automatic draw the mainline reached (played on or not)
    automatic_end_ply: Optional[int] = None

    @property
    def headers(self) -> dict:
        return dict(self.tags)

    @property
    def uci(self) -> List[str]:
        return [m.uci for m in self.moves]

    @property
    def san(self) -> List[str]:
        return [m.san for m in self.moves]
