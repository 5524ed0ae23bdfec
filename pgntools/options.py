"""The reader's options, typed and with their defaults stated once, and the --jobs policy.

``ReaderOptions`` travels CLI → run → reader → C (the compiled BatchReader maps it onto the C
``GameOptions`` of _c/game.h). A run does not take the recording fields from its command: each
sink declares what it needs from the reader (``Sink.needs``), and ``ReaderOptions.for_sinks``
derives the options of the run from those needs.

This module imports nothing: the command line's start-up loads it.
"""
# (No `from __future__ import annotations`: typing.NamedTuple makes a ForwardRef of each string
# annotation, compiling it, ~5 M instructions of start-up for ReaderOptions' 39 fields.)
import os
from typing import Iterable, Mapping, NamedTuple, Optional

MAX_GAME_SIZE = 64 << 20  # a game larger than this is skipped as game_too_large (--max-game-size)


class ReaderOptions(NamedTuple):
    """What the compiled reader records and checks (defaults: the library's, as read_games reads)."""

    replay: bool = True            # False: scan only (tags and game boundaries, no moves replayed)
    moves: bool = False            # the move table (squares, SAN, UCI, clocks, evals, NAGs)
    clock_rows: bool = False       # the clock table: each mainline [%clk] (stats, without the move table)
    comments: bool = False         # the per-move comment column
    fen_every_ply: bool = False    # the per-move FEN column
    fen_plies: tuple = ()          # with fen_every_ply: the FEN only at these plies (ascending; others empty); (): all
    fen_ply_window: tuple = (0, -1)  # with fen_every_ply: ... and only at plies [first, last] (-1: to the end)
    keys_every_ply: bool = False   # the per-move Polyglot key column (export --with-keys)
    final_fen: bool = False
    movetext_hash: bool = True     # the mainline key, every ply (movetext_hash: export, --dedup moves, --where)
    position_hash: bool = True     # the final position's key (--dedup position)
    counters: bool = True          # captures, checks, underpromotions, max_halfmove_clock, has_clock, has_eval
                                   # (off, as for_sinks leaves them unless asked: those columns are not filled)
    pgn: bool = False              # export-format PGN per valid or fixed game
    raw_invalid: bool = False      # the input bytes of invalid games (--rejects)
    raw_all: bool = False          # the input bytes of every game (filter's output)
    tag_filter: tuple = ()         # a program decided on the tags before the replay: a game failing it is only counted
                                   # (GameBatch.games_read; not recorded, not replayed; pgntools.where.prefilter)
    strict: bool = False           # notation normalisations are errors
    fix_results: bool = True
    strip_comments: bool = False   # (the export-format PGN's options)
    strip_variations: bool = False
    reduced: bool = False
    pgn_shape: tuple = ()          # strip_nags, no_check_marks, ..., add_plycount, add_hashcode (_core.PGN_SHAPES)
    line_length: int = 79          # the written PGN's longest line; 0: a game on one line
    pgn_plies: tuple = (0, -1)     # the written PGN's mainline plies (drop, max]: --drop-plies, --max-plies (-1: all)
    tag_columns: bool = False      # where each tag with a column of its own is, per game
    tag_values: bool = True        # False: every tag value empty (the rows stay), unless pgn
    en_passant: str = "legal"      # FEN en-passant field: "legal" or "fen"
    shredder: bool = False         # Chess960 castling rights as rook files
    batch_games: int = 1024        # a batch ends at this many games ...
    max_batch_bytes: int = 1 << 20  # ... or once it holds this many bytes
    buffer_size: int = 1 << 20     # the reader's input buffer (it grows up to max_game_size)
    max_game_size: int = MAX_GAME_SIZE
    detach: bool = False           # batches handed to another thread (the reader keeps no view)
    base_offset: int = 0           # where the stream starts in its input (a chunk of a parallel run)
    base_line: int = 1
    first_game: int = 0
    # what the reader recovers from (issue 20; README "What validate checks")
    automatic_ends: Optional[str] = None  # "note", "enforce", "truncate"; None: enforce with strict, else note
    allow_null_moves: bool = False  # --, Z0, 0000, @@@@ read as a pass
    repair: str = "none"           # "truncate": a game stopped by a bad mainline move kept as its prefix
    openings: bool = False         # each game's opening classified (pgntools.openings; the opening_* columns)
    opening_tags: str = "none"     # validate --classify: the PGN output's ECO/Opening tags, "missing" or "overwrite"
    positions: tuple = ()          # --where-position: (fen, chess960) pairs (pgntools.where.targets)
    materials: tuple = ()          # --material: signatures as counts (pgntools.where.targets)
    position_rows: tuple = ()      # the positions dataset: (sample_plies, min_ply, max_ply, seed, planes)

    def for_sinks(self, needs: Iterable[Mapping[str, object]]) -> "ReaderOptions":
        """These options with what the sinks need: each recording field on when some sink needs it
        (off otherwise); other fields as the sinks that name them say (they must agree)."""
        fields = {name: False for name in RECORDING}
        said: dict = {}
        for need in needs:
            for name, value in need.items():
                if name in RUN_NEEDS:
                    continue
                if name not in self._fields:
                    raise TypeError(f"unknown reader option {name!r}")
                if name in RECORDING:
                    fields[name] = fields[name] or bool(value)
                elif said.setdefault(name, value) != value:
                    raise ValueError(f"two outputs need different reader options {name}: {said[name]!r}, {value!r}")
        return self._replace(**fields, **said)


