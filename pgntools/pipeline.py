"""Running inputs through sinks: the shared machinery of the commands (outputs written under a
temporary name and renamed when complete, the JSON Lines report, the summary, progress).

A command describes its sinks as ``SinkSpec``s (an output name and a picklable factory), so the
same sinks can be built in worker threads (or Dask workers) when the run is parallel (``Run.jobs`` > 1 or
``Run.scheduler``; see pgntools.parallel)."""
from __future__ import annotations

import os
import sys
import tempfile
import time
from collections import Counter
from typing import Callable, List, NamedTuple, Optional, Sequence, Union

from pgntools.errors import OutputError
from pgntools.storage import LocalStorage, is_url, storage_for
from pgntools.io import check_inputs
from pgntools.reader import (ERROR_KINDS, FIX_KINDS, FIX_RESULT_MARKER, FIX_RESULT_TAG, NOTE_KINDS, STATUS_FIXED,
                             STATUS_INVALID, STATUS_TRUNCATED, STATUS_VALID, GameBatch, iter_batches)


class AtomicOutput:
    """A binary output file that appears under its name only when complete. '-' is stdout.

    A path that exists and is not a regular file (a FIFO, /dev/null, /dev/stdout, a process
    substitution's /dev/fd/N) is written in place: renaming over it would replace the device or
    pipe with a plain file. A symlink to a file is followed, so the link stays a link."""

    def __init__(self, path: str):
        self.path = path
        self.tmp = None
        self.in_place = False  # a device or pipe opened here (closed at the end), not stdout
        self.storage = LocalStorage()  # or an fsspec URL's (pgntools.storage)
        if path == "-":
            self.file = sys.stdout.buffer
            return
        if is_url(path):
            self._open_url(path)
            return
        if os.path.isdir(path):
            raise OutputError(f"{path}: is a directory")
        if os.path.exists(path) and not os.path.isfile(path):
            self.file = self._open_in_place(path)
            self.in_place = True
            return
        target = os.path.realpath(path)
        try:
            fd, self.tmp = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.", suffix=".part",
                                            dir=os.path.dirname(target))
        except OSError as exc:
            raise OutputError(f"{path}: cannot write: {exc.strerror}") from None
        self.target = target
        self.file = os.fdopen(fd, "wb", buffering=1 << 20)

    def _open_url(self, url: str):
        self.storage, self.target = storage_for(url, OutputError)
        directory, _, name = self.target.rpartition("/")
        self.tmp = self.storage.join(directory, f".{name}.{os.getpid()}-{id(self):x}.part")
        try:
            self.file = self.storage.open_write(self.tmp)
        except OSError as exc:
            raise OutputError(f"{url}: cannot write: {exc.strerror or exc}") from None

    @staticmethod
    def _open_in_place(path: str):
        try:
            return open(path, "wb", buffering=1 << 20)
        except OSError as exc:
            raise OutputError(f"{path}: cannot write: {exc.strerror}") from None

    def write(self, data: bytes):
        self.file.write(data)

    def commit(self):
        if self.tmp is None:  # stdout, or a device or pipe written in place
            if self.in_place:
                self.file.close()
            else:
                self.file.flush()
            return
        self.file.close()
        if not is_url(self.path):
            os.chmod(self.tmp, 0o644)  # mkstemp made it private
        self.storage.rename(self.tmp, self.target)
        self.tmp = None

    def abort(self):
        if self.in_place:
            self.file.close()
        if self.tmp is not None:
            self.file.close()
            self.storage.remove(self.tmp)  # (already gone if interrupted just after commit()'s rename)
            self.tmp = None


def _count_codes(counter: Counter, names, codes: bytes):
    for code in set(codes):
        counter[names[code]] += codes.count(code)


