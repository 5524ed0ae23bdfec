"""pgntools: validate, convert and export chess games (PGN/FEN) at pipeline scale.

The public API is what ``__all__`` lists; ``pgntools._core`` is private.
"""
TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: type checkers read the name)

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

if TYPE_CHECKING:  # (for type checkers; at run time each is imported on first use, below)
    from pgntools._core import Board
    from pgntools.arrow_tables import positions, to_arrow
    from pgntools.reader import iter_batches, read_games
    from pgntools.records import Finding, Game, GameError, Move

# Imported on first use, not with the package (issue 23): the command line's --help and a small
# validate would otherwise load the compiled core and the reader (or the records) before Click
# has even parsed the arguments.
_LAZY = {"Board": "pgntools._core", "iter_batches": "pgntools.reader", "read_games": "pgntools.reader",
         "Game": "pgntools.records", "Move": "pgntools.records", "Finding": "pgntools.records",
         "GameError": "pgntools.records",
         "positions": "pgntools.arrow_tables",  # the positions dataset as Arrow batches (imports pyarrow)
         "to_arrow": "pgntools.arrow_tables"}  # any table as a pyarrow RecordBatchReader


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(__import__(module, fromlist=(name,)), name)
    globals()[name] = value  # the next look-up is an ordinary attribute
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


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
    "to_arrow",
]
