"""The tables of `pgntools export` (games, moves) and of `to-fen`'s table formats (positions):
the one place where their columns are declared. Each column states once its name, Arrow type,
nullability, where a batch of the C reader holds it (its *source*) and what it means; from this
come the pyarrow schemas (below), the Arrow schema in the Parquet footers (parquet/arrow_ipc.py), the
Parquet schema and encoders (parquet/part_file.py), the Arrow tables of the Dask API (build.py) and
the README's column tables (``python -m pgntools.tables.schema --markdown``).

Adding a column: one ``Column`` in its table below, and, when no batch column holds it yet,
its C fill (pgntools/_c/batch.h's BATCH_COLUMNS and the code that pushes it).

Column names are lower-case snake_case and unique regardless of case, as SQL engines need
(DuckDB, Spark fold case): a tag's column is named after it (``white_elo`` holds WhiteElo); the
``tags`` map keeps the other tags under their PGN names.

Types are chosen for size: squares are uint8 (a1 = 0, h8 = 63), plies int16, pieces dictionary-
encoded strings, flags booleans, clocks float64 seconds; absent values are null. A type is a
name ("int64", "string", "bool", "float64", ...) or a tuple: ("dictionary", index, value),
("list", item), ("struct", ((name, type), ...)) with nullable children, ("map", key, value).

The declarations are plain Python (pyarrow is imported where a table is made: to-fen's own
writer does without it). ``GAMES``, ``MOVES`` and ``POSITIONS`` are the pyarrow schemas, built on first use.
"""
from __future__ import annotations

import functools
from typing import List, NamedTuple, Optional, Sequence, Tuple

from pgntools.reader import (DERIVED_BITS, HAS_BITS, MOVE_FLAGS, OPENING_STATES, OUTCOMES, PIECES, RESULTS, SPEEDS,
                             STATUSES, VARIANTS)
from pgntools.reader import POSITION_HAS_BITS

# ---------------------------------------------------------------- sources: where a batch holds a column


class Fixed(NamedTuple):
    """A numeric batch column, one value a row (its width follows the column's type); null where
    the bit ``has`` of the row's ``has_column`` is clear (the moves' HAS_* bits by default).
    ``dictionary``: dictionary-encoded in Parquet."""
    column: str
    has: int = 0
    dictionary: bool = True
    has_column: str = "has"


class Strings(NamedTuple):
    """A string batch column, one string a row; null where the bit ``has`` of the row's
    ``has_column`` is clear."""
    column: str
    has: int = 0
    dictionary: bool = True
    has_column: str = "has"


class Codes(NamedTuple):
    """A numeric batch column of codes into ``names``: code ``base + i`` is names[i]; with
    ``base`` 1, code 0 is null."""
    column: str
    names: Tuple[str, ...]
    base: int = 0


class Flag(NamedTuple):
    """One bit of a batch column of bits, as a boolean: an MF_* bit of the moves' ``flags``, or a
    DERIVED_* bit of the games' ``derived``."""
    bit: int
    column: str = "flags"


class Tag(NamedTuple):
    """The value of a PGN tag the C reader finds for each game (one of _core.TAG_COLUMNS); null
    when the game has no such tag (or, for an integer column, when it is not a whole number)."""
    tag: str


class TagDate(NamedTuple):
    """A typed value of PGN date tags (tables/dates.py reads them): ``part`` "date" (the Date tag
    as a day: null unless its year, month and day are known and make a calendar day), "year" and
    "month" (each when known: of Date, else of UTCDate when Date's year is unknown, as pgntools
    stats counts months), "utc_datetime" (UTCDate and UTCTime as one instant: null unless both
    are known). ``tags``: the tags read. The tags' text stays readable (Date in the ``tags``
    map, UTCDate and UTCTime in their own columns)."""
    part: str
    tags: Tuple[str, ...]


class Built(NamedTuple):
    """A column built from several batch columns by its own code in parquet/part_file.py and
    build.py: "game_ids" (per game, or per move from move_start), "source" (the input's name),
    "tags" (the tags without a column, a map), "errors" and "fixes" (lists of structs), "nags" (a list)."""
    what: str


# ---------------------------------------------------------------- the declaration


