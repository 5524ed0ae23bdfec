#!/usr/bin/env python3
"""CPU cost of the friendly API: ``read_games`` (one Game object per game) against
``iter_batches`` (columns) over the same file with the same reader options (issue 22, point 8:
the goal is read_games <= 2x the CPU of iter_batches).

    python benchmarks/api_bench.py [--input FILE] [--rounds 5]

Three loops over the file, each CPU-timed (time.process_time) --rounds times, median and min:
  batches   for batch in iter_batches(...): batch.n_games          (the reader's own work)
  games     for game in read_games(...): game.status, game.headers (a Game per game)
  moves     ... and game.san (each game's move list built too)
The game counts of the three loops are checked against each other. Run it from the repository
root (it imports the pgntools beside it). Prints the table; writes nothing.
"""
import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pgntools  # noqa: E402

DEFAULT_INPUT = ROOT.parent / "shared" / "corpora" / "bench" / "master-games-30k.pgn"
# read_games' defaults: the move table, comments and the final FEN
OPTIONS = {"moves": True, "comments": True, "final_fen": True}


def batches(path):
    return sum(batch.n_games for batch in pgntools.iter_batches(path, **OPTIONS))


def games(path):
    n = 0
    for game in pgntools.read_games(path):
        game.status, game.headers
        n += 1
    return n


def games_with_moves(path):
    n = 0
    for game in pgntools.read_games(path):
        game.status, game.headers, game.san
        n += 1
    return n


def measure(fn, path, rounds):
    times, counts = [], set()
    for _ in range(rounds):
        start = time.process_time()
        counts.add(fn(path))
        times.append(time.process_time() - start)
    assert len(counts) == 1, f"{fn.__name__}: game counts differ between rounds: {counts}"
    return counts.pop(), statistics.median(times), min(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--input", default=str(DEFAULT_INPUT))
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    if not Path(args.input).exists():
        sys.exit(f"api_bench: {args.input} not found (the shared corpora live beside the repository)")
    results = {fn.__name__: measure(fn, args.input, args.rounds) for fn in (batches, games, games_with_moves)}
    counts = {name: r[0] for name, r in results.items()}
    assert len(set(counts.values())) == 1, f"the loops read different numbers of games: {counts}"
    base = results["batches"][1]
    print(f"{Path(args.input).name}: {counts['batches']:,} games, CPU seconds over {args.rounds} rounds")
    print(f"{'loop':<18}{'median':>9}{'min':>9}{'x batches':>11}")
    for name, (_, median, low) in results.items():
        print(f"{name:<18}{median:>9.3f}{low:>9.3f}{median / base:>11.2f}")
    ratio = results["games"][1] / base
    print(f"read_games / iter_batches = {ratio:.2f} (goal <= 2)")
    return 0 if ratio <= 2 else 1


if __name__ == "__main__":
    sys.exit(main())
