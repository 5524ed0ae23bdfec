"""Reading games: the compiled scanner and rules core fill batches of columns; this module
opens the inputs, numbers the games across them, and turns batches into game records.

Two ways in:
- ``iter_batches(sources, ...)``: GameBatch objects (columns; what the commands and sinks use).
- ``read_games(source, ...)``: one ``Game`` record per game, for scripts and tests.
"""
from __future__ import annotations

import gc
import os
from array import array
from typing import TYPE_CHECKING, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

from pgntools import _core
from pgntools.errors import InputError
from pgntools.inputs.streams import open_inputs
from pgntools.options import ReaderOptions

if TYPE_CHECKING:  # for the annotations; imported where records are made (see pgntools.records)
    from pgntools.records import Finding, Game, Move

ERROR_KINDS = _core.ERROR_KINDS
NOTE_KINDS = _core.NOTE_KINDS
FIX_KINDS = _core.FIX_KINDS  # the fix table's kinds; the result's fixes are the `fixes` bits
AUTOMATIC_ENDS = ("note", "enforce", "truncate")  # what a move after an automatic draw does
RESULTS = _core.RESULTS  # index: 0 none, 1 "1-0", 2 "0-1", 3 "1/2-1/2", 4 "*"
RESULT_UNKNOWN = RESULTS.index("*")  # a Result tag that is none of the three results (RESULT_UNKNOWN in C)
TAG_COLUMNS = list(_core.TAG_COLUMNS)  # tags the C reader finds for export's games columns (G_TAG_SLOTS order)


def _by_code(codes: dict) -> tuple:
    """Names indexed by their code (None for a code without a name: 0, "none")."""
    names = [None] * (max(codes.values()) + 1)
    for name, code in codes.items():
        names[code] = name
    return tuple(names)


# The codes and bits of the batch columns, named by the C core (batch.h's batch_names)
STATUSES = _by_code(_core.STATUS_CODES)  # valid, fixed, invalid
STATUS_VALID, STATUS_FIXED, STATUS_INVALID, STATUS_TRUNCATED = (
    _core.STATUS_CODES[name] for name in ("valid", "fixed", "invalid", "truncated"))
OUTCOMES = _by_code(_core.OUTCOME_CODES)  # None, checkmate, stalemate, ...
VARIANTS = tuple(_by_code(_core.VARIANT_CODES))  # standard, kingofthehill, 3check, racingkings, horde, antichess, atomic, crazyhouse: the variant column's codes
PIECES = _by_code(_core.PIECE_CODES)      # None, pawn, knight, bishop, rook, queen, king
MOVE_FLAGS = _core.MOVE_FLAGS             # {"capture": 1, "check": 2, ...}
HAS_BITS = _core.HAS_BITS                 # {"clock": 1, "emt": 2, ...}
OPENING_STATES = _core.OPENING_STATES     # bits of the opening_state column: {"named": 1, ...}
SPEEDS = _core.SPEEDS                     # the speed column's codes: ["", "ultrabullet", ...]
DERIVED_BITS = _core.DERIVED_BITS         # {"has_clock": 1, "has_eval": 2, ...}
POSITION_HAS_BITS = _core.POSITION_HAS_BITS  # the positions dataset's position_has column: {"result": 1, ...}
FIX_RESULT_TAG, FIX_RESULT_MARKER = _core.FIX_BITS["result_tag"], _core.FIX_BITS["result_marker"]
SYNTAX_DETAILS = {
    1: "a variation starts before any move",
    2: "')' closes no variation",
    3: "malformed tag pair",
    4: "a termination marker inside a variation",
    5: "unexpected character",
    6: "nested braces in a comment",
}

# A path, os.PathLike or URL; PGN bytes; a binary or text file object; an iterable of byte chunks;
# an Arrow table or Parquet file in the Lichess layout (pgntools.inputs.sources says which is which).
Source = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview, object]


