"""--format json (pgn-extract --json): the games as JSON Lines, one object a game: its tags (in
the input's order), start position, mainline moves (SAN and UCI, with their NAGs, comments,
clocks and evaluations) and result. Valid and fixed games, as the export-format PGN has them."""
from __future__ import annotations

import json
from typing import List, Optional

from pgntools.reader import STATUS_FIXED, STATUS_VALID, GameBatch
from pgntools.sinks.base import Sink

WRITTEN = ("valid", "fixed")


def game_object(game) -> dict:
    """One game's JSON object (a pgntools.records.Game with its moves)."""
    moves = []
    for ply, move in enumerate(game.moves, 1):
        item = {"ply": ply, "san": move.san, "uci": move.uci}
        if move.nags:
            item["nags"] = move.nags
        if move.comment:
            item["comment"] = move.comment
        for name in ("clock", "emt", "eval_cp", "eval_mate"):
            value = getattr(move, name)
            if value is not None:
                item[name] = value
        moves.append(item)
    tags: dict = {}
    for name, value in game.tags:  # (a repeated tag: the last, as the export format writes it)
        tags[name] = value
    tags["Result"] = game.result  # (the result the game ends with, fixed or not)
    return {"game": game.index, "tags": tags, "start_fen": game.start_fen, "moves": moves, "result": game.result}


# What the reader records for these objects (as Sink.needs)
NEEDS = {"moves": True, "comments": True, "tag_values": True}


def game_lines(batch: GameBatch) -> List[Optional[bytes]]:
    """Each game's JSON line (UTF-8), None for a game not written (invalid): the one writer of
    --format json (validate, filter and split write these lines)."""
    status = batch.column("status")
    indices = [g for g in range(batch.n_games) if status[g] in (STATUS_VALID, STATUS_FIXED)]
    lines: List[Optional[bytes]] = [None] * batch.n_games
    for g, game in zip(indices, batch.games(indices)):
        lines[g] = (json.dumps(game_object(game), ensure_ascii=False) + "\n").encode("utf-8")
    return lines


class JsonGamesSink(Sink):
    """One JSON object a valid or fixed game, a line each (UTF-8)."""

    needs = NEEDS

    def __init__(self, output):
        self.output = output

    def write(self, batch: GameBatch):
        text = b"".join(line for line in game_lines(batch) if line is not None)
        if text:
            self.output.write(text)
