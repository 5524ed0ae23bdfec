"""`--sample FRACTION --seed S`: a pseudo-random share of the games, decided by each game's id
alone (so the same games for any --jobs, in any chunking, on a cluster): a game is kept when the
64-bit mix (SplitMix64's finaliser) of its id and the seed falls below FRACTION x 2^64."""
from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from pgntools.tables.arrays import ints

_GOLDEN, _MIX1, _MIX2 = 0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB
_MASK = (1 << 64) - 1


def _u64(value: int) -> pa.Scalar:
    return pa.Array.from_buffers(pa.uint64(), 1, [None, pa.py_buffer((value & _MASK).to_bytes(8, "little"))])[0]


def mix(ids: pa.Array, seed: int) -> pa.Array:
    """SplitMix64 of id + (seed + 1) x golden ratio, per id (uint64 arithmetic wraps, as in C)."""
    z = pc.add(ids.cast(pa.uint64()), _u64((seed + 1) * _GOLDEN))
    z = pc.multiply(pc.bit_wise_xor(z, pc.shift_right(z, _u64(30))), _u64(_MIX1))
    z = pc.multiply(pc.bit_wise_xor(z, pc.shift_right(z, _u64(27))), _u64(_MIX2))
    return pc.bit_wise_xor(z, pc.shift_right(z, _u64(31)))


def mix_one(game_id: int, seed: int) -> int:
    """The same mix in Python (for tests and for anyone who wants to reproduce a sample)."""
    z = (game_id + (seed + 1) * _GOLDEN) & _MASK
    z = ((z ^ (z >> 30)) * _MIX1) & _MASK
    z = ((z ^ (z >> 27)) * _MIX2) & _MASK
    return z ^ (z >> 31)


def threshold(fraction: float) -> int:
    return min(int(fraction * (1 << 64)), _MASK)


def sampled(first_game: int, n: int, fraction: float, seed: int) -> pa.Array:
    """For games first_game .. first_game + n - 1: whether the sample keeps each."""
    ids = pc.add(pa.arange(0, n).cast(pa.int64()), ints([first_game], pa.int64())[0])
    if fraction >= 1:
        return pc.is_valid(ids)
    return pc.less(mix(ids, seed), _u64(threshold(fraction)))


def sampled_ids(ids, fraction: float, seed: int) -> list:
    """For the games ``ids`` (int64 array): whether the sample keeps each (as ``sampled``)."""
    if fraction >= 1:
        return [True] * len(ids)
    array = pa.Array.from_buffers(pa.int64(), len(ids), [None, pa.py_buffer(ids.tobytes())])
    return pc.less(mix(array, seed), _u64(threshold(fraction))).to_pylist()
def batch_sampled(batch, fraction: float, seed: int) -> pa.Array:
    """For each game of a batch, by its id (a batch a tag filter thinned, or a view, has ids that
    are not consecutive): whether the sample keeps it."""
    if batch.ids is None:
        return sampled(batch.first_game, batch.n_games, fraction, seed)
    ids = ints(batch.ids, pa.int64())
    if fraction >= 1:
        return pc.is_valid(ids)
    return pc.less(mix(ids, seed), _u64(threshold(fraction)))