class Column(NamedTuple):
    """A column: its name, type, whether it may hold nulls, its batch source (None: built by the
    table's own code, as fen_rows.py does), what it holds and what a null means."""

    name: str
    type: object
    nullable: bool = True
    source: object = None
    doc: str = ""
    null: str = ""

    @property
    def tag(self) -> Optional[str]:
        """The PGN tag whose text the column holds, if any."""
        return self.source.tag if isinstance(self.source, Tag) else None

    @property
    def tags_read(self) -> Tuple[str, ...]:
        """The PGN tags the column is read from (its text's, or a typed date's)."""
        if isinstance(self.source, Tag):
            return (self.source.tag,)
        return self.source.tags if isinstance(self.source, TagDate) else ()


PIECE = STATUS = ("dictionary", "int8", "string")
ERROR = ("struct", (("kind", "string"), ("ply", "int32"), ("message", "string")))
FIX = ("struct", (("kind", "string"), ("ply", "int32"), ("field", "string"), ("before", "string"), ("after", "string")))
PIECE_NAMES = tuple(PIECES[1:])  # code 1 = pawn
NO_TAG = "no such tag"
OPENING_NAMED = OPENING_STATES["named"]
NO_OPENING = "no position the table names in the first 40 plies, or another start position (FEN, Chess960)"


def _tag(name: str, tag: str, doc: str, type_: str = "string") -> Column:
    null = NO_TAG + (" or not a whole number" if type_ == "int32" else "")
    return Column(name, type_, True, Tag(tag), doc, null)


