"""The Arrow/Parquet schema of `pgntools export` and `pgntools to-fen --format parquet`: the one
place where column names and types are declared (the README documents them from here).

Types are chosen for size: squares are uint8 (a1 = 0, h8 = 63), plies int16, pieces dictionary-
encoded strings, flags booleans, clocks float64 seconds; absent values are null.
"""
import pyarrow as pa

# The tags that get a column of their own in `games` (everything else goes to the `tags` map):
# the Seven Tag Roster, the Elos (INTEGER_TAGS), TimeControl, ECO, ... (the C reader finds them)
from pgntools.reader import INTEGER_TAGS, TAG_COLUMNS

PIECE = pa.dictionary(pa.int8(), pa.string())
STATUS = pa.dictionary(pa.int8(), pa.string())

GAMES = pa.schema([
    pa.field("game_id", pa.int64(), nullable=False),  # 0-based, input order over all inputs
    pa.field("source", pa.string()),                   # the input file ('<stdin>' for stdin)
    pa.field("offset", pa.int64()),                    # byte offset of the game in the (decompressed) input
    *[pa.field(name, pa.int32() if name in INTEGER_TAGS else pa.string()) for name in TAG_COLUMNS],
    pa.field("tags", pa.map_(pa.string(), pa.string())),  # all other tags
    pa.field("start_fen", pa.string()),
    pa.field("result", pa.string()),                   # the checked result: 1-0, 0-1, 1/2-1/2, *
    pa.field("result_tag", pa.string()),               # the Result tag as read
    pa.field("status", STATUS),                        # valid, fixed, invalid
    pa.field("errors", pa.list_(pa.struct([("kind", pa.string()), ("ply", pa.int32()), ("message", pa.string())]))),
    pa.field("ply_count", pa.int32()),                 # mainline plies replayed (up to the first error)
    pa.field("outcome", STATUS),                       # automatic end: checkmate, stalemate, ... or null
    pa.field("final_fen", pa.string()),
])

# Fields that are never null are declared so: Parquet then stores no definition levels for them.
MOVES = pa.schema([
    pa.field("game_id", pa.int64(), nullable=False),
    pa.field("ply", pa.int16(), nullable=False),  # 1-based half-move
    pa.field("san", pa.string(), nullable=False),
    pa.field("uci", pa.string(), nullable=False),  # Chess960 castling as king takes rook
    pa.field("from_square", pa.uint8(), nullable=False),
    pa.field("to_square", pa.uint8(), nullable=False),
    pa.field("piece", PIECE, nullable=False),  # pawn, knight, bishop, rook, queen, king
    pa.field("captured", PIECE),                       # null when nothing is captured
    pa.field("promotion", PIECE),                      # null when not a promotion
    pa.field("is_capture", pa.bool_(), nullable=False),
    pa.field("is_check", pa.bool_(), nullable=False),
    pa.field("is_mate", pa.bool_(), nullable=False),
    pa.field("is_castle", pa.bool_(), nullable=False),
    pa.field("is_en_passant", pa.bool_(), nullable=False),
    pa.field("halfmove_clock", pa.uint16(), nullable=False),  # after the move
    pa.field("clock", pa.float64()),                   # seconds left, from [%clk]
    pa.field("emt", pa.float64()),                     # seconds used, from [%emt]
    pa.field("eval_cp", pa.int32()),                   # centipawns (White's view), from [%eval]
    pa.field("eval_mate", pa.int16()),                 # mate in n, from [%eval #n]
    pa.field("nags", pa.list_(pa.uint8()), nullable=False),
])

#: Columns of `moves` added on request.
MOVE_COMMENT = pa.field("comment", pa.string())
MOVE_FEN = pa.field("fen", pa.string())                # the position after the move

#: `to-fen --format parquet|csv|jsonl` rows.
POSITIONS = pa.schema([
    pa.field("game", pa.int64(), nullable=False),
    pa.field("ply", pa.int16(), nullable=False),  # 0 = the start position
    pa.field("move", pa.string()),                     # the SAN that led here; empty at ply 0
    pa.field("fen", pa.string()),
])


def moves_schema(with_comment: bool = False, with_fen: bool = False) -> pa.Schema:
    schema = MOVES
    if with_comment:
        schema = schema.append(MOVE_COMMENT)
    if with_fen:
        schema = schema.append(MOVE_FEN)
    return schema
