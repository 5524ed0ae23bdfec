"""PGN outputs of `validate`: the export-format games (built in C) and the rejected games."""
from __future__ import annotations

from pgntools.reader import GameBatch
from pgntools.sinks.base import Sink


class PgnSink(Sink):
    """Export-format PGN of the valid and fixed games (built in C; invalid games are empty)."""

    def __init__(self, output, strip_comments: bool = False, strip_variations: bool = False, reduced: bool = False):
        self.output = output
        self.needs = {"pgn": True, "tag_values": True, "strip_comments": strip_comments,
                      "strip_variations": strip_variations, "reduced": reduced}

    def write(self, batch: GameBatch):
        self.output.write(batch.string_buffers("pgn")[1])


class RejectsSink(Sink):
    """The invalid games exactly as they were in the input, each followed by a blank line."""

    needs = {"raw_invalid": True}

    def __init__(self, output):
        self.output = output

    def write(self, batch: GameBatch):
        offsets_raw, data = batch.string_buffers("raw")
        if not data:
            return
        offsets = memoryview(offsets_raw).cast("i")
        parts = [data[offsets[i]:offsets[i + 1]] for i in range(len(offsets) - 1) if offsets[i] != offsets[i + 1]]
        self.output.write(b"\n\n".join(parts) + b"\n\n")
