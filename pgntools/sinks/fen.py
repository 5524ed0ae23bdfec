"""`pgntools to-fen` outputs: positions as FEN lines, EPD, CSV, JSON Lines or Parquet."""
from __future__ import annotations

import io
import json
from typing import Optional, Sequence

import pyarrow as pa
import pyarrow.compute as pc

from pgntools.pipeline import AtomicOutput
from pgntools.reader import GameBatch
from pgntools.sinks import FORMATS, schema  # noqa: F401 (FORMATS re-exported)
from pgntools.sinks.tables import numeric, offsets, parents, strings


def positions_table(batch: GameBatch, every_ply: bool, plies: Optional[Sequence[int]],
                    include_invalid: bool) -> pa.Table:
    """Rows (game, ply, move, fen) in input order: the final position of each game, or the start
    and every ply (optionally only the plies asked for). Invalid games are left out unless asked;
    then their positions run up to the last legal move. Games whose start could not be set up
    (invalid FEN, unsupported variant) have no positions."""
    n = batch.n_games
    game_ids = pc.add(pa.array(range(n), pa.int64()), batch.first_game)
    status = numeric(batch, "status", pa.uint8())
    keep_game = numeric(batch, "replayed", pa.uint8()).cast(pa.bool_())
    if not include_invalid:
        keep_game = pc.and_(keep_game, pc.not_equal(status, 2))
    ply_count = numeric(batch, "ply_count", pa.int32())

    if not every_ply and plies is None:  # the final position of each game
        sans = strings(batch, "san")  # empty unless moves were recorded (formats with a move column)
        if len(sans):
            move_offsets = offsets(batch, "move_start", len(sans))
            last = pc.subtract(pc.take(move_offsets, pa.array(range(1, n + 1))), 1)
            last_san = pc.if_else(pc.greater(ply_count, 0), pc.take(sans, pc.max_element_wise(last, 0)), "")
        else:
            last_san = pa.array([""] * n, pa.string())
        table = pa.Table.from_arrays([game_ids, ply_count.cast(pa.int16()), last_san, strings(batch, "final_fen")],
                                     schema=schema.POSITIONS)
        return table.filter(keep_game)

    n_moves = len(batch.raw["from_square"])
    move_offsets = offsets(batch, "move_start", n_moves)
    move_game = parents(move_offsets, n_moves)
    start = pa.Table.from_arrays([game_ids, pa.array([0] * n, pa.int16()), pa.array([""] * n, pa.string()),
                                  strings(batch, "start_fen")], schema=schema.POSITIONS).filter(keep_game)
    moves = pa.Table.from_arrays([pc.add(move_game, batch.first_game), numeric(batch, "ply", pa.int16()),
                                  strings(batch, "san"), strings(batch, "fen")], schema=schema.POSITIONS)
    moves = moves.filter(pc.take(keep_game, move_game))
    table = pa.concat_tables([start, moves]).sort_by([("game", "ascending"), ("ply", "ascending")])
    if plies is not None:
        table = table.filter(pc.is_in(table.column("ply"), value_set=pa.array(sorted(set(plies)), pa.int16())))
    return table


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

            self.parquet = pq.ParquetWriter(output.file, schema.POSITIONS, compression="zstd")

    def write(self, batch: GameBatch):
        table = positions_table(batch, self.every_ply, self.plies, self.include_invalid)
        if self.format == "parquet":
            self.parquet.write_table(table)
        elif self.format == "csv":
            self.write_csv(table)
        else:
            text = {"fen": self.fen_lines, "epd": self.epd_lines, "jsonl": self.json_lines}[self.format](table, batch)
            self.output.write(text.encode("utf-8"))

    def commit(self):
        if self.parquet is not None:
            self.parquet.close()

    abort = commit

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
        for game, ply, fen in zip(*(table.column(c).to_pylist() for c in ("game", "ply", "fen"))):
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