class Summary:
    """The counts of a run (plain classes here, not dataclasses: see pgntools.records)."""

    def __init__(self, command: str):
        self.command = command
        self.games = self.valid = self.fixed = self.invalid = self.truncated = 0
        self.errors: Counter = Counter()
        self.notes: Counter = Counter()
        self.fixes: Counter = Counter()  # per fix kind (a game may have several)
        self.bytes = 0
        self.seconds = 0.0
        self.input_errors: List[str] = []  # inputs that broke while read (see Run)

    def add(self, batch: GameBatch):
        status = batch.raw["status"]  # one byte per game (and per error or note below): counted in C
        self.games += batch.n_games
        self.valid += status.count(STATUS_VALID)
        self.fixed += status.count(STATUS_FIXED)
        self.invalid += status.count(STATUS_INVALID)
        self.truncated += status.count(STATUS_TRUNCATED)
        _count_codes(self.errors, ERROR_KINDS, batch.raw["error_kind"])
        _count_codes(self.notes, NOTE_KINDS, batch.raw["note_kind"])
        _count_codes(self.fixes, FIX_KINDS, batch.raw["fix_kind"])
        result_fixes = batch.raw["fixes"]
        for bits in set(result_fixes).difference((0,)):
            n = result_fixes.count(bits)
            if bits & FIX_RESULT_TAG:
                self.fixes["result_tag"] += n
            if bits & FIX_RESULT_MARKER:
                self.fixes["result_marker"] += n

    def counts(self) -> dict:
        """The game counts (what a worker sends back for its chunk)."""
        return {"games": self.games, "valid": self.valid, "fixed": self.fixed, "invalid": self.invalid,
                "truncated": self.truncated, "errors": self.errors, "notes": self.notes, "fixes": self.fixes}

    def merge(self, counts: dict):
        self.games += counts["games"]
        self.valid += counts["valid"]
        self.fixed += counts["fixed"]
        self.invalid += counts["invalid"]
        self.truncated += counts["truncated"]
        self.errors.update(counts["errors"])
        self.notes.update(counts["notes"])
        self.fixes.update(counts["fixes"])

    def to_dict(self) -> dict:
        out = {"games": self.games, "valid": self.valid, "fixed": self.fixed, "invalid": self.invalid,
               "truncated": self.truncated, "errors": dict(sorted(self.errors.items())), "notes": dict(sorted(self.notes.items())),
               "fixes": dict(sorted(self.fixes.items())), "bytes": self.bytes, "seconds": round(self.seconds, 3)}
        if self.input_errors:
            out["input_errors"] = list(self.input_errors)
        return out

    def on_input_error(self, exc: Exception):
        self.input_errors.append(str(exc))

    def line(self) -> str:
        rate = self.games / self.seconds if self.seconds > 0 else 0.0
        truncated = f"{self.truncated:,} truncated, " if self.truncated else ""  # (only with --repair truncate)
        return (f"{self.command}: {self.games:,} games: {self.valid:,} valid, {self.fixed:,} fixed, {truncated}"
                f"{self.invalid:,} invalid ({self.seconds:.2f} s, {rate:,.0f} games/s)")


class Progress:
    """A tqdm bar of input bytes on stderr; off unless asked for or stderr is a terminal."""

    def __init__(self, sources: Sequence[str], enabled: Optional[bool]):
        self.bar = None
        if enabled is False or (enabled is None and not sys.stderr.isatty()):
            return
        from tqdm import tqdm

        sizes = [os.path.getsize(s) if s != "-" and os.path.isfile(s) else None for s in sources]
        total = None if None in sizes else sum(sizes)
        self.bar = tqdm(total=total, unit="B", unit_scale=True, unit_divisor=1024, file=sys.stderr,
                        dynamic_ncols=True, disable=False, smoothing=0.1)
        self.input = None
        self.seen = 0
        self.started = time.monotonic()

    def on_input(self, inp):
        self.input = inp
        self.seen = 0

    def update(self, summary: Summary, now: Optional[int] = None):
        """Advances to ``now`` bytes of the current input (default: what it has read so far)."""
        if self.bar is None or self.input is None:
            return
        now = self.input.bytes_read() if now is None else now
        self.bar.update(now - self.seen)
        self.seen = now
        rate = summary.games / max(time.monotonic() - self.started, 1e-9)
        self.bar.set_postfix_str(f"games={summary.games:,} ({rate:,.0f}/s), invalid={summary.invalid:,}", refresh=False)

    def close(self):
        if self.bar is not None:
            self.bar.close()


def report_record(game) -> dict:
    return {
        "game": game.index, "file": game.source, "offset": game.offset, "line": game.line, "status": game.status,
        "errors": [{"kind": e.kind, "ply": e.ply, "token": e.token, "message": e.message, "line": e.line,
                    "column": e.column, "offset": e.byte_offset} for e in game.errors],
        "fixes": game.fixes,
        "notes": game.notes,
    }


class ReportSink:
    """JSON Lines: one object per game that is not clean (invalid, fixed, or with notes)."""

    def __init__(self, output: AtomicOutput):
        self.output = output

    def write(self, batch: GameBatch):
        import json  # here, not at start-up: only --report and --summary need it (~1.5 ms)

        lines = [json.dumps(report_record(g), ensure_ascii=False) + "\n" for g in batch.games(batch.unclean())]
        if lines:
            self.output.write("".join(lines).encode("utf-8"))


