"""Issue 37's speed target for the PGN output options: each shaping option's CPU against plain
`validate -o` on the master file (the target: within 10 %), and to-fen's forms (final FENs,
--ply N, --every-ply) with their peak RSS. Interleaved rounds: every command once a round.

    python benchmarks/shaping_cost.py [FILE] [--rounds 3] [--only validate|to-fen|export] [--jobs 1]

FILE defaults to the shared master file (../shared/corpora/bench/master-games-30k.pgn). Each run
is one process of the CLI from this working tree: its CPU (user+sys, from wait4), peak RSS and
the bytes it wrote. Prints a Markdown table for benchmarks/RESULTS.md: best and median CPU, the
ratio of the best to the plain command's best, RSS and output size. CPU, not wall time: the
machine is shared.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MASTER = REPO.parent / "shared" / "corpora" / "bench" / "master-games-30k.pgn"
TARGET = 1.10  # each shaping option within 10 % of plain validate -o

# (label, argv after the input file); the first of each group is the group's baseline
GROUPS = {
    "validate": [
        ("validate -o (plain)", ["validate", "-o", "{out}/x.pgn"]),
        ("--strip-comments", ["validate", "-o", "{out}/x.pgn", "--strip-comments"]),
        ("--strip-nags", ["validate", "-o", "{out}/x.pgn", "--strip-nags"]),
        ("--strip-variations", ["validate", "-o", "{out}/x.pgn", "--strip-variations"]),
        ("--reduced", ["validate", "-o", "{out}/x.pgn", "--reduced"]),
        ("--no-check-marks", ["validate", "-o", "{out}/x.pgn", "--no-check-marks"]),
        ("--no-move-numbers", ["validate", "-o", "{out}/x.pgn", "--no-move-numbers"]),
        ("--no-results", ["validate", "-o", "{out}/x.pgn", "--no-results"]),
        ("--no-tags", ["validate", "-o", "{out}/x.pgn", "--no-tags"]),
        ("--line-length 0", ["validate", "-o", "{out}/x.pgn", "--line-length", "0"]),
        ("--line-length 40", ["validate", "-o", "{out}/x.pgn", "--line-length", "40"]),
        ("--notation uci", ["validate", "-o", "{out}/x.pgn", "--notation", "uci"]),
        ("--notation lan", ["validate", "-o", "{out}/x.pgn", "--notation", "lan"]),
        ("--max-plies 20", ["validate", "-o", "{out}/x.pgn", "--max-plies", "20"]),
        ("--drop-plies 20", ["validate", "-o", "{out}/x.pgn", "--drop-plies", "20"]),
        ("--start-ply 21", ["validate", "-o", "{out}/x.pgn", "--start-ply", "21"]),
        ("--add-tags plycount,hashcode", ["validate", "-o", "{out}/x.pgn", "--add-tags", "plycount,hashcode"]),
        ("--key-comments", ["validate", "-o", "{out}/x.pgn", "--key-comments"]),
        ("--fen-comments", ["validate", "-o", "{out}/x.pgn", "--fen-comments"]),
        ("--split-variations", ["validate", "-o", "{out}/x.pgn", "--split-variations"]),
        ("--format json", ["validate", "-o", "{out}/x.jsonl", "--format", "json"]),
    ],
    "to-fen": [
        ("to-fen (final FENs)", ["to-fen", "-o", "{out}/x.fen"]),
        ("to-fen --ply 20", ["to-fen", "-o", "{out}/x.fen", "--ply", "20"]),
        ("to-fen --ply 20 --ply 40", ["to-fen", "-o", "{out}/x.fen", "--ply", "20", "--ply", "40"]),
        ("to-fen --every-ply", ["to-fen", "-o", "{out}/x.fen", "--every-ply"]),
        ("to-fen --every-ply --max-plies 20", ["to-fen", "-o", "{out}/x.fen", "--every-ply", "--max-plies", "20"]),
    ],
}


def run(argv: list, out: Path, jobs: int) -> dict:
    """One process: CPU s (it and its waited-for children), peak RSS MB, output MB."""
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir()
    argv = [a.format(out=out) for a in argv]
    child = subprocess.Popen([sys.executable, "-m", "pgntools", *argv, "-q", "--jobs", str(jobs)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=REPO)
    _, status, usage = os.wait4(child.pid, 0)
    err = child.stderr.read().decode(errors="replace")
    child.stderr.close()
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        raise SystemExit(f"{' '.join(argv)}: exit {code}\n{err}")
    written = sum(p.stat().st_size for p in out.iterdir())
    return {"cpu": usage.ru_utime + usage.ru_stime, "rss": usage.ru_maxrss / 1024, "mb": written / 1e6}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file", nargs="?", default=str(MASTER))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", choices=sorted(GROUPS), action="append")
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    groups = {name: rows for name, rows in GROUPS.items() if not args.only or name in args.only}
    runs = {label: [] for rows in groups.values() for label, _ in rows}
    with tempfile.TemporaryDirectory(prefix="shaping_cost.") as tmp:
        for _ in range(args.rounds):  # interleaved: each command once a round
            for rows in groups.values():
                for label, argv in rows:
                    runs[label].append(run([argv[0], args.file, *argv[1:]], Path(tmp) / "out", args.jobs))
    print(f"Input {args.file}; {args.rounds} interleaved rounds; --jobs {args.jobs}; load "
          f"{os.getloadavg()[0]:.1f} at the end")
    for rows in groups.values():
        base = min(r["cpu"] for r in runs[rows[0][0]])
        print("\n| command | CPU s best | CPU s median | × baseline | RSS MB | output MB |\n|---|---|---|---|---|---|")
        for label, _ in rows:
            cpu = [r["cpu"] for r in runs[label]]
            ratio = min(cpu) / base
            flag = " **over**" if rows is groups.get("validate") and ratio > TARGET else ""
            print(f"| {label} | {min(cpu):.2f} | {statistics.median(cpu):.2f} | {ratio:.2f}{flag} | "
                  f"{max(r['rss'] for r in runs[label]):.0f} | {runs[label][-1]['mb']:.1f} |")


if __name__ == "__main__":
    main()
