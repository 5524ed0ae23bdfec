"""StatsSink: `pgntools stats`'s one sink, with up to three outputs (the terminal's text summary,
--html, --json). Workers send their Aggregates back (``finish_chunk``), the parent merges them in
input order; the outputs are written at commit."""
from __future__ import annotations

import json
import os
import time
from typing import Optional

from pgntools.reader import GameBatch
from pgntools.sinks.base import ChunkOutput, Sink
from pgntools.stats.aggregate import Aggregates


class StatsSink(Sink):
    """Aggregates every batch; at commit writes the text summary, the HTML report and the JSON."""

    # tag values by tag (ratings, ECO, dates, ...); the clock table ([%clk]: no move table, first
    # moves come from the games' first_move column); the opening classified; the reader's own buffers
    # (detach: the C counting reads them in place, no column is copied)
    needs = {"tag_columns": True, "tag_values": True, "clock_rows": True, "openings": True, "detach": True}

    def __init__(self, text=None, html=None, json_output=None, command_line: str = ""):
        self.output = text  # in a worker: its ChunkOutput (unused: the part is the aggregates)
        self.html, self.json = html, json_output
        self.command_line = command_line
        self.aggregates = Aggregates()
        self.started = self.last = time.perf_counter()

    def write(self, batch: GameBatch):
        # the time since the last batch: reading this one (and counting the last), its input's rate
        now = time.perf_counter()
        self.aggregates.update(batch, now - self.last)
        self.last = time.perf_counter()

    def finish_chunk(self) -> Aggregates:
        return self.aggregates

    def merge(self, part: Optional[Aggregates]):
        if part is not None:
            self.aggregates.merge(part)

    def document(self) -> dict:
        """The --json document: every aggregate, and the run (its time varies from run to run)."""
        doc = self.aggregates.to_dict()
        seconds = time.perf_counter() - self.started
        for source in doc["sources"]:
            source["bytes"] = _size(source["name"])
            source["games_per_second"] = round(source["games"] / source["seconds"]) if source["seconds"] > 0 else None
        doc["run"] = {"seconds": round(seconds, 3),
                      "games_per_second": round(doc["games_read"] / seconds) if seconds > 0 else None,
                      "command": self.command_line}
        return doc

    def commit(self):
        if isinstance(self.output, ChunkOutput):
            return
        doc = self.document()
        if self.output is not None:
            from pgntools.stats.text import summary_text

            self.output.write(summary_text(doc).encode("utf-8"))
        if self.json is not None:
            self.json.write((json.dumps(doc, indent=1, ensure_ascii=False) + "\n").encode("utf-8"))
        if self.html is not None:
            from pgntools.stats.html import report_html

            self.html.write(report_html(doc).encode("utf-8"))


def _size(name: str) -> Optional[int]:
    """An input's bytes as stored (None: stdin, a URL)."""
    try:
        return os.stat(name).st_size if name != "<stdin>" else None
    except OSError:
        return None
