"""Issue 36's speed targets in one run: --jobs 1 against --jobs 2, and a local Dask cluster of two
workers against --jobs 2, on a >= 1 GB Lichess-like input, plain and .zst; interleaved rounds.

    python benchmarks/scale_targets.py /tmp/big/lichess-1g.pgn [--rounds 2] [--no-dask]

(the .zst beside it, FILE.zst, is used when it exists). Each run is one process of the CLI: its
wall time, CPU (user+sys of it and its children, from wait4) and peak RSS. A Dask run starts a
scheduler and two one-thread workers first (not timed) and times the client command; its CPU
column is the client's alone. Prints a Markdown table for benchmarks/RESULTS.md. Read it only
from a quiet machine: on 2 busy cores a run with two threads gets no more CPU than one.
"""
from __future__ import annotations

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGETS = {  # (name, input kind) -> speed-up wanted of --jobs 2 over --jobs 1
    ("validate --summary", "zst"): 1.7, ("validate --summary", "plain"): 1.85,
    ("filter, tag only", "zst"): 1.6, ("export --parquet", "zst"): 1.8, ("export --parquet", "plain"): 1.8}
DASK_WITHIN = 1.25  # Dask on two local workers: wall time within this of local --jobs 2


def commands(kind_path: Path, work: Path) -> dict:
    out = work / "out"
    return {
        "validate --summary": ["validate", "--summary", "-q", str(kind_path)],
        "filter, tag only": ["filter", "--where", "white_elo >= 2900", "-o", str(out / "f.pgn"), "-q", str(kind_path)],
        "export --parquet": ["export", "--parquet", str(out / "ds"), "--overwrite", "-q", str(kind_path)],
    }


def run(argv: list, work: Path) -> dict:
    """One process: wall s, CPU s (it and its waited-for children), peak RSS MB."""
    shutil.rmtree(work / "out", ignore_errors=True)
    (work / "out").mkdir()
    start = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-m", "pgntools", *argv], stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    err = child.stderr.read().decode(errors="replace")
    child.stderr.close()
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        raise SystemExit(f"{' '.join(argv)}: exit {code}\n{err}")
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "rss": usage.ru_maxrss / 1024}


class LocalCluster:
    """A scheduler and two one-thread worker processes on 127.0.0.1 (the CLI's own dask)."""

    def __init__(self):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        self.address = f"tcp://127.0.0.1:{port}"
        bin_dir = Path(sys.executable).parent
        self.procs = [subprocess.Popen([str(bin_dir / "dask"), "scheduler", "--host", "127.0.0.1", "--port",
                                        str(port), "--no-dashboard"], stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL)]
        time.sleep(2)
        for _ in range(2):
            self.procs.append(subprocess.Popen([str(bin_dir / "dask"), "worker", self.address, "--nthreads", "1",
                                                "--nworkers", "1", "--no-nanny", "--no-dashboard"],
                                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        time.sleep(4)

    def close(self):
        for proc in reversed(self.procs):
            proc.kill()  # (a worker given SIGTERM waits for its scheduler for a while)
            proc.wait(timeout=30)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("input", type=Path)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--no-dask", action="store_true")
    parser.add_argument("--only", default="", help="a substring of the commands to run")
    args = parser.parse_args()
    kinds = {"plain": args.input}
    zst = Path(str(args.input) + ".zst")
    if zst.exists():
        kinds["zst"] = zst
    work = Path(tempfile.mkdtemp(prefix="scale-targets-"))
    results: dict = {}
    cluster = None if args.no_dask else LocalCluster()
    try:
        for _ in range(args.rounds):
            for kind, path in kinds.items():
                for name, argv in commands(path, work).items():
                    if args.only not in name or (name, kind) not in TARGETS and not name.startswith("validate"):
                        continue
                    for jobs in ("1", "2"):
                        results.setdefault((name, kind, f"--jobs {jobs}"), []).append(
                            run([*argv[:1], "--jobs", jobs, *argv[1:]], work))
                    if cluster and name != "filter, tag only":
                        results.setdefault((name, kind, "dask, 2 workers"), []).append(
                            run([*argv[:1], "--scheduler", cluster.address, *argv[1:]], work))
    finally:
        if cluster:
            cluster.close()
        shutil.rmtree(work, ignore_errors=True)
    print(f"input: {args.input} ({args.input.stat().st_size / 1e9:.2f} GB)"
          + (f" and {zst.name} ({zst.stat().st_size / 1e6:.0f} MB)" if "zst" in kinds else "")
          + f"; {args.rounds} rounds interleaved; load before: {os.getloadavg()[0]:.2f}\n")
    print("| command | input | run | wall s (each round) | CPU s | peak RSS MB | speed-up / target |")
    print("|---|---|---|---|---:|---:|---|")
    for (name, kind, how), runs in results.items():
        walls = [r["wall"] for r in runs]
        verdict = ""
        if how != "--jobs 1":
            base = results[(name, kind, "--jobs 1")]
            ratios = [b["wall"] / r["wall"] for b, r in zip(base, runs)]
            verdict = " / ".join(f"{x:.2f}×" for x in ratios)
            if how == "--jobs 2" and (name, kind) in TARGETS:
                verdict += f" (target ≥ {TARGETS[(name, kind)]}×)"
            if how.startswith("dask"):
                local = results[(name, kind, "--jobs 2")]
                verdict += " · " + " / ".join(f"{r['wall'] / l['wall']:.2f}" for l, r in zip(local, runs)) + \
                    f"× local --jobs 2 (target ≤ {DASK_WITHIN}×)"
        print(f"| {name} | {kind} | {how} | {' / '.join(f'{w:.1f}' for w in walls)} | "
              f"{statistics.median(r['cpu'] for r in runs):.1f} | {max(r['rss'] for r in runs):.0f} | {verdict} |")


if __name__ == "__main__":
    main()
