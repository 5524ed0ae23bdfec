"""pgntools: validate, convert and export chess games (PGN/FEN) at pipeline scale.

The public API is what ``__all__`` lists; ``pgntools._core`` is private.
"""
from pgntools._core import Board
from pgntools.errors import (
    AmbiguousMoveError,
    GameError,
    IllegalMoveError,
    InputError,
    InvalidFenError,
    InvalidMoveError,
    MoveError,
    OutputError,
    PgnToolsError,
)

__version__ = "0.1.0"

__all__ = [
    "AmbiguousMoveError",
    "Board",
    "GameError",
    "IllegalMoveError",
    "InputError",
    "InvalidFenError",
    "InvalidMoveError",
    "MoveError",
    "OutputError",
    "PgnToolsError",
    "__version__",
]