GAME_COLUMNS = [
    Column("game_id", "int64", False, Built("game_ids"), "0-based index of the game over all inputs, in input order"),
    Column("game_uid", "int64", False, Built("game_uids"),
           "the game's id in every run and dataset: its input's name (hashed) and its byte offset (tables/game_uid.py)"),
    Column("source", "string", True, Built("source"), "the input file (`<stdin>` for standard input)"),
    Column("offset", "int64", True, Fixed("offset", dictionary=False),
           "byte offset of the game in the (decompressed) input"),
    _tag("event", "Event", "the event"),
    _tag("site", "Site", "where it was played"),
    Column("date", "date32", True, TagDate("date", ("Date",)),
           "the Date tag as a day (its text, YYYY.MM.DD with ?? for unknown parts, stays in `tags`)",
           "no Date tag, a part of it unknown (??), or no calendar day"),
    Column("year", "int16", True, TagDate("year", ("Date", "UTCDate")),
           "the Date tag's year (1851 for `1851.??.??`), else UTCDate's", "neither tag has a known year"),
    Column("month", "uint8", True, TagDate("month", ("Date", "UTCDate")),
           "the month (1-12) of the date the year is of", "that date's month is unknown (??)"),
    _tag("round", "Round", "the round as written"),
    _tag("white", "White", "the White player"),
    _tag("black", "Black", "the Black player"),
    _tag("white_elo", "WhiteElo", "White's rating", "int32"),
    _tag("black_elo", "BlackElo", "Black's rating", "int32"),
    _tag("time_control", "TimeControl", "the time control as written (e.g. 180+2)"),
    Column("speed", STATUS, True, Codes("speed", tuple(SPEEDS[1:]), base=1),
           "from TimeControl by Lichess's rule, base + 40 x increment seconds (of the first period: "
           "`40/7200:3600` is 7200): ultrabullet < 30 <= bullet < 180 <= blitz < 480 <= rapid < 1500 <= "
           "classical; correspondence for `-`", "no TimeControl tag, `?`, or a value that is no time control"),
    _tag("eco", "ECO", "the opening's ECO code"),
    _tag("opening", "Opening", "the opening's name"),
    _tag("termination", "Termination", "how the game ended, as written (e.g. Normal, Time forfeit)"),
    _tag("utc_date", "UTCDate", "the UTC date"),
    _tag("utc_time", "UTCTime", "the UTC time"),
    Column("utc_datetime", ("timestamp", "s", "UTC"), True, TagDate("utc_datetime", ("UTCDate", "UTCTime")),
           "UTCDate and UTCTime as one instant (seconds, UTC)",
           "no UTCDate or no UTCTime, or one that is not a known YYYY.MM.DD or HH:MM:SS"),
    _tag("variant", "Variant", "the variant (Standard, Chess960, ...)"),
    Column("rules", STATUS, False, Codes("variant", VARIANTS),
           "the rules the game is played by, read from its Variant tag (the variant column, as written): "
           "standard, kingofthehill, 3check, racingkings, horde, antichess, atomic or crazyhouse (Chess960 is "
           "standard rules from another start)"),
    Column("tags", ("map", "string", "string"), True, Built("tags"),
           "every other tag, and Date (the date column is typed): its name and value as written"),
    Column("start_fen", "string", True, Strings("start_fen"),
           "the start position: the standard one, or the FEN tag's (as written when invalid)"),
    Column("result", "string", True, Codes("result", tuple(RESULTS)),
           "the checked result: 1-0, 0-1, 1/2-1/2 or * (the marker, the Result tag and the final position agree)"),
    _tag("result_tag", "Result", "the Result tag as read"),
    Column("status", STATUS, True, Codes("status", tuple(STATUSES)), "valid, fixed, invalid, or truncated (--repair truncate)"),
    Column("errors", ("list", ERROR), True, Built("errors"),
           "the errors (kind, ply, message) that make the game invalid; empty when it is not"),
    Column("fixes", ("list", FIX), True, Built("fixes"),
           "what was repaired, as the report's fixes: kind, ply, field (the tag, FEN field or rule; '' when none), "
           "before (as read; '' when nothing was), after (as written); empty when nothing was"),
    Column("ply_count", "int32", True, Fixed("ply_count"), "mainline plies replayed (up to the first error)"),
    Column("has_clock", "bool", False, Flag(DERIVED_BITS["has_clock"], "derived"),
           "a comment after a mainline move holds a [%clk] (a move of `moves` has a clock)"),
    Column("has_eval", "bool", False, Flag(DERIVED_BITS["has_eval"], "derived"),
           "a comment after a mainline move holds an [%eval] (a move of `moves` has eval_cp or eval_mate)"),
    Column("captures", "uint8", False, Fixed("captures"), "mainline moves that capture (en passant too)"),
    Column("checks", "int32", False, Fixed("checks"), "mainline moves that give check (checkmate too)"),
    Column("underpromotions", "uint8", False, Fixed("underpromotions"),
           "mainline promotions to a knight, bishop or rook"),
    Column("max_halfmove_clock", "uint16", False, Fixed("max_halfmove_clock"),
           "the highest halfmove clock of the mainline's positions, the start position's included "
           "(>= 100: a fifty-move claim was possible)"),
    Column("max_repetitions", "uint16", False, Fixed("max_repetitions"),
           "the most times one position occurred on the mainline, compared as the rules compare them "
           "(>= 3: a threefold claim was possible); 0 when not replayed"),
    Column("outcome", STATUS, True, Codes("outcome", tuple(OUTCOMES[1:]), base=1),
           "the automatic end the game reached: checkmate, stalemate, insufficient_material, "
           "seventyfive_moves, fivefold_repetition, or a variant's own end: variant_win, variant_loss "
           "(of the side to move then) or variant_draw", "no automatic end"),
    Column("automatic_end", STATUS, True, Codes("automatic_end", tuple(OUTCOMES[1:]), base=1),
           "the first automatic draw the mainline reached (insufficient_material, seventyfive_moves or "
           "fivefold_repetition), whether the game ended there or went on (--automatic-ends)", "none reached"),
    Column("automatic_end_ply", "int32", True, Fixed("automatic_end_ply"),
           "the ply at which automatic_end was reached (0 when none was, or at the start position)"),
    Column("final_fen", "string", True, Strings("final_fen", dictionary=False),
           "the position after the last move replayed (start_fen when none was)"),
    Column("opening_eco", "string", True, Strings("opening_eco", has=OPENING_NAMED, has_column="opening_state"),
           "the opening's ECO code in the Lichess opening table: of the deepest position of the game's first "
           "40 plies that the table names (README: Opening classification)", NO_OPENING),
    Column("opening_name", "string", True, Strings("opening_name", has=OPENING_NAMED, has_column="opening_state"),
           "the opening's name in the Lichess opening table (of the same position)", NO_OPENING),
    Column("opening_ply", "int16", True, Fixed("opening_ply", has=OPENING_NAMED, has_column="opening_state"),
           "the ply of that position: 1 after White's first move (the table names no start position, so never 0)",
           NO_OPENING),
    Column("movetext_hash", "int64", True, Fixed("movetext_hash", has=1, dictionary=False, has_column="hashed"),
           "a 64-bit hash of the start position and the mainline's moves as played (SAN or UCI alike; comments, "
           "NAGs, variations, move numbers and tags do not count): equal for games --dedup moves calls the same. "
           "int64 (the hash's bits) so that every engine joins on it", "the mainline was not replayed to its end"),
    Column("final_key", "uint64", True, Fixed("final_key", dictionary=False),
           "final_fen's Polyglot key (chess.polyglot.zobrist_hash; Polyglot books)"),
]

