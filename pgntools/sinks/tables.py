"""Arrow tables from a GameBatch, column by column (no Python objects per move or tag)."""
from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from pgntools.reader import ERROR_KINDS, OUTCOMES, PIECES, RESULTS, STATUSES, GameBatch
from pgntools.sinks import schema
from pgntools.sinks.arrays import ints, numeric, scalar, strings, text, with_validity

PIECE_NAMES = text(PIECES[1:])  # dictionary: index 0 = pawn
STATUS_NAMES = text(STATUSES)
OUTCOME_NAMES = text(OUTCOMES[1:])
RESULT_NAMES = text(RESULTS)
ERROR_NAMES = text(ERROR_KINDS)
NO_STRING = pa.nulls(1, pa.string())
TAG_COLUMN_NAMES = text(schema.TAG_COLUMNS)  # the tags with a column of their own


def offsets(batch: GameBatch, start_column: str, total: int) -> pa.Array:
    """CSR offsets (n_games + 1) of a child table from its per-game start column."""
    return pa.concat_arrays([numeric(batch, start_column, pa.int32()), ints([total], pa.int32())])


def parents(offs: pa.Array, total: int) -> pa.Array:
    """For each child row, the batch-local index of its game."""
    return pa.ListArray.from_arrays(offs, pa.nulls(total, pa.int8())).value_parent_indices()


def game_ids(local: pa.Array, batch: GameBatch) -> pa.Array:
    """Batch-local game indexes as game_ids (input order over all inputs)."""
    return pc.add(local.cast(pa.int64()), scalar(batch.first_game, pa.int64()))


def flag(bits: pa.Array, bit: int) -> pa.Array:
    return pc.not_equal(pc.bit_wise_and(bits, scalar(bit, bits.type)), scalar(0, bits.type))


def dictionary(codes: pa.Array, names: pa.Array) -> pa.DictionaryArray:
    """Codes 1..k as a dictionary over names[0..k-1]; code 0 is null."""
    indices = pc.subtract(codes.cast(pa.int8()), scalar(1, pa.int8()))
    return pa.DictionaryArray.from_arrays(with_validity(indices, codes.cast(pa.bool_())), names)


def masked(values: pa.Array, has: pa.Array, bit: int) -> pa.Array:
    return with_validity(values, flag(has, bit))


def moves_table(batch: GameBatch, with_comment: bool = False, with_fen: bool = False) -> pa.Table:
    n_moves = len(batch.raw["from_square"])
    move_offsets = offsets(batch, "move_start", n_moves)
    game_of = parents(move_offsets, n_moves)
    flags, has = numeric(batch, "flags", pa.uint8()), numeric(batch, "has", pa.uint8())
    nag_values = numeric(batch, "nag", pa.uint8())
    nags = pa.ListArray.from_arrays(offsets(batch, "nag_start", len(nag_values)), nag_values)
    columns = [
        game_ids(game_of, batch),
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


def tag_columns(batch: GameBatch, values: pa.Array) -> dict:
    """{tag: per-game column} for schema.TAG_COLUMNS, from the slots the C reader filled
    (1 + the tag's row in the batch, 0 when the game lacks it: row 0 of the lookup is a null),
    which come tag by tag: one `take` gives every tag column as a slice."""
    n = batch.n_games
    slots = numeric(batch, "tag_slots", pa.int32())
    lookup = pa.concat_arrays([NO_STRING, values])
    every_tag = pc.take(lookup, slots)
    columns = {}
    for i, tag in enumerate(schema.TAG_COLUMNS):
        column = every_tag.slice(i * n, n)
        if tag in schema.INTEGER_TAGS:
            digits = pc.match_substring_regex(column, r"^[0-9]{1,9}$")
            column = pc.if_else(digits, column, NO_STRING[0]).cast(pa.int32())
        columns[tag] = column
    return columns


def games_table(batch: GameBatch) -> pa.Table:
    n = batch.n_games
    names, values = strings(batch, "tag_name"), strings(batch, "tag_value")
    tag_offsets = offsets(batch, "tag_start", len(names))
    others = pc.invert(pc.is_in(names, value_set=TAG_COLUMN_NAMES))
    kept_before = pc.cumulative_sum(pa.concat_arrays([ints([0], pa.int32()), others.cast(pa.int32())]))
    other_offsets = pc.take(kept_before, tag_offsets).cast(pa.int32())
    tags_map = pa.MapArray.from_arrays(other_offsets, pc.filter(names, others), pc.filter(values, others))
    tags = tag_columns(batch, values)
    status = numeric(batch, "status", pa.uint8())
    columns = [
        game_ids(pa.arange(0, n), batch),
        pa.repeat(text([batch.source])[0], n),
        numeric(batch, "offset", pa.int64()),
        *tags.values(),
        tags_map,
        strings(batch, "start_fen"),
        pc.take(RESULT_NAMES, numeric(batch, "result", pa.uint8())),
        tags["Result"],
        pa.DictionaryArray.from_arrays(status.cast(pa.int8()), STATUS_NAMES),
        errors_column(batch),
        numeric(batch, "ply_count", pa.int32()),
        dictionary(numeric(batch, "outcome", pa.uint8()), OUTCOME_NAMES),
        strings(batch, "final_fen"),
    ]
    return pa.Table.from_arrays(columns, schema=schema.GAMES)


def errors_column(batch: GameBatch) -> pa.Array:
    """Errors per game as list<struct<kind, ply, message>>: the error table's rows, with the
    messages (a small Python loop over the errors only)."""
    kinds, plies = numeric(batch, "error_kind", pa.uint8()), numeric(batch, "error_ply", pa.int32())
    error_offsets = offsets(batch, "error_start", len(kinds))
    errors = pa.StructArray.from_arrays(
        [pc.take(ERROR_NAMES, kinds), with_validity(plies, plies.cast(pa.bool_())), text(batch.error_messages())],
        fields=list(schema.GAMES.field("errors").type.value_type))
    return pa.ListArray.from_arrays(error_offsets, errors)
