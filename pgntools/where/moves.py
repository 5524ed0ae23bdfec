"""--where-moves MOVES (pgn-extract's -v): the games whose mainline starts with a sequence of moves,
or, with a leading '...', holds it anywhere; '*' stands for any one move.

The moves are SAN (move numbers, check marks and !? are ignored). Those of a sequence from the
start are played on a board up to the first '*' (so Ng1f3 or a missing + still match, and an
illegal move is a usage error naming it); the others are compared as SAN spells them, without
+ and #. A game is compared on its mainline as the replay wrote it (the moves table's SAN)."""
from __future__ import annotations

import re
from typing import List, Optional, Sequence

from pgntools.where.targets import SelectionError

_NUMBER = re.compile(r"^\d+\.(\.\.)?$|^\d+\.\.\.$")
_MOVE = re.compile(r"^(?:[KQRBN][a-h]?[1-8]?[-x]?[a-h][1-8]|[a-h][1-8]?(?:[-x]?[a-h][1-8])?(?:=?[QRBNqrbn])?"
                   r"|O-O(?:-O)?|0-0(?:-0)?)$")
ANY = None  # a '*' in the sequence


def _bare(san: str) -> str:
    """A SAN without its check marker and annotation (Nf3+!? -> Nf3)."""
    return san.rstrip("+#!?")


class MoveSequence:
    """The parsed MOVES: ``moves`` (bare SAN, or ANY), ``anywhere``; ``keep(batch, indices)``."""

    def __init__(self, text: str):
        self.text = text
        body = text.strip()
        self.anywhere = body.startswith("...")
        words = (body[3:] if self.anywhere else body).replace(".", ". ").split()
        moves: List[Optional[str]] = []
        for word in words:
            word = re.sub(r"^\d+\.+", "", word)  # 1.e4, 12...Nf6
            if not word or _NUMBER.match(word) or word in (".", "..", "..."):
                continue
            if word == "*":
                moves.append(ANY)
                continue
            bare = _bare(word)
            if not _MOVE.match(bare):
                raise SelectionError(f"--where-moves: {word!r} is not a move (SAN such as e4, Nf3, exd5, O-O, "
                                     f"e8=Q, or * for any move) in {text!r}")
            moves.append(bare.replace("0", "O"))
        if not moves:
            raise SelectionError(f"--where-moves: no move in {text!r}")
        self.moves = moves
        if not self.anywhere:
            self._canonical()

    def _canonical(self):
        """From the start: the moves up to the first '*' as the replay spells them (the standard
        start position; a game that starts elsewhere is compared as written)."""
        from pgntools import Board

        board = Board()
        for i, move in enumerate(self.moves):
            if move is ANY:
                return
            try:
                uci = board.push_san(move)
            except ValueError as exc:
                raise SelectionError(f"--where-moves: move {i + 1}, {move!r}, is not legal after "
                                     f"{' '.join(m for m in self.moves[:i]) or 'the start'} ({exc})") from None
            board.pop()
            self.moves[i] = _bare(board.san(uci))
            board.push_uci(uci)

    def __reduce__(self):
        return (MoveSequence, (self.text,))

    needs = {"moves": True}

    def keep(self, batch, indices: Sequence[int]) -> List[int]:
        """Of the batch's games ``indices``, those whose mainline matches."""
        if not indices:
            return []
        starts = batch.column("move_start")
        offsets_raw, data = batch.string_buffers("san")
        offsets = memoryview(offsets_raw).cast("i")
        total = len(offsets) - 1
        n, pattern, kept = batch.n_games, self.moves, []
        for g in indices:
            a, z = starts[g], starts[g + 1] if g + 1 < n else total
            if self.anywhere:
                sans = [_bare(data[offsets[i]:offsets[i + 1]].decode()) for i in range(a, z)]
                found = any(all(p is ANY or p == sans[s + k] for k, p in enumerate(pattern))
                            for s in range(len(sans) - len(pattern) + 1))
            else:
                found = z - a >= len(pattern) and all(
                    p is ANY or p == _bare(data[offsets[a + k]:offsets[a + k + 1]].decode())
                    for k, p in enumerate(pattern))
            if found:
                kept.append(g)
        return kept
