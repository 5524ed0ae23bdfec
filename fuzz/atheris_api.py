"""Atheris harness for the Python API (not in CI; see fuzz/README.md).

What the C harnesses cannot reach: the Cython BatchReader refilling from a stream that returns
short reads, the Python side turning batches into Game records, and Board on text from the
input. Checks: only documented errors (PgnToolsError) are raised; the records are the same
whatever the buffer size, batch size and read sizes; a FEN that Board reads writes back as
itself and every SAN it accepts reads back as the same move.

    pip install atheris
    python3 fuzz/atheris_api.py -max_total_time=600 -max_len=8192 fuzz/corpus/game fuzz/seeds/game

Coverage is of the Python code (atheris instruments it); the extension runs as built.
"""
from __future__ import annotations

import dataclasses
import io
import sys
from pathlib import Path

import atheris

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's pgntools (built in place)

with atheris.instrument_imports():
    import pgntools
    from pgntools import _core
    from pgntools.reader import GameBatch


class ShortReads(io.RawIOBase):
    """A stream that gives at most `step` bytes a read, as pipes and decompressors do."""

    def __init__(self, data: bytes, step: int):
        self.data, self.pos, self.step = data, 0, step

    def readable(self):
        return True

    def readinto(self, b):
        n = min(len(b), self.step, len(self.data) - self.pos)
        b[:n] = self.data[self.pos:self.pos + n]
        self.pos += n
        return n


def records(stream, **options) -> list:
    out, first = [], 0
    for raw in _core.BatchReader(stream, moves=True, comments=True, final_fen=True, pgn=True, **options):
        batch = GameBatch(raw, "<fuzz>", first)
        first += batch.n_games
        out += [dataclasses.asdict(g) for g in batch.games()]
    return out


def check_board(text: bytes) -> None:
    lines = text.decode("utf-8", "replace").split("\n", 1)
    try:
        board = pgntools.Board.from_fen(lines[0])
    except pgntools.InvalidFenError:
        board = pgntools.Board()
    else:
        assert pgntools.Board.from_fen(board.fen()).fen() == board.fen()
    for word in (lines[1] if len(lines) > 1 else lines[0]).split()[:64]:
        try:
            uci = board.copy().push_san(word)
        except pgntools.MoveError:
            continue
        assert board.copy().push_san(board.san(uci)) == uci
        board.push_uci(uci)
        assert pgntools.Board.from_fen(board.fen()).fen() == board.fen()


def test_one_input(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    step = fdp.ConsumeIntInRange(1, 5000)
    batch_games = fdp.ConsumeIntInRange(1, 4)
    body = fdp.ConsumeBytes(fdp.remaining_bytes())
    try:
        whole = records(io.BytesIO(body))
        pieces = records(ShortReads(body, step), buffer_size=4096, batch_games=batch_games)
    except pgntools.PgnToolsError:
        return
    assert pieces == whole, "records differ with short reads and a small buffer"
    check_board(body[:4096])


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
