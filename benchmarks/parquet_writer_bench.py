#!/usr/bin/env python3
"""Issue 35, item 7: would pyarrow's Parquet writer make `export --parquet` slower? Whole
processes on one input, CPU and wall time and peak RSS, the rounds interleaved:

    python benchmarks/parquet_writer_bench.py INPUT [--rounds 1] [--jobs 1 2]

  arrow     pgntools export --parquet OUT INPUT --jobs J: the own encoder fed by the Arrow table of
            each batch (tables/build.py, to_arrow's; parquet/arrow_feed.py), its writer thread
  batch     the same, the own encoder fed straight from the batch columns (_core.BatchFeeder: the
            path before the one batch → Arrow path; sinks.parquet.ARROW_FEED = False)
  pyarrow   the same reader options and the same games and moves columns, each batch made an Arrow
            table (pgntools.tables.build, zero-copy) and written by pyarrow.parquet.ParquetWriter
            (zstd, dictionary encoding, statistics: pyarrow's defaults but the codec), in one thread

pyarrow at --jobs 1 only: it has no runner (no --jobs 2 pipeline) in this measure. The
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
    parser.add_argument("--jobs", type=int, nargs="+", default=[1])
    parser.add_argument("--pyarrow-child", metavar="OUT")
    parser.add_argument("--no-pyarrow", action="store_true", help="the two feeds of the own encoder only")
    args = parser.parse_args()
    if args.pyarrow_child:
        sys.path.insert(0, str(ROOT))
        pyarrow_export(args.input, args.pyarrow_child)
        return
    size = Path(args.input).stat().st_size / 1e6
    names = [f"{feed} --jobs {j}" for j in args.jobs for feed in ("batch", "arrow")]
    names += [] if args.no_pyarrow else ["pyarrow --jobs 1"]
    results = {name: [] for name in names}
    sizes = {}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            for name in names:
                feed, jobs = name.split()[0], name.split()[-1]
                out = f"{tmp}/{feed}{jobs}-{r}"
                if feed == "pyarrow":
                    Path(out).mkdir()
                    command = [sys.executable, __file__, args.input, "--pyarrow-child", out]
                else:
                    code = (f"import pgntools.sinks.parquet as s; s.ARROW_FEED = {feed == 'arrow'}; "
                            "from pgntools.cli import main; main()")
                    command = [sys.executable, "-c", code, "export", "--no-progress", "--parquet", out,
                               "--jobs", jobs, args.input]
                results[name].append(run(command))
                sizes[name] = sum(p.stat().st_size for p in Path(out).rglob("*") if p.is_file()) / 1e6
                if feed == "arrow":  # the two feeds write the same bytes
                    batch_out = f"{tmp}/batch{jobs}-{r}"
                    same = sorted(p.relative_to(out) for p in Path(out).rglob("*.parquet")) == \
                        sorted(p.relative_to(batch_out) for p in Path(batch_out).rglob("*.parquet")) and \
                        all(Path(batch_out, p.relative_to(out)).read_bytes() == p.read_bytes()
                            for p in Path(out).rglob("*.parquet"))
                    print(f"--jobs {jobs}: arrow and batch feeds wrote {'the same' if same else 'DIFFERENT'} files",
                          flush=True)
                    subprocess.run(["rm", "-rf", out, batch_out])
                elif feed == "pyarrow":
                    subprocess.run(["rm", "-rf", out])
    print(f"input: {Path(args.input).name}, {size:,.0f} MB; median of {args.rounds} round(s), whole processes")
    print("| writer | CPU s | wall s | MB/s (CPU) | peak RSS MB | output MB |")
    print("|---|---:|---:|---:|---:|---:|")
    cpu = {}
    for name in names:
        cpu[name], wall, rss = (statistics.median(x[i] for x in results[name]) for i in range(3))
        print(f"| {name} | {cpu[name]:.1f} | {wall:.1f} | {size / cpu[name]:.0f} | {rss:.0f} | {sizes[name]:.0f} |")
    for j in args.jobs:
        print(f"--jobs {j}: arrow / batch CPU = {cpu[f'arrow --jobs {j}'] / cpu[f'batch --jobs {j}']:.2f}")
    if not args.no_pyarrow:
        print(f"pyarrow / batch CPU (--jobs 1) = {cpu['pyarrow --jobs 1'] / cpu.get('batch --jobs 1', float('nan')):.2f}")


if __name__ == "__main__":
    main()
