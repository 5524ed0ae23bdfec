"""Games stored as table rows (the Lichess layout on Hugging Face, ``Lichess/standard-chess-games``):
tags as columns, the game's moves in a ``movetext`` column. A Parquet file, dataset directory or
URL, an Arrow (Feather v2) file, a pyarrow Table, RecordBatch or RecordBatchReader is read as
PGN: each row becomes one line,

    [Event "Rated Blitz game"] [White "a"] ... [UTCDate "2024.01.01"] 1. e4 { [%clk 0:03:00] } e5 ... 1-0

made with Arrow compute a record batch at a time (no Python per row but for a movetext holding a
';' comment, made a brace comment), which the C reader reads as any PGN. So a row's game is at
line row + 1 of its input; --report adds the row (sinks/report.py).

Column names match tags in any case and with or without underscores (``white_elo``, ``WhiteElo``);
other columns become tags under their own names; a null value writes no tag. Dates are written
``YYYY.MM.DD``, times ``HH:MM:SS``. A null movetext reads as the token ``null`` (the game is then
invalid: "cannot read 'null' as a move"), never as a game without moves.
"""
from __future__ import annotations

import io
import os
import re
from typing import Iterator, List, Tuple

from pgntools.errors import InputError
from pgntools.storage import is_url, url_filesystem

MOVETEXT = "movetext"
PARQUET_MAGIC, ARROW_MAGIC = b"PAR1", b"ARROW1"
# The input names of in-process tables (Input names them by their type).
TABLE_NAMES = ("<Table>", "<RecordBatch>", "<RecordBatchReader>")
ROWS_PER_BATCH = 4096
# Tag names as PGN writes them (a column named in another case or with underscores finds its tag here).
KNOWN_TAGS = ("Event", "Site", "Date", "Round", "White", "Black", "Result", "WhiteElo", "BlackElo",
              "WhiteRatingDiff", "BlackRatingDiff", "WhiteTitle", "BlackTitle", "WhiteFideId", "BlackFideId",
              "ECO", "Opening", "Variation", "Termination", "TimeControl", "UTCDate", "UTCTime", "Variant",
              "FEN", "SetUp", "Annotator", "PlyCount", "EventDate", "EventType", "Mode", "Board")
_BY_KEY = {tag.lower(): tag for tag in KNOWN_TAGS}
_TAG_NAME = re.compile(r"[A-Za-z0-9_]+")


def tag_name(column: str) -> str:
    """The PGN tag a column holds: a known tag whatever the column's case and underscores, else
    the column's own name."""
    return _BY_KEY.get(column.replace("_", "").lower(), column)


def plan(schema, name: str) -> Tuple[int, List[Tuple[str, int]]]:
    """(the movetext column's index, [(tag, column index)]) of a table's schema; an InputError
    naming the columns there are when it has no movetext column."""
    import pyarrow as pa

    movetext = [i for i, field in enumerate(schema) if field.name.lower() == MOVETEXT]
    if not movetext:
        raise InputError(f"{name}: a table without a movetext column (its columns: {', '.join(schema.names)}); "
                         "games are read from a table of tag columns and the movetext")
    tags = []
    for i, field in enumerate(schema):
        if i == movetext[0] or not _TAG_NAME.fullmatch(field.name):
            continue
        if pa.types.is_nested(field.type) or pa.types.is_binary(field.type):
            continue  # (a list, struct or map is no tag value)
        tags.append((tag_name(field.name), i))
    return movetext[0], tags


def tag_text(column):
    """A column's values as tag text: dates YYYY.MM.DD, times HH:MM:SS, numbers as written; quotes
    and backslashes escaped, line breaks as spaces (a tag value is one line)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    kind = column.type
    if pa.types.is_dictionary(kind):
        column, kind = column.dictionary_decode(), kind.value_type
    if pa.types.is_date(kind) or pa.types.is_timestamp(kind):
        text = pc.strftime(column.cast(pa.timestamp("s")) if pa.types.is_date(kind) else column, "%Y.%m.%d")
    elif pa.types.is_time(kind):
        text = pc.utf8_slice_codeunits(column.cast(pa.string()), 0, 8)
    else:
        text = column.cast(pa.string())
    text = pc.replace_substring(pc.replace_substring(text, "\\", "\\\\"), '"', '\\"')
    return pc.replace_substring_regex(text, r"[\r\n]+", " ")


def movetext_line(column):
    """The movetext as one line: a ';' comment (to the end of its line) as a brace comment, line
    breaks as spaces; null as the token ``null``."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if pa.types.is_dictionary(column.type):
        column = column.dictionary_decode()
    text = column.cast(pa.string())
    semicolons = pc.fill_null(pc.match_substring(text, ";"), False)
    if pc.any(semicolons).as_py():  # (rare: those rows alone, in Python, as a ';' may be inside a comment)
        text = pc.replace_with_mask(text, semicolons,
                                    pa.array([_braced(t) for t in text.filter(semicolons).to_pylist()], pa.string()))
    text = pc.replace_substring_regex(text, r"[\r\n]+", " ")
    return pc.fill_null(text, "null")