class SinkSpec(NamedTuple):
    """How to make one sink: ``factory(output)`` for the opened output named ``output`` (the sink
    is left out when that output was not asked for), or ``factory()`` when ``output`` is None (a
    sink that writes its own files, like the Parquet dataset). The factory must be picklable
    (a class or a functools.partial of one) so that workers (threads, Dask) can build the same sink."""

    output: Optional[str]
    factory: Callable


def build_sinks(specs: Sequence[SinkSpec], opened: dict) -> list:
    made = []
    for spec in specs:
        if spec.output is None:
            made.append(spec.factory())
        elif spec.output in opened:
            made.append(spec.factory(opened[spec.output]))
    return made


class Run:
    """One command's run: inputs → reader → sinks, with report, summary and progress.

    ``jobs`` > 1 or a Dask ``scheduler`` address runs game-aligned chunks of the inputs in worker
    processes (pgntools.parallel); the outputs are the same as with ``jobs`` = 1 (in-process).

    Inputs are checked before any output is opened (a missing file or a directory fails first).
    An input whose stream breaks while it is read (corrupt or truncated compressed data) does not
    fail the run: its games up to the break are written, the next inputs are read, the outputs
    are committed, and the error is in ``Summary.input_errors`` (the CLI then exits 2)."""

    def __init__(self, command: str, sources: List[str], reader_options: dict, outputs: Optional[dict] = None,
                 progress: Optional[bool] = None, jobs: int = 1, scheduler: Optional[str] = None,
                 chunk_bytes: Optional[int] = None, numbered: bool = True):
        self.command, self.sources, self.reader_options = command, sources, reader_options
        self.outputs = outputs or {}  # name -> path ('-' for stdout)
        self.progress = progress
        self.jobs, self.scheduler = jobs, scheduler
        self.chunk_bytes = chunk_bytes  # target chunk size of a parallel run (default: by input size)
        self.numbered = numbered  # whether an output names games (ids, lines): see pgntools.chunks

    def open_outputs(self) -> dict:
        files = [path for path in self.outputs.values() if path not in (None, "-")]
        real = [os.path.realpath(path) for path in files]
        for i, target in enumerate(real):
            if target in real[:i]:  # the last output renamed there would replace the other
                raise OutputError(f"{files[real.index(target)]} and {files[i]}: one file for two outputs")
        opened = {}
        try:
            for name, path in self.outputs.items():
                if path is not None:
                    opened[name] = AtomicOutput(path)
        except Exception:
            for out in opened.values():
                out.abort()
            raise
        return opened

    def execute(self, sinks: Union[Sequence[SinkSpec], Callable]) -> Summary:
        """``sinks``: SinkSpecs, or make_sinks(opened outputs) -> objects with write(batch), and
        optionally commit() at the end of a successful run and abort() when it fails. A parallel
        run needs SinkSpecs."""
        if self.jobs > 1 or self.scheduler:
            if callable(sinks):
                raise TypeError("a parallel run needs its sinks as SinkSpecs")
            from pgntools.parallel import ParallelFeed

            specs = list(sinks)
            return self._execute(lambda opened: build_sinks(specs, opened), ParallelFeed(self, specs))
        make_sinks = sinks if callable(sinks) else (lambda opened: build_sinks(sinks, opened))
        return self._execute(make_sinks, self._feed_in_process)

    def _feed_in_process(self, opened: dict, sinks: list, summary: Summary, progress: Progress) -> list:
        """Reads every batch and hands it to the sinks; returns the opened inputs."""
        inputs = []

        def on_input(inp):
            inputs.append(inp)
            progress.on_input(inp)

        for batch in iter_batches(self.sources, on_input=on_input, on_error=summary.on_input_error,
                                  **self.reader_options):
            summary.add(batch)
            for sink in sinks:
                sink.write(batch)
            progress.update(summary)
        return inputs

    def _execute(self, make_sinks, feed) -> Summary:
        check_inputs(self.sources)  # a missing file or a directory fails before any output exists
        opened = self.open_outputs()
        summary = Summary(self.command)
        progress = Progress(self.sources, self.progress)
        started = time.perf_counter()
        sinks = []
        try:
            sinks = make_sinks(opened)
            inputs = feed(opened, sinks, summary, progress)
            for sink in sinks:
                if hasattr(sink, "commit"):
                    sink.commit()
            summary.bytes = sum(inp.bytes_read() for inp in inputs)
            summary.seconds = time.perf_counter() - started
            if "summary" in opened:
                import json

                opened["summary"].write((json.dumps(summary.to_dict(), indent=2) + "\n").encode())
            for out in opened.values():
                out.commit()
        except BaseException:
            for sink in sinks:
                if hasattr(sink, "abort"):
                    sink.abort()
            for out in opened.values():
                out.abort()
            raise
        finally:
            progress.close()
        return summary
