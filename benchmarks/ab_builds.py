"""Two builds of pgntools, the same commands, interleaved rounds: CPU time (user + sys) and peak RSS of
each whole process, and the ratio B/A. For a change of the core measured at the size users have
(a ≥ 1 GB input) on a shared machine, where wall time is noise and CPU time mostly is not.

    python benchmarks/ab_builds.py --a /venv-old/bin/pgntools --b /venv-new/bin/pgntools \\
        --input big.pgn [--rounds 2] [--commands validate,validate-o,to-fen,export]

Each build should be a regular install (pip install .) in its own venv, so that both start alike.
Outputs go to a temporary folder removed after each run; differing exit statuses are shown beside
the command (a build may have changed them on purpose).
"""
import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time

COMMANDS = {
    "validate": ["validate", "{input}", "--summary", "-"],
    "validate-o": ["validate", "{input}", "-o", "{out}/out.pgn"],
    "to-fen": ["to-fen", "{input}", "-o", "{out}/out.fen"],
    "export": ["export", "{input}", "--parquet", "{out}/ds"],
    "validate-jobs2": ["validate", "{input}", "--summary", "-", "--jobs", "2"],
    "export-jobs2": ["export", "{input}", "--parquet", "{out}/ds", "--jobs", "2"],
}


def run_once(cmd, args, input_path):
    """(cpu seconds, wall seconds, peak RSS MB, exit status) of one whole process."""
    out = tempfile.mkdtemp(prefix="ab-")
    try:
        argv = [cmd, *(a.format(input=input_path, out=out) for a in args)]
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        return usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status)
    finally:
        shutil.rmtree(out, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--a", required=True, help="the first build's pgntools command")
    ap.add_argument("--b", required=True, help="the second build's pgntools command")
    ap.add_argument("--input", required=True)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--commands", default="validate,validate-o,to-fen,export")
    args = ap.parse_args()
    names = args.commands.split(",")
    runs = {(n, b): [] for n in names for b in "ab"}
    for r in range(args.rounds):
        for n in names:
            for b, cmd in (("a", args.a), ("b", args.b)) if r % 2 == 0 else (("b", args.b), ("a", args.a)):
                runs[n, b].append(run_once(cmd, COMMANDS[n], args.input))
                cpu, wall, rss, code = runs[n, b][-1]
                print(f"  round {r + 1} {n:15} {b}: cpu {cpu:7.2f} s  wall {wall:7.2f} s  rss {rss:6.0f} MB  exit {code}",
                      flush=True)
    print(f"\n{os.path.basename(args.input)} ({os.path.getsize(args.input) / 1e9:.2f} GB), median of {args.rounds} rounds")
    print("| command | A cpu s | B cpu s | B/A cpu | A RSS MB | B RSS MB |")
    print("|---|---:|---:|---:|---:|---:|")
    for n in names:
        a, b = runs[n, "a"], runs[n, "b"]
        codes = "" if {x[3] for x in a} == {x[3] for x in b} else f" (exit {a[0][3]} vs {b[0][3]})"
        ca, cb = statistics.median(x[0] for x in a), statistics.median(x[0] for x in b)
        print(f"| {n}{codes} | {ca:.2f} | {cb:.2f} | {cb / ca:.3f} | {max(x[2] for x in a):.0f} | {max(x[2] for x in b):.0f} |")


if __name__ == "__main__":
    main()
