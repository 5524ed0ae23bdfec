"""--where-position FEN and --material SIGNATURE (issue 18): the positions and material balances
a game must reach at some ply of its mainline (the start position included), checked here
before any input is read and decided by the compiled reader during the replay (_c/mainline_facts.h).

A position is compared by its key, then on the board: placement, side to move, castling rights
and the en-passant square when an en-passant capture is possible (as the repetition rule and
EPD compare positions); the halfmove and fullmove counters are ignored, so an EPD (four fields)
is as good as a FEN.

A material signature names each side's pieces, White's in upper case then Black's in lower case,
each side's king first: ``KRPkr`` is exactly king, rook and pawn against king and rook. A ``*``
after a side's pieces means "and any further pieces": ``KQ*kq*`` is every position where each
side has at least a queen, ``KR*k`` White with at least a rook against a bare king. Letters:
K Q R B N P (k q r b n p); a letter repeated counts that many pieces (``KRRkr``).
"""
from __future__ import annotations

import re
from typing import Iterable, Tuple

from pgntools.errors import PgnToolsError

PIECE_LETTERS = "PNBRQ"  # the count order of the C signature (PAWN..QUEEN)
_SIDE = re.compile(r"^(K[QRBNP]*)(\*?)(k[qrbnp]*)(\*?)$")


class SelectionError(PgnToolsError, ValueError):
    """A --where-position FEN or --material signature that cannot be used (a usage error)."""


def position_target(fen: str) -> Tuple[str, bool]:
    """(the position as a six-field FEN, chess960) for the reader, or a SelectionError saying
    what is wrong with the FEN."""
    from pgntools import Board

    text = " ".join(fen.split())
    try:
        return Board.from_fen(text).fen(), False
    except ValueError as standard:
        try:  # castling rights only a Chess960 position has (X-FEN, Shredder-FEN)
            return Board.from_fen(text, chess960=True).fen(), True
        except ValueError:
            raise SelectionError(f"--where-position: {standard}") from None


def material_signature(text: str) -> Tuple[Tuple[int, ...], Tuple[int, ...], bool, bool]:
    """A signature as the reader's counts: (White's pawns, knights, bishops, rooks, queens),
    Black's, whether White may have more, whether Black may; or a SelectionError."""
    m = _SIDE.match(text.strip())
    if not m:
        raise SelectionError(
            f"--material: {text!r} is not a material signature: write White's pieces in upper case, "
            f"then Black's in lower case, each side's king first, a * after a side for 'and any further "
            f"pieces' (KRPkr, KQ*kq*, KR*k)")
    white, white_more, black, black_more = m.groups()
    counts = tuple(white.count(p) for p in PIECE_LETTERS), tuple(black.count(p.lower()) for p in PIECE_LETTERS)
    for side, (pawns, *_), name in ((white, counts[0], "White"), (black, counts[1], "Black")):
        if pawns > 8 or len(side) > 16:
            raise SelectionError(f"--material: {text!r}: {name} cannot have {'more than 8 pawns' if pawns > 8 else 'more than 16 pieces'}")
    return counts[0], counts[1], bool(white_more), bool(black_more)


def targets(fens: Iterable[str]) -> tuple:
    return tuple(dict.fromkeys(position_target(f) for f in fens))


def signatures(texts: Iterable[str]) -> tuple:
    return tuple(dict.fromkeys(material_signature(t) for t in texts))
