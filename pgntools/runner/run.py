"""Running inputs through sinks: the runner of every command (outputs written under a temporary
name and renamed when complete, progress), in-process or in parallel.

A command describes its sinks as ``SinkSpec``s (an output name and a picklable factory), so the
same sinks can be built in worker threads (or Dask workers) when the run is parallel (see
pgntools.runner.parallel). The runner knows sinks only through their protocol (pgntools.sinks.base):
what they need from the reader, write, commit, abort, and a parallel run's merge."""
from __future__ import annotations

import errno

import sys
import time
from typing import TYPE_CHECKING, Callable, List, Optional, Sequence

from pgntools.errors import WorkersLostError
from pgntools.inputs.streams import check_games_found, check_inputs
from pgntools.options import ReaderOptions, Workers, needs_numbering
from pgntools.outputs import open_outputs
from pgntools.reader import iter_batches
from pgntools.runner.feed import abort_all, commit_all, feed
from pgntools.selection import KEEP_ALL, Selection
from pgntools.sinks.base import SinkSpec, active_specs, build_sinks, needs_of
from pgntools.sinks.summary import Summary

ONE_CHUNK = 1 << 20  # pgntools.runner.parallel.MIN_CHUNK: an input this small is one chunk of a parallel run

if TYPE_CHECKING:
    from pgntools.inputs.sizes import InputInfo


class Progress:
    """A tqdm bar of input bytes on stderr (as stored: compressed ones for compressed input, in MB,
    10^6 bytes: the fraction done), with games and games/s and the PGN read in MB/s (decompressed:
    the rate the reader works at, whatever the compression); off unless asked for or stderr is a
    terminal. ``total()``: the inputs' size (None: unknown), asked for only when the bar is shown."""

    def __init__(self, total: Callable[[], Optional[int]], enabled: Optional[bool]):
        self.bar = None
        if enabled is False or (enabled is None and not sys.stderr.isatty()):
            return
        from tqdm import tqdm

        total = total()
        self.format_sizeof = tqdm.format_sizeof
        self.bar = tqdm(total=total, unit="B", unit_scale=True, unit_divisor=1000, file=sys.stderr,
                        dynamic_ncols=True, disable=False, smoothing=0.1)
        self.input = None
        self.seen = 0
        self.pgn_done = 0  # PGN bytes of the inputs before the current one (a cluster's tasks: all they read)
        self.started = time.monotonic()
        self.workers: dict = {}  # a cluster's worker -> [its line, tasks, PGN bytes, seconds busy]

    def on_input(self, inp):
        if self.bar is not None and self.input is not None:
            self.pgn_done += self.input.pgn_bytes()
        self.input = inp
        self.seen = 0

    def update(self, summary: Summary, now: Optional[int] = None):
        """Advances to ``now`` bytes of the current input (default: what it has read so far)."""
        if self.bar is None or (self.input is None and now is None):
            return
        now = self.input.bytes_read() if now is None else now
        self.bar.update(now - self.seen)
        self.seen = now
        elapsed = max(time.monotonic() - self.started, 1e-9)
        rate = summary.games / elapsed
        pgn_rate = (self.pgn_done + (self.input.pgn_bytes() if self.input is not None else 0)) / elapsed / 1e6
        games, per_second = self._count(summary.games), self._count(rate)  # 1.23M, 95.1k
        shown = f"{pgn_rate:,.1f}" if pgn_rate < 10 else f"{pgn_rate:,.0f}"
        self.bar.set_postfix_str(f"{games} games, {per_second} games/s, PGN {shown} MB/s, "
                                 f"{summary.invalid:,} invalid", refresh=False)

    def task_done(self, result: dict, summary: Summary):
        """A cluster task merged (pgntools.runner.tasks.run_task's result): the bar advances by
        its input bytes, and its worker's line (one a worker, under the bar) shows the tasks it
        ran, the PGN it read and its rate while busy (decompressed MB/s)."""
        if self.bar is None:
            return
        from tqdm import tqdm

        self.bar.update(result.get("bytes", 0))
        self.pgn_done += result.get("pgn_bytes", 0)
        worker = result.get("worker") or "?"
        line = self.workers.get(worker)
        if line is None:
            line = self.workers[worker] = [tqdm(total=0, position=len(self.workers) + 1, bar_format="{desc}",
                                                file=sys.stderr, dynamic_ncols=True), 0, 0, 0.0]
        line[1] += 1
        line[2] += result.get("pgn_bytes", 0)
        line[3] += result.get("seconds", 0.0)
        rate = line[2] / max(line[3], 1e-9) / 1e6
        line[0].set_description_str(f"worker {worker}: {line[1]} tasks, PGN {line[2] / 1e6:,.1f} MB, "
                                    f"{rate:,.1f} MB/s", refresh=True)
        self.seen = 0
        self.update(summary, 0)

    def _count(self, n: float) -> str:
        """12, 950, 95.1k, 1.23M."""
        return f"{n:.0f}" if n < 999.5 else self.format_sizeof(n)

    def close(self):
        if self.bar is not None:
            for line in self.workers.values():
                line[0].close()
            self.bar.close()


