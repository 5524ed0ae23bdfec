"""Cluster runs where the work goes to the data (issue 36, item 3): a task names an input (a
compressed file, read whole) or a byte range of a plain one (``--task-size`` bytes, 64 MiB by
default), and the Dask worker opens it itself, locally or through fsspec (s3://, gs://, ...):
no PGN byte passes through the client, which only lists the inputs, sizes them and reads the
first bytes of each (its compression).

A range's games are those that start in it: the worker reads from the first likely game start
(pgntools.runner.chunks.find_seam: a tag line after a blank line that follows movetext) at or
after the range's first byte to the first one at or after its end, so neighbouring ranges meet
at the same seam. When an output names games, a *count pass* has each worker scan its task with
the reader's scanner (no replay) before the games are processed: its games and lines, so that
every task knows its first game's id and line (game_id, report lines: the numbers of the whole
run), and whether the next range's seam is where the scanner sees a game start (a seam inside a
comment is dropped: the two ranges become one task). When no output names games there is no
count pass (it cost a third of a validation): each range's task checks its end seam itself after
its games (``check_seam``), and the parent runs a range whose seam fails again joined with the next. A compressed input that breaks (a damaged frame)
ends its task with the games before the break, and the error goes to the run's summary.
"""
from __future__ import annotations

import io
import os
import time
from typing import List, NamedTuple, Optional, Sequence

from pgntools.errors import InputError
from pgntools.options import ReaderOptions

TASK_BYTES = 64 << 20     # --task-size's default for cluster runs: 64 MiB of plain PGN a task
SCAN_BATCH_GAMES = 8192


class Task(NamedTuple):
    """One input (``end`` None: a compressed file, read whole) or the games starting in bytes
    [start, end) of a plain one; ``begin``: (offset, line) of a game to start at exactly
    (export --resume)."""

    index: int
    source: str
    start: int
    end: Optional[int]
    size: Optional[int]
    begin: Optional[tuple] = None


def describe(source: str):
    """(size, plain) of a path or URL, from its size and first bytes."""
    from pgntools.inputs.streams import MAGIC, SUFFIXES
    from pgntools.storage import is_url, url_filesystem

    if is_url(source):
        fs, path = url_filesystem(source, InputError)
        size = fs.size(path)
        with fs.open(path, "rb") as f:
            head = f.read(6)
    else:
        size = os.path.getsize(source)
        with open(source, "rb") as f:
            head = f.read(6)
    compressed = any(head.startswith(m) for m, _ in MAGIC) or os.path.splitext(source)[1].lower() in SUFFIXES
    return size, not compressed


def plan(sources: Sequence[str], task_bytes: int, start: Optional[dict] = None) -> List[Task]:
    """The run's tasks, in input order (from ``start`` on: export --resume)."""
    tasks: List[Task] = []
    first_input = start["index"] if start else 0
    for i, source in enumerate(sources):
        if i < first_input:
            continue
        size, plain = describe(source)
        begin = (start["offset"], start["line"]) if start and i == first_input else None
        if not plain:
            tasks.append(Task(len(tasks), source, 0, None, size, begin))
            continue
        at = begin[0] if begin else 0
        while True:
            end = min(at + task_bytes, size)
            tasks.append(Task(len(tasks), source, at, end, size, begin if at == (begin or (0,))[0] and begin else None))
            if end >= size:
                break
            at = end
    return tasks


def merged(task: Task, following: Task) -> Task:
    return task._replace(end=following.end)


# ---------------------------------------------------------------- the worker side

class _Counting(io.RawIOBase):
    """A stream's bytes counted (and, with ``lines``, their line ends); an InputError (a damaged
    frame) ends it, kept in ``broken``."""

    def __init__(self, stream, lines: bool = False):
        self.stream, self.lines, self.n, self.broken = stream, 0, 0, None
        self.count_lines = lines

    def readable(self):
        return True

    def readinto(self, b):
        try:
            n = self.stream.readinto(b)
        except InputError as exc:  # (the reader hands out the games before it, then raises _Cut)
            from pgntools.runner.chunks import _Cut

            self.broken = exc
            raise _Cut() from None
        if n:
            if self.count_lines:
                self.lines += memoryview(b)[:n].tobytes().count(b"\n")
            self.n += n
        return n


def _open(source: str):
    from pgntools.storage import is_url, url_filesystem

    if is_url(source):
        fs, path = url_filesystem(source, InputError)
        return fs.open(path, "rb")
    return open(source, "rb")


class Opened(NamedTuple):
    stream: object     # the task's bytes (decompressed), from ``offset``
    offset: int        # stream offset of its first byte (a game start, or 0)
    size: Optional[int]  # bytes of it to read (None: to the end)
    closing: list


