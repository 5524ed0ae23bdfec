"""The bounded aggregates of `pgntools stats`: fixed-bin histograms and value counts kept in at
most ``capacity`` entries (a mergeable Misra-Gries summary), both filled a batch at a time with
Arrow compute (no Python object per game) and merged part by part for --jobs and Dask.

Value counts (``Counts``): exact while a domain has at most ``capacity`` distinct values (ECO
codes, results, months, first moves, time controls in practice). Past that (player names,
events of a 100 M game dump) the summary keeps the ``capacity`` largest counts: when it
overflows, the count of the (capacity+1)-th value is subtracted from every count and the values
left at 0 are dropped (Agarwal et al., "Mergeable summaries", 2012). Every kept count is then at
most ``error`` below the true one, and ``error`` <= games / (capacity + 1); a value whose true
count exceeds ``error`` is never lost. Exact counts are the same for any --jobs; once ``error``
is above 0 the kept values may differ with how the input was cut (within the bound).

Memory: a histogram is its bins (a few hundred integers); a ``Counts`` at most ``capacity``
values (a few MB for names) plus one batch's distinct values.
"""
from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

import pyarrow as pa
import pyarrow.compute as pc

from pgntools.sinks.arrays import scalar

DEFAULT_CAPACITY = 4096


class Counts:
    """Counts per value (strings), bounded by ``capacity`` (see the module's notes)."""

    def __init__(self, capacity: int = DEFAULT_CAPACITY):
        self.capacity = capacity
        self.values: List[str] = []   # kept values and their counts, as plain lists between batches
        self.counts: List[int] = []
        self.error = 0                # every kept count is at most this much below the true count
        self.total = 0                # values counted (the nulls are not)
        self._pending: List[pa.Table] = []

    def add(self, values: pa.Array):
        """Counts the non-null values of an Arrow array (one batch's)."""
        values = values.drop_null()
        if not len(values):
            return
        if isinstance(values.type, pa.DictionaryType):
            values = values.dictionary_decode()
        counted = pc.value_counts(values)
        self.total += len(values)
        self._pending.append(pa.table({"value": counted.field(0).cast(pa.string()),
                                       "count": counted.field(1).cast(pa.int64())}))
        if sum(len(t) for t in self._pending) > 4 * self.capacity:
            self._fold()

    def add_counts(self, pairs: Sequence[Tuple[str, int]]):
        """Counts given as (value, count) pairs (a few: the distinct values of a batch)."""
        for value, count in pairs:
            self.values.append(value)
            self.counts.append(count)
            self.total += count
        self._fold()

    def _fold(self):
        """Pending batches and kept values summed per value, then pruned to the capacity."""
        tables = self._pending
        self._pending = []
        if self.values:
            from pgntools.sinks.arrays import ints, text

            tables.append(pa.table({"value": text(self.values), "count": ints(self.counts, pa.int64())}))
        if not tables:
            return
        summed = pa.concat_tables(tables).group_by("value").aggregate([("count", "sum")])
        values, counts = summed.column("value").combine_chunks(), summed.column("count_sum").combine_chunks()
        if len(summed) > self.capacity:
            order = pc.array_sort_indices(counts, order="descending")
            cut = counts.take(order.slice(self.capacity, 1))[0].as_py()
            keep = pc.greater(counts, scalar(cut, pa.int64()))
            values, counts = pc.filter(values, keep), pc.subtract(pc.filter(counts, keep), scalar(cut, pa.int64()))
            self.error += cut
        self.values, self.counts = values.to_pylist(), counts.to_pylist()

    def merge(self, other: "Counts"):
        other._fold()
        self._fold()
        self.values += other.values
        self.counts += other.counts
        self.total += other.total
        self.error += other.error
        self._fold()

    def __getstate__(self):  # a worker's part: folded, no Arrow tables
        self._fold()
        return {"capacity": self.capacity, "values": self.values, "counts": self.counts, "error": self.error,
                "total": self.total}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._pending = []

    def items(self) -> List[Tuple[str, int]]:
        """Every kept (value, count), largest count first, then by value (a stable order)."""
        self._fold()
        return sorted(zip(self.values, self.counts), key=lambda vc: (-vc[1], vc[0]))

    def as_dict(self) -> dict:
        return dict(self.items())

    def top(self, n: int) -> dict:
        """The JSON shape: the n largest counts, what the others add up to, and the bound."""
        items = self.items()
        shown = items[:n]
        return {"top": [{"value": v, "count": c} for v, c in shown],
                "other": self.total - sum(c for _, c in shown), "distinct_kept": len(items),
                "counted": self.total, "error": self.error}


class Histogram:
    """Counts of integer values in ``bins`` bins of ``width`` from ``low``: values below ``low``
    go to the first bin and values from ``low + bins * width`` on to the last (the JSON says so)."""

    def __init__(self, low: int, width: int, bins: int):
        self.low, self.width, self.bins = low, width, bins
        self.counts = [0] * bins

    def bin_of(self, values: pa.Array) -> pa.Array:
        """Each (non-null) value's bin, as int64."""
        values = values.cast(pa.int64())
        low, high = scalar(self.low, pa.int64()), scalar(self.low + self.bins * self.width - 1, pa.int64())
        clamped = pc.min_element_wise(pc.max_element_wise(values, low), high)
        return pc.divide(pc.subtract(clamped, low), scalar(self.width, pa.int64()))

    def add(self, values: pa.Array):
        values = values.drop_null()
        if len(values):
            add_counts(self.counts, self.bin_of(values))

    def merge(self, other: "Histogram"):
        self.counts = [a + b for a, b in zip(self.counts, other.counts)]

    def as_dict(self) -> dict:
        return {"low": self.low, "bin_width": self.width, "counts": list(self.counts),
                "note": f"bin i holds [low + i*bin_width, low + (i+1)*bin_width); the first bin also "
                        f"holds the values below low, the last those above"}


def add_counts(counts: List[int], keys: pa.Array, weights: Optional[pa.Array] = None):
    """counts[k] += 1 (or the weight) for each key k of an int64 array (one pass in Arrow; a
    Python loop over the distinct keys only)."""
    if weights is None:
        counted = pc.value_counts(keys)
        for key, n in zip(counted.field(0).to_pylist(), counted.field(1).to_pylist()):
            counts[key] += n
        return
    summed = pa.table({"k": keys, "w": weights}).group_by("k").aggregate([("w", "sum")])
    for key, n in zip(summed.column("k").to_pylist(), summed.column("w_sum").to_pylist()):
        counts[key] += n


def quantile_of(counts: Sequence[int], edges: Sequence[float], q: float) -> Optional[float]:
    """The q-quantile of values binned by edges (bin i: [edges[i], edges[i+1])), linearly
    interpolated inside its bin: exact to the bin's width."""
    total = sum(counts)
    if not total:
        return None
    target = q * total
    seen = 0
    for i, n in enumerate(counts):
        if n and seen + n >= target:
            low, high = edges[i], edges[i + 1]
            return round(low + (high - low) * (target - seen) / n, 1)
        seen += n
    return float(edges[-1])
