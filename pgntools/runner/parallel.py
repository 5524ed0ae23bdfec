"""Parallel runs: game-aligned chunks of the inputs (pgntools.runner.chunks), processed by worker
threads (``--jobs N``) or by the workers of a Dask cluster (``--scheduler``), with outputs
identical to the in-process run.

Local workers are threads: the compiled reader releases the GIL while it reads and replays, and
the Parquet encoders while they encode, so threads use every core without the start-up of worker
processes (each its own interpreter and imports: a fifth of validating a 20 MB file) and without
sending outputs between processes. Measured on 2 cores (benchmarks/RESULTS.md): validate of the
20 MB master file 1.35x with --jobs 2 where worker processes gave 1.0x; 1.7x on 1 GB either way.
export's --jobs counts its workers' writer threads too (pgntools.options.workers_for).

- Workers run the same sinks as the in-process run on their chunk (pgntools.runner.worker: SinkSpec
  factories) and send back each sink's part (``Sink.finish_chunk``: the bytes written, the part
  files written under temporary names, the counts). The parent hands the parts to its sinks in
  chunk order (``Sink.merge``), so text outputs are byte-identical whatever the number of jobs;
  the sinks rename their files when the whole run has succeeded (a failed or interrupted run
  removes them: ``Sink.abort``, ``Sink.discard``).
- Chunks are numbered (cut by the scanner in the parent) when an output names games, and
  unnumbered (cut by a byte search, each seam checked by a worker) otherwise: see pgntools.runner.chunks.
- At most ``window`` chunks are in flight, so memory stays bounded. An input that fits in one
  chunk is processed in-process, with no worker started.
"""
from __future__ import annotations

import os
import signal
import threading
import uuid
from collections import deque
from typing import List, Sequence

from pgntools.inputs.sizes import InputInfo, plain_size
from pgntools.options import ReaderOptions, Workers
from pgntools.runner.chunks import Chunk, iter_chunks, iter_seam_chunks
from pgntools.runner.worker import ChunkWork, read_here, run_chunk
from pgntools.selection import KEEP_ALL, Selection
from pgntools.sinks.base import Sink, SinkSpec
from pgntools.sinks.summary import Summary
from pgntools.threads import Pool, Task

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
COMPRESSION_GUESS = 5     # decompressed / compressed size, to size the chunks of compressed files


