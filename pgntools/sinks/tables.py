"""Arrow tables from a GameBatch, column by column (no Python objects per move or tag)."""
from __future__ import annotations

from typing import List

import pyarrow as pa
import pyarrow.compute as pc

from pgntools.reader import OUTCOMES, PIECES, RESULTS, STATUSES, GameBatch, game_errors
from pgntools.sinks import schema

PIECE_NAMES = pa.array(PIECES[1:], pa.string())  # dictionary: index 0 = pawn
STATUS_NAMES = pa.array(STATUSES, pa.string())
OUTCOME_NAMES = pa.array(OUTCOMES[1:], pa.string())
RESULT_NAMES = pa.array(RESULTS, pa.string())


def numeric(batch: GameBatch, name: str, type_: pa.DataType) -> pa.Array:
    data = batch.raw[name]
    return pa.Array.from_buffers(type_, len(data) // type_.byte_width, [None, pa.py_buffer(data)])


def strings(batch: GameBatch, name: str) -> pa.Array:
    offsets, data = batch.string_buffers(name)
    return pa.StringArray.from_buffers(len(offsets) // 4 - 1, pa.py_buffer(offsets), pa.py_buffer(data))


def offsets(batch: GameBatch, start_column: str, total: int) -> pa.Array:
    """CSR offsets (n_games + 1) of a child table from its per-game start column."""
    starts = numeric(batch, start_column, pa.int32())
    return pa.concat_arrays([starts, pa.array([total], pa.int32())])


def parents(offs: pa.Array, total: int) -> pa.Array:
    """For each child row, the batch-local index of its game."""
    return pa.ListArray.from_arrays(offs, pa.nulls(total, pa.int8())).value_parent_indices()


def valid_where(values: pa.Array, valid: pa.Array) -> pa.Array:
    """`values` (without nulls) with nulls where `valid` is false, reusing the boolean array's
    bitmap as the validity buffer."""
    return pa.Array.from_buffers(values.type, len(values), [valid.buffers()[1], *values.buffers()[1:]])


def flag(bits: pa.Array, bit: int) -> pa.Array:
    return pc.not_equal(pc.bit_wise_and(bits, pa.scalar(bit, bits.type)), pa.scalar(0, bits.type))


def dictionary(codes: pa.Array, names: pa.Array) -> pa.DictionaryArray:
    """Codes 1..k as a dictionary over names[0..k-1]; code 0 is null."""
    indices = pc.subtract(codes.cast(pa.int8()), pa.scalar(1, pa.int8()))
    valid = pc.not_equal(codes, pa.scalar(0, codes.type))
    return pa.DictionaryArray.from_arrays(valid_where(indices, valid), names)


def masked(values: pa.Array, has: pa.Array, bit: int) -> pa.Array:
    return valid_where(values, flag(has, bit))


def moves_table(batch: GameBatch, with_comment: bool = False, with_fen: bool = False) -> pa.Table:
    n_moves = len(batch.raw["from_square"])
    move_offsets = offsets(batch, "move_start", n_moves)
    game_of = parents(move_offsets, n_moves)
    flags, has = numeric(batch, "flags", pa.uint8()), numeric(batch, "has", pa.uint8())
    nag_values = numeric(batch, "nag", pa.uint8())
    nags = pa.ListArray.from_arrays(offsets(batch, "nag_start", len(nag_values)), nag_values)
    columns = [
        pc.add(game_of, batch.first_game),
        numeric(batch, "ply", pa.int16()),
        strings(batch, "san"),
        strings(batch, "uci"),
        numeric(batch, "from_square", pa.uint8()),
        numeric(batch, "to_square", pa.uint8()),
        dictionary(numeric(batch, "piece", pa.uint8()), PIECE_NAMES),
        dictionary(numeric(batch, "captured", pa.uint8()), PIECE_NAMES),
        dictionary(numeric(batch, "promotion", pa.uint8()), PIECE_NAMES),
        flag(flags, 1), flag(flags, 2), flag(flags, 4), flag(flags, 8), flag(flags, 16),
        numeric(batch, "halfmove_clock", pa.uint16()),
        masked(numeric(batch, "clock", pa.float64()), has, 1),
        masked(numeric(batch, "emt", pa.float64()), has, 2),
        masked(numeric(batch, "eval_cp", pa.int32()), has, 4),
        masked(numeric(batch, "eval_mate", pa.int16()), has, 8),
        nags,
    ]
    if with_comment:
        columns.append(masked(strings(batch, "comment"), has, 16))
    if with_fen:
        columns.append(strings(batch, "fen"))
    return pa.Table.from_arrays(columns, schema=schema.moves_schema(with_comment, with_fen))


def tag_column(names: pa.Array, values: pa.Array, tag_game: pa.Array, n_games: int, tag: str) -> pa.Array:
    """One tag as a per-game column (null where the game lacks it)."""
    mask = pc.equal(names, tag)
    games_with = pc.filter(tag_game, mask)
    where = pc.index_in(pa.array(range(n_games), pa.int64()), value_set=games_with)
    column = pc.take(pc.filter(values, mask), where)
    if tag in schema.INTEGER_TAGS:
        digits = pc.match_substring_regex(column, r"^[0-9]{1,9}$")
        column = pc.if_else(digits, column, pa.scalar(None, pa.string())).cast(pa.int32())
    return column


def games_table(batch: GameBatch) -> pa.Table:
    n = batch.n_games
    names, values = strings(batch, "tag_name"), strings(batch, "tag_value")
    tag_offsets = offsets(batch, "tag_start", len(names))
    tag_game = parents(tag_offsets, len(names))
    others = pc.invert(pc.is_in(names, value_set=pa.array(schema.TAG_COLUMNS)))
    kept_before = pc.cumulative_sum(pa.concat_arrays([pa.array([0], pa.int32()), others.cast(pa.int32())]))
    other_offsets = pc.take(kept_before, tag_offsets).cast(pa.int32())
    tags_map = pa.MapArray.from_arrays(other_offsets, pc.filter(names, others), pc.filter(values, others))
    status = numeric(batch, "status", pa.uint8())
    columns = [
        pc.add(pa.array(range(n), pa.int64()), batch.first_game),
        pa.array([batch.source] * n, pa.string()),
        numeric(batch, "offset", pa.int64()),
        *[tag_column(names, values, tag_game, n, tag) for tag in schema.TAG_COLUMNS],
        tags_map,
        strings(batch, "start_fen"),
        pc.take(RESULT_NAMES, numeric(batch, "result", pa.uint8())),
        tag_column(names, values, tag_game, n, "Result"),
        pa.DictionaryArray.from_arrays(status.cast(pa.int8()), STATUS_NAMES),
        errors_column(batch),
        numeric(batch, "ply_count", pa.int32()),
        dictionary(numeric(batch, "outcome", pa.uint8()), OUTCOME_NAMES),
        strings(batch, "final_fen"),
    ]
    return pa.Table.from_arrays(columns, schema=schema.GAMES)


def errors_column(batch: GameBatch) -> pa.Array:
    """Errors per game: a small Python loop, only over the games that have any."""
    n_errors = len(batch.raw["error_kind"])
    per_game: List[list] = [[] for _ in range(batch.n_games)]
    if n_errors:
        starts = batch.column("error_start").tolist() + [n_errors]
        names, values = batch.strings("tag_name"), batch.strings("tag_value")
        tag_starts = batch.column("tag_start").tolist() + [len(names)]
        cache: dict = {}
        for g in range(batch.n_games):
            if starts[g] != starts[g + 1]:
                tags = dict(zip(names[tag_starts[g]:tag_starts[g + 1]], values[tag_starts[g]:tag_starts[g + 1]]))
                per_game[g] = [{"kind": e.kind, "ply": e.ply, "message": e.message}
                               for e in game_errors(batch, g, (starts[g], starts[g + 1]), tags, cache)]
    return pa.array(per_game, schema.GAMES.field("errors").type)