class Run:
    """One command's run: inputs → reader → selection → sinks, with summary and progress.

    The reader's options are ``options`` (what the command checks: strict, fix_results,
    max_game_size, replay, ...) with what the sinks and the selection need (``Sink.needs``).
    ``workers`` with more than one job or a Dask scheduler runs game-aligned chunks of the inputs
    in workers (pgntools.runner.parallel); the outputs are the same as in-process.

    A directory or a glob pattern among the sources stands for its PGN files, in sorted order.
    Inputs are checked before any output is opened (a missing file or a directory fails first).
    An input whose stream breaks while it is read (corrupt or truncated compressed data) does not
    fail the run: its games up to the break are written, the next inputs are read, the outputs
    are committed, and the error is in ``Summary.input_errors`` (the CLI then exits 2)."""

    def __init__(self, command: str, sources: List[str], options: ReaderOptions = ReaderOptions(),
                 outputs: Optional[dict] = None, progress: Optional[bool] = None, workers: Workers = Workers(),
                 selection: Selection = KEEP_ALL):
        from pgntools.inputs.expand import expand_inputs

        self.command, self.options = command, options
        self.sources = expand_inputs(sources)  # directories and globs: their PGN files (none: exit 2)
        self.outputs = outputs or {}  # name -> path ('-' for stdout); "summary": the Summary's JSON
        self.progress = progress
        self.workers = workers
        self.selection = selection
        self._inputs: Optional[List[InputInfo]] = None
        self.start: Optional[dict] = None  # export --resume: where to read again (pgntools.runner.resume)

    def inputs(self) -> List[InputInfo]:
        """The inputs' sizes and kinds, found once (when first needed)."""
        if self._inputs is None:
            from pgntools.inputs.sizes import describe  # only for a progress bar or a parallel run

            self._inputs = describe(self.sources)
        return self._inputs

    def total_size(self) -> Optional[int]:
        """The inputs' bytes on disk (None: one of them has no known size)."""
        from pgntools.inputs.sizes import total_size

        return total_size(self.inputs())

    def _one_chunk(self, sinks) -> bool:
        """Whether a parallel run would read the input as one chunk in this thread anyway (one
        plain file of at most ONE_CHUNK bytes, chunk sizes not given): then it is read in-process
        (the same outputs, as for any --jobs) without importing and starting the parallel machinery
        (~20 ms of start-up for a small file, issue 23). Parquet parts are cut per chunk: kept."""
        workers = self.workers
        if workers.scheduler or workers.chunk_bytes or len(self.sources) != 1 or self.start:
            return False
        if any(sink.fixed_chunks for sink in sinks):
            return False
        (info,) = self.inputs()
        return info.plain and info.size is not None and info.size <= ONE_CHUNK

    def open_outputs(self) -> dict:
        return open_outputs(self.outputs, self.sources)  # (checks that no output is an input)

    def execute(self, specs: Sequence[SinkSpec]) -> Summary:
        """Runs the inputs through the sinks of ``specs`` (those whose output was asked for)."""
        check_inputs(self.sources)  # a missing file or a directory fails before any output exists
        opened = self.open_outputs()
        summary = Summary(self.command, opened.get("summary"))
        summary.selecting = self.selection is not KEEP_ALL
        progress = Progress(self.total_size, self.progress)
        sinks: list = []
        opened_inputs: list = []

        def on_input(inp):
            opened_inputs.append(inp)
            progress.on_input(inp)

        def after_batch():
            progress.update(summary)

        parallel = None
        try:
            specs = active_specs(specs, opened)
            sinks = build_sinks(specs, opened)
            needs = needs_of(sinks) + [dict(self.selection.needs)]
            options = self.options.for_sinks(needs)
            if self.workers.parallel and not self._one_chunk(sinks):
                from pgntools.runner.parallel import ParallelFeed

                parallel = ParallelFeed(self.command, self.sources, self.inputs(), options, self.workers,
                                        needs_numbering(needs), self.selection, self.start)
                parallel.on_task = lambda result: progress.task_done(result, summary)
                parallel(specs, sinks, summary, on_input, after_batch)
            else:
                if self.start:
                    from pgntools.runner.resume import resumed_batches

                    batches = resumed_batches(self.sources, self.start, on_input, summary.on_input_error, options)
                else:
                    batches = iter_batches(self.sources, on_input=on_input, on_error=summary.on_input_error,
                                           options=options)
                summary.read, _ = feed(batches, [*sinks, summary], self.selection, after_batch)
            # an input that is not PGN: exit 2, no output
            check_games_found(opened_inputs, summary.games_by_source, summary.pgn_games_by_source)
            summary.bytes = sum(inp.bytes_read() for inp in opened_inputs)
            if parallel is not None:  # (a cluster's tasks read their inputs themselves)
                summary.bytes += getattr(parallel, "task_bytes", 0)
            summary.pgn_bytes = sum(inp.pgn_bytes() for inp in opened_inputs)
            if parallel is not None:
                summary.pgn_bytes += getattr(parallel, "task_pgn_bytes", 0)
            commit_all([*sinks, summary])
            for out in opened.values():
                out.commit()
        except BaseException as exc:
            if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:  # (for handle_errors' message)
                exc.pgntools_games = summary.games
                paths = ["stdout" if out.path == "-" else out.path for out in opened.values() if getattr(out, "path", None)]
                exc.pgntools_output = exc.filename or (paths[0] if len(paths) == 1 else None)
            if isinstance(exc, WorkersLostError):  # committed parts stay, for --resume
                committed = []
                for sink in sinks:
                    if hasattr(sink, "suspend"):
                        committed += sink.suspend()
                    else:
                        sink.abort()
                exc.committed = committed
            else:
                abort_all(sinks)
            for out in opened.values():
                out.abort()
            raise
        finally:
            progress.close()
        return summary