# Fields a run derives from its sinks (each off unless a sink needs it: tag values, e.g., cost 1 %
# of validate's replay, and only -o and --report show them; the mainline key ~3 %, and only the
# games table's movetext_hash, --dedup moves and --where read it: pgntools.tables.schema.reader_needs).
RECORDING = ("moves", "clock_rows", "comments", "fen_every_ply", "final_fen", "pgn", "raw_invalid", "raw_all", "tag_columns", "tag_values",
             "detach", "openings", "keys_every_ply", "movetext_hash", "position_hash", "counters")
# Needs that are the run's, not the reader's: "numbered", an output names games (ids, lines), so
# the chunks of a parallel run are cut by the scanner (pgntools.runner.chunks).
RUN_NEEDS = ("numbered",)


def needs_numbering(needs: Iterable[Mapping[str, object]]) -> bool:
    return any(need.get("numbered") for need in needs)


# ---------------------------------------------------------------- --jobs: threads

def default_jobs() -> int:
    """The number of CPUs this process may run on (--jobs by default)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


class Workers(NamedTuple):
    """Where a run reads: ``jobs`` workers, each a thread reading chunks (1: the main thread
    reads), or a Dask cluster at ``scheduler``; ``chunk_bytes`` the target chunk size (None: by
    the input's size). --jobs counts threads: an export worker keeps two busy (workers_for)."""

    jobs: int = 1
    scheduler: Optional[str] = None
    chunk_bytes: Optional[int] = None
    task_bytes: Optional[int] = None  # --task-size: a cluster task's plain PGN (pgntools.runner.tasks)

    @property
    def parallel(self) -> bool:
        return self.jobs > 1 or bool(self.scheduler)


def threads_wanted(jobs: Optional[int]) -> int:
    """--jobs counts threads: the number given, or the CPUs."""
    return default_jobs() if jobs is None else jobs


def writer_thread(jobs: Optional[int], scheduler: Optional[str] = None) -> bool:
    """Whether export's workers each write Parquet on a thread of their own: from two threads on
    (--jobs 2: one worker and its writer), and on a cluster."""
    return threads_wanted(jobs) >= 2 or bool(scheduler)


def workers_for(jobs: Optional[int], scheduler: Optional[str] = None, chunk_bytes: Optional[int] = None,
                threads_per_worker: int = 1, task_bytes: Optional[int] = None) -> Workers:
    """The workers for --jobs: its threads divided by the threads one worker keeps busy (export:
    two, a reader and its Parquet writer), at least one."""
    return Workers(max(1, threads_wanted(jobs) // threads_per_worker), scheduler, chunk_bytes, task_bytes)
