"""pgntools: validate, convert and export chess games (PGN/FEN) at pipeline scale.

The public API is what ``__all__`` lists; ``pgntools._core`` is private.
"""
from pgntools._core import Board
from pgntools.reader import Game, Move, iter_batches, read_games
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
    "read_games",
]
