"""The sink protocol: what every output of a run implements, and all the runners know of them.

A run (pgntools.runner.run) builds its sinks from ``SinkSpec``s, derives the reader's options from
their ``needs``, then hands each batch to ``write`` and ends with ``commit`` (success) or
``abort`` (failure: nothing may be left under a final name).

A parallel run (pgntools.runner.parallel, pgntools.runner.cluster) builds the same sinks again in each worker
from the same specs, on a ``ChunkOutput`` (an in-memory output that also says which chunk it
is), writes the chunk's batches, and calls ``finish_chunk``: its return value (picklable: bytes,
paths, counts) goes back to the parent, whose sink takes the chunks' parts in input order with
``merge``. ``discard(run_id)`` removes what the workers of a failed run may have left behind.
"""
from __future__ import annotations

import io
from typing import TYPE_CHECKING, Callable, Dict, List, Mapping, NamedTuple, Optional, Sequence

if TYPE_CHECKING:  # (not at run time: the command line's options import this module before any reader)
    from pgntools.reader import GameBatch


class Sink:
    """The protocol, with the defaults of a sink that writes bytes to one output (``self.output``):
    a worker's bytes are appended by the parent in chunk order."""

    #: What this sink needs from the reader: ReaderOptions fields (e.g. {"pgn": True}), and
    #: "numbered" when the output names games (game ids, lines). Instances may set their own.
    needs: Mapping[str, object] = {}

    #: The sink's workers write files per chunk, and their memory grows with the chunk: a
    #: parallel run cuts chunks of one size whatever the input's (pgntools.runner.parallel).
    fixed_chunks = False

    #: The largest chunk (input bytes) a parallel run's workers should read for this sink, or
    #: None: a worker holds its chunk's output in memory until the parent merges it, so a sink
    #: that writes many bytes per input byte (to-fen --every-ply: ~8) asks for small chunks.
    max_chunk = None

    output = None

    def write(self, batch: GameBatch) -> None:
        raise NotImplementedError

    def commit(self) -> None:
        """The run succeeded: finish the output (the run then renames it to its final name)."""

    def abort(self) -> None:
        """The run failed: release what the sink holds (the run removes its outputs)."""

    # ---- parallel runs

    def finish_chunk(self):
        """Worker side, after the chunk's last batch: what the parent's ``merge`` takes."""
        self.commit()
        return self.output.value()

    def merge(self, part) -> None:
        """Parent side: one chunk's part, in input order."""
        if part:
            self.output.write(part)

    def discard(self, run_id: str) -> None:
        """Parent side, when a parallel run fails: remove files its workers may have left."""


class ChunkOutput:
    """A worker's output for one chunk: bytes in memory (the interface of an opened output:
    ``write`` and ``file``), and the chunk's place in the run."""

    class _File(io.BytesIO):
        def close(self):  # a Parquet writer closes its file; keep the bytes
            pass

    def __init__(self, chunk_index: int = 0, first_game: Optional[int] = None, run_id: str = "",
                 position: Optional[tuple] = None):
        self.file = self._File()
        self.first_game = first_game  # None: an unnumbered chunk
        # (source, offset, line, first game, games) of a numbered chunk: where it starts in the inputs
        self.position = position
        self.part_prefix = f"{run_id}{chunk_index:06d}-"  # unique names for files a worker writes

    @property
    def starts_run(self) -> bool:
        """Whether the run's first game is in this chunk (e.g. a CSV header goes before it)."""
        return self.first_game == 0

    def write(self, data: bytes):
        self.file.write(data)

    def value(self) -> bytes:
        return self.file.getvalue()


class SinkSpec(NamedTuple):
    """How to make one sink: ``factory(output)``, with the opened output named ``output`` (the
    sink is left out when that output was not asked for), or with None in the parent run and the
    worker's ChunkOutput in a worker when ``output`` is None (a sink that writes its own files,
    like the Parquet dataset). ``output`` may also be a tuple of output names, for one sink with
    several outputs (stats: text, HTML, JSON): built when any of them was asked for, as
    ``factory(*outputs)`` with None for those that were not. The factory must be picklable (a class or a functools.partial of
    one) so that workers (threads, Dask) can build the same sink."""

    output: Optional[str]
    factory: Callable


def build_sinks(specs: Sequence[SinkSpec], opened: Mapping[str, object]) -> List[Sink]:
    """The parent's sinks: one per spec whose output was asked for."""
    return [spec.factory(*[opened.get(name) for name in spec.output]) if isinstance(spec.output, tuple)
            else spec.factory(opened[spec.output] if spec.output is not None else None)
            for spec in active_specs(specs, opened)]


def build_chunk_sinks(specs: Sequence[SinkSpec], chunk_index: int, first_game: Optional[int],
                      run_id: str, position: Optional[tuple] = None) -> List[Sink]:
    """A worker's sinks for one chunk (the specs are those the parent built)."""
    return [spec.factory(ChunkOutput(chunk_index, first_game, run_id, position)) for spec in specs]


def active_specs(specs: Sequence[SinkSpec], opened: Mapping[str, object]) -> List[SinkSpec]:
    return [spec for spec in specs if spec.output is None or spec.output in opened
            or (isinstance(spec.output, tuple) and any(name in opened for name in spec.output))]


def needs_of(sinks: Sequence[Sink]) -> List[Dict[str, object]]:
    return [dict(sink.needs) for sink in sinks]

