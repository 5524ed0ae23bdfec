"""BookSink: `pgntools book`'s sink (the rule: pgntools.book). Each batch's position rows (the
positions dataset's, every position within --max-ply) are counted in C per (position, move);
workers send their counts back and the parent adds them up, so any --jobs and a Dask cluster
give the same book. The file is written at commit."""
from __future__ import annotations

from typing import Optional

from pgntools import _core
from pgntools.positions_dataset import ROW_START, PositionRows, row_count
from pgntools.reader import GameBatch
from pgntools.sinks.base import ChunkOutput, Sink


class BookSink(Sink):
    """Counts the first ``max_ply`` moves of every valid or fixed game with a known result from
    the standard start; writes the Polyglot book at commit."""

    def __init__(self, output, max_ply: int = 24, min_games: int = 1):
        self.output = output  # in a worker: its ChunkOutput (unused: the part is the counts)
        self.needs = PositionRows(max_ply=max_ply - 1).needs()
        self.min_games = min_games
        self.counts = _core.BookCounts()

    def write(self, batch: GameBatch):
        if row_count(batch):
            raw = batch.raw
            self.counts.add_rows(raw[ROW_START], raw["position_ply"], raw["position_key"], raw["position_has"],
                                 raw["position_result"], *batch.string_buffers("position_uci"),
                                 *batch.string_buffers("position_san"))

    def finish_chunk(self) -> bytes:
        return self.counts.parts()

    def merge(self, part: Optional[bytes]):
        if part:
            self.counts.add_parts(part)

    def commit(self):
        if not isinstance(self.output, ChunkOutput):
            self.output.write(self.counts.polyglot(self.min_games))