#: The tags read by a typed column only (Date, read by date/year/month): their text stays in the
#: `tags` map (the C reader marks them so: _core.TEXT_IN_MAP_TAGS; tests/test_schema.py).
TEXT_IN_MAP = tuple(dict.fromkeys(t for c in GAME_COLUMNS if not c.tag for t in c.tags_read
                                  if t not in {c.tag for c in GAME_COLUMNS}))

#: The columns the opening classifier fills (pgntools.openings): a run that writes or selects on
#: them classifies its games.
OPENING_COLUMNS = tuple(c.name for c in GAME_COLUMNS if getattr(c.source, "has_column", "") == "opening_state")

# Columns that are never null are declared so: Parquet then stores no definition levels for them.
MOVE_COLUMNS = [
    Column("game_id", "int64", False, Built("game_ids"), "the game (games.game_id)"),
    Column("game_uid", "int64", False, Built("game_uids"), "the game (games.game_uid)"),
    Column("ply", "int16", False, Fixed("ply"), "1-based half-move"),
    Column("san", "string", False, Strings("san"), "the move in canonical SAN"),
    Column("uci", "string", False, Strings("uci"), "the move in UCI (Chess960 castling as king takes rook; a crazyhouse drop N@f3)"),
    Column("from_square", "uint8", False, Fixed("from_square"), "a1 = 0, b1 = 1, ..., h8 = 63"),
    Column("to_square", "uint8", False, Fixed("to_square"), "a1 = 0, b1 = 1, ..., h8 = 63"),
    Column("piece", PIECE, False, Codes("piece", PIECE_NAMES, base=1), "the piece moved: pawn, knight, ... king"),
    Column("captured", PIECE, True, Codes("captured", PIECE_NAMES, base=1), "the piece captured", "not a capture"),
    Column("promotion", PIECE, True, Codes("promotion", PIECE_NAMES, base=1), "the piece promoted to",
           "not a promotion"),
    Column("is_capture", "bool", False, Flag(MOVE_FLAGS["capture"]), "the move captures (en passant too)"),
    Column("is_check", "bool", False, Flag(MOVE_FLAGS["check"]), "the move gives check"),
    Column("is_mate", "bool", False, Flag(MOVE_FLAGS["mate"]), "the move gives checkmate"),
    Column("is_castle", "bool", False, Flag(MOVE_FLAGS["castle"]), "the move castles"),
    Column("is_en_passant", "bool", False, Flag(MOVE_FLAGS["en_passant"]), "the move captures en passant"),
    Column("is_null", "bool", False, Flag(MOVE_FLAGS["null"]),
           "a null move (--allow-null-moves): the side passed (san --, uci 0000, the king standing still)"),
    Column("drop", "bool", False, Flag(MOVE_FLAGS["drop"]),
           "the move drops a piece from the pocket (crazyhouse): piece is the piece dropped, from_square its "
           "square (= to_square), uci N@f3"),
    Column("halfmove_clock", "uint16", False, Fixed("halfmove_clock"), "the halfmove clock after the move"),
    Column("clock", "float64", True, Fixed("clock", has=HAS_BITS["clock"]),
           "seconds left on the mover's clock, from the comment's [%clk]", "no [%clk]"),
    Column("emt", "float64", True, Fixed("emt", has=HAS_BITS["emt"]),
           "seconds the move took, from the comment's [%emt]", "no [%emt]"),
    Column("eval_cp", "int32", True, Fixed("eval_cp", has=HAS_BITS["eval_cp"]),
           "evaluation in centipawns (White's view), from the comment's [%eval]", "no [%eval], or a mate score"),
    Column("eval_mate", "int16", True, Fixed("eval_mate", has=HAS_BITS["eval_mate"]),
           "mate in n (negative: Black mates), from the comment's [%eval #n]", "no [%eval #n]"),
    Column("nags", ("list", "uint8"), False, Built("nags"), "the move's NAGs ($1 = 1, ...); empty when none"),
]

