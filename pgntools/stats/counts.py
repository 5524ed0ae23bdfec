"""The bounded aggregates of `pgntools stats` as the JSON shows them: value counts (kept in at most
``capacity`` entries each by the C core, a mergeable Misra-Gries summary) and fixed-bin
histograms. The counting itself is C (pgntools/_c/stats.c, one pass over a batch's columns).

Value counts: exact while a domain has at most ``capacity`` distinct values (ECO codes, results,
months, first moves, time controls in practice). Past that (player names, events of a 100 M game
dump) the summary keeps the ``capacity`` largest counts: when it overflows, the count of the
(capacity+1)-th value is subtracted from every count and the values left at 0 are dropped
(Agarwal et al., "Mergeable summaries", 2012). Every kept count is then at most ``error`` below
the true one, and ``error`` <= games / (capacity + 1); a value whose true count exceeds ``error``
is never lost. Exact counts are the same for any --jobs; once ``error`` is above 0 the kept
values may differ with how the input was cut (within the bound).

Memory: a histogram is its bins (a few hundred integers); a value count at most 2 x
``capacity`` values between prunings (each its text and ~70 bytes: ~0.7 MB for names).
"""
from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

DEFAULT_CAPACITY = 4096


class ValueCounts:
    """One value count as the C core handed it out: its kept (value, count) pairs, the bound on
    how low each count may be, and how many values were counted (nulls are not)."""

    def __init__(self, pairs: Sequence[Tuple[str, int]], error: int, total: int):
        self.pairs = sorted(pairs, key=lambda vc: (-vc[1], vc[0]))  # largest first, then by value (stable)
        self.error, self.total = error, total

    def items(self) -> List[Tuple[str, int]]:
        return list(self.pairs)

    def as_dict(self) -> dict:
        return dict(self.pairs)

    def top(self, n: int) -> dict:
        """The JSON shape: the n largest counts, what the others add up to, and the bound."""
        shown = self.pairs[:n]
        return {"top": [{"value": v, "count": c} for v, c in shown],
                "other": self.total - sum(c for _, c in shown), "distinct_kept": len(self.pairs),
                "counted": self.total, "error": self.error}


def top_of_sources(parts: Sequence[Tuple[str, ValueCounts]], n: int) -> dict:
    """One top-n list over value counts of different sources, each entry naming its source."""
    entries = sorted(((v, c, source) for source, counts in parts for v, c in counts.pairs),
                     key=lambda e: (-e[1], e[0], e[2]))
    shown = entries[:n]
    total = sum(counts.total for _, counts in parts)
    return {"top": [{"value": v, "count": c, "source": s} for v, c, s in shown],
            "other": total - sum(c for _, c, _ in shown), "distinct_kept": len(entries), "counted": total,
            "error": sum(counts.error for _, counts in parts)}


def histogram_dict(low: int, width: int, counts: Sequence[int]) -> dict:
    return {"low": low, "bin_width": width, "counts": list(counts),
            "note": "bin i holds [low + i*bin_width, low + (i+1)*bin_width); the first bin also "
                    "holds the values below low, the last those above"}


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
