"""A Parquet dataset directory: OUT_DIR/games/part-NNNNN.parquet and OUT_DIR/moves/part-NNNNN.parquet.

Tables are buffered to row-group size and written batch by batch, so memory stays flat. Part
files are written under hidden temporary names and renamed only when the whole run succeeds.
OUT_DIR may be an fsspec URL (pgntools.storage): cluster workers then write their parts there.

With ``--jobs``/``--scheduler`` (pgntools.runner.parallel) each worker writes the parts of its chunk
under temporary names carrying a run- and chunk-unique prefix and hands their paths back
(``finish_chunk``); the parent ``merge``s them in chunk order and numbers them at ``commit``.
"""
from __future__ import annotations

import functools
import os
import posixpath
from collections import OrderedDict, deque
from typing import List, NamedTuple, Optional, Sequence

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
# --target-part-size: a part holds target / (bytes a game) games. Measured with the default
# columns and zstd: the moves table of the Lichess sample (39 MB, [%clk] comments) 650 bytes a
# game, of the master games 447; the games table a sixth of that. --with-fen adds about as much
# again, --with-keys a 64-bit key a ply (poorly compressible), comments their text.
DEFAULT_TARGET_PART_SIZE = 256_000_000
BYTES_PER_GAME = 600
FEN_BYTES_PER_GAME = 600
KEY_BYTES_PER_GAME = 700
COMMENT_BYTES_PER_GAME = 600
# The part files can be encoded from each batch's Arrow table (tables/build.py: the one batch →
# Arrow path, to_arrow's) or straight from the batch columns (_core.BatchFeeder): the same bytes
# (tested). Measured on 1.06 GB (benchmarks/parquet_writer_bench.py, RESULTS.md 2026-12-06): the
# Arrow feed costs +43 % CPU at --jobs 1 (+64 % at --jobs 2) and imports pyarrow; so the columns
# feed export until building the Arrow table costs less (issue 35 item 7).
ARROW_FEED = False
# --partition-by: a table keeps a file open for each partition written to lately, so that a
# partition's rows of many batches become one fragment (closing a file ends its row group: a
# historical collection by year and month has ~1,000 partitions, a few games each per batch).
# At most this many open files, holding at most PARTITION_BYTES of encoded rows in all; past
# either, the file written to least recently is closed (a fragment; later rows start another).
# A file is opened at its first row group's write: the small partitions hold no descriptor.
MAX_OPEN_PARTITIONS = 4096
PARTITION_BYTES = 32 << 20


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
        if self.pool is None:
            return fn(*args)
        task = self.pool.submit(fn, *args)
        self.jobs.append(task)
        self.drain()
        return task.result()

    def close(self):
        if self.pool is not None:
            self.pool.close()


class Fragment(NamedTuple):
    """A finished file of some of a part's rows (a worker's chunk's, or those written before its
    file was closed to bound the open ones): its row groups, copied into the part at assembly."""

    path: str
    pages_end: int
    groups: list
    rows: int


