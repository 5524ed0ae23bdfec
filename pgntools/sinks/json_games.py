"""--format json (pgn-extract --json): the games as JSON Lines, one object a game: its tags (in
the input's order), start position, mainline moves (SAN and UCI, with their NAGs, comments,
clocks and evaluations) and result. Valid and fixed games, as the export-format PGN has them."""
from __future__ import annotations

import json
from typing import List, Optional

from pgntools.reader import HAS_BITS, STATUS_FIXED, STATUS_VALID, GameBatch
from pgntools.sinks.base import Sink

WRITTEN = ("valid", "fixed")


def game_object(game, with_moves: bool = True) -> dict:
    """One game's JSON object (a pgntools.records.Game with its moves; without them, an empty list)."""
    moves = []
    for ply, move in enumerate(game.moves if with_moves else (), 1):
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
    --format json (validate, filter and split write these lines). The text is json.dumps of
    game_object, the moves made from the batch's move columns (move_items), not Move records:
    building a record a move was two thirds of the writer's time."""
    from pgntools.records import MoveRows

    status = batch.column("status")
    indices = [g for g in range(batch.n_games) if status[g] in (STATUS_VALID, STATUS_FIXED)]
    lines: List[Optional[bytes]] = [None] * batch.n_games
    dumps = json.JSONEncoder(ensure_ascii=False).encode
    for g, game in zip(indices, batch.games(indices)):
        rows = game.__dict__.get("_moves")
        if type(rows) is not MoveRows:  # (moves already made into records)
            lines[g] = (dumps(game_object(game)) + "\n").encode("utf-8")
            continue
        head = game_object(game, with_moves=False)
        lines[g] = (f'{{"game": {head["game"]}, "tags": {dumps(head["tags"])}, "start_fen": {dumps(head["start_fen"])}, '
                    f'"moves": [{move_items(rows, dumps)}], "result": {dumps(head["result"])}}}\n').encode("utf-8")
    return lines


def move_items(rows, dumps) -> str:
    """The JSON text of a game's moves (``rows``: its rows of the batch's move table), each item
    as json.dumps writes game_object's: ply, san, uci, then nags, comment, clock, emt, eval_cp,
    eval_mate when the move has them. SAN and UCI need no escaping (letters, digits, -+#=@)."""
    table = rows.table
    has, clock, emt, eval_cp, eval_mate, nag_starts, nag_ends, nags = table.columns()
    sans, ucis, comments = table.strings("san"), table.strings("uci"), table.strings("comment")
    extra = (("clock", HAS_BITS["clock"], clock), ("emt", HAS_BITS["emt"], emt),
             ("eval_cp", HAS_BITS["eval_cp"], eval_cp), ("eval_mate", HAS_BITS["eval_mate"], eval_mate))
    has_comment = HAS_BITS["comment"]
    items = []
    for ply, i in enumerate(range(rows.start, rows.end), 1):
        item = f'{{"ply": {ply}, "san": "{sans[i]}", "uci": "{ucis[i]}"'
        h = has[i]
        if nag_starts[i] != nag_ends[i]:
            item += f', "nags": {dumps(nags[nag_starts[i]:nag_ends[i]])}'
        if h:
            if comments and h & has_comment and comments[i]:
                item += f', "comment": {dumps(comments[i])}'
            for name, bit, column in extra:
                if h & bit:
                    item += f', "{name}": {dumps(column[i])}'
        items.append(item + "}")
    return ", ".join(items)


class JsonGamesSink(Sink):
    """One JSON object a valid or fixed game, a line each (UTF-8)."""

    needs = NEEDS

    def __init__(self, output):
        self.output = output

    def write(self, batch: GameBatch):
        text = b"".join(line for line in game_lines(batch) if line is not None)
        if text:
            self.output.write(text)
