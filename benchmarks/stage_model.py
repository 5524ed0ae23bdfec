"""A parallel run's stages, each timed alone on one core, and the speed-up they predict (issue 36).

    python benchmarks/stage_model.py month.pgn.zst month.pgn [--month-gb 200]

A parallel run of one input is a pipeline: the read-ahead thread decompresses (D), the main
thread cuts the stream into chunks (C: a byte search for seams, or the scanner when the outputs
number games), and N workers replay (R) and, for export, encode and write Parquet (E). Each
stage is timed here with the CPU time of the thread that runs it (time.thread_time), which a
busy machine disturbs far less than wall time. With costs in CPU seconds per GB, the model is

    throughput(N) = min(1/D, 1/C, N / (D + C + R [+ E]))      (GB/s; --jobs N, N >= 2)
    throughput(1) = 1 / (D + R [+ E])                          (in-process: no cut)

the first two terms being the ceilings of the two single-threaded stages, the last the cores
shared by all of them. (A plain file has no D; its seams are found by the workers' reads.)
"""
from __future__ import annotations

import argparse
import functools
import os
import sys
import tempfile
import time

from pgntools.inputs.read_ahead import ReadAhead
from pgntools.inputs.streams import Input
from pgntools.runner.chunks import _stream_seam_chunks, iter_chunks
from pgntools.options import ReaderOptions
from pgntools.runner.run import Run
from pgntools.sinks.base import SinkSpec
from pgntools.sinks.parquet import ParquetDatasetSink

CORES = (1, 2, 4, 8, 16, 64)


def timed(fn) -> float:
    start = time.thread_time()
    fn()
    return time.thread_time() - start


def decompress(path: str) -> None:
    buf = bytearray(1 << 20)
    with Input(path) as inp:
        while inp.stream.readinto(buf):
            pass


def cut_seams(plain: str) -> None:
    """The main thread's part of iter_seam_chunks (the bytes read ahead on another thread)."""
    with Input(plain) as inp:
        stream = ReadAhead(inp.stream)
        try:
            for _ in _stream_seam_chunks(stream, plain, 2 << 20, 0, []):
                pass
        finally:
            stream.close()


def cut_numbered(plain: str) -> None:
    for _ in iter_chunks([plain], 2 << 20, with_paths=False):
        pass


def run(command: str, plain: str, out: str) -> None:
    """The command in-process (--jobs 1): the reader, and export's writer in this thread."""
    specs = []
    if command == "export":
        specs = [SinkSpec(None, functools.partial(ParquetDatasetSink, out, writer_thread=False, overwrite=True))]
    Run(command, [plain], ReaderOptions(), progress=False).execute(specs)


def predict(d: float, c: float, work: float, n: int) -> float:
    """GB/s with n cores (costs in CPU s/GB; d = 0 for a plain input)."""
    if n == 1:
        return 1 / (d + work)
    ceilings = [1 / c] + ([1 / d] if d else [])
    return min(*ceilings, n / (d + c + work))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("compressed")
    parser.add_argument("plain", help="the same games, decompressed")
    parser.add_argument("--month-gb", type=float, default=200.0, help="PGN GB of the month to predict")
    args = parser.parse_args(argv)
    gb = os.path.getsize(args.plain) / 1e9
    with tempfile.TemporaryDirectory() as tmp:
        costs = {  # CPU seconds per GB of PGN
            "decompress": timed(lambda: decompress(args.compressed)) / gb,
            "cut (seams)": timed(lambda: cut_seams(args.plain)) / gb,
            "cut (scanner)": timed(lambda: cut_numbered(args.plain)) / gb,
            "replay (validate)": timed(lambda: run("validate", args.plain, tmp)) / gb,
            "replay + encode + write (export)": timed(lambda: run("export", args.plain, os.path.join(tmp, "x"))) / gb,
        }
    print(f"{args.plain}: {gb:.2f} GB of PGN\n")
    print("| stage | CPU s / GB | MB/s on one core |\n|---|---:|---:|")
    for name, cost in costs.items():
        print(f"| {name} | {cost:.2f} | {1000 / cost:,.0f} |")
    d, seams, scan = costs["decompress"], costs["cut (seams)"], costs["cut (scanner)"]
    cases = [("validate --summary, .zst", d, seams, costs["replay (validate)"]),
             ("validate --summary, plain", 0.0, seams, costs["replay (validate)"]),
             ("validate --report, .zst", d, scan, costs["replay (validate)"]),
             ("export --parquet, .zst", d, scan, costs["replay + encode + write (export)"])]
    print("\nPredicted speed-up over --jobs 1 (the ceiling that binds at 64 cores)\n")
    print("| run | " + " | ".join(f"{n} cores" for n in CORES) + " | ceiling |")
    print("|---|" + "---:|" * (len(CORES) + 1))
    for name, d_, c_, w in cases:
        one = predict(d_, c_, w, 1)
        ups = [predict(d_, c_, w, n) / one for n in CORES]
        binding = "decompress" if d_ and d_ >= c_ else ("cut" if c_ else "cores")
        print(f"| {name} | " + " | ".join(f"{u:.2f}x" for u in ups) + f" | {binding} {1 / max(d_, c_):.2f} GB/s |")
    month = args.month_gb
    for name, d_, c_, w in cases[:1] + cases[3:]:
        print(f"\n{name}, a {month:.0f} GB month on 16 cores: {month / predict(d_, c_, w, 16) / 60:.1f} min "
              f"(one core: {month / predict(d_, c_, w, 1) / 60:.1f} min)")


if __name__ == "__main__":
    sys.exit(main())
