"""The games table's ``fixes`` column: every fix of each game as (kind, ply, field, before,
after), in the order of the API's ``game.fixes`` and the report: the fix table's rows (a
repaired tag or start FEN, a game cut at an automatic end), then the result's fixes (kept by
the reader as bits per game); "" where a fix has no field or nothing was read. Built once per batch from
the batch's columns, touching only the games that have a fix; parquet/part_file.py encodes it,
build.py makes it an Arrow array."""
from __future__ import annotations

import re
from array import array
from itertools import accumulate
from typing import List, NamedTuple, Tuple

from pgntools.reader import FIX_KINDS, FIX_RESULT_MARKER, FIX_RESULT_TAG, RESULTS, GameBatch

# The kinds of the column: the result's two, then the fix table's (its codes shifted by two).
KINDS: Tuple[str, ...] = ("result_tag", "result_marker") + tuple(FIX_KINDS)
RESULT_FIXES = FIX_RESULT_TAG | FIX_RESULT_MARKER


class FixRows(NamedTuple):
    starts: bytes   # int32 per game, and the end: game g's fixes are rows starts[g] .. starts[g + 1] - 1
    kinds: bytes    # uint8 codes into KINDS
    plies: bytes    # int32, 0: none
    fields: List[str]
    befores: List[str]
    afters: List[str]

    def strings(self, name: str) -> Tuple[bytes, bytes]:
        """One string column as (int32 offsets, UTF-8 data)."""
        encoded = [s.encode() for s in getattr(self, name)]
        ends = array("i", [0])
        ends.extend(accumulate(len(e) for e in encoded))
        return ends.tobytes(), b"".join(encoded)


def fix_rows(batch: GameBatch) -> FixRows:
    cached = getattr(batch, "_fix_rows", None)
    if cached is None:
        cached = batch._fix_rows = _build(batch)
    return cached


def _build(batch: GameBatch) -> FixRows:
    n = batch.n_games
    bits = bytes(batch.column("fixes"))
    table_kinds, table_plies = batch.column("fix_kind"), batch.column("fix_ply")
    table_starts = batch.column("fix_start").tolist() + [len(table_kinds)] if len(table_kinds) else None
    with_result = [m.start() for m in re.finditer(rb"[^\x00]", bits) if bits[m.start()] & RESULT_FIXES]
    if not with_result and table_starts is None:  # (most batches)
        return FixRows(array("i", bytes(4 * (n + 1))).tobytes(), b"", b"", [], [], [])
    games = set(with_result)
    if table_starts is not None:
        games.update(g for g in range(n) if table_starts[g] != table_starts[g + 1])
    fields, befores, afters = ([] for _ in range(3))
    kinds, plies, counts = array("B"), array("i"), array("i", bytes(4 * n))
    if table_starts is not None:
        t_fields, t_froms, t_tos = (batch.strings(c) for c in ("fix_field", "fix_from", "fix_to"))
    result, result_tag, result_marker = batch.column("result"), batch.column("result_tag"), batch.column("result_marker")
    for g in sorted(games):
        before = len(kinds)
        if table_starts is not None:
            for i in range(table_starts[g], table_starts[g + 1]):
                kinds.append(2 + table_kinds[i]), plies.append(table_plies[i])
                fields.append(t_fields[i]), befores.append(t_froms[i]), afters.append(t_tos[i])
        for bit, code, read in ((FIX_RESULT_TAG, 0, result_tag), (FIX_RESULT_MARKER, 1, result_marker)):
            if bits[g] & bit:
                kinds.append(code), plies.append(0), fields.append("")
                befores.append(RESULTS[read[g]] or ""), afters.append(RESULTS[result[g]])
        counts[g] = len(kinds) - before
    starts = array("i", [0])
    starts.extend(accumulate(counts))
    return FixRows(starts.tobytes(), kinds.tobytes(), plies.tobytes(), fields, befores, afters)
