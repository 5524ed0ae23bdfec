"""A Parquet dataset directory: OUT_DIR/games/part-NNNNN.parquet and OUT_DIR/moves/part-NNNNN.parquet.

Tables are buffered to row-group size and written batch by batch, so memory stays flat. Part
files are written under hidden temporary names and renamed only when the whole run succeeds.
OUT_DIR may be an fsspec URL (pgntools.storage): cluster workers then write their parts there.

With ``--jobs``/``--scheduler`` (pgntools.runner.parallel) each worker writes the parts of its chunk
under temporary names carrying a run- and chunk-unique prefix and hands their paths back
(``finish_chunk``); the parent ``merge``s them in chunk order and numbers them at ``commit``.
"""
from __future__ import annotations

import posixpath
from collections import deque
from typing import List, Optional, Sequence

from pgntools.errors import OutputError
from pgntools.outputs import PART_NAME
from pgntools.parquet.part_file import ParquetPartFile
from pgntools.reader import GameBatch
from pgntools.sinks.base import Sink
from pgntools.storage import LocalStorage, storage_for
from pgntools.tables import schema
from pgntools.tables.schema import Column
from pgntools.threads import Pool

GAME_ROWS_PER_GROUP = 65_536
MOVE_ROWS_PER_GROUP = 131_072
MOVE_ROWS_PER_PART = 16 * 1_048_576
# A row group also ends once its encoded rows hold this much in memory: on the master file
# ~70,000 moves or ~10,000 games; fewer with huge tags or comments. These bounds are most of
# export's working memory: peak RSS on the master file / the ~1 GB benchmark file (the three
# corpora repeated, many tags a Lichess game) 73 / 85 MB with 4 MB for both tables, 69 / 74 MB
# with 1 MB for games (the time the same).
GROUP_BYTES = {"games": 1 << 20, "moves": 4 << 20, "position_rows": 4 << 20}


class Background:
    """The writer: with ``threaded``, one thread (FIFO) that encodes and compresses each batch's
    rows while the main thread reads the next games (both release the GIL; export's --jobs counts
    it as one of its threads); without, the calls run at once, in the caller's thread. At most
    `depth` batches (of at most 1 MB) wait, which keeps memory flat: 4, since the writer starts
    at once (8 were needed while it imported pyarrow first; 2 let the reader stall, 0.35 s)."""

    def __init__(self, threaded: bool = True, depth: int = 4):
        self.depth = depth
        self.jobs: deque = deque()  # Tasks not yet waited for, oldest first
        self.pool = Pool(1, "pgntools-parquet") if threaded else None

    def submit(self, fn, *args):
        if self.pool is None:
            fn(*args)
            return
        self.jobs.append(self.pool.submit(fn, *args))
        while len(self.jobs) > self.depth:
            self.jobs.popleft().result()

    def drain(self, raise_errors: bool = True):
        while self.jobs:
            job = self.jobs.popleft()
            if raise_errors:
                job.result()
            else:
                job.exception()

    def run(self, fn, *args):
        """Runs fn on the writer thread after the jobs before it, and returns its result."""
        self.submit(fn, *args)
        self.drain()

    def close(self):
        if self.pool is not None:
            self.pool.close()


