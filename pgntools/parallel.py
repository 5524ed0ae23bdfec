"""Parallel runs: game-aligned chunks of the inputs (pgntools.chunks), processed by worker
threads (``--jobs N``) or by the workers of a Dask cluster (``--scheduler``), with outputs
identical to the in-process run.

Local workers are threads: the compiled reader releases the GIL while it reads and replays, and
the Parquet encoders while they encode, so threads use every core without the start-up of worker
processes (each its own interpreter and imports: a fifth of validating a 20 MB file) and without
sending outputs between processes. Measured on 2 cores (benchmarks/RESULTS.md): validate of the
20 MB master file 1.35x with --jobs 2 where worker processes gave 1.0x; 1.7x on 1 GB either way.
export's --jobs counts its workers' writer threads too (pgntools.cli).

- Workers run the same sinks as the in-process run on their chunk (SinkSpec factories) and send
  back the bytes written (PGN, FEN, report lines), the counts, and, for the Parquet dataset, the
  part files they wrote under temporary names. The parent takes results in chunk order, so text
  outputs are byte-identical whatever the number of jobs, and renames the parts when the whole run
  has succeeded (a failed or interrupted run removes them).
- Chunks are numbered (cut by the scanner in the parent) when an output names games, and
  unnumbered (cut by a byte search, each seam checked by a worker) otherwise: see pgntools.chunks.
- At most ``window`` chunks are in flight, so memory stays bounded. An input that fits in one
  chunk is processed in-process, with no worker started.
"""
from __future__ import annotations

import io
import os
import signal
import threading
import uuid
from collections import deque
from typing import List, NamedTuple, Optional, Sequence

from pgntools.chunks import Chunk, Unreadable, chunk_batches, iter_chunks, iter_seam_chunks, seam_holds
from pgntools.errors import InputError
from pgntools.io import MAGIC
from pgntools.pipeline import SinkSpec, Summary
from pgntools.tasks import Pool, Task

MIN_CHUNK = 1 << 20
# The 2 x N chunks in flight hold their output bytes: chunks of one fixed size keep peak RSS the
# same for a 20 MB and a 1 GB input (validate --jobs 2: 28 MB on both; with 16 MiB chunks, 28 and
# 58 MB).
MAX_CHUNK = 2 << 20
# Export writes Parquet parts per chunk. A worker thread's memory (its Parquet writers and their
# row groups) grows with its chunk, so all chunks have one size, whatever the input's: with
# --jobs 2, peak RSS +4 to +6 % from 20 MB to 1 GB of input (with chunks sized to the input, up
# to 16 MiB: +24 %), for one part file per 4 MiB of PGN. Cluster workers have memory of their
# own: larger chunks there, and fewer parts.
PARQUET_CHUNK = 4 << 20
MAX_CHUNK_PARQUET_CLUSTER = 16 << 20
CHUNKS_PER_JOB = 4        # for an input of known size: ~4 chunks per job, for load balance


def default_jobs() -> int:
    """The number of CPUs this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


COMPRESSION_GUESS = 5     # decompressed / compressed size, to size the chunks of compressed files


def chunk_target(sources: Sequence[str], jobs: int, max_chunk: int = MAX_CHUNK) -> int:
    """Chunk size: max_chunk, or less for files that would give fewer than CHUNKS_PER_JOB
    chunks per job (compressed files counted at COMPRESSION_GUESS times their size)."""
    total = 0
    for source in sources:
        if source == "-" or not os.path.isfile(source):
            return max_chunk
        plain = _plain_size([source])
        total += plain or os.path.getsize(source) * COMPRESSION_GUESS
    return max(MIN_CHUNK, min(max_chunk, total // (jobs * CHUNKS_PER_JOB) + 1))


# ---------------------------------------------------------------- the worker side

class Job(NamedTuple):
    """What every chunk of a run needs: the reader options and the sinks (only those the run
    writes), and a run-unique prefix for the temporary names of Parquet parts."""

    command: str
    reader_options: dict
    specs: List[SinkSpec]
    part_prefix: str


class _Collector:
    """An in-memory output for a worker's sinks (the interface of pipeline.AtomicOutput)."""

    class _File(io.BytesIO):
        def close(self):  # a Parquet writer closes its file; keep the bytes
            pass

    def __init__(self):
        self.file = self._File()

    def write(self, data: bytes):
        self.file.write(data)

    def value(self) -> bytes:
        return self.file.getvalue()


def run_chunk(job: Job, chunk: Chunk, data: Optional[bytes] = None) -> dict:
    """Reads one chunk through the run's sinks. Returns {"index", "counts", "outputs": {name:
    bytes}, "parts": {spec number: parts}, "seam_ok"}, or {"index", "unreadable": why} when the
    chunk names a file this worker cannot read."""
    try:
        data = chunk.body() if data is None else data
    except Unreadable as exc:
        return {"index": chunk.index, "unreadable": str(exc)}
    try:
        return _run_chunk(job, chunk, data)
    finally:
        if isinstance(data, io.IOBase):  # a stream of the chunk's file
            data.close()