def _braced(movetext: str) -> str:
    """A movetext's ';' comments (outside braces, to the end of the line) as brace comments."""
    out, depth, i = [], 0, 0
    while i < len(movetext):
        c = movetext[i]
        if c == ";" and not depth:
            end = len(movetext)
            for stop in "\r\n":
                found = movetext.find(stop, i)
                end = found if found != -1 and found < end else end
            out.append("{" + movetext[i + 1:end].replace("}", ")") + "}")
            i = end
            continue
        depth += c == "{"
        depth -= c == "}" and depth > 0
        out.append(c)
        i += 1
    return "".join(out)


def pgn_lines(batch, movetext: int, tags: List[Tuple[str, int]]) -> bytes:
    """A record batch's rows as PGN, one game a line."""
    import pyarrow.compute as pc

    pieces = []
    for tag, i in tags:
        pieces.append(pc.fill_null(pc.binary_join_element_wise(f'[{tag} "', tag_text(batch.column(i)), '"] ', ""), ""))
    lines = pc.binary_join_element_wise(*pieces, movetext_line(batch.column(movetext)), "\n", "")
    if not len(lines):
        return b""
    offsets = memoryview(lines.buffers()[1]).cast("i")
    return lines.buffers()[2].to_pybytes()[offsets[lines.offset]:offsets[lines.offset + len(lines)]]


def record_batches(source, name: str) -> Tuple[object, Iterator]:
    """(schema, record batches) of a table source, or of a Parquet or Arrow file (a path or URL)
    or a dataset directory of Parquet files."""
    import pyarrow as pa

    if isinstance(source, pa.Table):
        return source.schema, iter(source.to_batches(ROWS_PER_BATCH))
    if isinstance(source, pa.RecordBatch):
        return source.schema, iter([source])
    if isinstance(source, pa.RecordBatchReader):
        return source.schema, iter(source)
    import pyarrow.parquet as pq

    try:
        if isinstance(source, str) and is_url(source):
            fs, path = url_filesystem(source, InputError)
            source = fs.open(path, "rb")
        elif isinstance(source, str) and _head(source).startswith(ARROW_MAGIC):
            import pyarrow.ipc

            reader = pyarrow.ipc.open_file(source)
            return reader.schema, (reader.get_batch(i) for i in range(reader.num_record_batches))
        if isinstance(source, str) and os.path.isdir(source):  # a dataset: its part files, hive partitions as columns
            import pyarrow.dataset as ds

            dataset = ds.dataset(source, format="parquet", partitioning="hive")
            return dataset.schema, dataset.to_batches(batch_size=ROWS_PER_BATCH)
        parquet = pq.ParquetFile(source)
    except (pa.ArrowException, OSError) as exc:
        raise InputError(f"{name}: not a readable Parquet file or dataset ({exc})") from None
    return parquet.schema_arrow, parquet.iter_batches(batch_size=ROWS_PER_BATCH)


def check_table(source) -> None:
    """An InputError now for a table input that cannot be read as games (no movetext column, not
    readable), before any output exists."""
    schema, batches = record_batches(source, source)
    plan(schema, source)
    close = getattr(batches, "close", None)
    if close is not None:
        close()


class TableGames(io.RawIOBase):
    """A table's rows as PGN bytes (a raw stream, as the C reader reads any input)."""

    def __init__(self, source, name: str):
        schema, self.batches = record_batches(source, name)
        self.name = name
        self.movetext, self.tags = plan(schema, name)
        self.pending = memoryview(b"")

    def readable(self):
        return True

    def readinto(self, b):
        while not self.pending:
            batch = next(self.batches, None)
            if batch is None:
                return 0
            self.pending = memoryview(pgn_lines(batch, self.movetext, self.tags))
        n = min(len(b), len(self.pending))
        b[:n] = self.pending[:n]
        self.pending = self.pending[n:]
        return n


def is_table_path(path: str) -> bool:
    """A Parquet file, an Arrow (Feather v2) file or a dataset directory of Parquet files; a URL
    by its suffix (.parquet)."""
    if is_url(path):
        return path.split("?")[0].lower().endswith(".parquet")
    if os.path.isdir(path):
        return is_parquet_dataset(path)
    return _head(path).startswith((PARQUET_MAGIC, ARROW_MAGIC))


def _head(path: str) -> bytes:
    """The first bytes of a regular file (a named pipe or a device is read once, as PGN: opening
    it here would take bytes from it, or end its writer)."""
    if not os.path.isfile(path):
        return b""
    try:
        with open(path, "rb") as f:
            return f.read(8)
    except OSError:
        return b""  # (opening it as PGN says why)


def is_parquet_dataset(path: str) -> bool:
    """A directory holding Parquet files (a dataset, maybe hive-partitioned: year=2024/month=01/)."""
    if not os.path.isdir(path):
        return False
    for _, _, files in os.walk(path):
        if any(f.endswith(".parquet") for f in files):
            return True
    return False
