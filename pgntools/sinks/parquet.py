"""A Parquet dataset directory: OUT_DIR/games/part-NNNNN.parquet and OUT_DIR/moves/part-NNNNN.parquet.

Tables are buffered to row-group size and written batch by batch, so memory stays flat. Part
files are written under hidden temporary names and renamed only when the whole run succeeds.
OUT_DIR may be an fsspec URL (pgntools.storage): cluster workers then write their parts there.

With ``--jobs``/``--scheduler`` (pgntools.runner.parallel) each worker writes the parts of its chunk
under temporary names carrying a run- and chunk-unique prefix and hands their paths back
(``finish_chunk``); the parent ``merge``s them in chunk order and numbers them at ``commit``.
"""
from __future__ import annotations

import os
import posixpath
from collections import OrderedDict, deque
from typing import List, Optional, Sequence

from pgntools.errors import OutputError
from pgntools.outputs import PART_NAME
from pgntools.parquet.part_file import ParquetPartFile
from pgntools.reader import GameBatch
from pgntools.sinks.base import Sink
from pgntools.storage import LocalStorage, storage_for
from pgntools.tables import schema
from pgntools.tables.build import table as arrow_table
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
# The part files are encoded from each batch's Arrow table (tables/build.py: the one batch → Arrow
# path, to_arrow's): the same bytes as from the batch columns (False: _core.BatchFeeder's path,
# which costs less CPU; benchmarks/parquet_writer_bench.py measures both, RESULTS.md 2026-12-06).
ARROW_FEED = True
# --partition-by: the parts open at a time in each table (each holds up to a row group in memory)
MAX_OPEN_PARTITIONS = 16


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
    under hidden temporary names, renamed at commit, removed at abort.

    A batch may go to a partition (``add(batch, "year=2024/month=01")``: a hive directory under
    the table's); each partition has a part of its own open, at most MAX_OPEN_PARTITIONS at a
    time (the one least recently written to is closed first: memory stays bounded). With
    ``first_part`` (--append), a directory's new parts are numbered after the parts it holds."""

    def __init__(self, storage: LocalStorage, directory: str, table: str, columns: Sequence[Column], compression: str,
                 prefix: str = "", append: bool = False):
        self.storage = storage
        self.prefix = prefix  # makes temporary names unique per worker chunk
        self.directory = directory
        self.table = table
        self.columns = columns
        self.compression = compression
        self.append = append
        self.files: "OrderedDict[str, ParquetPartFile]" = OrderedDict()  # open parts by partition ("": none)
        self.paths: dict = {}  # their temporary paths
        self.sequence = 0  # temporary names made so far
        self.made: set = set()  # partition directories made
        self.written: List[str] = []  # temporary paths of finished parts
        self.committed = 0  # parts renamed to their final names
        self.committed_paths: set = set()

    def temp_path(self, partition: str = "") -> str:
        self.sequence += 1
        return self.storage.join(self._dir(partition), f".part-{self.prefix}{self.sequence - 1:05d}.parquet.tmp")

    def final_path(self, part: int, directory: Optional[str] = None) -> str:
        return self.storage.join(directory or self.directory, f"part-{part:05d}.parquet")

    def _dir(self, partition: str) -> str:
        if not partition:
            return self.directory
        path = self.storage.join(self.directory, partition)
        if path not in self.made:
            self.storage.makedirs(path)
            self.made.add(path)
        return path

    def add(self, batch: GameBatch, partition: str = ""):
        file = self.files.get(partition)
        if file is None:
            while len(self.files) >= MAX_OPEN_PARTITIONS:
                self._close(next(iter(self.files)))
            path = self.paths[partition] = self.temp_path(partition)
            file = self.files[partition] = ParquetPartFile(self.storage.open_write(path), self.table, self.columns,
                                                           self.compression)
        else:
            self.files.move_to_end(partition)
        if ARROW_FEED:  # the batch's Arrow table, to_arrow's (tables/build.py), encoded from its arrays
            file.add_table(arrow_table(batch, self.table, self.columns))
        else:
            file.add(batch)
        rows_per_group = GAME_ROWS_PER_GROUP if self.table == "games" else MOVE_ROWS_PER_GROUP  # (positions too)
        if file.group_rows >= rows_per_group or file.group_bytes >= GROUP_BYTES[self.table]:
            file.end_row_group()

    def _close(self, partition: str):
        self.files.pop(partition).close()
        self.written.append(self.paths.pop(partition))

    def next_part(self):
        """Closes the open parts (the next rows go to new files)."""
        for partition in list(self.files):
            self._close(partition)

    def commit(self):
        self.next_part()
        if not self.written and not self.append:  # an empty input still gives a readable (empty) dataset
            path = self.temp_path()
            ParquetPartFile(self.storage.open_write(path), self.table, self.columns, self.compression).close()
            self.written.append(path)
        numbers: dict = {}  # directory -> the next part number there
        for path in self.written:
            directory = os.path.dirname(path)
            if directory not in numbers:
                numbers[directory] = next_part_number(self.storage, directory) if self.append else 0
            final = self.final_path(numbers[directory], directory)
            numbers[directory] += 1
            self.storage.rename(path, final)
            self.committed_paths.add(final)
        self.committed = len(self.written)

    def abort(self):
        for partition in list(self.files):
            self.files.pop(partition).abort()
            self.written.append(self.paths.pop(partition))
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


def next_part_number(storage, directory: str) -> int:
    """1 + the highest N of the part-N.parquet files in ``directory`` (0: none)."""
    try:
        names = storage.names(directory)
    except OSError:
        return 0
    numbers = [int(name[5:-8]) for name in names if PART_NAME.fullmatch(name)]
    return max(numbers) + 1 if numbers else 0


def prepare_part_dir(storage, path: str, shown: str, out_dir: str, overwrite: bool, append: bool = False) -> List[str]:
    """A table's directory made (when missing) and checked: writable, and holding no part files
    (in it or in its hive partitions' directories) unless ``overwrite``, when it returns their
    paths relative to it (removed once the new parts are in), or ``append`` (kept)."""
    old: List[str] = []
    try:
        storage.makedirs(path)
        parts = part_files(storage, path)
        if overwrite:
            old = parts
        elif not append and (parts or any(f.endswith(".parquet") for f in storage.names(path))):
            raise OutputError(f"{shown} already holds part files: choose an empty output directory, "
                              "--overwrite to replace an earlier export's parts, or --append to add to them")
    except OSError as exc:
        raise OutputError(f"{out_dir}: cannot create the dataset directory: {exc.strerror or exc}") from None
    if not storage.writable(path):
        raise OutputError(f"{shown}: not writable")
    return old


def part_files(storage, directory: str, under: str = "") -> List[str]:
    """The part-N.parquet files in ``directory`` and its hive partitions (NAME=VALUE directories),
    as paths relative to it, sorted."""
    found = []
    for name in sorted(storage.names(directory)):
        relative = f"{under}/{name}" if under else name
        if PART_NAME.fullmatch(name):
            found.append(relative)
        elif "=" in name and not name.startswith("."):
            try:
                found += part_files(storage, storage.join(directory, name), relative)
            except (NotADirectoryError, FileNotFoundError):
                pass
    return found


def check_append_schema(storage, directory: str, shown: str, parts: Sequence[str], columns: Sequence[Column]):
    """--append: the dataset's columns are the ones this export writes (else exit 2, before
    anything is written). One part is read: the parts of a dataset share their schema."""
    if not parts:
        return
    import pyarrow.parquet as pq

    path = storage.join(directory, parts[0])
    with (storage.fs.open(path, "rb") if hasattr(storage, "fs") else open(path, "rb")) as f:
        names = pq.read_schema(f).names
    ours = [c.name for c in columns]
    if names != ours:
        missing, extra = [n for n in ours if n not in names], [n for n in names if n not in ours]
        raise OutputError(f"--append: {shown} holds a dataset of other columns ({parts[0]}: "
                          f"{', '.join(missing) or 'none'} missing, {', '.join(extra) or 'none'} more, "
                          f"or another order): export with the options that wrote it, or elsewhere")


class ParquetDatasetSink(Sink):
    """Writes `games` and `moves` tables of each batch into a dataset directory. ``chunk``: the
    ChunkOutput of a worker's chunk (None in the parent, or in-process); its parts get names of
    its own. ``writer_thread``: encode on a thread of its own (see Background)."""

    fixed_chunks = True

    def __init__(self, out_dir: str, columns: Optional[Sequence[str]] = None, with_fen: bool = False,
                 with_comment: bool = False, compression: str = "zstd", chunk=None, writer_thread: bool = True,
                 en_passant: str = "legal", overwrite: bool = False, with_keys: bool = False,
                 partition_by: Optional[Sequence[str]] = None, append: bool = False):
        self.with_fen, self.with_comment, self.with_keys = with_fen, with_comment, with_keys
        part_prefix = chunk.part_prefix if chunk is not None else ""
        self.needs = {"moves": True, "comments": with_comment, "fen_every_ply": with_fen, "keys_every_ply": with_keys,
                      "final_fen": True,
                      "tag_columns": True, "tag_values": True, "numbered": True, "en_passant": en_passant,
                      # the writer reads the batches' own buffers (the Arrow tables are made over
                      # them: no copies), on its thread or not; half the default batch: the batches queued
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
        self.partitioner = None
        if partition_by:
            from pgntools.sinks.partitions import Partitioner

            self.partitioner = Partitioner(partition_by)
            for need, value in self.partitioner.needs.items():
                self.needs[need] = self.needs.get(need) or value
        self.storage, root = storage_for(out_dir, OutputError)
        dirs = {name: self.storage.join(root, name) for name in ("games", "moves")}
        self.dirs = dirs
        games_columns = schema.select(schema.GAME_COLUMNS, columns, ["game_id"])
        moves_columns = schema.select(schema.move_columns(with_comment, with_fen, with_keys), columns, ["game_id", "ply"])
        # --overwrite: the parts an earlier export wrote, removed once this one's are in place
        self.old_parts = {name: [] for name in dirs}
        # the directories this export makes: removed again when it fails or is interrupted (issue 37 A6)
        self.made_dirs = made_dirs(self.storage, root, dirs.values()) if chunk is None else []
        if chunk is None:  # (the parent: a worker's chunk writes into the directories it checked)
            for (name, path), table_columns in zip(dirs.items(), (games_columns, moves_columns)):
                shown = self.storage.join(out_dir, name)
                self.old_parts[name] = prepare_part_dir(self.storage, path, shown, out_dir, overwrite, append)
                if append:
                    check_append_schema(self.storage, path, shown, part_files(self.storage, path), table_columns)
        self.games = TableParts(self.storage, dirs["games"], "games", games_columns, compression, prefix=part_prefix,
                                append=append)
        self.needs.update(schema.reader_needs_of(self.games.columns))  # (movetext_hash, the counters, ...)
        self.moves = TableParts(self.storage, dirs["moves"], "moves", moves_columns, compression, prefix=part_prefix,
                                append=append)
        self.move_rows_in_part = 0
        self.background = Background(writer_thread)

    def write(self, batch: GameBatch):
        if batch.n_games:
            self.background.submit(self._write, batch)

    def _write(self, batch: GameBatch):  # on the writer (thread)
        for partition, games in self.partitioner.split(batch) if self.partitioner else [("", batch)]:
            self.games.add(games, partition)
            self.moves.add(games, partition)
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
            for old in self.old_parts[name]:
                path = self.storage.join(self.dirs[name], old)
                if path not in table.committed_paths:
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
