"""The Arrow/Parquet schema of `pgntools export` and `pgntools to-fen --format parquet`: the one
place where column names and types are declared (the README documents them from here).

Types are chosen for size: squares are uint8 (a1 = 0, h8 = 63), plies int16, pieces dictionary-
encoded strings, flags booleans, clocks float64 seconds; absent values are null.

The declarations are plain Python: export writes its files without importing pyarrow (~30 ms of
start-up), so its Parquet footers take the Arrow schema from arrow_ipc.py, which
serializes these same declarations. ``GAMES``, ``MOVES`` and ``POSITIONS`` are the pyarrow
schemas, built on first use.
"""
from typing import List, NamedTuple, Optional, Sequence

# The tags that get a column of their own in `games` (everything else goes to the `tags` map):
# the Seven Tag Roster, the Elos (INTEGER_TAGS), TimeControl, ECO, ... (the C reader finds them)
from pgntools.reader import INTEGER_TAGS, TAG_COLUMNS


class Column(NamedTuple):
    """A column: its name, type and whether it may hold nulls. A type is a name ("int64",
    "string", "bool", "float64", ...) or a tuple: ("dictionary", index, value), ("list", item),
    ("struct", ((name, type), ...)) with nullable children, ("map", key, value) with the
    names pyarrow gives their fields (item; entries, key, value)."""

    name: str
    type: object
    nullable: bool = True


PIECE = STATUS = ("dictionary", "int8", "string")
ERROR = ("struct", (("kind", "string"), ("ply", "int32"), ("message", "string")))

GAME_COLUMNS = [
    Column("game_id", "int64", nullable=False),  # 0-based, input order over all inputs
    Column("source", "string"),                  # the input file ('<stdin>' for stdin)
    Column("offset", "int64"),                   # byte offset of the game in the (decompressed) input
    *[Column(name, "int32" if name in INTEGER_TAGS else "string") for name in TAG_COLUMNS],
    Column("tags", ("map", "string", "string")),  # all other tags
    Column("start_fen", "string"),
    Column("result", "string"),                  # the checked result: 1-0, 0-1, 1/2-1/2, *
    Column("result_tag", "string"),              # the Result tag as read
    Column("status", STATUS),                    # valid, fixed, invalid
    Column("errors", ("list", ERROR)),
    Column("ply_count", "int32"),                # mainline plies replayed (up to the first error)
    Column("outcome", STATUS),                   # automatic end: checkmate, stalemate, ... or null
    Column("final_fen", "string"),
]

# Columns that are never null are declared so: Parquet then stores no definition levels for them.
MOVE_COLUMNS = [
    Column("game_id", "int64", nullable=False),
    Column("ply", "int16", nullable=False),     # 1-based half-move
    Column("san", "string", nullable=False),
    Column("uci", "string", nullable=False),    # Chess960 castling as king takes rook
    Column("from_square", "uint8", nullable=False),
    Column("to_square", "uint8", nullable=False),
    Column("piece", PIECE, nullable=False),     # pawn, knight, bishop, rook, queen, king
    Column("captured", PIECE),                  # null when nothing is captured
    Column("promotion", PIECE),                 # null when not a promotion
    Column("is_capture", "bool", nullable=False),
    Column("is_check", "bool", nullable=False),
    Column("is_mate", "bool", nullable=False),
    Column("is_castle", "bool", nullable=False),
    Column("is_en_passant", "bool", nullable=False),
    Column("halfmove_clock", "uint16", nullable=False),  # after the move
    Column("clock", "float64"),                 # seconds left, from [%clk]
    Column("emt", "float64"),                   # seconds used, from [%emt]
    Column("eval_cp", "int32"),                 # centipawns (White's view), from [%eval]
    Column("eval_mate", "int16"),               # mate in n, from [%eval #n]
    Column("nags", ("list", "uint8"), nullable=False),
]

#: Columns of `moves` added on request.
MOVE_COMMENT = Column("comment", "string")
MOVE_FEN = Column("fen", "string")              # the position after the move

#: `to-fen --format parquet|csv|jsonl` rows.
POSITION_COLUMNS = [
    Column("game", "int64", nullable=False),
    Column("ply", "int16", nullable=False),     # 0 = the start position
    Column("move", "string"),                   # the SAN that led here; empty at ply 0
    Column("fen", "string"),
]


def move_columns(with_comment: bool = False, with_fen: bool = False) -> List[Column]:
    return MOVE_COLUMNS + [MOVE_COMMENT] * with_comment + [MOVE_FEN] * with_fen


def select(columns: Sequence[Column], wanted: Optional[Sequence[str]], keys: Sequence[str]) -> List[Column]:
    """The columns named in ``wanted`` (all when it is empty) and the ``keys``, in table order."""
    if not wanted:
        return list(columns)
    return [c for c in columns if c.name in wanted or c.name in keys]


# ---------------------------------------------------------------- pyarrow schemas, on first use

def arrow_type(declared):
    import pyarrow as pa

    if isinstance(declared, str):
        return {"bool": pa.bool_(), "string": pa.string()}.get(declared) or getattr(pa, declared)()
    kind = declared[0]
    if kind == "dictionary":
        return pa.dictionary(arrow_type(declared[1]), arrow_type(declared[2]))
    if kind == "list":
        return pa.list_(arrow_type(declared[1]))
    if kind == "struct":
        return pa.struct([(name, arrow_type(t)) for name, t in declared[1]])
    if kind == "map":
        return pa.map_(arrow_type(declared[1]), arrow_type(declared[2]))
    raise ValueError(f"unknown column type {declared!r}")


def arrow_schema(columns: Sequence[Column]):
    import pyarrow as pa

    return pa.schema([pa.field(c.name, arrow_type(c.type), nullable=c.nullable) for c in columns])


def moves_schema(with_comment: bool = False, with_fen: bool = False):
    return arrow_schema(move_columns(with_comment, with_fen))


_SCHEMAS = {"GAMES": GAME_COLUMNS, "MOVES": MOVE_COLUMNS, "POSITIONS": POSITION_COLUMNS}


def __getattr__(name: str):
    if name in _SCHEMAS:
        schema = arrow_schema(_SCHEMAS[name])
        globals()[name] = schema  # built once
        return schema
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
