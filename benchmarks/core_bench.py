#!/usr/bin/env python3
"""Rules-core speed of pgntools next to python-chess, in one process and one run.

    python benchmarks/core_bench.py [--games 2000] [--rounds 3] [--out benchmarks/RESULTS.md] [--quick]

1. perft (leaf nodes/s, both bulk-counting the last ply): pgntools.Board().perft(5) and Kiwipete
   perft(4), against a perft written here on python-chess's board.legal_moves at depth 4 (3 with
   --quick; python-chess is slow). Node counts are checked against the published values.
2. SAN replay (plies/s): the first N games of the master file, their mainline SAN lists taken with
   python-chess beforehand (untimed); then (a) python-chess board.push_san over all of them and
   (b) pgntools._core.replay_movetext(data), data being one game per line of space-separated SAN,
   which returns the number of plies replayed (checked against the SAN lists).

3. Reader throughput (MB/s on one core, issue 3): pgntools._core.BatchReader over the whole
   master file held in memory (no disk, no interpreter start-up): scan only (tokens and game
   boundaries, no replay), scan + replay (validate's work), and replay with the move table
   (export's reading). Game counts are checked against the reference.

Medians of --rounds; a pgntools part that does not exist yet is skipped with a note.
"""
import argparse
import datetime
import io
import statistics
import sys
import time
from pathlib import Path

import chess
import chess.pgn

import reference
from run import append_results, machine_lines

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
PERFT_NODES = {
    "start": {1: 20, 2: 400, 3: 8902, 4: 197281, 5: 4865609},
    "kiwipete": {1: 48, 2: 2039, 3: 97862, 4: 4085603},
}


def timed(fn, rounds, min_seconds=0.3):
    """(median seconds per call, last result) over rounds; each round repeats fn() until it has
    run for min_seconds, so that millisecond-long calls are not timed once."""
    per_call, result = [], None
    for _ in range(rounds):
        calls, start = 0, time.perf_counter()
        while True:
            result = fn()
            calls += 1
            elapsed = time.perf_counter() - start
            if elapsed >= min_seconds:
                break
        per_call.append(elapsed / calls)
    return statistics.median(per_call), result


# ---- perft ----

def chess_perft(board, depth):
    if depth == 1:
        return board.legal_moves.count()
    nodes = 0
    for move in board.legal_moves:
        board.push(move)
        nodes += chess_perft(board, depth - 1)
        board.pop()
    return nodes


def check_nodes(position, depth, nodes):
    expected = PERFT_NODES[position][depth]
    return "ok" if nodes == expected else f"WRONG: {nodes:,} nodes, expected {expected:,}"


def perft_rows(rounds, quick):
    """Table rows: position, tool, depth, nodes, seconds, Mnodes/s, check; plus ratio lines."""
    py_depth = 3 if quick else 4
    cases = [("start", chess.STARTING_FEN, 5, py_depth), ("kiwipete", KIWIPETE, 4, py_depth)]
    rows, ratios = [], []
    try:
        import pgntools
    except ImportError as e:
        pgntools, why = None, f"pgntools not importable: {e}"
    for name, fen, our_depth, py_depth in cases:
        print(f"  perft {name} ...", file=sys.stderr)
        board = chess.Board(fen)
        secs, nodes = timed(lambda: chess_perft(board, py_depth), rounds)
        rows.append((name, "python-chess", py_depth, nodes, secs, check_nodes(name, py_depth, nodes)))
        py_rate = nodes / secs
        if pgntools is None:
            rows.append((name, "pgntools", our_depth, None, None, why))
            continue
        ours = pgntools.Board() if name == "start" else pgntools.Board.from_fen(fen)
        secs, nodes = timed(lambda: ours.perft(our_depth), rounds)
        rows.append((name, "pgntools", our_depth, nodes, secs, check_nodes(name, our_depth, nodes)))
        ratios.append(f"{name}: pgntools {nodes / secs / py_rate:,.0f}× python-chess's nodes/s")
    return rows, ratios


def perft_table(rows):
    lines = ["| position | tool | depth | nodes | median s | Mnodes/s | check |", "|---|---|---:|---:|---:|---:|---|"]
    for name, tool, depth, nodes, secs, check in rows:
        if nodes is None:
            lines.append(f"| {name} | {tool} | {depth} | – | – | – | skipped: {check} |")
        else:
            lines.append(f"| {name} | {tool} | {depth} | {nodes:,} | {secs:.3f} | {nodes / secs / 1e6:.3f} | {check} |")
    return lines


# ---- SAN replay ----