def open_task(task: Task) -> Opened:
    """The task's stream, at its first game (or its input's start)."""
    from pgntools.runner.chunks import READ_BLOCK, _FileRange, _seam_in_file, skip_to

    if task.end is None:  # a compressed file: decompressed here
        from pgntools.inputs.streams import Input

        inp = Input(task.source)
        offset = 0
        if task.begin:
            offset = task.begin[0]
            skip_to(inp.stream, offset, inp.name)
        return Opened(inp.stream, offset, None, [inp])
    f = _open(task.source)
    size = task.size
    first = task.begin[0] if task.begin else (_seam_in_file(f, task.start, size) if task.start else 0)
    last = _seam_in_file(f, task.end, size) if task.end < size else size
    f.seek(first)
    stream = _FileRange(f, task.source, max(0, last - first))
    return Opened(io.BufferedReader(stream, READ_BLOCK), first, max(0, last - first), [f])


def count_task(task: Task, max_game_size: int) -> dict:
    """The count pass of one task: {"games", "lines" (line ends in its bytes), "offset" (its
    first byte), "seam_ok" (the next range's seam is a game start: False, merge them),
    "error"}."""
    from pgntools import _core
    from pgntools.reader import GameBatch
    from pgntools.runner.chunks import _Cut, _View

    opened = open_task(task)
    try:
        counting = _Counting(opened.stream, lines=True)
        prefix = b"\n" if opened.offset else b""
        options = ReaderOptions(replay=False, batch_games=SCAN_BATCH_GAMES, max_game_size=max_game_size,
                                base_offset=opened.offset - len(prefix), base_line=0)
        games = 0
        try:
            for raw in _core.BatchReader(_View(prefix, counting), options):
                games += GameBatch(raw, task.source, 0).read_count()
        except _Cut:  # a damaged input: the games before the break
            pass
        seam_ok = True
        if task.end is not None and task.end < task.size and opened.size:
            seam_ok = _seam_holds(task, opened.offset + opened.size, max_game_size)
        return {"index": task.index, "games": games, "lines": counting.lines, "offset": opened.offset,
                "seam_ok": seam_ok, "error": str(counting.broken) if counting.broken else None}
    finally:
        for c in opened.closing:
            c.close()


def _seam_holds(task: Task, seam: int, max_game_size: int) -> bool:
    """Whether the scanner, reading on from a game start before ``seam``, finds a game starting
    exactly there (not inside a comment that looks like a tag line)."""
    from pgntools import _core
    from pgntools.runner.chunks import LOOKAHEAD, _seam_in_file

    with _open(task.source) as f:
        back = max(0, seam - LOOKAHEAD)
        start = _seam_in_file(f, back, task.size) if back else 0
        if start >= seam:  # no earlier seam nearby: the game before is long; trust the scan from 0 of the range
            start = _seam_in_file(f, task.start, task.size) if task.start else 0
        f.seek(start)
        data = f.read(seam - start + LOOKAHEAD)
    options = ReaderOptions(replay=False, batch_games=SCAN_BATCH_GAMES, max_game_size=max_game_size)
    offsets = []
    prefix = b"\n" if start else b""
    for raw in _core.BatchReader(io.BytesIO(prefix + data), options):
        offsets += [o + start - len(prefix) for o in memoryview(raw["offset"]).cast("q").tolist()]
    return seam in offsets


def run_task(work, task: Task, first_game: Optional[int], line: Optional[int], n_games: Optional[int],
             check_seam: bool = False) -> dict:
    """One task through the run's sinks (pgntools.runner.worker's chunk result, with "error": a
    broken input's message, "pgn_bytes": the PGN bytes read, "bytes": those of the input on disk,
    "worker" and "seconds": who ran it and for how long, for the progress lines). ``check_seam`` (a run without a
    count pass): "seam_ok" says whether the next range's seam is a game start (False: the
    parent drops the result and runs the two ranges as one task)."""
    from pgntools.runner.chunks import Chunk
    from pgntools.runner.worker import _run_chunk

    started = time.perf_counter()
    opened = open_task(task)
    try:
        counting = _Counting(opened.stream)
        chunk = Chunk(task.index, task.source, opened.offset, line, first_game, n_games, opened.size or 0,
                      last=True)
        result = _run_chunk(work, chunk, counting)
        if check_seam and task.end is not None and task.end < task.size and opened.size:
            result["seam_ok"] = _seam_holds(task, opened.offset + opened.size, work.options.max_game_size)
        result["error"] = str(counting.broken) if counting.broken else None
        result["pgn_bytes"] = counting.n  # (decompressed)
        inputs = [c for c in opened.closing if hasattr(c, "bytes_read")]
        result["bytes"] = inputs[0].bytes_read() if inputs else counting.n  # (on disk)
        result["worker"], result["seconds"] = _worker_name(), time.perf_counter() - started  # (progress)
        return result
    finally:
        for c in opened.closing:
            c.close()


def _worker_name() -> str:
    """The Dask worker running this task (its address), or this host and process."""
    try:
        from distributed import get_worker

        return get_worker().address
    except (ImportError, ValueError):
        import socket

        return f"{socket.gethostname()}:{os.getpid()}"
