"""`--report`: JSON Lines, one object per game that is not clean (invalid, fixed, or with notes)."""
from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from pgntools.sinks.base import Sink

if TYPE_CHECKING:  # (not at run time: --help reads REPORT_LEVELS before any reader is loaded)
    from pgntools.reader import GameBatch


def report_record(game) -> dict:
    """A report line: errors, fixes and notes (pgntools.records.Finding) in the report's JSON shapes."""
    record = {"game": game.index, "file": game.source, "offset": game.offset, "line": game.line}
    if is_table_input(game.source):  # (a table's game is its row, read as one line: inputs/arrow_games)
        record["row"] = game.line - 1
    return {**record, "status": game.status,
            "errors": [e.report_dict() for e in game.errors],
            "fixes": [f.report_dict() for f in game.fixes],
            "notes": [n.report_dict() for n in game.notes]}


@lru_cache(maxsize=256)
def is_table_input(source: str) -> bool:
    """Whether the input named ``source`` is a table (Parquet, Arrow) read one row a game."""
    from pgntools.inputs.arrow_games import TABLE_NAMES, is_table_path

    return source in TABLE_NAMES or (not source.startswith("<") and is_table_path(source))


# --report-level: the least status a game needs to be reported (0 also takes valid games with notes)
REPORT_LEVELS = {"errors": 2, "fixes": 1, "notes": 0}


class ReportSink(Sink):
    """JSON Lines: one object per game that is not clean (invalid, fixed, or with notes), or with
    ``level`` "fixes" only invalid and fixed games, "errors" only invalid ones."""

    # the game's id and line are in each record; its messages quote tag values (FEN, Variant)
    needs = {"numbered": True, "tag_values": True}

    def __init__(self, output, level: str = "notes"):
        self.output = output
        self.least = REPORT_LEVELS[level]

    def write(self, batch: GameBatch):
        import json  # here, not at start-up: only --report and --summary need it (~1.5 ms)

        games = batch.unclean()
        if self.least:
            status = batch.column("status")
            games = [g for g in games if status[g] >= self.least]
        records = [(g.index, report_record(g)) for g in batch.games(games)]
        duplicates = getattr(batch, "duplicates", None)
        if duplicates:  # the games --dedup dropped (always reported), in input order with the others
            from pgntools.dedup import report_record as duplicate_record

            mode = batch.dedup_mode
            records = sorted(records + [(d.game, duplicate_record(d, mode)) for d in duplicates], key=lambda r: r[0])
        lines = [json.dumps(record, ensure_ascii=False) + "\n" for _, record in records]
        if lines:
            self.output.write("".join(lines).encode("utf-8"))