#: Columns of `moves` added on request (--with-comments, --with-fen, --with-keys).
MOVE_COMMENT = Column("comment", "string", True, Strings("comment", has=HAS_BITS["comment"], dictionary=False),
                      "the comment after the move (--with-comments)", "no comment")
MOVE_FEN = Column("fen", "string", True, Strings("fen", dictionary=False), "the position after the move (--with-fen)")
MOVE_KEY = Column("key", "uint64", False, Fixed("key", dictionary=False),
                  "the Polyglot key of the position after the move (--with-keys; chess.polyglot.zobrist_hash, "
                  "Polyglot books; games.final_key at the last ply)")

#: `to-fen --format parquet|csv|jsonl` rows (built by fen_rows.py).
POSITION_COLUMNS = [
    Column("game_id", "int64", False, None, "the game's 0-based index over all inputs (export's game_id)"),
    Column("ply", "int16", False, None, "plies played to reach the position; 0 = the start position"),
    Column("san", "string", True, None, "the move that led here, in canonical SAN; empty at ply 0"),
    Column("fen", "string", True, None, "the position"),
]

#: `export --positions DIR` and pgntools.positions() rows: one a sampled mainline position a move
#: was played from (pgntools/_c/positions_dataset.c fills them; README: The positions dataset).
_PH = POSITION_HAS_BITS


def _ph(name: str, type_: str, bit: str, doc: str, null: str, dictionary: bool = True) -> Column:
    return Column(name, type_, True, Fixed(f"position_{name}", has=_PH[bit], dictionary=dictionary,
                                           has_column="position_has"), doc, null)


POSITION_ROW_COLUMNS = [
    Column("game_id", "int64", False, Built("game_ids"), "the game (export's games.game_id)"),
    Column("ply", "int16", False, Fixed("position_ply"),
           "plies played to reach the position (0 = the start position); the move is moves.ply = ply + 1"),
    Column("fen", "string", False, Strings("position_fen", dictionary=False), "the position (--en-passant's style)"),
    Column("key", "uint64", False, Fixed("position_key", dictionary=False),
           "its Polyglot key (chess.polyglot.zobrist_hash; moves.key of the move before)"),
    Column("uci", "string", False, Strings("position_uci"), "the move played from the position, in UCI"),
    Column("san", "string", False, Strings("position_san"), "the same move in canonical SAN"),
    _ph("result", "float64", "result", "the game's result from the side to move's view: 1 won, 0.5 drawn, 0 lost",
        "the result is unknown (*)"),
    _ph("white_elo", "int32", "white_elo", "White's rating (games.white_elo)", NO_TAG + " or not a whole number"),
    _ph("black_elo", "int32", "black_elo", "Black's rating (games.black_elo)", NO_TAG + " or not a whole number"),
    Column("speed", STATUS, True, Codes("position_speed", tuple(SPEEDS[1:]), base=1), "the game's speed (games.speed)",
           "no TimeControl that reads as one"),
    _ph("clock", "float64", "clock",
        "seconds on the side to move's clock in the position: the [%clk] after its previous move",
        "no [%clk] there, or the side's first move"),
    _ph("eval_cp", "int32", "eval_cp",
        "the position's evaluation in centipawns (White's view): the [%eval] after the move that reached it",
        "no [%eval] there, a mate score, or ply 0"),
    _ph("eval_mate", "int16", "eval_mate", "mate in n from the position (negative: Black mates), [%eval #n]",
        "no [%eval #n] there, or ply 0"),
    Column("opening_eco", "string", True, Strings("position_eco", has=_PH["eco"], has_column="position_has"),
           "the game's opening_eco (the Lichess opening table)", NO_OPENING),
]

PIECE_PLANES = [f"{color}_{piece}" for color in ("white", "black")
                for piece in ("pawns", "knights", "bishops", "rooks", "queens", "kings")]
