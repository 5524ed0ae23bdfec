"""`pgntools to-fen` outputs: positions as FEN lines, EPD, CSV, JSON Lines or Parquet."""
from __future__ import annotations

import json
from typing import TYPE_CHECKING

from pgntools import _core
from pgntools.reader import STATUS_INVALID, GameBatch
from pgntools.sinks.base import Sink

if TYPE_CHECKING:
    from pgntools.parquet.fen_rows_file import FenRows

# pyarrow is imported only by the formats that need it: final FEN lines start and run without it.


class PositionSink(Sink):
    """Writes the positions of each batch in one of FORMATS. In a parallel run the CSV header
    goes with the run's first game, and each chunk's Parquet row groups are appended to the one file."""

    def __init__(self, output, fmt: str, every_ply: bool, plies, include_invalid: bool, c0: bool = False,
                 keep_invalid: bool = False, en_passant: str = "legal", shredder: bool = False,
                 ply_window: tuple = (0, -1)):
        self.output, self.format = output, fmt
        self.every_ply, self.plies, self.include_invalid, self.c0 = every_ply, plies, include_invalid, c0
        self.keep_invalid = keep_invalid  # fen and epd: a marker line (MARKER) where an invalid game's would be
        self.ply_window = tuple(ply_window)  # --every-ply's plies [first, last] (--max-plies, --drop-plies)
        per_ply = every_ply or bool(plies)
        # the recorder makes the FEN of the plies asked for only (fen_plies, fen_ply_window): fen_format
        # is most of a recorded ply's cost, and --ply 20 wants one position of a game's ~80
        self.needs = {"moves": per_ply or fmt in ("csv", "jsonl", "parquet"), "fen_every_ply": per_ply,
                      "fen_plies": tuple(sorted(set(plies))) if plies else (), "fen_ply_window": self.ply_window,
                      "final_fen": not per_ply, "numbered": fmt != "fen" or keep_invalid,  # (markers name the games)
                      "tag_values": c0, "en_passant": en_passant, "shredder": shredder}
        if self.final_lines_only():  # the batch's columns copied only when asked for (a few are)
            self.needs["detach"] = True
        # a worker's chunk after the run's first game: its rows go under the first chunk's header
        self.header_written = not getattr(output, "starts_run", True)
        # --every-ply writes ~8 output bytes an input byte (the master file: 20 MB in, 150 MB of FEN),
        # which a worker holds until its chunk is merged: 128 KB chunks keep that to ~1-2 MB each
        self.max_chunk = EVERY_PLY_CHUNK if every_ply or (plies and len(plies) > 8) else None
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
        # the rows made in C (pgntools/_c/fen_rows.c), written without Arrow: importing pyarrow
        # alone is ~100 MB of RSS, three times what the rest of a run takes (issue 37 A5)
        from pgntools.parquet.fen_rows_file import fen_rows

        rows = fen_rows(batch, self.every_ply or self.plies is not None, self.plies, self.include_invalid,
                        self.ply_window)
        if self.format == "parquet":
            self.parquet.add(rows)
            return
        if self.format == "csv":
            self.output.write(self.csv_lines(rows))
            return
        if self.format == "fen" and not self.keep_invalid:
            self.output.write(_core.string_lines(rows.raw["fen"]))
            return
        if self.format in ("jsonl", "epd") and not self.keep_invalid and not self.c0:  # (made in C)
            self.output.write(_core.fen_row_text(rows.raw["game_id"], rows.raw["ply"], rows.raw["san"],
                                                 rows.raw["fen"], self.format))
            return
        text = {"fen": self.fen_lines, "epd": self.epd_lines, "jsonl": self.json_lines}[self.format](rows, batch)
        if self.keep_invalid:
            text = with_markers(text, row_values(rows)[0], invalid_games(batch))
        self.output.write(text.encode("utf-8"))

    def commit(self):
        if self.format == "csv" and not self.header_written:  # no rows: still a CSV with its columns
            self.output.write(CSV_HEADER.encode("utf-8"))
            self.header_written = True
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
    def fen_lines(rows: FenRows, batch: GameBatch) -> str:
        return _core.string_lines(rows.raw["fen"]).decode("utf-8")

    def epd_lines(self, rows: FenRows, batch: GameBatch) -> str:
        c0 = {}
        if self.c0:
            for game in batch.games():
                h = game.headers
                c0[game.index] = f' c0 "{_epd(h.get("White", "?"))}-{_epd(h.get("Black", "?"))}, {_epd(h.get("Event", "?"))}";'
        lines = []
        games, plies, _, fens = row_values(rows, san=False)
        for game, ply, fen in zip(games, plies, fens):
            fields = fen.split(" ")
            lines.append(f'{" ".join(fields[:4])} hmvc {fields[4]}; fmvn {fields[5]}; id "{game}:{ply}";{c0.get(game, "")}\n')
        return "".join(lines)

    @staticmethod
    def json_lines(rows: FenRows, batch: GameBatch) -> str:
        return "".join(json.dumps({"game_id": game, "ply": ply, "san": san, "fen": fen}, ensure_ascii=False) + "\n"
                       for game, ply, san, fen in zip(*row_values(rows)))

    def csv_lines(self, rows: FenRows) -> bytes:
        """The rows as CSV (as pyarrow's writer with quoting "needed" wrote them: strings quoted)."""
        text = _core.fen_row_text(rows.raw["game_id"], rows.raw["ply"], rows.raw["san"], rows.raw["fen"], "csv")
        if not self.header_written:  # (the run's first batch: a worker's chunk after it has none)
            text = CSV_HEADER.encode() + text
            self.header_written = True
        return text


EVERY_PLY_CHUNK = 128 << 10
CSV_HEADER = '"game_id","ply","san","fen"\n'


def row_values(rows: FenRows, san: bool = True):
    """The rows' columns as Python lists: game ids, plies, SANs (empty unless ``san``), FENs."""
    games = memoryview(rows.raw["game_id"]).cast("q").tolist()
    plies = memoryview(rows.raw["ply"]).cast("h").tolist()
    sans = _core.split_strings(*rows.raw["san"]) if san else []
    return games, plies, sans, _core.split_strings(*rows.raw["fen"])


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
