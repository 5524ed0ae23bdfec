"""A parallel run whose selection is decided in input order (--dedup, --limit: a game's fate depends
on the games before it), with the outputs of the in-process run (issue 18).

Each chunk goes to the workers twice:

1. ``key_chunk``: the worker reads the chunk, makes each game's own choice (--where,
   --where-position, --material: ``Choose.local``) and sends back the ids and 128-bit keys of the
   games that pass (``Candidates``, ~25 bytes a game). Worker threads keep the chunk's batches
   for step 2; a Dask task cannot, so it reads with only what the selection needs (no PGN,
   moves or tag values for the outputs: the cheap part of a read) and the chunk is read again.
2. The parent, chunk by chunk in input order, decides with the run's one ``Choose`` (its Dedup
   key set, its --limit count: ``Choose.decide``, the code the in-process run uses), and sends
   ``write_chunk`` the chunk's ``Decided``: the ids kept, the duplicates and the games they
   repeat, where the limit stopped. The worker writes the chunk's sinks as any parallel run;
   the parent merges the parts in chunk order.

So the key set lives only in the parent (the README's bytes per distinct game hold for any
--jobs), and a limit stops the run at the chunk where it is reached: the chunks after it are
dropped unread or unwritten. At most ``window`` chunks are between step 1 and a merged step 2.
"""
from __future__ import annotations

import io
from array import array
from bisect import bisect_left
from collections import deque
from typing import List, Optional, Tuple

from pgntools import _core
from pgntools.dedup import Candidates, Duplicate
from pgntools.inputs.sizes import plain_size
from pgntools.runner.chunks import Chunk, Unreadable, chunk_batches, iter_chunks
from pgntools.runner.worker import ChunkWork, _run_chunk, run_chunk
from pgntools.selection import Selection, take_games


# ---------------------------------------------------------------- the worker side

def key_chunk(work: ChunkWork, chunk: Chunk, data=None, hold: bool = True) -> dict:
    """Step 1 for one chunk: {"index", "candidates" (the chunk's, joined), "held" (its batches,
    when ``hold``)}, or {"index", "unreadable": why} as run_chunk."""
    try:
        data = chunk.body() if data is None else data
    except Unreadable as exc:
        return {"index": chunk.index, "unreadable": str(exc)}
    selection = work.selection
    options = work.options if hold else work.options.for_sinks([dict(selection.needs)])
    try:
        parts, held, games = [], [], 0
        for batch in chunk_batches(chunk, data, options):
            games += batch.read_count()  # with the games a tag filter skipped
            parts.append(selection.candidates(batch, selection.local(batch)))
            if hold:
                held.append(batch)
        if games != chunk.n_games:
            raise RuntimeError(f"{chunk.source}: the chunk at byte {chunk.offset} holds {games} games, "
                               f"the scan found {chunk.n_games} (a seam out of place: please report this)")
    finally:
        if isinstance(data, io.IOBase):
            data.close()
    return {"index": chunk.index, "candidates": Candidates.joined(parts), "held": held if hold else None}


def write_chunk(work: ChunkWork, chunk: Chunk, data, decided: "Decided", held: Optional[list] = None) -> dict:
    """Step 2 for one chunk: its batches (``held``, or read again) through the sinks as
    ``decided`` chose them; the result of run_chunk."""
    if held is not None:
        return _run_chunk(work, chunk, None, held, decided)
    return run_chunk(work, chunk, data, decided)


class Decided(Selection):
    """The parent's choice for one chunk (picklable): the ids of the games kept (int64,
    ascending), the games --dedup dropped as (id, the id it repeats), and the id of the game
    that reached --limit (None: not reached here)."""

    def __init__(self, kept: array, dropped: List[Tuple[int, int]], mode: Optional[str], stop: Optional[int]):
        self.kept, self.dropped, self.mode, self.stop = kept, dropped, mode, stop
        self.dropped_ids = [game for game, _ in dropped]
        self.done, self.unread = False, 0

    def select(self, batch):
        n = batch.n_games
        if not n:
            return batch
        # the batch's ids, ascending (not consecutive when the reader's tag filter skipped games)
        ids = range(batch.first_game, batch.first_game + n) if batch.ids is None else batch.ids
        low, high = ids[0], ids[-1] + 1
        lo, hi = bisect_left(self.kept, low), bisect_left(self.kept, high)
        view = batch if hi - lo == n else take_games(batch, [bisect_left(ids, self.kept[i]) for i in range(lo, hi)])
        a, b = bisect_left(self.dropped_ids, low), bisect_left(self.dropped_ids, high)
        if b > a:
            offsets, lines = batch.column("offset"), batch.column("line")
            places = [bisect_left(ids, game) for game, _ in self.dropped[a:b]]
            view.duplicates = [Duplicate(game, batch.source, offsets[g], lines[g], repeats)
                               for g, (game, repeats) in zip(places, self.dropped[a:b])]
            view.dedup_mode = self.mode
        if self.stop is not None and low <= self.stop < high:
            self.done, self.unread = True, n - 1 - bisect_left(ids, self.stop)
        return view