#: --planes: what a model reads without parsing the FEN.
PLANE_COLUMNS = [Column(name, "uint64", False, Fixed(f"position_{name}", dictionary=False),
                        f"the squares of the {name.replace('_', ' ')} (bit 0 = a1, bit 63 = h8; --planes)")
                 for name in PIECE_PLANES] + [
    Column("white_to_move", "bool", False, Flag(1, "position_turn"), "the side to move is White (--planes)"),
    Column("castling", "uint8", False, Fixed("position_castling"),
           "castling rights as bits: White king side 1, White queen side 2, Black king side 4, Black queen side 8 "
           "(--planes)"),
    _ph("ep_file", "uint8", "ep_file", "the file of a legal en-passant capture, a = 0 ... h = 7 (--planes)",
        "no en-passant capture is legal"),
]


def position_row_columns(planes: bool = False) -> List[Column]:
    return POSITION_ROW_COLUMNS + PLANE_COLUMNS * planes


def move_columns(with_comment: bool = False, with_fen: bool = False, with_key: bool = False) -> List[Column]:
    return MOVE_COLUMNS + [MOVE_COMMENT] * with_comment + [MOVE_FEN] * with_fen + [MOVE_KEY] * with_key


def suggest(name: str, names: Sequence[str]) -> str:
    """An unknown column name, with the declared name it was likely meant as (WhiteElo: white_elo)."""
    key = name.replace("_", "").lower()
    for candidate in names:
        if candidate.replace("_", "").lower() == key:
            return f"{name} (did you mean {candidate}?)"
    return name


#: The batch columns of games the reader fills only when a run asks (pgntools.options.ReaderOptions:
#: off unless a sink or the selection needs them), with the option that fills each. A run that
#: writes, selects on or groups by a column asks for what fills it (``reader_needs``); in a run
#: that did not, those columns are empty (so a column read without asking fails, never shows 0s).
FILLED_BY = {"movetext_hash": "movetext_hash", "movetext_hash2": "movetext_hash",
             "position_hash": "position_hash", "position_hash2": "position_hash",
             "captures": "counters", "checks": "counters", "underpromotions": "counters",
             "max_halfmove_clock": "counters", "final_fen": "final_fen", "opening_state": "openings"}
#: The bits of the games' ``derived`` the counters fill (the others: --where-position, --material).
COUNTED_BITS = (DERIVED_BITS["has_clock"], DERIVED_BITS["has_eval"])


def reader_needs(column: Column) -> dict:
    """The reader options a column of `games` needs filled (as Sink.needs: {option: True})."""
    source = column.source
    needs = {FILLED_BY[name]: True for name in (getattr(source, "column", None), getattr(source, "has_column", None))
             if name in FILLED_BY}
    if isinstance(source, Flag) and source.column == "derived" and source.bit in COUNTED_BITS:
        needs["counters"] = True
    return needs


def not_filled(column: Column) -> str:
    """The error of a column read from a batch whose run did not ask the reader to fill it."""
    return (f"games column {column.name!r}: the reader did not fill it (the run did not ask for "
            f"{', '.join(reader_needs(column)) or 'it'}: pgntools.tables.schema.reader_needs)")


def reader_needs_of(columns: Sequence[Column]) -> dict:
    """What all these columns need from the reader."""
    needs: dict = {}
    for column in columns:
        needs.update(reader_needs(column))
    return needs


#: Columns of `games` the scanner fills without replaying a move (a games table of only these is
#: read at scanner speed: ``table_needs``'s replay False).
SCAN_ONLY = frozenset({"game_id", "source", "offset", "tags"}) | {c.name for c in GAME_COLUMNS if c.tags_read}
#: The per-move columns each reader option records (the others come with ``moves``).
MOVE_OPTIONS = {"comment": "comments", "fen": "fen_every_ply", "key": "keys_every_ply"}


