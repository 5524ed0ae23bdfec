"""pgntools: validate, convert and export chess games (PGN/FEN) at pipeline scale.

The public API is what ``__all__`` lists; ``pgntools._core`` is private.
"""
from pgntools._core import Board
from pgntools.reader import iter_batches, read_games
from pgntools.errors import (
    AmbiguousMoveError,
    IllegalMoveError,
    InputError,
    InvalidFenError,
    InvalidMoveError,
    MoveError,
    OutputError,
    PgnToolsError,
)

__version__ = "0.1.0"


def __getattr__(name: str):
    if name in ("Game", "Move", "Finding", "GameError"):  # pgntools.records, imported on first use (start-up)
        from pgntools import records

        return getattr(records, name)
    if name == "positions":  # the positions dataset as Arrow batches (pgntools.position_rows; imports pyarrow)
        from pgntools.position_rows import positions

        return positions
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "AmbiguousMoveError",
    "Board",
    "Finding",
    "Game",
    "GameError",
    "IllegalMoveError",
    "InputError",
    "InvalidFenError",
    "InvalidMoveError",
    "Move",
    "MoveError",
    "OutputError",
    "PgnToolsError",
    "__version__",
    "iter_batches",
    "positions",
    "read_games",
]