class TableParts:
    """The part files of `games` or `moves` (table), encoded straight from the batches' columns
    (pgntools.parquet.part_file) in row groups of GAME_ROWS_PER_GROUP / MOVE_ROWS_PER_GROUP rows or
    GROUP_BYTES[table] bytes (read at each batch, so tests can change them).

    A part holds the games of one range of game ids (``part``: game_id // games a part, see
    part_games), so the dataset's parts are the same for any --jobs and cluster, whatever the
    chunks: rows are written to *fragments* (hidden temporary files, one per chunk and part, or
    per part in-process), and a part that is complete is *assembled*: its fragments' row groups
    copied into one file (a single fragment is renamed), under a temporary name, then renamed
    to part-N.parquet (N = first_part + part). A batch may go to a partition
    (``add(batch, part, "year=2024/month=01")``: a hive directory under the table's); at most
    MAX_OPEN_PARTITIONS files holding PARTITION_BYTES of rows are open at a time (the one least
    recently written to is closed first: memory stays bounded)."""

    def __init__(self, storage: LocalStorage, directory: str, table: str, columns: Sequence[Column], compression: str,
                 prefix: str = "", first_part: int = 0):
        self.storage = storage
        self.prefix = prefix  # makes temporary names unique per worker chunk
        self.directory = directory
        self.table = table
        self.columns = columns
        self.compression = compression
        self.first_part = first_part
        self.files: "OrderedDict[tuple, ParquetPartFile]" = OrderedDict()  # open files by (part, partition)
        self.held: dict = {}  # the encoded bytes of each open file's row group, as of its last add
        self.held_total = 0
        self.paths: dict = {}  # their temporary paths
        self.fragments: "OrderedDict[tuple, List[Fragment]]" = OrderedDict()  # finished, by (part, partition)
        self.sequence = 0  # temporary names made so far
        self.made: set = set()  # partition directories made
        self.pending: List[tuple] = []  # (temporary, final) paths assembled, renamed at commit (not progressive)
        self.committed_paths: List[str] = []  # parts under their final names

    def temp_path(self, partition: str = "") -> str:
        self.sequence += 1
        return self.storage.join(self._dir(partition), f".part-{self.prefix}{self.sequence - 1:05d}.parquet.tmp")

    def final_path(self, part: int, partition: str = "") -> str:
        return self.storage.join(self._dir(partition), f"part-{self.first_part + part:05d}.parquet")

    def _dir(self, partition: str) -> str:
        if not partition:
            return self.directory
        path = self.storage.join(self.directory, partition)
        if path not in self.made:
            self.storage.makedirs(path)
            self.made.add(path)
        return path

    def add(self, batch: GameBatch, part: int = 0, partition: str = ""):
        key = (part, partition)
        file = self.files.get(key)
        if file is None:
            if len(self.files) >= MAX_OPEN_PARTITIONS:
                self._close(next(iter(self.files)))
            path = self.paths[key] = self.temp_path(partition)
            file = self.files[key] = ParquetPartFile(functools.partial(self.storage.open_write, path), self.table,
                                                     self.columns, self.compression)
            self.held[key] = 0
        else:
            self.files.move_to_end(key)
        if ARROW_FEED:  # the batch's Arrow table, to_arrow's (tables/build.py), encoded from its arrays
            file.add_table(arrow_table(batch, self.table, self.columns))
        else:
            file.add(batch)
        rows_per_group = GAME_ROWS_PER_GROUP if self.table == "games" else MOVE_ROWS_PER_GROUP  # (positions too)
        held = file.group_bytes
        if file.group_rows >= rows_per_group or held >= GROUP_BYTES[self.table]:
            file.end_row_group()
            held = 0
        self.held_total += held - self.held[key]
        self.held[key] = held
        while self.held_total > PARTITION_BYTES and len(self.files) > 1:
            self._close(next(iter(self.files)))

    def _close(self, key: tuple):
        file = self.files.pop(key)
        self.held_total -= self.held.pop(key)
        file.close()
        self.fragments.setdefault(key, []).append(Fragment(self.paths.pop(key), file.pages_end, file.row_groups,
                                                           file.rows))

    def close_all(self):
        for key in list(self.files):
            self._close(key)

    def take_fragments(self) -> list:
        """Worker side: the chunk's finished fragments, [((part, partition), [Fragment, ...])]."""
        self.close_all()
        taken, self.fragments = list(self.fragments.items()), OrderedDict()
        return taken

    def adopt(self, fragments: list):
        """Parent side: a chunk's fragments (in chunk order)."""
        for key, found in fragments:
            self.fragments.setdefault(tuple(key), []).extend(found)

    def complete(self, before: Optional[int] = None, progressive: bool = True) -> List[str]:
        """Assembles the parts numbered below ``before`` (None: all), in order; with
        ``progressive`` each is renamed to its final name at once, else at publish() or commit.
        Returns their final paths."""
        for key in [k for k in self.files if before is None or k[0] < before]:
            self._close(key)
        done = []
        for key in sorted((k for k in self.fragments if before is None or k[0] < before), key=lambda k: k):
            part, partition = key
            temp = self._assemble(self.fragments.pop(key), partition)
            final = self.final_path(part, partition)
            if progressive:
                self.storage.rename(temp, final)
                self.committed_paths.append(final)
            else:
                self.pending.append((temp, final))
            done.append(final)
        return done

    def _assemble(self, fragments: List[Fragment], partition: str) -> str:
        """One file of the fragments' row groups (a single fragment is the file): its temporary path."""
        if len(fragments) == 1:
            return fragments[0].path
        path = self.temp_path(partition)
        out = ParquetPartFile(self.storage.open_write(path), self.table, self.columns, self.compression)
        try:
            for fragment in fragments:
                with self.storage.open_read(fragment.path) as source:
                    out.add_file_row_groups(source, fragment.pages_end - 4, fragment.groups)
            out.close()
        except BaseException:
            out.abort()
            self.storage.remove(path)
            raise
        for fragment in fragments:
            self.storage.remove(fragment.path)
        return path

    def commit(self, empty_part: bool = True):
        """Every part assembled and renamed; an empty input still gives a readable (empty) dataset
        (``empty_part``: not when appending or resuming)."""
        self.complete(None, progressive=False)
        if not self.pending and not self.committed_paths and empty_part:
            path = self.temp_path()
            ParquetPartFile(self.storage.open_write(path), self.table, self.columns, self.compression).close()
            self.pending.append((path, self.final_path(0)))
        self.publish()

    def publish(self):
        """The assembled parts renamed to their final names."""
        for temp, final in self.pending:
            self.storage.rename(temp, final)
            self.committed_paths.append(final)
        self.pending = []

    def abort(self, keep_committed: bool = False):
        """Removes the temporary files, and (unless ``keep_committed``) the parts renamed already."""
        for key in list(self.files):
            self.files.pop(key).abort()
            self.fragments.setdefault(key, []).append(Fragment(self.paths.pop(key), 0, [], 0))
        self.held, self.held_total = {}, 0
        for fragments in self.fragments.values():
            for fragment in fragments:
                self.storage.remove(fragment.path)
        self.fragments = OrderedDict()
        for temp, _ in self.pending:
            self.storage.remove(temp)
        self.pending = []
        if not keep_committed:
            for path in self.committed_paths:
                self.storage.remove(path)
            self.committed_paths = []