class TableParts:
    """The part files of `games` or `moves` (table), encoded straight from the batches' columns
    (pgntools.parquet.part_file) in row groups of GAME_ROWS_PER_GROUP / MOVE_ROWS_PER_GROUP rows or
    GROUP_BYTES[table] bytes (read at each batch, so tests can change them). Parts are written
    under hidden temporary names, renamed at commit, removed at abort."""

    def __init__(self, storage: LocalStorage, directory: str, table: str, columns: Sequence[Column], compression: str,
                 prefix: str = ""):
        self.storage = storage
        self.prefix = prefix  # makes temporary names unique per worker chunk
        self.directory = directory
        self.table = table
        self.columns = columns
        self.compression = compression
        self.file: Optional[ParquetPartFile] = None  # the open part
        self.written: List[str] = []  # temporary paths of finished parts
        self.committed = 0  # parts renamed to their final names

    def temp_path(self, part: int) -> str:
        return self.storage.join(self.directory, f".part-{self.prefix}{part:05d}.parquet.tmp")

    def final_path(self, part: int) -> str:
        return self.storage.join(self.directory, f"part-{part:05d}.parquet")

    def add(self, batch: GameBatch):
        if self.file is None:
            self.file = ParquetPartFile(self.storage.open_write(self.temp_path(len(self.written))), self.table,
                                        self.columns, self.compression)
        self.file.add(batch)
        rows_per_group = GAME_ROWS_PER_GROUP if self.table == "games" else MOVE_ROWS_PER_GROUP  # (positions too)
        if self.file.group_rows >= rows_per_group or self.file.group_bytes >= GROUP_BYTES[self.table]:
            self.file.end_row_group()

    def next_part(self):
        """Closes the current part (the next rows go to a new file)."""
        if self.file is not None:
            self.file.close()
            self.file = None
            self.written.append(self.temp_path(len(self.written)))

    def commit(self):
        self.next_part()
        if not self.written:  # an empty input still gives a readable (empty) dataset
            ParquetPartFile(self.storage.open_write(self.temp_path(0)), self.table, self.columns,
                            self.compression).close()
            self.written.append(self.temp_path(0))
        for part, path in enumerate(self.written):
            self.storage.rename(path, self.final_path(part))
        self.committed = len(self.written)

    def abort(self):
        if self.file is not None:
            self.file.abort()
            self.written.append(self.temp_path(len(self.written)))
        for path in self.written:
            self.storage.remove(path)
        self.written = []


def made_dirs(storage, root: str, tables) -> List[str]:
    """The directories an export is about to make (the tables', the root, its missing parents),
    innermost first: the order in which they are removed when it fails."""
    made = [path for path in tables if not storage.is_dir(path)]
    path = root.rstrip("/")
    while path and not storage.is_dir(path):
        made.append(path)
        parent = posixpath.dirname(path) if "/" in path else ""
        path = "" if parent == path else parent
    return made


def prepare_part_dir(storage, path: str, shown: str, out_dir: str, overwrite: bool) -> List[str]:
    """A table's directory made (when missing) and checked: writable, and holding no part files
    unless ``overwrite``, when it returns the part names there (removed once the new parts are in)."""
    old: List[str] = []
    try:
        storage.makedirs(path)
        names = storage.names(path)
        if overwrite:
            old = sorted(f for f in names if PART_NAME.fullmatch(f))
        elif any(f.endswith(".parquet") for f in names):
            raise OutputError(f"{shown} already holds part files: choose an empty output directory, "
                              "or --overwrite to replace an earlier export's parts")
    except OSError as exc:
        raise OutputError(f"{out_dir}: cannot create the dataset directory: {exc.strerror or exc}") from None
    if not storage.writable(path):
        raise OutputError(f"{shown}: not writable")
    return old