def _run_chunk(job: Job, chunk: Chunk, data) -> dict:
    collectors = {spec.output: _Collector() for spec in job.specs if spec.output is not None}
    sinks = []
    try:
        for spec in job.specs:
            if spec.output is None:
                sink = spec.factory(part_prefix=f"{job.part_prefix}{chunk.index:06d}-")
            else:
                sink = spec.factory(collectors[spec.output])
                if getattr(sink, "format", None) == "csv":  # one header, before the run's first game
                    sink.header_written = chunk.first_game != 0
            sinks.append(sink)
        summary = Summary(job.command)
        last_game = None
        for batch in chunk_batches(chunk, data, job.reader_options):
            summary.add(batch)
            for sink in sinks:
                sink.write(batch)
            if batch.n_games:
                last_game = batch.column("offset")[batch.n_games - 1]
        if chunk.numbered and summary.games != chunk.n_games:
            raise RuntimeError(f"{chunk.source}: the chunk at byte {chunk.offset} holds {summary.games} games, "
                               f"the scan found {chunk.n_games} (a seam out of place: please report this)")
        seam_ok = chunk.numbered or seam_holds(chunk, data, last_game,
                                               job.reader_options.get("max_game_size", 64 << 20))
        parts = {}
        for number, (spec, sink) in enumerate(zip(job.specs, sinks)):
            if spec.output is None:
                parts[number] = sink.close_parts()
            elif hasattr(sink, "commit"):
                sink.commit()
    except BaseException:
        for sink in sinks:
            if hasattr(sink, "abort"):
                sink.abort()
        raise
    return {"index": chunk.index, "counts": summary.counts(), "seam_ok": seam_ok,
            "outputs": {name: c.value() for name, c in collectors.items()}, "parts": parts}


def read_here(chunk: Chunk) -> bytes:
    """A chunk's bytes read by the parent (for workers that cannot read its file)."""
    try:
        return chunk.read()
    except Unreadable as exc:
        raise InputError(f"{chunk.source}: cannot read it again ({exc}); was it changed during the run?") from None


class _SignalsHeld:
    """Holds SIGINT and SIGTERM back while worker threads (or a Dask client's) are started, so
    that an interrupt never leaves a half-started pool behind: their Python handlers run when the
    block ends. Threads started meanwhile keep the signals blocked, so they reach the main
    thread, which stops the workers."""

    SIGNALS = [s for s in (getattr(signal, "SIGINT", None), getattr(signal, "SIGTERM", None)) if s is not None]

    def __enter__(self):
        self.caught: List[int] = []
        self.saved = {}
        if threading.current_thread() is threading.main_thread():
            for signum in self.SIGNALS:
                self.saved[signum] = signal.signal(signum, lambda signum, frame: self.caught.append(signum))
        self.mask = None
        if hasattr(signal, "pthread_sigmask"):
            self.mask = signal.pthread_sigmask(signal.SIG_BLOCK, self.SIGNALS)
        return self

    def __exit__(self, *exc):
        for signum, handler in self.saved.items():  # first, so that a signal pending in the
            signal.signal(signum, handler)          # mask goes to the real handler
        if self.mask is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, self.mask)
        for signum in self.caught[:1]:  # now run what the signal would have run
            handler = self.saved[signum]
            if callable(handler):
                handler(signum, None)
            elif handler == signal.SIG_DFL:
                if signum == signal.SIGINT:
                    raise KeyboardInterrupt
                os.kill(os.getpid(), signum)


# ---------------------------------------------------------------- executors

class LocalThreads:
    """Worker threads in this process (see the module's docstring for why not processes),
    started here, inside _SignalsHeld, so they keep SIGINT and SIGTERM blocked and the signals
    reach the main thread."""

    def __init__(self, jobs: int):
        self.window = 2 * jobs
        self.pool = Pool(jobs, "pgntools-worker")

    def submit(self, job: Job, chunk: Chunk):
        return self.pool.submit(run_chunk, job, chunk)

    def resubmit_with_bytes(self, job: Job, chunk: Chunk):
        return self.pool.submit(run_chunk, job, chunk.without_data(), read_here(chunk))

    @staticmethod
    def result(task: Task) -> dict:
        return task.result()

    def close(self):
        self.pool.close()

    def abort(self):
        """Drops the queued chunks; the threads stop when the chunk they are reading is done."""
        self.pool.abort()


# ---------------------------------------------------------------- the parent side

