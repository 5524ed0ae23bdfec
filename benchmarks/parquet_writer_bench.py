#!/usr/bin/env python3
"""Issue 35, item 7: would pyarrow's Parquet writer make `export --parquet` slower? Whole
processes on one input, CPU and wall time and peak RSS, the rounds interleaved:

    python benchmarks/parquet_writer_bench.py INPUT [--rounds 1]

  own       pgntools export --parquet OUT INPUT --jobs 1 (the hand-written encoder; its writer thread)
  pyarrow   the same reader options and the same games and moves columns, each batch made an Arrow
            table (pgntools.tables.build, zero-copy) and written by pyarrow.parquet.ParquetWriter
            (zstd, dictionary encoding, statistics: pyarrow's defaults but the codec), in one thread

At --jobs 1 only: the pyarrow side has no runner (no --jobs 2 pipeline) in this measure. The
pyarrow side is run as a child of this script (`--pyarrow-child`). Prints a table; writes
nothing but a temporary directory.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def pyarrow_export(path: str, out: str) -> None:
    import pyarrow.parquet as pq

    from pgntools.reader import iter_batches
    from pgntools.sinks.parquet import ParquetDatasetSink
    from pgntools.tables import build, schema

    from pgntools.options import ReaderOptions

    sink = ParquetDatasetSink(out + "/needs-only")  # (the export's reader options, unchanged)
    options = ReaderOptions().for_sinks([sink.needs])  # (its batch_games too: 512)
    games_cols, moves_cols = tuple(schema.GAME_COLUMNS), tuple(schema.move_columns(False, False, False))
    writers = {}
    for batch in iter_batches(path, options=options):
        if not batch.n_games:
            continue
        for name, cols in (("games", games_cols), ("moves", moves_cols)):
            table = build.table(batch, "games" if name == "games" else "moves", cols)
            if name not in writers:
                writers[name] = pq.ParquetWriter(f"{out}/{name}.parquet", table.schema, compression="zstd")
            writers[name].write_table(table)
    for writer in writers.values():
        writer.close()


def run(args, ok=(0, 1)) -> tuple:
    """(CPU s, wall s, peak RSS MB) of a child process."""
    start = time.perf_counter()
    child = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)  # (this child's own usage: its CPU and peak RSS)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code not in ok:
        raise SystemExit(f"{args}: exit {code}: {child.stderr.read().decode()}")
    child.stderr.close()
    return usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("input")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--pyarrow-child", metavar="OUT")
    args = parser.parse_args()
    if args.pyarrow_child:
        sys.path.insert(0, str(ROOT))
        pyarrow_export(args.input, args.pyarrow_child)
        return
    size = Path(args.input).stat().st_size / 1e6
    results = {"own": [], "pyarrow": []}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            results["own"].append(run([sys.executable, "-m", "pgntools", "export", "--parquet", f"{tmp}/own{r}",
                                       "--jobs", "1", args.input]))
            Path(f"{tmp}/pa{r}").mkdir()
            results["pyarrow"].append(run([sys.executable, __file__, args.input, "--pyarrow-child", f"{tmp}/pa{r}"],
                                          ok=(0,)))
            sizes = {k: sum(p.stat().st_size for p in Path(tmp, f"{k}{r}").rglob("*") if p.is_file()) / 1e6
                     for k in ("own", "pa")}
    print(f"input: {Path(args.input).name}, {size:,.0f} MB; median of {args.rounds} round(s), "
          "whole processes, --jobs 1")
    print("| writer | CPU s | wall s | MB/s (wall) | peak RSS MB | output MB |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, key in (("own", "own"), ("pyarrow", "pa")):
        cpu, wall, rss = (statistics.median(x[i] for x in results[name]) for i in range(3))
        print(f"| {name} | {cpu:.1f} | {wall:.1f} | {size / wall:.0f} | {rss:.0f} | {sizes[key]:.0f} |")
    own, pa_ = (statistics.median(x[0] for x in results[k]) for k in ("own", "pyarrow"))
    print(f"pyarrow / own CPU = {pa_ / own:.2f}")


if __name__ == "__main__":
    main()