def load_san_lists(path, n_games):
    """Mainline SAN lists of the first n_games standard-start, error-free games (untimed)."""
    games = []
    for text in reference.split_games(reference.read_text(path)):
        if len(games) == n_games:
            break
        game = chess.pgn.read_game(io.StringIO(reference.BLANK_RUN.sub("\n\n", text)))
        if game is None or game.errors or "FEN" in game.headers:
            continue
        games.append([node.san() for node in game.mainline()])
    return games


def chess_replay(san_lists):
    plies = 0
    for sans in san_lists:
        board = chess.Board()
        for san in sans:
            board.push_san(san)
        plies += len(sans)
    return plies


def replay_rows(san_lists, rounds):
    """(table lines, ratio line or note)."""
    total = sum(len(s) for s in san_lists)
    secs, plies = timed(lambda: chess_replay(san_lists), rounds)
    py_rate = plies / secs
    lines = ["| tool | games | plies | median s | plies/s | check |", "|---|---:|---:|---:|---:|---|",
             f"| python-chess `push_san` | {len(san_lists):,} | {plies:,} | {secs:.3f} | {py_rate:,.0f} | ok |"]
    try:
        from pgntools._core import replay_movetext
    except ImportError as e:
        return lines + [f"| pgntools `replay_movetext` | – | – | – | – | skipped: {e} |"], None
    data = "\n".join(" ".join(sans) for sans in san_lists).encode()
    secs, plies = timed(lambda: replay_movetext(data), rounds)
    check = "ok" if plies == total else f"WRONG: {plies:,} plies replayed, expected {total:,}"
    lines.append(f"| pgntools `replay_movetext` | {len(san_lists):,} | {plies:,} | {secs:.3f} | "
                 f"{plies / secs:,.0f} | {check} |")
    return lines, f"SAN replay: pgntools {plies / secs / py_rate:,.1f}× python-chess's plies/s"


# ---- reader throughput ----

READER_MODES = [("scan only (no replay)", dict(replay=False)),
                ("scan + replay", dict(replay=True, final_fen=True)),
                ("scan + replay + move table", dict(replay=True, moves=True, final_fen=True, tag_columns=True))]


def read_all(data: bytes, options: dict) -> int:
    from pgntools._core import BatchReader

    return sum(raw["n_games"] for raw in BatchReader(io.BytesIO(data), **options))


def reader_rows(path: str, rounds: int):
    data = Path(path).read_bytes()
    expected = reference.reference(path, log=lambda *a: print(*a, file=sys.stderr))["games"]
    lines = ["| mode | games | median s | MB/s | games/s | check |", "|---|---:|---:|---:|---:|---|"]
    for label, options in READER_MODES:
        secs, games = timed(lambda: read_all(data, options), rounds)
        check = "ok" if games == expected else f"WRONG: {games:,} games, expected {expected:,}"
        lines.append(f"| {label} | {games:,} | {secs:.3f} | {len(data) / secs / 1e6:,.0f} | {games / secs:,.0f} | {check} |")
    return lines


# ---- main ----

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, help="games for SAN replay (default 2000; 300 with --quick)")
    ap.add_argument("--rounds", type=int, help="timed repetitions, median reported (default 3; 1 with --quick)")
    ap.add_argument("--input", default=str(reference.MASTER), help="PGN file for SAN replay")
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent / "RESULTS.md"))
    ap.add_argument("--quick", action="store_true", help="lower python-chess perft depths, fewer games, 1 round")
    args = ap.parse_args(argv)
    rounds = args.rounds or (1 if args.quick else 3)
    n_games = args.games or (300 if args.quick else 2000)

    print("perft ...", file=sys.stderr)
    rows, ratios = perft_rows(rounds, args.quick)
    print("SAN replay ...", file=sys.stderr)
    san_lists = load_san_lists(args.input, n_games)
    replay_lines, replay_ratio = replay_rows(san_lists, rounds)
    print("reader throughput ...", file=sys.stderr)
    reader_lines = reader_rows(args.input, rounds)

    stamp = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    lines = [f"## {stamp}: rules core (core_bench.py)", ""] + machine_lines()
    lines[-1:-1] = [f"Times are medians of {rounds} round(s); calls shorter than 0.3 s are repeated within a round."]
    lines += ["### perft", ""] + perft_table(rows) + [""]
    lines += ["### SAN replay: first games of " + Path(args.input).name, ""] + replay_lines + [""]
    lines += [f"### Reader throughput: all of {Path(args.input).name} ({Path(args.input).stat().st_size / 1e6:.1f} MB) "
              "in memory, one core", ""] + reader_lines + [""]
    ratios += [replay_ratio] if replay_ratio else []
    lines += ["Ratios: " + ("; ".join(ratios) if ratios else "none (pgntools parts skipped)") + ".", ""]
    text = "\n".join(lines)
    print(text)
    append_results(args.out, text)
    print(f"appended to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
