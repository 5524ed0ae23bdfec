"""The one loop of every run, in-process or in a worker: batches from the reader, through the
selection stage, into the sinks."""
from __future__ import annotations

from typing import Iterable, Optional, Sequence, Tuple

from pgntools.reader import GameBatch
from pgntools.selection import KEEP_ALL, Selection
from pgntools.sinks.base import Sink


def feed(batches: Iterable[GameBatch], sinks: Sequence[Sink], selection: Selection = KEEP_ALL,
         after_batch=None) -> Tuple[int, Optional[int]]:
    """Hands each batch, as the selection leaves it, to every sink (in order); ``after_batch()``
    after each batch (progress). Returns the games read (before the selection; with --limit, up
    to the last game chosen, whatever the batches) and the stream offset of the last one (None: no game)."""
    games, last_offset = 0, None
    if getattr(selection, "done", False):  # --limit 0: nothing to read (as in a parallel run)
        return games, last_offset
    for batch in batches:
        read = batch.read_count()  # (with the games a tag filter dropped in the reader)
        if read:
            games += read
            last_offset = batch.raw.get("last_offset", -1)
            if last_offset is None or last_offset < 0:
                last_offset = batch.column("offset")[batch.n_games - 1]
        selected = selection.select(batch)
        if selected is not batch:  # (for the outputs of the games not selected: --unselected, --duplicates)
            selected.selected_from = batch
            selected.unread = getattr(selection, "unread", 0) if getattr(selection, "done", False) else 0
        batch = selected
        for sink in sinks:
            sink.write(batch)
        if after_batch is not None:
            after_batch()
        if getattr(selection, "done", False):  # --limit reached: stop reading
            games -= getattr(selection, "unread", 0)  # (the games after the last one chosen count as not read)
            break
    return games, last_offset


def commit_all(sinks: Sequence[Sink]):
    for sink in sinks:
        sink.commit()


def abort_all(sinks: Sequence[Sink]):
    for sink in sinks:
        sink.abort()
