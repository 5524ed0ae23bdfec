"""The positions dataset of `export --positions DIR`: DIR/part-NNNNN.parquet, one row per sampled
position (pgntools.positions_dataset; the columns: schema.position_row_columns).

The rows come from the C reader in the batches' position_* columns and are encoded as export's
tables are (pgntools.parquet.part_file, on the writer thread from --jobs 2 on); parts are written under
hidden temporary names and renamed when the run succeeds. A parallel run's workers write their
chunks' parts and the parent takes them in chunk order (as ParquetDatasetSink does), so the
files hold the same rows for any --jobs and on a cluster.
"""
from __future__ import annotations

from pgntools.errors import OutputError
from pgntools.positions_dataset import PositionRows, UniqueRows, row_count
from pgntools.reader import GameBatch
from pgntools.sinks.base import Sink
from pgntools.sinks.parquet import MOVE_ROWS_PER_PART, Background, TableParts, prepare_part_dir
from pgntools.storage import storage_for
from pgntools.tables import schema


class PositionDatasetSink(Sink):
    """Writes the dataset's rows of each batch into ``out_dir``. ``chunk``: a worker's ChunkOutput
    (its parts get names of their own); ``writer_thread``: encode on a thread of its own.
    ``rows.unique`` keeps the first row of each key over the whole run: such a run reads in one
    thread (the command line sees to it)."""

    fixed_chunks = True

    def __init__(self, out_dir: str, rows: PositionRows, compression: str = "zstd", chunk=None,
                 writer_thread: bool = True, en_passant: str = "legal", overwrite: bool = False):
        self.rows = rows.checked()
        self.needs = {**rows.needs(en_passant), "detach": writer_thread, "batch_games": 512}
        self.storage, root = storage_for(out_dir, OutputError)
        self.root = root
        self.old_parts = prepare_part_dir(self.storage, root, out_dir, out_dir, overwrite)
        self.parts = TableParts(self.storage, root, "position_rows", schema.position_row_columns(rows.planes),
                                compression, prefix=chunk.part_prefix if chunk is not None else "")
        self.unique = UniqueRows() if rows.unique else None
        self.rows_in_part = 0
        self.part = 0  # the part being written (a worker's chunk: renumbered by the parent)
        self.background = Background(writer_thread)

    def write(self, batch: GameBatch):
        if self.unique is not None:  # in input order, on the reading thread
            batch = self.unique.keep(batch)
        if row_count(batch):
            self.background.submit(self._write, batch)

    def _write(self, batch: GameBatch):  # on the writer (thread)
        self.parts.add(batch, self.part)
        self.rows_in_part += row_count(batch)
        if self.rows_in_part >= MOVE_ROWS_PER_PART:
            self.parts.close_all()
            self.part += 1
            self.rows_in_part = 0

    def commit(self):
        try:
            self.background.run(self.parts.close_all)
            self.parts.commit()
        finally:
            self.background.close()
        new = set(self.parts.committed_paths)
        for old in self.old_parts:  # --overwrite: an earlier export's parts not replaced
            path = self.storage.join(self.root, old)
            if path not in new:
                self.storage.remove(path)

    def abort(self):
        self.background.drain(raise_errors=False)
        self.background.close()
        self.parts.abort()

    # ---- parallel runs: workers write parts, the parent adopts and renames them

    def finish_chunk(self) -> list:
        try:
            return self.background.run(self.parts.take_fragments)
        finally:
            self.background.close()

    def merge(self, parts: list):
        """A chunk's files, each a part of its own, numbered after those before."""
        self.parts.adopt([((self.part + i, partition), found) for i, ((_, partition), found) in enumerate(parts)])
        self.part += len(parts)

    def discard(self, run_id: str):
        start = f".part-{run_id}"
        for name in self.storage.names(self.root):
            if name.startswith(start) and name.endswith(".tmp"):
                self.storage.remove(self.storage.join(self.root, name))

