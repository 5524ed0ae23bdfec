"""Reading games: the compiled scanner and rules core fill batches of columns; this module
opens the inputs, numbers the games across them, and turns batches into game records.

Two ways in:
- ``iter_batches(sources, ...)``: GameBatch objects (columns; what the commands and sinks use).
- ``read_games(source, ...)``: one ``Game`` record per game, for scripts and tests.
"""
from __future__ import annotations

import os
from typing import TYPE_CHECKING, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

from pgntools import _core
from pgntools.errors import InputError
from pgntools.io import Input

if TYPE_CHECKING:  # for the annotations; imported where records are made (see pgntools.records)
    from pgntools.records import Game, GameError, Move

ERROR_KINDS = _core.ERROR_KINDS
NOTE_KINDS = _core.NOTE_KINDS
FIX_KINDS = _core.FIX_KINDS  # the fix table's kinds; the result's fixes are the `fixes` bits
AUTOMATIC_ENDS = ("note", "enforce", "truncate")  # what a move after an automatic draw does
RESULTS = _core.RESULTS  # index: 0 none, 1 "1-0", 2 "0-1", 3 "1/2-1/2", 4 "*"
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
PIECES = _by_code(_core.PIECE_CODES)      # None, pawn, knight, bishop, rook, queen, king
MOVE_FLAGS = _core.MOVE_FLAGS             # {"capture": 1, "check": 2, ...}
HAS_BITS = _core.HAS_BITS                 # {"clock": 1, "emt": 2, ...}
FIX_RESULT_TAG, FIX_RESULT_MARKER = _core.FIX_BITS["result_tag"], _core.FIX_BITS["result_marker"]
SYNTAX_DETAILS = {
    1: "a variation starts before any move",
    2: "')' closes no variation",
    3: "malformed tag pair",
    4: "a termination marker inside a variation",
    5: "unexpected character",
    6: "nested braces in a comment",
}

Source = Union[str, "os.PathLike[str]"]


class GameBatch:
    """One batch of games as columns. ``game_ids`` are 0-based over all inputs."""

    def __init__(self, raw: dict, source: str, first_game: int):
        self.raw = raw
        self.source = source
        self.n_games = raw["n_games"]
        self.first_game = first_game

    def column(self, name: str) -> memoryview:
        data = self.raw[name]
        return memoryview(data).cast(_core.COLUMN_FORMATS[name]) if data else memoryview(b"").cast("B")

    def string_buffers(self, name: str) -> Tuple[bytes, bytes]:
        return self.raw[name]

    def strings(self, name: str) -> List[str]:
        offsets_raw, data = self.raw[name]
        offsets = memoryview(offsets_raw).cast("i")
        text = data.decode("utf-8")
        if len(text) == len(data):  # ASCII: byte offsets are character offsets
            return [text[offsets[i]:offsets[i + 1]] for i in range(len(offsets) - 1)]
        return [data[offsets[i]:offsets[i + 1]].decode("utf-8") for i in range(len(offsets) - 1)]

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
        problems = [name for i, name in enumerate(_core.FEN_PROBLEMS) if detail & (1 << i)]
        return f"invalid start position FEN {tags.get('FEN', '')!r}: {', '.join(problems)}"
    if kind == "unsupported_variant":
        return f"unsupported variant {tags.get('Variant', '')!r} (only standard chess and Chess960)"
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


def game_errors(batch: GameBatch, g: int, rows: Tuple[int, int], tags: dict, cache: dict) -> List[GameError]:
    """The GameError records of game g of the batch (rows of the error table)."""
    from pgntools.records import GameError

    if "errors" not in cache:
        cache["errors"] = (batch.column("error_kind"), batch.column("error_ply"), batch.column("error_offset"),
                           batch.column("error_line"), batch.column("error_column"), batch.column("error_detail"),
                           batch.strings("error_token"))
    kinds, plies, offsets, lines, columns, details, tokens = cache["errors"]
    out = []
    for i in range(*rows):
        kind = ERROR_KINDS[kinds[i]]
        out.append(GameError(kind=kind, message=error_message(kind, tokens[i], plies[i], details[i], tags),
                             game_index=batch.first_game + g, byte_offset=offsets[i], line=lines[i],
                             ply=plies[i] or None, token=tokens[i] or None, column=columns[i] or None))
    return out


