"""The worker side of a parallel run: one chunk of the input through the run's sinks, on a
worker thread (pgntools.runner.parallel) or a Dask worker (pgntools.runner.cluster)."""
from __future__ import annotations

import io
from typing import List, NamedTuple, Optional

from pgntools.errors import InputError
from pgntools.options import ReaderOptions
from pgntools.runner.chunks import Chunk, Unreadable, chunk_batches, seam_holds
from pgntools.runner.feed import abort_all, feed
from pgntools.selection import KEEP_ALL, Selection
from pgntools.sinks.base import SinkSpec, build_chunk_sinks
from pgntools.sinks.summary import Summary


class ChunkWork(NamedTuple):
    """What every chunk of a run needs (picklable, sent with each chunk): the reader's options,
    the specs of the sinks the run writes, the selection, and a run-unique id (in the
    temporary names of files the workers write)."""

    command: str
    options: ReaderOptions
    specs: List[SinkSpec]
    run_id: str
    selection: Selection = KEEP_ALL


def run_chunk(work: ChunkWork, chunk: Chunk, data: Optional[bytes] = None, selection: Optional[Selection] = None) -> dict:
    """Reads one chunk through the run's sinks (selected by ``selection``, default the run's).
    Returns {"index", "counts" (the Summary's), "outputs": [each sink's finish_chunk(), in the
    order of work.specs], "seam_ok"}, or {"index", "unreadable": why} when the chunk names a
    file this worker cannot read."""
    try:
        data = chunk.body() if data is None else data
    except Unreadable as exc:
        return {"index": chunk.index, "unreadable": str(exc)}
    try:
        return _run_chunk(work, chunk, data, selection=selection)
    finally:
        if isinstance(data, io.IOBase):  # a stream of the chunk's file
            data.close()


def _run_chunk(work: ChunkWork, chunk: Chunk, data, batches=None, selection: Optional[Selection] = None) -> dict:
    """The chunk's batches (``batches``: read before, e.g. by pgntools.runner.in_order.key_chunk; else
    read from ``data``) through the sinks, selected by ``selection`` (default: the run's)."""
    summary = Summary(work.command)
    sinks = []
    selection = work.selection if selection is None else selection
    try:
        position = (chunk.source, chunk.offset, chunk.line, chunk.first_game, chunk.n_games) if chunk.numbered else None
        sinks = build_chunk_sinks(work.specs, chunk.index, chunk.first_game, work.run_id, position)
        batches = chunk_batches(chunk, data, work.options) if batches is None else batches
        games, last_offset = feed(batches, [*sinks, summary], selection)
        if chunk.numbered and chunk.n_games is not None and games != chunk.n_games \
                and not getattr(selection, "done", False):
            raise RuntimeError(f"{chunk.source}: the chunk at byte {chunk.offset} holds {games} games, "
                               f"the scan found {chunk.n_games} (a seam out of place: please report this)")
        seam_ok = chunk.numbered or seam_holds(chunk, data, last_offset, work.options.max_game_size)
        outputs = [sink.finish_chunk() for sink in sinks]
        summary.read = games  # before the selection
    except BaseException:
        abort_all(sinks)
        raise
    return {"index": chunk.index, "counts": summary.finish_chunk(), "seam_ok": seam_ok, "outputs": outputs}


def read_here(chunk: Chunk) -> bytes:
    """A chunk's bytes read by the parent (for workers that cannot read its file)."""
    try:
        return chunk.read()
    except Unreadable as exc:
        raise InputError(f"{chunk.source}: cannot read it again ({exc}); was it changed during the run?") from None