class GameBatch:
    """One batch of games as columns. ``game_ids`` are 0-based over all inputs.

    A batch read with a tag filter (``ReaderOptions.tag_filter``) holds only the games that pass
    it: the reader counted the others (``raw["filtered"]``) and numbered the games it kept
    between them (``ids``); ``games_read`` counts both."""

    ids: Optional[Sequence[int]] = None  # a view of some games (pgntools.selection), or a filtered batch: their ids
    games_read: Optional[int] = None  # a view, or a filtered batch: the games read (kept or not)

    def __init__(self, raw: dict, source: str, first_game: int):
        self.raw = raw
        self.source = source
        self.n_games = raw["n_games"]
        self.first_game = first_game
        filtered = raw.get("filtered", 0)
        if filtered:
            self.games_read = self.n_games + filtered
            self.ids = _numbers(raw["game_number"], first_game - raw["first_game"])

    def read_count(self) -> int:
        """The games read into this batch: its games and those the tag filter dropped."""
        return self.n_games if self.games_read is None else self.games_read

    def game_id(self, g: int) -> int:
        """The input-wide id of the batch's game g (0-based over all inputs)."""
        return self.first_game + g if self.ids is None else self.ids[g]

    def column(self, name: str) -> memoryview:
        data = self.raw[name]
        return memoryview(data).cast(_core.COLUMN_FORMATS[name]) if data else memoryview(b"").cast("B")

    def string_buffers(self, name: str) -> Tuple[bytes, bytes]:
        return self.raw[name]

    def buffer(self, name: str):
        """Column ``name`` as ``raw[name]`` holds it (bytes; strings an (offsets, data) pair), but
        from a detached batch (ReaderOptions.detach) without a copy: buffers over the batch's own
        memory, which lives as long as they do (what C reads in place: tables/dates.py). Arrow
        arrays of a column: ``arrow``."""
        view = getattr(self.raw, "view", None)
        return view(name) if view is not None else self.raw[name]

    def arrow(self, name: str):
        """Column ``name`` of a detached batch (ReaderOptions.detach) as a pyarrow array over the
        batch's own memory, handed over through the Arrow C Data Interface (the array holds the
        batch until pyarrow releases it); None for a batch whose columns were copied, and for
        tag_slots (reordered tag by tag when read, so a copy)."""
        export = getattr(self.raw, "arrow", None)
        return export(name) if export is not None and name != "tag_slots" else None

    def write_text(self, name: str, output) -> None:
        """Writes the text of string column ``name`` (all its strings, one after the other) to
        ``output`` (anything with ``write``): from a detached batch (ReaderOptions.detach)
        straight from the reader's buffer, without a copy into bytes."""
        write = getattr(self.raw, "write_text", None)
        if write is not None:
            write(name, output)
            return
        data = self.raw[name][1]
        if data:
            output.write(data)

    def strings(self, name: str) -> List[str]:
        offsets, data = self.raw[name]
        return _core.split_strings(offsets, data)

    def ranges(self, start_column: str, total: int) -> List[Tuple[int, int]]:
        """Per game, the [start, end) rows of a child table (tags, moves, errors, notes)."""
        starts = self.column(start_column).tolist()
        return list(zip(starts, starts[1:] + [total]))

    def games(self, indices: Optional[Sequence[int]] = None) -> List["Game"]:
        """Game records for all games of the batch, or for the given batch-local indices."""
        return _records(self, range(self.n_games) if indices is None else indices)

    def error_messages(self) -> List[str]:
        """The message of each row of the error table (a message may name a tag's value, e.g.
        the Variant, so the game's tags are looked up for the games with errors only)."""
        kinds, plies, details = self.column("error_kind"), self.column("error_ply"), self.column("error_detail")
        if not len(kinds):
            return []
        tokens = self.strings("error_token")
        names, values = self.string_buffers("tag_name"), self.string_buffers("tag_value")
        tag_rows = self.ranges("tag_start", len(names[0]) // 4 - 1)
        messages = []
        for g, (a, z) in enumerate(self.ranges("error_start", len(kinds))):
            if a == z:
                continue
            tags = dict(zip(_slice_strings(names, *tag_rows[g]), _slice_strings(values, *tag_rows[g])))
            messages += [error_message(ERROR_KINDS[kinds[i]], tokens[i], plies[i], details[i], tags) for i in range(a, z)]
        return messages

    def unclean(self) -> List[int]:
        """Batch-local indices of the games that are not clean: invalid, fixed, or with notes."""
        status = self.column("status")
        note_starts = self.column("note_start").tolist() + [len(self.column("note_kind"))]
        return [g for g in range(self.n_games) if status[g] or note_starts[g] != note_starts[g + 1]]


def _numbers(data: bytes, shift: int) -> Sequence[int]:
    """An int64 column as ids, each plus ``shift`` (an input after the first: the reader numbers
    each input's games from 0)."""
    ids = array("q")
    ids.frombytes(data)
    return ids if not shift else array("q", [i + shift for i in ids])


def _slice_strings(buffers: Tuple[bytes, bytes], start: int, end: int) -> List[str]:
    offsets, data = memoryview(buffers[0]).cast("i"), buffers[1]
    return [data[offsets[i]:offsets[i + 1]].decode("utf-8") for i in range(start, end)]


def error_message(kind: str, token: str, ply: int, detail: int, tags: dict) -> str:
    """A one-line description of an error kind with its context."""
    where = f" at ply {ply}" if ply else ""
    if kind == "illegal_move":
        return f"illegal move {token!r}{where}"
    if kind == "ambiguous_move":
        return f"ambiguous move {token!r}{where}: more than one legal move matches"
    if kind == "invalid_san":
        return f"cannot read {token!r} as a move{where}"
    if kind == "invalid_promotion":
        return f"invalid promotion {token!r}{where}: a pawn must promote on the last rank, to Q, R, B or N"
    if kind == "null_move":
        return f"null move {token!r}{where} in a standard game (--allow-null-moves reads it as a pass)"
    if kind == "drop":
        return f"piece drop {token!r}{where} in a standard game"
    if kind == "invalid_start_position":
        reasons = fen_reasons(tags.get("FEN", ""), detail, tags.get("Variant", ""))
        return f"invalid start position FEN {tags.get('FEN', '')!r}: {'; '.join(reasons)}"
    if kind == "unsupported_variant":
        played = ", ".join(sorted(_core.VARIANT_CODES))
        return f"unsupported variant {tags.get('Variant', '')!r} (pgntools plays {played} and Chess960)"
    if kind == "move_after_game_end":
        return f"move {token!r}{where} after the game ended by {OUTCOMES[detail] or 'its end'}"
    if kind in ("result_mismatch", "result_contradicts_position"):
        tag, marker, by_position = detail & 15, (detail >> 4) & 15, detail >> 8
        tag_text = RESULTS[tag] if tag else "(no Result tag)"
        marker_text = RESULTS[marker] if marker else "(no termination marker)"
        if kind == "result_contradicts_position":
            return f"the final position decides {RESULTS[by_position]} but the game says Result {tag_text}, marker {marker_text}"
        return f"Result tag {tag_text} and termination marker {marker_text} disagree"
    if kind == "syntax_error":
        return f"syntax error{where}: {SYNTAX_DETAILS.get(detail, 'unexpected token')} {token!r}"
    if kind == "unterminated_comment":
        return f"comment opened{where} is never closed"
    if kind == "unterminated_variation":
        return f"{detail} variation(s) not closed before the end of the game"
    if kind == "game_too_large":
        return f"the game is larger than the {detail} MiB limit (max_game_size); skipped"
    if kind == "nonstandard_notation":
        return f"{NOTE_KINDS[detail].replace('_', ' ')} in {token!r}{where} (--strict)"
    return kind


NOTE_DESCRIPTIONS = {
    "castling_with_zeros": "castling written with zeros",
    "long_algebraic": "long algebraic notation",
    "uci_notation": "UCI notation in the movetext",
    "promotion_without_equals": "a promotion without '='",
    "over_disambiguation": "more disambiguation than needed",
    "missing_check_marker": "a missing check marker",
    "wrong_check_marker": "a wrong check marker",
    "en_passant_suffix": "an 'e.p.' suffix",
    "missing_capture_marker": "a missing capture marker",
    "lowercase_promotion": "a lower-case promotion piece",
    "wrong_capture_marker": "a capture marker on a move that takes nothing",
    "latin1_encoding": "not UTF-8: read as Windows-1252 (Latin-1)",
    "fen_without_setup": "a FEN tag without SetUp \"1\"",
    "duplicate_tag": "a repeated tag (the first value stands)",
    "missing_result_tag": "no Result tag",
    "fifty_move_claimable": "a draw claimable by the 50-move rule",
    "threefold_claimable": "a draw claimable by threefold repetition",
    "invalid_tag_value": "a tag value its column cannot hold (null there, kept as written in the tags)",
    "opening_tags_differ": "the game's ECO or Opening tag is not the opening table's (--classify)",
    "comment_in_tags": "a comment between tag lines, read past (the tags after it are this game's; not in -o's output)",
}


def note_message(kind: str, token: Optional[str], ply: Optional[int], count: int) -> str:
    """A one-line description of a note (ply and token are its first occurrence's)."""
    text = NOTE_DESCRIPTIONS.get(kind, kind.replace("_", " "))
    where = " ".join(part for part in (repr(token) if token else "", f"at ply {ply}" if ply else "") if part)
    if count > 1:
        return f"{text} ({count} times{', first ' + where if where else ''})"
    return f"{text}: {where}" if where else text


def fen_reasons(fen: str, problems: int, variant: str = "") -> List[str]:
    """What is wrong with a start position's FEN, field by field (the reader kept only the
    problem bits: the FEN is read again, in the mode, standard or Chess960, that gives them, as
    a position of the game's Variant)."""
    try:
        rules = _core.variant_code(variant or "standard")
    except ValueError:
        rules = 0
    for chess960 in (False, True):
        bits, reasons = _core.explain_fen(fen, chess960, rules)
        if bits == problems:
            return reasons
    return [name for i, name in enumerate(_core.FEN_PROBLEMS) if problems & (1 << i)]


def game_errors(batch: GameBatch, g: int, rows: Tuple[int, int], tags: dict, cache: dict) -> List[Finding]:
    """The error Findings of game g of the batch (rows of the error table)."""
    from pgntools.records import Finding

    if "errors" not in cache:
        cache["errors"] = (batch.column("error_kind"), batch.column("error_ply"), batch.column("error_offset"),
                           batch.column("error_line"), batch.column("error_column"), batch.column("error_detail"),
                           batch.strings("error_token"))
    kinds, plies, offsets, lines, columns, details, tokens = cache["errors"]
    out = []
    for i in range(*rows):
        kind = ERROR_KINDS[kinds[i]]
        out.append(Finding(kind=kind, message=error_message(kind, tokens[i], plies[i], details[i], tags),
                           game_index=batch.game_id(g), byte_offset=offsets[i], line=lines[i],
                           ply=plies[i] or None, token=tokens[i] or None, column=columns[i] or None))
    return out


def game_notes(batch: GameBatch, g: int, rows: Tuple[int, int], cache: dict,
               rule: Optional[str] = None) -> List[Finding]:
    """The note Findings of game g of the batch (rows of the note table)."""
    from pgntools.records import Finding

    if "notes" not in cache:
        cache["notes"] = (batch.column("note_kind"), batch.column("note_ply"), batch.column("note_count"),
                          batch.strings("note_token"))
    kinds, plies, counts, tokens = cache["notes"]
    out = []
    for i in range(*rows):
        kind, ply, token = NOTE_KINDS[kinds[i]], plies[i] or None, tokens[i] or None
        if kind == "opening_tags_differ":  # the table's code and name, in the token's place
            if "openings" not in cache:
                cache["openings"] = (batch.strings("opening_eco"), batch.strings("opening_name"))
            token = f"{cache['openings'][0][g]} {cache['openings'][1][g]}"
        out.append(Finding(kind=kind, message=note_message(kind, token, ply, counts[i]), game_index=batch.game_id(g),
                           ply=ply, token=token, category="note", count=counts[i],
                           field=rule if kind == "play_after_automatic_end" else None))  # (the report's "rule")
    return out


def table_fixes(batch: GameBatch, g: int, rows: Tuple[int, int], cache: dict) -> List[Finding]:
    """The fix Findings of the fix table's rows of game g (a repaired tag or start FEN, a game cut
    at an automatic end): kind, ply, field, what was read and what is written."""
    from pgntools.records import Finding

    if "fixes" not in cache:
        cache["fixes"] = (batch.column("fix_kind"), batch.column("fix_ply"), batch.strings("fix_field"),
                          batch.strings("fix_from"), batch.strings("fix_to"))
    kinds, plies, fields, froms, tos = cache["fixes"]
    out = []
    for i in range(*rows):
        kind = FIX_KINDS[kinds[i]]
        out.append(Finding(kind=kind, message=f"{kind.replace('_', ' ')}: {froms[i]!r} read as {tos[i]!r}",
                           game_index=batch.game_id(g), ply=plies[i] or None, category="fix",
                           before=froms[i], after=tos[i], field=fields[i] or None))
    return out


def game_fixes(fixes: int, result_tag: int, result_marker: int, result: int, game_index: int = 0) -> List[Finding]:
    """The fix Findings of a game: what was read (``before``) and what is written (``after``)."""
    from pgntools.records import Finding

    out = []
    if fixes & FIX_RESULT_TAG:
        before, after = RESULTS[result_tag], RESULTS[result]
        out.append(Finding(kind="result_tag", message=f"Result tag {before!r} corrected to {after!r}",
                           game_index=game_index, category="fix", before=before, after=after))
    if fixes & FIX_RESULT_MARKER:
        before, after = RESULTS[result_marker] or None, RESULTS[result]
        message = (f"termination marker {before!r} corrected to {after!r}" if before
                   else f"missing termination marker written as {after!r}")
        out.append(Finding(kind="result_marker", message=message, game_index=game_index, category="fix",
                           before=before, after=after))
    return out


def _records(batch: GameBatch, indices: Iterable[int]) -> List[Game]:
    """Game records: per batch, each column is read once; per game, only what the record
    holds (its moves are MoveRows until asked for, see pgntools.records).

    The records hold no reference cycles, so the cyclic garbage collector is paused while they
    are made: ~10 container objects a game set it off every ~70 games (20-30 % of the time)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _make_records(batch, indices)
    finally:
        if collecting:
            gc.enable()


def _make_records(batch: GameBatch, indices: Iterable[int]) -> List[Game]:
    from pgntools.records import Game, MoveRows

    names, values = batch.strings("tag_name"), batch.strings("tag_value")
    tag_starts = batch.column("tag_start").tolist() + [len(names)]
    error_starts = batch.column("error_start").tolist() + [len(batch.column("error_kind"))]
    note_starts = batch.column("note_start").tolist() + [len(batch.column("note_kind"))]
    fix_starts = batch.column("fix_start").tolist() + [len(batch.column("fix_kind"))]
    col = {name: batch.column(name).tolist() for name in (
        "offset", "length", "line", "ply_count", "status", "result", "result_tag", "result_marker", "outcome",
        "outcome_ply", "fixes", "chess960", "automatic_end", "automatic_end_ply", "variant")}
    automatic_end, automatic_end_ply = col["automatic_end"], col["automatic_end_ply"]
    offset, length, line, ply_count = col["offset"], col["length"], col["line"], col["ply_count"]
    status, result, result_tag, result_marker = col["status"], col["result"], col["result_tag"], col["result_marker"]
    outcome, outcome_ply, fixes, chess960 = col["outcome"], col["outcome_ply"], col["fixes"], col["chess960"]
    variant = col["variant"]
    start_fens = batch.strings("start_fen")
    final_fens = batch.strings("final_fen") or None
    pgns = batch.strings("pgn") or None
    table = MoveTable(batch) if len(batch.column("from_square")) else None  # None: no game has moves
    move_starts = batch.column("move_start").tolist() + [table.count] if table else None
    source = batch.source
    cache: dict = {}
    pairs = list(zip(names, values))  # the batch's (name, value) pairs; a game's tags are a slice
    games = []
    for g in indices:
        a, z = tag_starts[g], tag_starts[g + 1]
        code = result_tag[g]  # a Result tag that reads as a result is written as that result
        if code == RESULT_UNKNOWN:
            result_tag_text = values[names.index("Result", a, z)]
        else:
            result_tag_text = RESULTS[code] or None
        ea, ez = error_starts[g], error_starts[g + 1]
        na, nz = note_starts[g], note_starts[g + 1]
        fa, fz = fix_starts[g], fix_starts[g + 1]
        rule = OUTCOMES[automatic_end[g]]
        games.append(Game(
            batch.game_id(g), source, offset[g], length[g], line[g], pairs[a:z], STATUSES[status[g]], RESULTS[result[g]],
            result_tag_text, RESULTS[result_marker[g]] or None, OUTCOMES[outcome[g]],
            outcome_ply[g] if outcome[g] else None, ply_count[g], bool(chess960[g]), start_fens[g],
            game_errors(batch, g, (ea, ez), dict(pairs[a:z]), cache) if ea != ez else [],
            game_notes(batch, g, (na, nz), cache, rule) if na != nz else [],
            (table_fixes(batch, g, (fa, fz), cache) if fa != fz else []) +
            (game_fixes(fixes[g], result_tag[g], result_marker[g], result[g], batch.game_id(g)) if fixes[g] else []),
            MoveRows(table, move_starts[g], move_starts[g + 1]) if table else [],
            final_fens[g] if final_fens else None, pgns[g] if pgns else None,
            rule, automatic_end_ply[g] if rule else None, VARIANTS[variant[g]],
        ))
    return games


class MoveTable:
    """The move table of one batch, shared by the batch's Game records: each column is decoded
    when a game first asks for it."""

    def __init__(self, batch: GameBatch):
        self.batch = batch
        self.count = len(batch.column("from_square"))
        self._strings: dict = {}
        self._columns: Optional[tuple] = None

    def strings(self, name: str) -> List[str]:
        if name not in self._strings:
            self._strings[name] = self.batch.strings(name)
        return self._strings[name]

    def columns(self) -> tuple:
        """(has, clock, emt, eval_cp, eval_mate, nag_starts, nag_ends, nags): the move columns
        that are not strings, decoded once (a move's NAGs: nags[nag_starts[i]:nag_ends[i]])."""
        if self._columns is None:
            b = self.batch
            nag_starts = b.column("nag_start").tolist()
            nags = b.column("nag").tolist()
            self._columns = (b.column("has"), b.column("clock"), b.column("emt"), b.column("eval_cp"),
                             b.column("eval_mate"), nag_starts, nag_starts[1:] + [len(nags)], nags)
        return self._columns

    def moves(self, start: int, end: int) -> List[Move]:
        from pgntools.records import Move

        has, clock, emt, eval_cp, eval_mate, nag_starts, nag_ends, nags = self.columns()
        has_clock, has_emt, has_cp, has_mate, has_comment = (HAS_BITS[k] for k in ("clock", "emt", "eval_cp", "eval_mate",
                                                                                   "comment"))
        sans, ucis, comments = self.strings("san"), self.strings("uci"), self.strings("comment")
        out = []
        for i in range(start, end):
            h = has[i]
            out.append(Move(
                san=sans[i], uci=ucis[i], clock=clock[i] if h & has_clock else None, emt=emt[i] if h & has_emt else None,
                eval_cp=eval_cp[i] if h & has_cp else None, eval_mate=eval_mate[i] if h & has_mate else None,
                nags=nags[nag_starts[i]:nag_ends[i]], comment=comments[i] if comments and h & has_comment else None))
        return out


# ---------------------------------------------------------------- entry points

def iter_batches(sources: Union[Source, Sequence[Source]], on_input=None, on_error=None,
                 options: Optional[ReaderOptions] = None, **fields) -> Iterator[GameBatch]:
    """Batches of games from one or more inputs, read in order; game ids run across inputs.
    ``sources``: one source or a list of them (pgntools.inputs.sources: paths, URLs, PGN bytes, file
    objects, iterables of byte chunks, Arrow tables in the Lichess layout).

    ``on_input(Input)`` is called as each input opens (for progress). Raises InputError for an
    input that cannot be opened, and for one whose stream breaks (corrupt or truncated
    compressed data), after the games that ended before the break. With ``on_error``, a broken
    stream's InputError goes to ``on_error(error)`` instead, and the next inputs are read.
    The reader's options: ``options`` (pgntools.options.ReaderOptions), with ``fields`` replaced.
    """
    from pgntools.inputs.sources import as_source_list

    sources = as_source_list(sources)  # (one source, or a list of them: a TypeError now for another kind)
    unknown = set(fields) - set(ReaderOptions._fields)
    if unknown:
        raise TypeError(f"unknown reader options: {', '.join(sorted(unknown))}")
    return _batches(sources, on_input, on_error, (options or ReaderOptions())._replace(**fields))


def _batches(sources: list, on_input, on_error, options: ReaderOptions, first_game: int = 0) -> Iterator[GameBatch]:
    next_game = first_game
    for inp in open_inputs(sources):  # (a zip archive: each PGN member in turn)
        with inp:
            if on_input:
                on_input(inp)
            try:
                # (the C reader numbers the games as the run does: the positions dataset's
                # sample is drawn by game id)
                for raw in _core.BatchReader(inp.stream, options._replace(first_game=next_game)):
                    batch = GameBatch(raw, inp.name, next_game)
                    next_game += batch.read_count()
                    yield batch
            except InputError as exc:
                if on_error is None:
                    raise
                on_error(exc)


def read_games(source: Union[Source, Sequence[Source]], *, moves: bool = True, comments: bool = True,
               final_fen: bool = True, **options) -> Iterator[Game]:
    """Game records (tags, moves with clocks/evals/NAGs, errors, notes, result checks) from
    paths, '-' (stdin), compressed files, PGN bytes, file objects or chunks, in input order. Per-game problems are in
    ``game.errors``; only unreadable input raises (InputError), a broken stream after the games
    that ended before the break. ``source``: any of iter_batches' (a TypeError at once for another kind)."""
    batches = iter_batches(source, moves=moves, comments=comments, final_fen=final_fen, **options)
    return (game for batch in batches for game in batch.games())


def __getattr__(name: str):
    if name in ("Game", "Move", "Finding", "GameError"):  # the records live in pgntools.records, imported on first use
        from pgntools import records

        return getattr(records, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