def chunk_target(inputs: Sequence[InputInfo], jobs: int, max_chunk: int = MAX_CHUNK) -> int:
    """Chunk size: max_chunk, or less for files that would give fewer than CHUNKS_PER_JOB
    chunks per job (compressed files counted at COMPRESSION_GUESS times their size)."""
    total = 0
    for info in inputs:
        if info.size is None:
            return max_chunk
        total += info.size if info.plain else info.size * COMPRESSION_GUESS
    return max(MIN_CHUNK, min(max_chunk, total // (jobs * CHUNKS_PER_JOB) + 1))


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

    holds = True  # a worker's batches may stay in memory for a later call (pgntools.runner.in_order)

    def __init__(self, jobs: int):
        self.window = 2 * jobs
        self.pool = Pool(jobs, "pgntools-worker")

    def submit(self, work: ChunkWork, chunk: Chunk, fn=None, extra: tuple = ()):
        """``fn(work, chunk, data, *extra)`` (default run_chunk) on a worker (data None: the worker
        reads the chunk)."""
        return self.pool.submit(fn or run_chunk, work, chunk, None, *extra)

    def resubmit_with_bytes(self, work: ChunkWork, chunk: Chunk, fn=None, extra: tuple = ()):
        return self.pool.submit(fn or run_chunk, work, chunk.without_data(), read_here(chunk), *extra)

    @staticmethod
    def result(task: Task) -> dict:
        return task.result()

    @staticmethod
    def done(task: Task) -> bool:
        return task.finished.is_set()

    def close(self):
        self.pool.close()

    def abort(self):
        """Drops the queued chunks; the threads stop when the chunk they are reading is done."""
        self.pool.abort()


# ---------------------------------------------------------------- the parent side

def task_inputs(sources: Sequence[str]) -> bool:
    """Whether a cluster's workers can read every input themselves (paths and URLs, not stdin,
    nor a zip archive's members)."""
    return all(isinstance(s, str) and s != "-" and not s.lower().endswith(".zip") for s in sources)


class ParallelFeed:
    """The parallel body of a run: chunks out to the workers, results back in order, each sink's
    part of a chunk merged into the parent's sink (pgntools.sinks.base: the protocol)."""

    def __init__(self, command: str, sources: Sequence[str], inputs: Sequence[InputInfo], options: ReaderOptions,
                 workers: Workers, numbered: bool, selection: Selection = KEEP_ALL, start=None):
        self.command, self.sources, self.inputs = command, list(sources), list(inputs)
        self.start = start  # export --resume: where to read again (pgntools.runner.resume)
        self.options, self.workers, self.numbered, self.selection = options, workers, numbered, selection

    def chunk_size(self, sinks: Sequence[Sink]) -> int:
        workers = self.workers
        if workers.chunk_bytes:
            return workers.chunk_bytes
        jobs = workers.jobs if not workers.scheduler else 2
        caps = [sink.max_chunk for sink in sinks if getattr(sink, "max_chunk", None)]
        if caps and not workers.scheduler:  # a sink whose chunk output is many times its input (in memory)
            return min(min(caps), chunk_target(self.inputs, jobs))
        if any(sink.fixed_chunks for sink in sinks):  # files per chunk (Parquet parts): one size
            return chunk_target(self.inputs, jobs, MAX_CHUNK_PARQUET_CLUSTER) if workers.scheduler else PARQUET_CHUNK
        return chunk_target(self.inputs, jobs)

    def __call__(self, specs: Sequence[SinkSpec], sinks: Sequence[Sink], summary: Summary, on_input,
                 after_chunk) -> None:
        """``sinks``: the parent's, one per spec; ``on_input(Input)`` as each input opens,
        ``after_chunk()`` after each chunk's parts are merged (progress)."""
        run_id = uuid.uuid4().hex[:12] + "-"
        work = ChunkWork(self.command, self.options, list(specs), run_id, self.selection)
        if getattr(self.selection, "ordered", False):  # --dedup, --limit: decided here, in input order
            from pgntools.runner.in_order import InOrder

            return InOrder(self, work, sinks, summary, on_input, after_chunk).run()

        def take(result: dict):
            summary.merge(result["counts"])
            for sink, part in zip(sinks, result["outputs"]):
                sink.merge(part)
            after_chunk()

        if self.workers.scheduler and task_inputs(self.sources):  # the workers read the inputs themselves
            return self._run_tasks(work, sinks, summary, after_chunk)
        target = self.chunk_size(sinks)
        if self.numbered:
            chunks = iter_chunks(self.sources, target, self.options.max_game_size, on_input=on_input,
                                 on_error=summary.on_input_error, start=self.start)
        else:
            chunks = iter_seam_chunks(self.sources, target, on_input=on_input, on_error=summary.on_input_error)
        executor = None
        if self.workers.scheduler or plain_size(self.inputs) > target:  # start the workers now
            executor = self._executor()
        pending: deque = deque()  # (chunk, future), in chunk order
        held = None  # the first chunk, until a second one shows that a pool is worth starting

        def settle(chunk: Chunk, result: dict) -> dict:
            """A result whose end seam failed its check: merge with the next chunk and rerun."""
            while not result["seam_ok"]:
                following = pending.popleft()[0] if pending else next(chunks)
                chunk = chunk.merged(following)
                result = run_chunk(work, chunk) if executor is None else \
                    self._result(executor, work, chunk, executor.submit(work, chunk))
            return result

        try:
            for chunk in chunks:
                if executor is None:
                    if held is None:
                        held = chunk
                        continue
                    executor = self._executor()
                    pending.append((held, executor.submit(work, held)))
                    held = None
                pending.append((chunk, executor.submit(work, chunk)))
                while len(pending) > executor.window:
                    chunk, future = pending.popleft()
                    take(settle(chunk, self._result(executor, work, chunk, future)))
            if held is not None:  # the whole input is one chunk: no worker needed
                take(settle(held, run_chunk(work, held)))
            while pending:
                chunk, future = pending.popleft()
                take(settle(chunk, self._result(executor, work, chunk, future)))
        except BaseException:
            if executor is not None:
                executor.abort()
            for sink in sinks:
                sink.discard(run_id)
            raise
        finally:
            if executor is not None:
                executor.close()

    def _run_tasks(self, work: ChunkWork, sinks: Sequence[Sink], summary: Summary, after_chunk) -> None:
        """A cluster run of tasks that name inputs and ranges (pgntools.runner.tasks): a count
        pass when outputs name games or ranges meet at seams, then the tasks, results merged in order."""
        from pgntools.errors import InputError
        from pgntools.runner.tasks import TASK_BYTES, count_task, merged, plan, run_task

        tasks = plan(self.sources, self.workers.task_bytes or TASK_BYTES, self.start)
        executor = self._executor()
        try:
            numbers = [(None, None, None)] * len(tasks)
            check_seams = not self.numbered  # (no count pass: each range checks its end seam)
            if len(tasks) > 1 and self.numbered:
                tasks, numbers = self._count(executor, tasks, count_task, merged)
            pending: deque = deque()  # (task, future), in task order
            waiting = deque(zip(tasks, numbers))
            self.task_bytes = self.task_pgn_bytes = 0

            def take(result: dict):
                summary.merge(result["counts"])
                for sink, part in zip(sinks, result["outputs"]):
                    sink.merge(part)
                self.task_bytes += result["bytes"]
                self.task_pgn_bytes += result["pgn_bytes"]
                if result["error"]:
                    summary.on_input_error(InputError(result["error"]))
                on_task = getattr(self, "on_task", None)  # (progress: the task's worker and its rate)
                on_task(result) if on_task is not None else after_chunk()

            def submit(task, number):
                first_game, line, n_games = number if self.numbered else (None, None, None)
                return executor.submit_fn(run_task, work, task, first_game, line, n_games, check_seams)

            def settle(task, result: dict) -> dict:
                """A range whose end seam is no game start: run again joined with the next range."""
                while not result.get("seam_ok", True):
                    following = pending.popleft()[0] if pending else waiting.popleft()[0]
                    task = merged(task, following)
                    result = executor.result(submit(task, (None, None, None)))
                return result

            while waiting or pending:
                while waiting and len(pending) <= executor.window:
                    task, number = waiting.popleft()
                    pending.append((task, submit(task, number)))
                task, future = pending.popleft()
                take(settle(task, executor.result(future)))
        except BaseException:
            executor.abort()
            for sink in sinks:
                sink.discard(work.run_id)
            raise
        finally:
            executor.close()

    def _count(self, executor, tasks, count_task, merged):
        """The count pass: each task's games and lines (its first game's id and line follow),
        ranges whose end seam is not a game start merged with the next (and counted again)."""
        while True:  # (the last task is not counted: nothing follows it, no seam ends it)
            futures = [executor.submit_fn(count_task, task, self.options.max_game_size) for task in tasks[:-1]]
            counts = [executor.result(f) for f in futures] + [{"games": None, "lines": 0, "seam_ok": True}]
            bad = {i for i, c in enumerate(counts) if not c["seam_ok"] and i + 1 < len(tasks)}
            if not bad:
                break
            joined, skip = [], False
            for i, task in enumerate(tasks):
                if skip:
                    skip = False
                    continue
                if i in bad:
                    task, skip = merged(task, tasks[i + 1]), True
                joined.append(task._replace(index=len(joined)))
            tasks = joined
        numbers, game = [], self.start["first_game"] if self.start else 0
        line, source = 1, None
        for task, count in zip(tasks, counts):
            if task.source != source:
                source, line = task.source, task.begin[1] if task.begin else 1
            numbers.append((game, line, count["games"]))
            game += count["games"] or 0
            line += count["lines"]
        return tasks, numbers

    @staticmethod
    def _result(executor, work: ChunkWork, chunk: Chunk, future, fn=None, extra: tuple = ()) -> dict:
        result = executor.result(future)
        if "unreadable" in result:  # the workers do not see the parent's file: send the bytes
            executor.paths_readable = False
            result = executor.result(executor.resubmit_with_bytes(work, chunk, fn, extra))
        return result

    def _executor(self):
        with _SignalsHeld():
            if self.workers.scheduler:
                from pgntools.runner.cluster import ClusterExecutor

                return ClusterExecutor(self.workers.scheduler)
            return LocalThreads(self.workers.jobs)
