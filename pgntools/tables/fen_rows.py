"""Positions of games as an Arrow table (game_id, ply, san, fen: schema.POSITION_COLUMNS), for `to-fen`'s table formats."""
from __future__ import annotations

from typing import Optional, Sequence

import pyarrow as pa
import pyarrow.compute as pc

from pgntools.reader import STATUS_INVALID, GameBatch
from pgntools.tables import schema
from pgntools.tables.arrays import ints, numeric, scalar, strings, text
from pgntools.tables.build import game_ids, offsets, parents


def needs(per_ply: bool) -> dict:
    """What the reader records for these rows (as Sink.needs): the moves (the san column), and
    the FEN after every ply or the final one."""
    return {"moves": True, "fen_every_ply": per_ply, "final_fen": not per_ply}


def positions_table(batch: GameBatch, every_ply: bool, plies: Optional[Sequence[int]],
                    include_invalid: bool) -> pa.Table:
    """Rows (game_id, ply, san, fen) in input order: the final position of each game, or the start
    and every ply (optionally only the plies asked for). Invalid games are left out unless asked;
    then their positions run up to the last legal move. Games whose start could not be set up
    (invalid FEN, unsupported variant) have no positions."""
    n = batch.n_games
    games = game_ids(pa.arange(0, n), batch)
    empty = pa.repeat(text([""])[0], n)
    status = numeric(batch, "status", pa.uint8())
    keep_game = numeric(batch, "replayed", pa.uint8()).cast(pa.bool_())
    if not include_invalid:
        keep_game = pc.and_(keep_game, pc.not_equal(status, scalar(STATUS_INVALID, pa.uint8())))
    ply_count = numeric(batch, "ply_count", pa.int32())

    if not every_ply and plies is None:  # the final position of each game
        sans = strings(batch, "san")  # empty unless moves were recorded (formats with a move column)
        if len(sans):
            move_offsets = offsets(batch, "move_start", len(sans))
            zero = scalar(0, pa.int32())
            last = pc.subtract(move_offsets.slice(1), scalar(1, pa.int32()))
            last_san = pc.if_else(pc.greater(ply_count, zero), pc.take(sans, pc.max_element_wise(last, zero)), empty)
        else:
            last_san = empty
        table = pa.Table.from_arrays([games, ply_count.cast(pa.int16()), last_san, strings(batch, "final_fen")],
                                     schema=schema.POSITIONS)
        return table.filter(keep_game)

    n_moves = len(batch.buffer("from_square"))
    move_offsets = offsets(batch, "move_start", n_moves)
    move_game = parents(move_offsets, n_moves)
    start = pa.Table.from_arrays([games, pa.repeat(scalar(0, pa.int16()), n), empty, strings(batch, "start_fen")],
                                 schema=schema.POSITIONS).filter(keep_game)
    moves = pa.Table.from_arrays([game_ids(move_game, batch), numeric(batch, "ply", pa.int16()),
                                  strings(batch, "san"), strings(batch, "fen")], schema=schema.POSITIONS)
    moves = moves.filter(pc.take(keep_game, move_game))
    key, ply = (c.name for c in schema.POSITION_COLUMNS[:2])
    table = pa.concat_tables([start, moves]).sort_by([(key, "ascending"), (ply, "ascending")])
    if plies is not None:
        table = table.filter(pc.is_in(table.column(ply), value_set=ints(sorted(set(plies)), pa.int16())))
    return table