def game_fixes(batch: GameBatch, rows: Tuple[int, int], fixes: int, result_tag: int, result_marker: int,
               result: int, cache: dict) -> List[dict]:
    """The fix records of one game: the fix table's rows (kind, ply, field, from, to), then the
    result's fixes (the `fixes` bits)."""
    out = []
    if rows[0] != rows[1]:
        if "fixes" not in cache:
            cache["fixes"] = (batch.column("fix_kind"), batch.column("fix_ply"), batch.strings("fix_field"),
                              batch.strings("fix_from"), batch.strings("fix_to"))
        kinds, plies, fields, froms, tos = cache["fixes"]
        out += [{"kind": FIX_KINDS[kinds[i]], "ply": plies[i] or None, "field": fields[i] or None,
                 "from": froms[i], "to": tos[i]} for i in range(*rows)]
    if fixes & FIX_RESULT_TAG:
        out.append({"kind": "result_tag", "from": RESULTS[result_tag], "to": RESULTS[result]})
    if fixes & FIX_RESULT_MARKER:
        out.append({"kind": "result_marker", "from": RESULTS[result_marker] or None, "to": RESULTS[result]})
    return out


def _records(batch: GameBatch, indices: Iterable[int]) -> List[Game]:
    from pgntools.records import Game

    names, values = batch.strings("tag_name"), batch.strings("tag_value")
    tag_rows = batch.ranges("tag_start", len(names))
    error_rows = batch.ranges("error_start", len(batch.column("error_kind")))
    note_kinds = batch.column("note_kind")
    note_rows = batch.ranges("note_start", len(note_kinds))
    note_plies, note_counts, note_tokens = batch.column("note_ply"), batch.column("note_count"), batch.strings("note_token")
    fix_rows = batch.ranges("fix_start", len(batch.column("fix_kind")))
    col = {name: batch.column(name) for name in ("offset", "length", "line", "ply_count", "status", "result",
                                                  "result_tag", "result_marker", "outcome", "outcome_ply", "fixes",
                                                  "chess960", "automatic_end", "automatic_end_ply")}
    start_fens = batch.strings("start_fen")
    final_fens = batch.strings("final_fen")
    pgns = batch.strings("pgn")
    moves = _moves(batch)
    cache: dict = {}
    games = []
    for g in indices:
        tags = list(zip(names[tag_rows[g][0]:tag_rows[g][1]], values[tag_rows[g][0]:tag_rows[g][1]]))
        tag_dict = dict(tags)
        notes = [{"kind": NOTE_KINDS[note_kinds[i]], "ply": note_plies[i] or None, "count": note_counts[i],
                  "token": note_tokens[i] or None} for i in range(*note_rows[g])]
        automatic_end = OUTCOMES[col["automatic_end"][g]]
        for note in notes:
            if note["kind"] == "play_after_automatic_end":
                note["rule"] = automatic_end
        games.append(Game(
            index=batch.first_game + g, source=batch.source, offset=col["offset"][g], length=col["length"][g],
            line=col["line"][g], tags=tags, status=STATUSES[col["status"][g]], result=RESULTS[col["result"][g]],
            result_tag=tag_dict.get("Result"), result_marker=RESULTS[col["result_marker"][g]] or None,
            outcome=OUTCOMES[col["outcome"][g]],
            outcome_ply=col["outcome_ply"][g] if col["outcome"][g] else None, ply_count=col["ply_count"][g], chess960=bool(col["chess960"][g]),
            start_fen=start_fens[g], errors=game_errors(batch, g, error_rows[g], tag_dict, cache),
            notes=notes, fixes=game_fixes(batch, fix_rows[g], col["fixes"][g], col["result_tag"][g],
                                          col["result_marker"][g], col["result"][g], cache),
            moves=moves[g] if moves else [], final_fen=final_fens[g] if final_fens else None,
            pgn=pgns[g] if pgns else None, automatic_end=automatic_end,
            automatic_end_ply=col["automatic_end_ply"][g] if automatic_end else None,
        ))
    return games