class ParquetDatasetSink(Sink):
    """Writes `games` and `moves` tables of each batch into a dataset directory. ``chunk``: the
    ChunkOutput of a worker's chunk (None in the parent, or in-process); its parts get names of
    its own. ``writer_thread``: encode on a thread of its own (see Background)."""

    fixed_chunks = True

    def __init__(self, out_dir: str, columns: Optional[Sequence[str]] = None, with_fen: bool = False,
                 with_comment: bool = False, compression: str = "zstd", chunk=None, writer_thread: bool = True,
                 en_passant: str = "legal", overwrite: bool = False, with_keys: bool = False):
        self.with_fen, self.with_comment, self.with_keys = with_fen, with_comment, with_keys
        part_prefix = chunk.part_prefix if chunk is not None else ""
        self.needs = {"moves": True, "comments": with_comment, "fen_every_ply": with_fen, "keys_every_ply": with_keys,
                      "final_fen": True,
                      "tag_columns": True, "tag_values": True, "numbered": True, "en_passant": en_passant,
                      # the writer reads the batches' own buffers (parquet_file.BatchFeeder: no
                      # copies), on its thread or not; half the default batch: the batches queued
                      # for the writer thread stay small
                      "detach": True, "batch_games": 512,
                      # the opening columns (pgntools.openings), unless --columns leaves them out
                      "openings": not columns or any(c in columns for c in schema.OPENING_COLUMNS)}
        games_names = [c.name for c in schema.GAME_COLUMNS]
        moves_names = [c.name for c in schema.move_columns(with_comment, with_fen, with_keys)]
        if columns:
            unknown = set(columns) - set(games_names) - set(moves_names)
            if unknown:
                named = [schema.suggest(name, games_names + moves_names) for name in sorted(unknown)]
                raise OutputError(f"--columns: unknown column(s) {', '.join(named)}; "
                                  f"games has {', '.join(games_names)}; moves has {', '.join(moves_names)}")
        self.storage, root = storage_for(out_dir, OutputError)
        dirs = {name: self.storage.join(root, name) for name in ("games", "moves")}
        # --overwrite: the parts an earlier export wrote, removed once this one's are in place
        self.old_parts = {name: [] for name in dirs}
        # the directories this export makes: removed again when it fails or is interrupted (issue 37 A6)
        self.made_dirs = made_dirs(self.storage, root, dirs.values())
        for name, path in dirs.items():
            self.old_parts[name] = prepare_part_dir(self.storage, path, self.storage.join(out_dir, name), out_dir,
                                                    overwrite)
        self.dirs = dirs
        self.games = TableParts(self.storage, dirs["games"], "games",
                                schema.select(schema.GAME_COLUMNS, columns, ["game_id"]), compression, prefix=part_prefix)
        self.needs.update(schema.reader_needs_of(self.games.columns))  # (movetext_hash, the counters, ...)
        moves_full = schema.move_columns(with_comment, with_fen, with_keys)
        self.moves = TableParts(self.storage, dirs["moves"], "moves",
                                schema.select(moves_full, columns, ["game_id", "ply"]), compression, prefix=part_prefix)
        self.move_rows_in_part = 0
        self.background = Background(writer_thread)

    def write(self, batch: GameBatch):
        if batch.n_games:
            self.background.submit(self._write, batch)

    def _write(self, batch: GameBatch):  # on the writer (thread)
        self.games.add(batch)
        self.moves.add(batch)
        self.move_rows_in_part += len(batch.raw["from_square"])
        if self.move_rows_in_part >= MOVE_ROWS_PER_PART:  # games and moves parts rotate together
            self.games.next_part()
            self.moves.next_part()
            self.move_rows_in_part = 0

    def _finish_parts(self):  # on the writer (thread)
        self.games.next_part()
        self.moves.next_part()

    def commit(self):
        try:
            self.background.run(self._finish_parts)
            self.games.commit()
            self.moves.commit()
        finally:
            self.background.close()
        self._remove_old_parts()

    def _remove_old_parts(self):
        """--overwrite: an earlier export's parts that this one's did not replace (renamed over
        them at commit); only part-N.parquet names, never another file."""
        for name, table in (("games", self.games), ("moves", self.moves)):
            new = {self.storage.join(self.dirs[name], f"part-{i:05d}.parquet") for i in range(table.committed)}
            for old in self.old_parts[name]:
                path = self.storage.join(self.dirs[name], old)
                if path not in new:
                    self.storage.remove(path)

    def abort(self):
        self.background.drain(raise_errors=False)
        self.background.close()
        self.games.abort()
        self.moves.abort()
        for path in self.made_dirs:  # (only when empty: nothing of another's is removed)
            self.storage.remove_empty_dir(path)

    # ---- parallel runs: workers write parts, the parent adopts and renames them

    def finish_chunk(self) -> dict:
        """Worker side: finish this chunk's parts; {"games": [temporary paths], "moves": [...]}."""
        try:
            self.background.run(self._finish_parts)
            return {"games": list(self.games.written), "moves": list(self.moves.written)}
        finally:
            self.background.close()

    def merge(self, parts: dict):
        """Parent side: take over a worker's finished parts (in chunk order); renamed at commit."""
        self.games.written.extend(parts["games"])
        self.moves.written.extend(parts["moves"])

    def discard(self, run_id: str):
        """Removes the temporary parts of a failed parallel run (left by stopped workers)."""
        start = f".part-{run_id}"
        for directory in self.dirs.values():
            for name in self.storage.names(directory):
                if name.startswith(start) and name.endswith(".tmp"):
                    self.storage.remove(self.storage.join(directory, name))
