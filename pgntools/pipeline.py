"""Running inputs through sinks: the shared machinery of the commands (outputs written under a
temporary name and renamed when complete, the JSON Lines report, the summary, progress).

A command describes its sinks as ``SinkSpec``s (an output name and a picklable factory), so the
same sinks can be built in worker threads (or Dask workers) when the run is parallel (``Run.jobs`` > 1 or
``Run.scheduler``; see pgntools.parallel)."""
from __future__ import annotations

import os
import sys
import time
from collections import Counter
from typing import Callable, List, NamedTuple, Optional, Sequence, Union

from pgntools.io import check_games_found, check_inputs
from pgntools.outputs import AtomicOutput, open_outputs  # noqa: F401 (AtomicOutput: for the sinks' imports)
from pgntools.reader import (ERROR_KINDS, FIX_KINDS, FIX_RESULT_MARKER, FIX_RESULT_TAG, NOTE_KINDS, STATUS_FIXED,
                             STATUS_INVALID, STATUS_TRUNCATED, STATUS_VALID, GameBatch, iter_batches)


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
        self.bytes = 0  # of the inputs as stored: compressed bytes for compressed input (as progress counts)
        self.pgn_bytes = 0  # the PGN text read: decompressed bytes
        self.skipped_bytes = 0  # of text before or between games that is no game (junk, prose): counted in C
        self.seconds = 0.0
        self.input_errors: List[str] = []  # inputs that broke while read (see Run)
        self.games_by_source: Counter = Counter()  # input name -> games (an input without one is not PGN)

    def add(self, batch: GameBatch):
        status = batch.raw["status"]  # one byte per game (and per error or note below): counted in C
        self.games += batch.n_games
        self.games_by_source[batch.source] += batch.n_games
        self.skipped_bytes += batch.raw.get("skipped_bytes", 0)
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
                "truncated": self.truncated, "errors": self.errors, "notes": self.notes, "fixes": self.fixes,
                "games_by_source": self.games_by_source,
                "skipped_bytes": self.skipped_bytes}

    def merge(self, counts: dict):
        self.games += counts["games"]
        self.valid += counts["valid"]
        self.fixed += counts["fixed"]
        self.invalid += counts["invalid"]
        self.truncated += counts["truncated"]
        self.errors.update(counts["errors"])
        self.notes.update(counts["notes"])
        self.fixes.update(counts["fixes"])
        self.games_by_source.update(counts["games_by_source"])
        self.skipped_bytes += counts["skipped_bytes"]

    def to_dict(self) -> dict:
        out = {"games": self.games, "valid": self.valid, "fixed": self.fixed, "invalid": self.invalid,
               "truncated": self.truncated, "errors": dict(sorted(self.errors.items())),
               "notes": dict(sorted(self.notes.items())), "fixes": dict(sorted(self.fixes.items())), "bytes": self.bytes, "pgn_bytes": self.pgn_bytes, "skipped_bytes": self.skipped_bytes,
               "seconds": round(self.seconds, 3)}
        if self.input_errors:
            out["input_errors"] = list(self.input_errors)
        return out

    def on_input_error(self, exc: Exception):
        self.input_errors.append(str(exc))

    def line(self) -> str:
        rate = self.games / self.seconds if self.seconds > 0 else 0.0
        skipped = f", {self.skipped_bytes:,} bytes of non-PGN text skipped" if self.skipped_bytes else ""
        truncated = f"{self.truncated:,} truncated, " if self.truncated else ""  # (only with --repair truncate)
        return (f"{self.command}: {self.games:,} games: {self.valid:,} valid, {self.fixed:,} fixed, {truncated}"
                f"{self.invalid:,} invalid{skipped} ({self.seconds:.2f} s, {rate:,.0f} games/s)")


class Progress:
    """A tqdm bar of input bytes on stderr (as stored: compressed ones for compressed input, in MB
    and MB/s, 10^6 bytes), with games and games/s; off unless asked for or stderr is a terminal."""

    def __init__(self, sources: Sequence[str], enabled: Optional[bool]):
        self.bar = None
        if enabled is False or (enabled is None and not sys.stderr.isatty()):
            return
        from tqdm import tqdm

        sizes = [os.path.getsize(s) if s != "-" and os.path.isfile(s) else None for s in sources]
        total = None if None in sizes else sum(sizes)
        self.format_sizeof = tqdm.format_sizeof
        self.bar = tqdm(total=total, unit="B", unit_scale=True, unit_divisor=1000, file=sys.stderr,
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
        games, per_second = self._count(summary.games), self._count(rate)  # 1.23M, 95.1k
        self.bar.set_postfix_str(f"{games} games, {per_second} games/s, {summary.invalid:,} invalid", refresh=False)

    def _count(self, n: float) -> str:
        """12, 950, 95.1k, 1.23M."""
        return f"{n:.0f}" if n < 999.5 else self.format_sizeof(n)

    def close(self):
        if self.bar is not None:
            self.bar.close()


def report_record(game) -> dict:
    """A report line: errors, fixes and notes (pgntools.records.Finding) in the report's JSON shapes."""
    return {
        "game": game.index, "file": game.source, "offset": game.offset, "line": game.line, "status": game.status,
        "errors": [e.report_dict() for e in game.errors],
        "fixes": [f.report_dict() for f in game.fixes],
        "notes": [n.report_dict() for n in game.notes],
    }


# --report-level: the least status a game needs to be reported (0 also takes valid games with notes)
REPORT_LEVELS = {"errors": 2, "fixes": 1, "notes": 0}


class ReportSink:
    """JSON Lines: one object per game that is not clean (invalid, fixed, or with notes), or with
    ``level`` "fixes" only invalid and fixed games, "errors" only invalid ones."""

    def __init__(self, output: AtomicOutput, level: str = "notes"):
        self.output = output
        self.least = REPORT_LEVELS[level]

    def write(self, batch: GameBatch):
        import json  # here, not at start-up: only --report and --summary need it (~1.5 ms)

        games = batch.unclean()
        if self.least:
            status = batch.column("status")
            games = [g for g in games if status[g] >= self.least]
        lines = [json.dumps(report_record(g), ensure_ascii=False) + "\n" for g in batch.games(games)]
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
        return open_outputs(self.outputs, self.sources)  # (checks that no output is an input)

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
            check_games_found(inputs, summary.games_by_source)  # an input that is not PGN: exit 2, no output
            for sink in sinks:
                if hasattr(sink, "commit"):
                    sink.commit()
            summary.bytes = sum(inp.bytes_read() for inp in inputs)
            summary.pgn_bytes = sum(inp.pgn_bytes() for inp in inputs)
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
