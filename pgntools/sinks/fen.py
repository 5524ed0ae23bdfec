"""`pgntools to-fen` outputs: positions as FEN lines, EPD, CSV, JSON Lines or Parquet."""
from __future__ import annotations

import io
import json
from typing import TYPE_CHECKING

from pgntools.pipeline import AtomicOutput
from pgntools.reader import STATUS_INVALID, GameBatch

if TYPE_CHECKING:
    import pyarrow as pa

# pyarrow is imported only by the formats that need it: final FEN lines start and run without it.


class PositionSink:
    """Writes the positions of each batch in one of FORMATS."""

    def __init__(self, output: AtomicOutput, fmt: str, every_ply: bool, plies, include_invalid: bool,
                 c0: bool = False):
        self.output, self.format = output, fmt
        self.every_ply, self.plies, self.include_invalid, self.c0 = every_ply, plies, include_invalid, c0
        self.header_written = False
        self.parquet = None
        if fmt == "parquet":
            import pyarrow.parquet as pq

            from pgntools.sinks.schema import POSITIONS

            self.parquet = pq.ParquetWriter(output.file, POSITIONS, compression="zstd")

    def write(self, batch: GameBatch):
        if self.format == "fen" and not self.every_ply and self.plies is None:
            self.output.write(self.final_fen_lines(batch).encode("utf-8"))
            return
        from pgntools.sinks.positions import positions_table

        table = positions_table(batch, self.every_ply, self.plies, self.include_invalid)
        if self.format == "parquet":
            self.parquet.write_table(table)
        elif self.format == "csv":
            self.write_csv(table)
        else:
            text = {"fen": self.fen_lines, "epd": self.epd_lines, "jsonl": self.json_lines}[self.format](table, batch)
            self.output.write(text.encode("utf-8"))

    def commit(self):
        if self.format == "csv" and not self.header_written:  # no rows: still a CSV with its columns
            from pgntools.sinks.schema import POSITIONS

            self.write_csv(POSITIONS.empty_table())
        self.close()

    def abort(self):
        self.close()

    def close(self):
        if self.parquet is not None:
            self.parquet.close()

    def final_fen_lines(self, batch: GameBatch) -> str:
        """The common case, without Arrow: one final FEN per game that was replayed."""
        status, replayed = batch.column("status"), batch.column("replayed")
        lines = [fen for fen, st, rep in zip(batch.strings("final_fen"), status, replayed)
                 if rep and (st != STATUS_INVALID or self.include_invalid)]
        return "\n".join(lines) + "\n" if lines else ""

    @staticmethod
    def fen_lines(table: pa.Table, batch: GameBatch) -> str:
        fens = table.column("fen").to_pylist()
        return "\n".join(fens) + "\n" if fens else ""

    def epd_lines(self, table: pa.Table, batch: GameBatch) -> str:
        c0 = {}
        if self.c0:
            for game in batch.games():
                h = game.headers
                c0[game.index] = f' c0 "{_epd(h.get("White", "?"))}-{_epd(h.get("Black", "?"))}, {_epd(h.get("Event", "?"))}";'
        lines = []
        for game, ply, fen in zip(*(table.column(c).to_pylist() for c in ("game_id", "ply", "fen"))):
            fields = fen.split(" ")
            lines.append(f'{" ".join(fields[:4])} hmvc {fields[4]}; fmvn {fields[5]}; id "{game}:{ply}";{c0.get(game, "")}\n')
        return "".join(lines)

    @staticmethod
    def json_lines(table: pa.Table, batch: GameBatch) -> str:
        return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in table.to_pylist())

    def write_csv(self, table: pa.Table):
        import pyarrow.csv as csv

        buffer = io.BytesIO()
        csv.write_csv(table, buffer, csv.WriteOptions(include_header=not self.header_written, quoting_style="needed"))
        self.header_written = True
        self.output.write(buffer.getvalue())


def _epd(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')
