#!/usr/bin/env python3
"""pgntools.to_arrow's cost (issue 35: speed and memory), ratios from one run:

    python benchmarks/arrow_bench.py [--input FILE] [--rounds 3] [--chess-games 1000]

  to_arrow    CPU of pgntools.to_arrow(FILE, "games").read_all(), in a child process (whole process)
  export      CPU of `pgntools export --parquet OUT FILE --jobs 1` (whole process)
  chess       python-chess reading --chess-games games into rows (the games table's tags, result,
              ply count and final FEN) and pyarrow.Table.from_pylist of them, per game, scaled
              to the file's games (python-chess is test-only: a measure, not a dependency)
  RSS         peak RSS of to_arrow over the file once and five times (a list of five sources):
              flat in the input size when the two are close

CPU is user + system of the child (resource.getrusage), median of --rounds, the rounds
interleaved. Run from the repository root; prints the table, writes nothing but a temporary
directory.
"""
import argparse
import io
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_INPUT = ROOT.parent / "shared" / "corpora" / "bench" / "master-games-30k.pgn"

TO_ARROW = """
import resource, sys, pgntools
rows = 0
for batch in pgntools.to_arrow(sys.argv[2:] if len(sys.argv) > 2 else sys.argv[1], "games"):
    rows += batch.num_rows
print(rows, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def child_cpu(args) -> tuple:
    """(CPU seconds, stdout) of a child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(args, cwd=ROOT, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{args}: exit {done.returncode}: {done.stderr}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), done.stdout


def chess_rows_per_game(path: Path, n: int) -> float:
    """CPU seconds per game of a python-chess loop making the games rows, then from_pylist."""
    import chess.pgn
    import pyarrow as pa

    text = path.read_text(encoding="utf-8", errors="replace")
    start = time.process_time()
    handle, rows = io.StringIO(text), []
    while len(rows) < n and (game := chess.pgn.read_game(handle)) is not None:
        board, plies = game.board(), 0
        for move in game.mainline_moves():
            board.push(move)
            plies += 1
        h = game.headers
        rows.append({"event": h.get("Event"), "site": h.get("Site"), "date": h.get("Date"), "white": h.get("White"),
                     "black": h.get("Black"), "result": h.get("Result"), "white_elo": _int(h.get("WhiteElo")),
                     "black_elo": _int(h.get("BlackElo")), "eco": h.get("ECO"), "ply_count": plies,
                     "final_fen": board.fen()})
    pa.Table.from_pylist(rows)
    return (time.process_time() - start) / len(rows)


def _int(text):
    return int(text) if text and text.isdigit() else None


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--input", type=Path, default=DEFAULT_INPUT)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--chess-games", type=int, default=1000)
    args = parser.parse_args()
    path = str(args.input)
    times = {"to_arrow": [], "export": []}
    games = None
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            cpu, out = child_cpu([sys.executable, "-c", TO_ARROW, path])
            times["to_arrow"].append(cpu)
            games = int(out.split()[0])
            cpu, _ = child_cpu([sys.executable, "-m", "pgntools", "export", "--parquet", f"{tmp}/out{r}", "--jobs", "1",
                                path])
            times["export"].append(cpu)
    rss_once = int(child_cpu([sys.executable, "-c", TO_ARROW, path])[1].split()[1]) / 1024
    rss_five = int(child_cpu([sys.executable, "-c", TO_ARROW, *[path] * 5])[1].split()[1]) / 1024
    chess = chess_rows_per_game(args.input, args.chess_games) * games
    to_arrow, export = (statistics.median(times[k]) for k in ("to_arrow", "export"))
    print(f"input: {args.input.name}, {games:,} games; CPU seconds, median of {args.rounds} (whole processes)")
    print(f"| task | CPU s | ratio |\n|---|---:|---:|")
    print(f"| to_arrow(table='games') | {to_arrow:.2f} | 1 |")
    print(f"| export --parquet --jobs 1 | {export:.2f} | to_arrow / export = {to_arrow / export:.2f} |")
    print(f"| python-chess rows + from_pylist (from {args.chess_games:,} games, scaled) | {chess:.1f} | "
          f"{chess / to_arrow:.0f}x to_arrow |")
    print(f"peak RSS of to_arrow: {rss_once:.0f} MB over the file, {rss_five:.0f} MB over it five times")


if __name__ == "__main__":
    main()