def table_needs(table: str, columns: Sequence[Column]) -> dict:
    """What the reader records to fill these columns of `games` or `moves` (as Sink.needs): off
    what no column reads (the move rows of a games table, tag values of a moves table, the
    replay itself of a games table of tags only)."""
    needs = reader_needs_of(columns)
    if table == "moves":
        needs["moves"] = True
        needs.update({MOVE_OPTIONS[c.name]: True for c in columns if c.name in MOVE_OPTIONS})
        return needs
    if any(c.tags_read or c.name in ("tags", "errors") for c in columns):  # (an error's message may quote a tag)
        needs["tag_values"] = True
    if any(c.tags_read for c in columns):
        needs["tag_columns"] = True
    if all(c.name in SCAN_ONLY for c in columns):
        needs["replay"] = False
    return needs


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
    if kind == "timestamp":
        return pa.timestamp(declared[1], declared[2])
    raise ValueError(f"unknown column type {declared!r}")


def arrow_schema(columns: Sequence[Column]):
    import pyarrow as pa

    return pa.schema([pa.field(c.name, arrow_type(c.type), nullable=c.nullable) for c in columns])


def moves_schema(with_comment: bool = False, with_fen: bool = False, with_key: bool = False):
    return _cached_schema(tuple(move_columns(with_comment, with_fen, with_key)))


@functools.lru_cache(maxsize=64)
def _cached_schema(columns: Tuple[Column, ...]):
    return arrow_schema(columns)


_SCHEMAS = {"GAMES": "GAME_COLUMNS", "MOVES": "MOVE_COLUMNS", "POSITIONS": "POSITION_COLUMNS"}


def position_rows_schema(planes: bool = False):
    return _cached_schema(tuple(position_row_columns(planes)))


def __getattr__(name: str):
    if name in _SCHEMAS:  # built once per column list (a test may add a column to the list)
        return _cached_schema(tuple(globals()[_SCHEMAS[name]]))
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# ---------------------------------------------------------------- the README's column tables

def type_text(declared) -> str:
    """A declared type as the README shows it."""
    if isinstance(declared, str):
        return declared
    kind = declared[0]
    if kind == "dictionary":
        return f"{declared[2]} (dictionary)"
    if kind == "list":
        return f"list<{type_text(declared[1])}>"
    if kind == "struct":
        return "struct<" + ", ".join(f"{name} {type_text(t)}" for name, t in declared[1]) + ">"
    if kind == "timestamp":
        return f"timestamp[{declared[1]}, {declared[2]}]"
    return f"map<{type_text(declared[1])}, {type_text(declared[2])}>"


def markdown(columns: Sequence[Column]) -> str:
    """A table's columns as a Markdown table: name, type, what it holds, when it is null, tag."""
    lines = ["| column | type | what it holds | null when | PGN tag |", "|---|---|---|---|---|"]
    for c in columns:
        tag = ", ".join(f"`{t}`" for t in c.tags_read)
        null = c.null if c.nullable and c.null else "never"
        lines.append(f"| `{c.name}` | `{type_text(c.type)}` | {c.doc.replace('|', chr(92) + '|')} | {null} | {tag} |")
    return "\n".join(lines) + "\n"


def readme_tables() -> dict:
    """{table: its Markdown table}, as README.md holds them between `<!-- columns: TABLE -->` and
    `<!-- end columns -->`."""
    return {"games": markdown(GAME_COLUMNS), "moves": markdown(move_columns(True, True, True)),
            "positions": markdown(POSITION_COLUMNS), "position_rows": markdown(position_row_columns(True))}


def update_readme(text: str) -> str:
    """README text with each generated table replaced by the declaration's."""
    import re

    for table, generated in readme_tables().items():
        pattern = re.compile(rf"(<!-- columns: {table} -->\n).*?(<!-- end columns -->)", re.S)
        if not pattern.search(text):
            raise ValueError(f"README has no <!-- columns: {table} --> block")
        text = pattern.sub(lambda m: m.group(1) + generated + m.group(2), text)
    return text


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(prog="python -m pgntools.tables.schema",
                                     description="The declared columns of export's and to-fen's tables.")
    parser.add_argument("--markdown", action="store_true", help="print each table's columns as Markdown")
    parser.add_argument("--update", metavar="README", help="rewrite the column tables in this README")
    args = parser.parse_args()
    if args.update:
        with open(args.update, encoding="utf-8") as f:
            old = f.read()
        new = update_readme(old)
        if new != old:
            with open(args.update, "w", encoding="utf-8") as f:
                f.write(new)
    else:
        for name, generated in readme_tables().items():
            print(f"### {name}\n\n{generated}")