# ---------------------------------------------------------------- the parent side

class InOrder:
    """The body of a parallel run with an ordered selection (pgntools.runner.parallel.ParallelFeed
    hands it over): chunks keyed by the workers, decided here in order, written by the workers,
    merged here in order."""

    def __init__(self, feed, work: ChunkWork, sinks, summary, on_input, after_chunk):
        self.feed, self.work, self.sinks, self.summary = feed, work, sinks, summary
        self.on_input, self.after_chunk = on_input, after_chunk
        self.selection = work.selection
        self.executor = None
        self.keying: deque = deque()   # (chunk, step-1 future), in chunk order
        self.writing: deque = deque()  # (chunk, step-2 future, Decided), in chunk order, before keying's
        self.stopped = False           # --limit reached: no chunk after it is decided

    def run(self) -> None:
        feed, work = self.feed, self.work
        if self.selection.done:  # --limit 0: nothing to read
            return
        target = feed.chunk_size(self.sinks)
        chunks = iter_chunks(feed.sources, target, feed.options.max_game_size, on_input=self.on_input,
                             on_error=self.summary.on_input_error)
        if feed.workers.scheduler or plain_size(feed.inputs) > target:
            self.executor = feed._executor()
        first = None  # the first chunk, until a second one shows that a pool is worth starting
        try:
            for chunk in chunks:
                if self.executor is None:
                    if first is None:
                        first = chunk
                        continue
                    self.executor = feed._executor()
                    self._key(first)
                    first = None
                self._key(chunk)
                self._advance(block=False)
                while not self.stopped and len(self.keying) + len(self.writing) > self.executor.window:
                    self._advance(block=True)
                if self.stopped:
                    break
            if first is not None:  # the whole input is one chunk: both steps here
                keyed = key_chunk(work, first, None, True)
                decided = self._decide(keyed)
                self._take(write_chunk(work, first, None, decided, keyed["held"]))
            while self.writing or (self.keying and not self.stopped):
                self._advance(block=True)
        except BaseException:
            if self.executor is not None:
                self.executor.abort()
                self.executor = None
            for sink in self.sinks:
                sink.discard(work.run_id)
            raise
        finally:
            chunks.close()  # (a limit stops before the last chunk: the input is closed now)
            if self.executor is not None:
                if self.stopped:  # the chunks read ahead of the limit are dropped
                    self.executor.abort()
                else:
                    self.executor.close()

    def _key(self, chunk: Chunk):
        self.keying.append((chunk, self.executor.submit(self.work, chunk, key_chunk, (self.executor.holds,))))

    def _advance(self, block: bool):
        """Merges the written chunks that are done (the oldest: blocking when ``block``), and
        decides the keyed ones that are done (blocking when ``block`` and nothing is being written)."""
        executor = self.executor
        while True:
            if self.writing and (executor.done(self.writing[0][1]) or block):
                chunk, future, decided = self.writing.popleft()
                self._take(self.feed._result(executor, self.work, chunk, future, write_chunk, (decided, None)))
                block = False
            elif self.keying and not self.stopped and (executor.done(self.keying[0][1]) or block):
                chunk, future = self.keying.popleft()
                keyed = self.feed._result(executor, self.work, chunk, future, key_chunk, (executor.holds,))
                decided = self._decide(keyed)
                self.writing.append((chunk, executor.submit(self.work, chunk, write_chunk, (decided, keyed["held"])),
                                     decided))
                block = False
            else:
                return

    def _decide(self, keyed: dict) -> Decided:
        """The chunk's choice, made after all the chunks before it (Choose.decide)."""
        selection = self.selection
        candidates = keyed["candidates"]
        decision = selection.decide(candidates)
        ids = memoryview(candidates.ids).cast("q")
        if len(decision.kept) == len(ids):
            kept = array("q", candidates.ids)
        else:  # (gathered in C)
            runs = _core.game_runs(array("q", decision.kept).tobytes())
            kept = array("q", _core.take_rows(candidates.ids, 8, runs))
        dropped = [(ids[p], repeats) for p, repeats in decision.dropped]
        stop = ids[decision.kept[-1]] if selection.done else None
        if selection.done:
            self.stopped = True
        mode = selection.dedup.mode if selection.dedup is not None else None
        return Decided(kept, dropped, mode, stop)

    def _take(self, result: dict):
        self.summary.merge(result["counts"])
        for sink, part in zip(self.sinks, result["outputs"]):
            sink.merge(part)
        self.after_chunk()