def part_games(target_part_size: int, with_fen: bool = False, with_comment: bool = False, with_keys: bool = False) -> int:
    """The games of one part (a range of game ids) for parts of about ``target_part_size`` bytes
    in the moves table (the larger; a games part holds the same games). Counted in games, not in
    bytes written, so that the parts are the same whatever the chunks (--jobs, cluster)."""
    per_game = BYTES_PER_GAME + (FEN_BYTES_PER_GAME if with_fen else 0) + (KEY_BYTES_PER_GAME if with_keys else 0) \
        + (COMMENT_BYTES_PER_GAME if with_comment else 0)
    return max(1, target_part_size // per_game)


def split_parts(batch: GameBatch, games_per_part: int, skip_before: int = 0) -> List[tuple]:
    """(part, the batch's games in it) for each part its games are in, in order; games whose id
    is below ``skip_before`` (in parts committed before a --resume) left out."""
    from pgntools.selection import all_ids, take_games

    first, last = batch.game_id(0), batch.game_id(batch.n_games - 1)
    if first >= skip_before and first // games_per_part == last // games_per_part:
        return [(first // games_per_part, batch)]
    ids = memoryview(all_ids(batch)).cast("q")
    groups: dict = {}
    for g, game_id in enumerate(ids):
        if game_id >= skip_before:
            groups.setdefault(game_id // games_per_part, []).append(g)
    return [(part, batch if len(games) == batch.n_games else take_games(batch, games))
            for part, games in sorted(groups.items())]


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
    ChunkOutput of a worker's chunk (None in the parent, or in-process); its fragments get names
    of its own. ``writer_thread``: encode on a thread of its own (see Background).

    Parts are ranges of game ids (``target_part_size``: part_games), the same for any --jobs or
    cluster. A part is renamed to its final name as soon as it is complete (all of its games
    written), and the manifest (pgntools.sinks.export_manifest) says so: a run killed or left
    without workers keeps them, and ``resume`` (the manifest's state) continues it. A run that
    fails or is interrupted otherwise removes them (``abort``); --overwrite renames at the end."""

    fixed_chunks = True

    def __init__(self, out_dir: str, columns: Optional[Sequence[str]] = None, with_fen: bool = False,
                 with_comment: bool = False, compression: str = "zstd", chunk=None, writer_thread: bool = True,
                 en_passant: str = "legal", overwrite: bool = False, with_keys: bool = False,
                 partition_by: Optional[Sequence[str]] = None, append: bool = False,
                 target_part_size: int = DEFAULT_TARGET_PART_SIZE, inputs: Optional[List[list]] = None,
                 resume: Optional[dict] = None):
        from pgntools.sinks.export_manifest import Manifest

        self.with_fen, self.with_comment, self.with_keys = with_fen, with_comment, with_keys
        self.chunk = chunk
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
        self.part_games = resume["part_games"] if resume else part_games(target_part_size, with_fen, with_comment,
                                                                          with_keys)
        self.settings = {"columns": list(columns) if columns else None, "with_fen": with_fen,
                         "with_comments": with_comment, "with_keys": with_keys, "compression": compression,
                         "en_passant": en_passant, "partition_by": list(partition_by) if partition_by else None,
                         "part_games": self.part_games}
        if resume is not None and chunk is None:
            from pgntools.sinks.export_manifest import check_same_run

            check_same_run(resume, inputs or [], self.settings, out_dir)
        # --overwrite: the parts an earlier export wrote, removed once this one's are in place
        self.old_parts = {name: [] for name in dirs}
        # the directories this export makes: removed again when it fails or is interrupted (issue 37 A6)
        self.made_dirs = made_dirs(self.storage, root, dirs.values()) if chunk is None else []
        self.progressive = not overwrite  # (--overwrite: the old parts stay until the new ones are complete)
        self.resuming = resume is not None
        self.done = resume["committed_parts"] if resume else 0  # the parts below are committed
        self.skip_before = self.done * self.part_games
        first_part = resume["first_part"] if resume else 0
        if chunk is None:  # (the parent: a worker's chunk writes into the directories it checked)
            for (name, path), table_columns in zip(dirs.items(), (games_columns, moves_columns)):
                shown = self.storage.join(out_dir, name)
                self.old_parts[name] = prepare_part_dir(self.storage, path, shown, out_dir, overwrite,
                                                        append or self.resuming)
                if append:
                    check_append_schema(self.storage, path, shown, part_files(self.storage, path), table_columns)
            if append and not resume:  # numbered after every part the dataset holds
                first_part = max(next_part_number(self.storage, self.storage.join(path, os.path.dirname(part)))
                                 for path in dirs.values() for part in [""] + part_files(self.storage, path))
            if self.resuming:
                remove_temporary(self.storage, dirs.values())  # the interrupted run's fragments
                for path in resume.get("committing", []):  # (renamed when it was killed, not committed)
                    self.storage.remove(self.storage.join(root, path))
        self.games = TableParts(self.storage, dirs["games"], "games", games_columns, compression, prefix=part_prefix,
                                first_part=first_part)
        self.needs.update(schema.reader_needs_of(self.games.columns))  # (movetext_hash, the counters, ...)
        self.moves = TableParts(self.storage, dirs["moves"], "moves", moves_columns, compression, prefix=part_prefix,
                                first_part=first_part)
        self.manifest = None
        if chunk is None:
            self.manifest = Manifest(self.storage, root, inputs or [], self.settings, first_part, self.part_games)
            if resume:
                self.manifest.state.update(files=resume["files"], committed_parts=self.done, resume=resume["resume"])
            self.manifest.remember_previous()
        self.inputs = [name for name, _ in (inputs or [])]
        self.background = Background(writer_thread)

    def write(self, batch: GameBatch):
        if batch.n_games:
            self.background.submit(self._write, batch)

    def _write(self, batch: GameBatch):  # on the writer (thread)
        parts = split_parts(batch, self.part_games, self.skip_before)
        for part, games in parts:
            for partition, taken in self.partitioner.split(games) if self.partitioner else [("", games)]:
                self.games.add(taken, part, partition)
                self.moves.add(taken, part, partition)
        if self.chunk is None and parts and parts[-1][0] > self.done:  # in-process: the parts before are complete
            top, games = parts[-1]
            g = 0
            offset, line = games.column("offset")[g], games.column("line")[g]
            self._complete(top, self._point(batch.source, offset, line, games.game_id(g)))

    def _point(self, source: str, offset: int, line: int, first_game: int):
        """The manifest's resume point (None: the input is not one the run names, e.g. a zip member)."""
        from pgntools.sinks.export_manifest import ResumePoint

        if source not in self.inputs or line is None:
            return None
        return ResumePoint(self.inputs.index(source), source, int(offset), int(line), int(first_game))

    def _complete(self, before: int, point):
        """Parts below ``before`` are complete: assembled (both tables), then listed in the
        manifest as committing, renamed, and counted committed (see export_manifest)."""
        files = {"games": self.games.complete(before, progressive=False),
                 "moves": self.moves.complete(before, progressive=False)}
        self.done = before
        if self.progressive:
            relative = {k: [self._relative(p) for p in v] for k, v in files.items()}
            if self.manifest is not None:
                self.manifest.intend(relative)
            self.games.publish()
            self.moves.publish()
            if self.manifest is not None:
                self.manifest.commit(before, relative, point)

    def _relative(self, path: str) -> str:
        root = self.manifest.root.rstrip("/")
        return path[len(root) + 1:] if root and path.startswith(root) else path

    def _finish_parts(self):  # on the writer (thread)
        self.games.close_all()
        self.moves.close_all()

    def commit(self):
        try:
            self.background.run(self._finish_parts)
            games_before = list(self.games.committed_paths)
            moves_before = list(self.moves.committed_paths)
            empty = not self.resuming and not self.games.first_part and not self.done
            self.games.commit(empty_part=empty)
            self.moves.commit(empty_part=empty)
        finally:
            self.background.close()
        self._remove_old_parts()
        if self.manifest is not None:
            files = {"games": [self._relative(p) for p in self.games.committed_paths if p not in games_before],
                     "moves": [self._relative(p) for p in self.moves.committed_paths if p not in moves_before]}
            self.manifest.commit(self.done, files, None, complete=True)

    def _remove_old_parts(self):
        """--overwrite: an earlier export's parts that this one's did not replace (renamed over
        them at commit); only part-N.parquet names, never another file."""
        for name, table in (("games", self.games), ("moves", self.moves)):
            for old in self.old_parts[name]:
                path = self.storage.join(self.dirs[name], old)
                if path not in table.committed_paths:
                    self.storage.remove(path)

    def abort(self):
        """A failed or interrupted run: nothing of it is left (its committed parts neither; a
        resumed run's removes only its own)."""
        self._stop()
        self.games.abort()
        self.moves.abort()
        if self.manifest is not None and not self.resuming:
            self.manifest.restore()
        elif self.manifest is not None:
            self.manifest.write()  # (the parts this resumed run committed are gone again)
        for path in self.made_dirs:  # (only when empty: nothing of another's is removed)
            self.storage.remove_empty_dir(path)

    def suspend(self) -> List[str]:
        """A run that cannot go on (no worker left): its committed parts and the manifest stay,
        for --resume; the temporary files go. Returns the committed parts (relative paths)."""
        self._stop()
        self.games.abort(keep_committed=True)
        self.moves.abort(keep_committed=True)
        return [self._relative(p) for p in self.games.committed_paths + self.moves.committed_paths]

    def _stop(self):
        self.background.drain(raise_errors=False)
        self.background.close()

    # ---- parallel runs: workers write fragments, the parent assembles and renames them

    def finish_chunk(self) -> dict:
        """Worker side: finish this chunk's fragments; {"games": [...], "moves": [...], "chunk":
        (source, offset, line, first game, games)}."""
        try:
            self.background.run(self._finish_parts)
            return {"games": self.games.take_fragments(), "moves": self.moves.take_fragments(),
                    "chunk": getattr(self.chunk, "position", None)}
        finally:
            self.background.close()

    def merge(self, parts: dict):
        """Parent side: take over a worker's fragments (in chunk order); the parts before the
        chunk's last game are complete then."""
        self.games.adopt(parts["games"])
        self.moves.adopt(parts["moves"])
        position = parts.get("chunk")
        if position is not None and position[4]:
            source, offset, line, first_game, n_games = position
            top = (first_game + n_games - 1) // self.part_games
            if top > self.done:
                # (the chunk holds the first game of part ``top``: read again from its start)
                self._complete(top, self._point(source, offset, line, first_game))

    def discard(self, run_id: str):
        """Removes the temporary parts of a failed parallel run (left by stopped workers)."""
        remove_temporary(self.storage, self.dirs.values(), f".part-{run_id}")


def remove_temporary(storage, directories, start: str = ".part-"):
    """The temporary files (``start``*.tmp) in the tables' directories and their partitions'."""
    for directory in directories:
        try:
            names = storage.names(directory)
        except (FileNotFoundError, NotADirectoryError):
            continue
        for name in names:
            path = storage.join(directory, name)
            if name.startswith(start) and name.endswith(".tmp"):
                storage.remove(path)
            elif "=" in name and not name.startswith("."):
                remove_temporary(storage, [path], start)