class ParallelFeed:
    """The parallel body of Run.execute: chunks out to the workers, results back in order."""

    def __init__(self, run, specs: Sequence[SinkSpec]):
        self.run = run
        self.specs = list(specs)

    def __call__(self, opened: dict, sinks: list, summary: Summary, progress) -> list:
        run = self.run
        active = [s for s in self.specs if s.output is None or s.output in opened]
        parent_sinks = list(zip(active, sinks))
        job = Job(run.command, dict(run.reader_options), active, uuid.uuid4().hex[:12] + "-")
        inputs = []

        def on_input(inp):
            inputs.append(inp)
            progress.on_input(inp)

        def take(result: dict):
            summary.merge(result["counts"])
            for number, (spec, sink) in enumerate(parent_sinks):
                if spec.output is None:
                    sink.adopt(result["parts"][number])
                else:
                    _merge_output(sink, opened[spec.output], result["outputs"][spec.output])
            progress.update(summary)

        jobs = run.jobs if not run.scheduler else 2
        if run.chunk_bytes:
            target = run.chunk_bytes
        elif any(spec.output is None for spec in active):  # a Parquet dataset: parts per chunk
            target = chunk_target(run.sources, jobs, MAX_CHUNK_PARQUET_CLUSTER) if run.scheduler else PARQUET_CHUNK
        else:
            target = chunk_target(run.sources, jobs)
        if run.numbered:
            chunks = iter_chunks(run.sources, target, run.reader_options.get("max_game_size", 64 << 20),
                                 on_input=on_input, on_error=summary.on_input_error)
        else:
            chunks = iter_seam_chunks(run.sources, target, on_input=on_input, on_error=summary.on_input_error)
        executor = None
        if run.scheduler or _plain_size(run.sources) > target:  # start the workers now
            executor = self._executor(active)
        pending: deque = deque()  # (chunk, future), in chunk order
        held = None  # the first chunk, until a second one shows that a pool is worth starting

        def settle(chunk: Chunk, result: dict) -> dict:
            """A result whose end seam failed its check: merge with the next chunk and rerun."""
            while not result["seam_ok"]:
                following = pending.popleft()[0] if pending else next(chunks)
                chunk = chunk.merged(following)
                result = run_chunk(job, chunk) if executor is None else \
                    self._result(executor, job, chunk, executor.submit(job, chunk))
            return result

        try:
            for chunk in chunks:
                if executor is None:
                    if held is None:
                        held = chunk
                        continue
                    executor = self._executor(active)
                    pending.append((held, executor.submit(job, held)))
                    held = None
                pending.append((chunk, executor.submit(job, chunk)))
                while len(pending) > executor.window:
                    chunk, future = pending.popleft()
                    take(settle(chunk, self._result(executor, job, chunk, future)))
            if held is not None:  # the whole input is one chunk: no worker needed
                take(settle(held, run_chunk(job, held)))
            while pending:
                chunk, future = pending.popleft()
                take(settle(chunk, self._result(executor, job, chunk, future)))
        except BaseException:
            if executor is not None:
                executor.abort()
            for spec, sink in parent_sinks:
                if spec.output is None:
                    sink.remove_temporary(job.part_prefix)
            raise
        finally:
            if executor is not None:
                executor.close()
        return inputs

    @staticmethod
    def _result(executor, job: Job, chunk: Chunk, future) -> dict:
        result = executor.result(future)
        if "unreadable" in result:  # the workers do not see the parent's file: send the bytes
            executor.paths_readable = False
            result = executor.result(executor.resubmit_with_bytes(job, chunk))
        return result

    def _executor(self, specs: Sequence[SinkSpec]):
        with _SignalsHeld():
            if self.run.scheduler:
                from pgntools.dask import ClusterExecutor

                return ClusterExecutor(self.run.scheduler)
            return LocalThreads(self.run.jobs)


def _plain_size(sources: Sequence[str]) -> int:
    """Bytes of the plain files among the inputs (a lower bound of the stream's size)."""
    total = 0
    for source in sources:
        if source != "-" and os.path.isfile(source):
            with open(source, "rb") as f:
                head = f.read(6)
            if not any(head.startswith(magic) for magic, _ in MAGIC):
                total += os.path.getsize(source)
    return total


def _merge_output(sink, output, data: bytes):
    """Appends a worker's bytes for one output; a Parquet positions file is re-read as a table
    and appended to the run's one file."""
    if getattr(sink, "format", None) == "parquet" and getattr(sink, "parquet", None) is not None:
        if data:
            import pyarrow.parquet as pq

            sink.parquet.write_table(pq.read_table(io.BytesIO(data)))
        return
    if data:
        output.write(data)
        if getattr(sink, "format", None) == "csv":  # the run's first rows came with the header
            sink.header_written = True
