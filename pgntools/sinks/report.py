"""`--report`: JSON Lines, one object per game that is not clean (invalid, fixed, or with notes)."""
from __future__ import annotations

from pgntools.reader import GameBatch
from pgntools.sinks.base import Sink


def report_record(game) -> dict:
    return {
        "game": game.index, "file": game.source, "offset": game.offset, "line": game.line, "status": game.status,
        "errors": [{"kind": e.kind, "ply": e.ply, "token": e.token, "message": e.message, "line": e.line,
                    "column": e.column, "offset": e.byte_offset} for e in game.errors],
        "fixes": game.fixes,
        "notes": game.notes,
    }


class ReportSink(Sink):
    """JSON Lines: one object per game that is not clean (invalid, fixed, or with notes)."""

    # the game's id and line are in each record; its messages quote tag values (FEN, Variant)
    needs = {"numbered": True, "tag_values": True}

    def __init__(self, output):
        self.output = output

    def write(self, batch: GameBatch):
        import json  # here, not at start-up: only --report and --summary need it (~1.5 ms)

        lines = [json.dumps(report_record(g), ensure_ascii=False) + "\n" for g in batch.games(batch.unclean())]
        if lines:
            self.output.write("".join(lines).encode("utf-8"))
