"""--format json (pgn-extract --json): the games as JSON Lines, one object a game: its tags (in
the input's order), start position, mainline moves (SAN and UCI, with their NAGs, comments,
clocks and evaluations) and result. Valid and fixed games, as the export-format PGN has them."""
from __future__ import annotations

import json

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


class JsonGamesSink(Sink):
    """One JSON object a valid or fixed game, a line each (UTF-8)."""

    needs = {"moves": True, "comments": True, "tag_values": True}

    def __init__(self, output):
        self.output = output

    def write(self, batch: GameBatch):
        status = batch.column("status")
        indices = [g for g in range(batch.n_games) if status[g] in (STATUS_VALID, STATUS_FIXED)]
        if indices:
            lines = [json.dumps(game_object(game), ensure_ascii=False) + "\n" for game in batch.games(indices)]
            self.output.write("".join(lines).encode("utf-8"))
