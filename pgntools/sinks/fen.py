"""`pgntools to-fen` outputs: positions as FEN lines, EPD, CSV, JSON Lines or Parquet."""
from __future__ import annotations

import io
import json
from typing import TYPE_CHECKING

from pgntools import _core
from pgntools.reader import STATUS_INVALID, GameBatch
from pgntools.sinks.base import Sink

if TYPE_CHECKING:
    import pyarrow as pa

# pyarrow is imported only by the formats that need it: final FEN lines start and run without it.


class PositionSink(Sink):
    """Writes the positions of each batch in one of FORMATS. In a parallel run the CSV header
    goes with the run's first game, and each chunk's Parquet row groups are appended to the one file."""

    def __init__(self, output, fmt: str, every_ply: bool, plies, include_invalid: bool, c0: bool = False,
                 keep_invalid: bool = False, en_passant: str = "legal", shredder: bool = False):
        self.output, self.format = output, fmt
        self.every_ply, self.plies, self.include_invalid, self.c0 = every_ply, plies, include_invalid, c0
        self.keep_invalid = keep_invalid  # fen and epd: a marker line (MARKER) where an invalid game's would be
        per_ply = every_ply or bool(plies)
        self.needs = {"moves": per_ply or fmt in ("csv", "jsonl", "parquet"), "fen_every_ply": per_ply,
                      "final_fen": not per_ply, "numbered": fmt != "fen" or keep_invalid,  # (markers name the games)
                      "tag_values": c0, "en_passant": en_passant, "shredder": shredder}
        if self.final_lines_only():  # the batch's columns copied only when asked for (a few are)
            self.needs["detach"] = True
        # a worker's chunk after the run's first game: its rows go under the first chunk's header
        self.header_written = not getattr(output, "starts_run", True)
        self.parquet = None
        if fmt == "parquet":  # (our own writer: no pyarrow, pgntools/parquet/fen_rows_file.py)
            from pgntools.parquet.fen_rows_file import FenRowsFile

            self.parquet = FenRowsFile(output.file)

    def final_lines_only(self) -> bool:
        """The default output: one final FEN a game (made in one pass in C), no invalid-game markers."""
        return self.format == "fen" and not self.every_ply and self.plies is None and not self.keep_invalid

    def write(self, batch: GameBatch):
        if self.final_lines_only():
            self.output.write(_core.final_fen_lines(batch.raw, self.include_invalid, STATUS_INVALID))
            return
        if self.format == "fen" and not self.every_ply and self.plies is None:
            self.output.write(self.final_fen_lines(batch).encode("utf-8"))
            return
        if self.format == "parquet":
            from pgntools.parquet.fen_rows_file import fen_rows

            self.parquet.add(fen_rows(batch, self.every_ply or self.plies is not None, self.plies,
                                      self.include_invalid))
            return
        from pgntools.tables.fen_rows import positions_table

        table = positions_table(batch, self.every_ply, self.plies, self.include_invalid)
        if self.format == "csv":
            self.write_csv(table)
        else:
            text = {"fen": self.fen_lines, "epd": self.epd_lines, "jsonl": self.json_lines}[self.format](table, batch)
            if self.keep_invalid:
                text = with_markers(text, table.column("game_id").to_pylist(), invalid_games(batch))
            self.output.write(text.encode("utf-8"))

    def commit(self):
        if self.format == "csv" and not self.header_written:  # no rows: still a CSV with its columns
            from pgntools.tables.schema import POSITIONS

            self.write_csv(POSITIONS.empty_table())
        self.close()

    def close(self):
        if self.parquet is not None:
            self.parquet.close()

    def abort(self):
        if self.parquet is not None:
            self.parquet.abort()

    def finish_chunk(self):
        """Worker side: the chunk's bytes, or for Parquet its row groups (pages and footer entries)."""
        if self.parquet is not None:
            return self.parquet.pages(self.output.value())
        return super().finish_chunk()

    def merge(self, part):
        """A worker's chunk: its bytes, or for Parquet its row groups, appended."""
        if not part:
            return
        if self.parquet is not None:
            self.parquet.add_row_groups(*part)
            return
        self.output.write(part)
        self.header_written = True  # the run's first rows came with the header

    def final_fen_lines(self, batch: GameBatch) -> str:
        """The common case, without Arrow: one final FEN per game that was replayed."""
        status, replayed = batch.column("status"), batch.column("replayed")
        if self.keep_invalid:
            lines = [MARKER.format(game=batch.game_id(g)) if st == STATUS_INVALID else fen
                     for g, (fen, st, rep) in enumerate(zip(batch.strings("final_fen"), status, replayed))
                     if rep or st == STATUS_INVALID]
            return "\n".join(lines) + "\n" if lines else ""
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


# to-fen --keep-invalid: the line written for an invalid game (once, whatever --ply or
# --every-ply ask for), in input order among the positions; N is the 0-based game number, as
# in EPD ids ("N:ply"). A FEN reader sees a line that is no FEN; grep -v '^#' drops them.
MARKER = "# invalid game {game}"


def invalid_games(batch: GameBatch) -> list:
    status = batch.column("status")
    return [batch.game_id(g) for g in range(batch.n_games) if status[g] == STATUS_INVALID]


def with_markers(text: str, row_games: list, invalid: list) -> str:
    """``text``'s lines (one a row, in the order of ``row_games``) with a MARKER line for each
    game of ``invalid``, before the rows of the games after it."""
    lines = [line + "\n" for line in text.split("\n")[:-1]]  # (not splitlines: a c0 name may hold U+2028)
    out, i = [], 0
    for game in invalid:
        while i < len(lines) and row_games[i] < game:
            out.append(lines[i])
            i += 1
        out.append(MARKER.format(game=game) + "\n")
    out += lines[i:]
    return "".join(out)


def _epd(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')