def _moves(batch: GameBatch) -> Optional[List[List[Move]]]:
    from pgntools.records import Move

    sans = batch.strings("san")
    if not sans:
        return None
    ucis, comments = batch.strings("uci"), batch.strings("comment")
    has, clock, emt = batch.column("has"), batch.column("clock"), batch.column("emt")
    has_clock, has_emt, has_cp, has_mate, has_comment = (HAS_BITS[k] for k in ("clock", "emt", "eval_cp", "eval_mate",
                                                                               "comment"))
    eval_cp, eval_mate = batch.column("eval_cp"), batch.column("eval_mate")
    nag_starts, nags = batch.column("nag_start").tolist(), batch.column("nag").tolist()
    nag_ends = nag_starts[1:] + [len(nags)]
    out = []
    for start, end in batch.ranges("move_start", len(sans)):
        game_moves = []
        for i in range(start, end):
            h = has[i]
            game_moves.append(Move(
                san=sans[i], uci=ucis[i], clock=clock[i] if h & has_clock else None, emt=emt[i] if h & has_emt else None,
                eval_cp=eval_cp[i] if h & has_cp else None, eval_mate=eval_mate[i] if h & has_mate else None,
                nags=nags[nag_starts[i]:nag_ends[i]], comment=comments[i] if comments and h & has_comment else None))
        out.append(game_moves)
    return out


# ---------------------------------------------------------------- entry points

READER_OPTIONS = ("replay", "moves", "comments", "fen_every_ply", "final_fen", "pgn", "raw_invalid", "strict",
                  "fix_results", "strip_comments", "strip_variations", "reduced", "tag_columns", "tag_values", "en_passant",
                  "shredder", "batch_games", "max_batch_bytes",
                  "buffer_size", "max_game_size", "base_offset", "base_line", "detach", "automatic_ends",
                  "allow_null_moves", "repair")


def iter_batches(sources: Union[Source, Sequence[Source]], on_input=None, on_error=None,
                 **options) -> Iterator[GameBatch]:
    """Batches of games from one or more inputs, read in order; game ids run across inputs.

    ``on_input(Input)`` is called as each input opens (for progress). Raises InputError for an
    input that cannot be opened, and for one whose stream breaks (corrupt or truncated
    compressed data), after the games that ended before the break. With ``on_error``, a broken
    stream's InputError goes to ``on_error(error)`` instead, and the next inputs are read.
    """
    if isinstance(sources, (str, bytes)) or not isinstance(sources, Iterable):
        sources = [sources]
    unknown = set(options) - set(READER_OPTIONS)
    if unknown:
        raise TypeError(f"unknown reader options: {', '.join(sorted(unknown))}")
    next_game = 0
    for source in sources:
        with Input(source) as inp:
            if on_input:
                on_input(inp)
            try:
                for raw in _core.BatchReader(inp.stream, **options):
                    batch = GameBatch(raw, inp.name, next_game)
                    next_game += batch.n_games
                    yield batch
            except InputError as exc:
                if on_error is None:
                    raise
                on_error(exc)


def read_games(source: Union[Source, Sequence[Source]], *, moves: bool = True, comments: bool = True,
               final_fen: bool = True, **options) -> Iterator[Game]:
    """Game records (tags, moves with clocks/evals/NAGs, errors, notes, result checks) from
    paths, '-' (stdin) or compressed files, in input order. Per-game problems are in
    ``game.errors``; only unreadable input raises (InputError), a broken stream after the games
    that ended before the break."""
    for batch in iter_batches(source, moves=moves, comments=comments, final_fen=final_fen, **options):
        yield from batch.games()


def __getattr__(name: str):
    if name in ("Game", "Move", "GameError"):  # the records live in pgntools.records, imported on first use
        from pgntools import records

        return getattr(records, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
