"""export --resume: reading the inputs again from where an interrupted export's committed parts
end (pgntools.sinks.export_manifest), in-process or as a parallel run's chunks."""
from __future__ import annotations

from typing import Iterator, List, Optional, Sequence

from pgntools.errors import InputError, OutputError
from pgntools.options import ReaderOptions
from pgntools.reader import GameBatch

def resume_state(out_dir: str, inputs: List[list]) -> Optional[dict]:
    """The manifest of the export to continue in ``out_dir`` (None: nothing was committed, the
    export starts over), checked against this run's inputs."""
    from pgntools.sinks.export_manifest import check_same_run, load
    from pgntools.sinks.parquet import remove_temporary
    from pgntools.storage import storage_for

    storage, root = storage_for(out_dir, OutputError)
    state = load(storage, root, out_dir)
    if state is None:  # (a run killed before its first part: only temporary files)
        remove_temporary(storage, [storage.join(root, "games"), storage.join(root, "moves")])
        return None
    check_same_run(state, inputs, state["settings"], out_dir)
    if not state["complete"] and state["resume"] is None:
        raise OutputError(f"--resume: {out_dir}: the manifest does not say where to read again (an input that "
                          "is not a file, e.g. a zip member): export again")
    return state


def resumed_batches(sources: Sequence[str], start: dict, on_input, on_error,
                    options: ReaderOptions) -> Iterator[GameBatch]:
    """iter_batches of ``sources`` from ``start`` (the manifest's resume point) on: the inputs
    before it are not read, its input from the game at its offset, numbered as in the whole run."""
    from pgntools.inputs.streams import open_inputs
    from pgntools.reader import _batches
    from pgntools.runner.chunks import Chunk, chunk_batches, skip_to

    index = start["index"]
    with next(iter(open_inputs([sources[index]]))) as inp:
        if on_input:
            on_input(inp)
        next_game = start["first_game"]
        try:
            skip_to(inp.stream, start["offset"], inp.name)
            chunk = Chunk(0, inp.name, start["offset"], start["line"], next_game, None, 0)
            for batch in chunk_batches(chunk, inp.stream, options):
                next_game = batch.first_game + batch.read_count()
                yield batch
        except InputError as exc:
            if on_error is None:
                raise
            on_error(exc)
    yield from _batches(list(sources[index + 1:]), on_input, on_error, options, first_game=next_game)
