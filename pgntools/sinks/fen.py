"""`pgntools to-fen` outputs: positions as FEN lines, EPD, CSV, JSON Lines or Parquet."""
from __future__ import annotations

import io
import json
from typing import TYPE_CHECKING

from pgntools.reader import STATUS_INVALID, GameBatch
from pgntools.sinks.base import Sink, numbered_from_first

if TYPE_CHECKING:
    import pyarrow as pa

# pyarrow is imported only by the formats that need it: final FEN lines start and run without it.


class PositionSink(Sink):
    """Writes the positions of each batch in one of FORMATS. In a parallel run the CSV header
    goes with the run's first game, and each chunk's Parquet rows are appended to the one file."""

    def __init__(self, output, fmt: str, every_ply: bool, plies, include_invalid: bool, c0: bool = False,
                 en_passant: str = "legal", shredder: bool = False):
        self.output, self.format = output, fmt
        self.every_ply, self.plies, self.include_invalid, self.c0 = every_ply, plies, include_invalid, c0
        per_ply = every_ply or bool(plies)
        self.needs = {"moves": per_ply or fmt in ("csv", "jsonl", "parquet"), "fen_every_ply": per_ply,
                      "final_fen": not per_ply, "numbered": fmt != "fen", "tag_values": c0,
                      "en_passant": en_passant, "shredder": shredder}
        # a worker's chunk after the run's first game: its rows go under the first chunk's header
        self.header_written = not getattr(output, "starts_run", True)
        self.parquet = None
        if fmt == "parquet":
            import pyarrow.parquet as pq

            from pgntools.sinks.schema import POSITIONS

            self.parquet = pq.ParquetWriter(output.file, POSITIONS, compression="zstd")

    def write(self, batch: GameBatch):
        if self.format == "fen" and not self.every_ply and self.plies is None:
            self.output.write(self.final_fen_lines(batch).encode("utf-8"))
            return
        numbered_from_first(batch, "the positions table")
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

    def merge(self, part: bytes):
        """A worker's chunk: its bytes, or for Parquet its rows, read back and appended."""
        if not part:
            return
        if self.parquet is not None:
            import pyarrow.parquet as pq

            self.parquet.write_table(pq.read_table(io.BytesIO(part)))
            return
        self.output.write(part)
        self.header_written = True  # the run's first rows came with the header

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
