"""Errors: exceptions for the stream and the API (per-game problems are GameError records,
pgntools.records).

Per-game problems are data (a bad game never stops the stream); only problems with the stream
itself (unreadable input, corrupt compression) and misuse of the API raise.
"""
from __future__ import annotations


class PgnToolsError(Exception):
    """Root of every exception pgntools raises on purpose."""


class InvalidFenError(PgnToolsError, ValueError):
    """A FEN that cannot be read or describes an impossible position.

    ``problems`` lists every reason at once (snake_case names such as ``missing_white_king``);
    ``details`` says, for each, which field is wrong and how ("placement: rank 8 has 9
    squares", "castling: 'K' but no white rook on h1"), in the same order. The message holds
    both: ``invalid FEN '...': placement: rank 8 has 9 squares (malformed)``.
    """

    def __init__(self, fen: str, problems: list[str], details: list[str] | None = None):
        self.fen = fen
        self.problems = problems
        self.details = details if details is not None else [""] * len(problems)
        reasons = [f"{d} ({p})" if d else p for p, d in zip(problems, self.details)]
        super().__init__(f"invalid FEN {fen!r}: {'; '.join(reasons)}")


class MoveError(PgnToolsError, ValueError):
    """A move that cannot be played; ``kind`` is the stable snake_case error kind."""

    def __init__(self, kind: str, move: str, message: str):
        self.kind = kind
        self.move = move
        super().__init__(message)


class IllegalMoveError(MoveError):
    """``illegal_move``: well-formed, but not legal in the position."""


class AmbiguousMoveError(MoveError):
    """``ambiguous_move``: more than one legal move matches the SAN."""


class InvalidMoveError(MoveError):
    """``invalid_san``, ``invalid_uci`` (Board.push_uci and san), ``invalid_promotion``,
    ``null_move`` or ``drop``: not a playable move text."""


class InputError(PgnToolsError):
    """An input stream that cannot be opened or read (missing file, corrupt compression)."""


class OutputError(PgnToolsError):
    """An output that cannot be written."""


class WorkersLostError(PgnToolsError):
    """A cluster run left without any worker (lost for good): the run stops (exit 74, as an
    output that cannot be written); ``committed`` lists the parts it committed, which
    export --resume continues from."""

    committed: list = []

    def __str__(self):
        text = super().__str__()
        if not self.committed:
            return f"{text}; nothing was committed"
        shown = ", ".join(self.committed[:8]) + (f", ... ({len(self.committed)} in all)" if len(self.committed) > 8 else "")
        return (f"{text}; committed: {shown}; run the same export with --resume to finish it")


MOVE_ERRORS = {
    "illegal_move": IllegalMoveError,
    "ambiguous_move": AmbiguousMoveError,
}


def move_error(kind: str, move: str, message: str) -> MoveError:
    """The exception class that matches an error kind."""
    return MOVE_ERRORS.get(kind, InvalidMoveError)(kind, move, message)


def __getattr__(name: str):
    if name == "GameError":  # lives in pgntools.records, imported on first use
        from pgntools.records import GameError

        return GameError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
