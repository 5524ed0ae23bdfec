"""The positions dataset's speed (issue 19): `pgntools export --positions` on one core, as a whole
process, against a python-chess loop that makes the same rows and writes them to Parquet with
pyarrow, on a slice of the same file (python-chess takes minutes on the whole of it). Prints a
Markdown section for benchmarks/RESULTS.md (``--out FILE`` appends it there).

    python benchmarks/positions_bench.py                     # the master file, 3 rounds, a 400-game slice
    python benchmarks/positions_bench.py --rounds 1 --slice 200 --input FILE

positions/s = rows written / wall time (median of the rounds); CPU s is user + system of the
child. The python-chess loop's rows are checked against pgntools' rows of the same games (fen,
key, uci, san, result, ratings, clock, eval, opening, planes): the figures compare the same work.
The goal: >= 1 M positions/s and >= 100x the python-chess loop.
"""
from __future__ import annotations

import argparse
import datetime
import io
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MASTER = REPO.parent / "shared" / "corpora" / "bench" / "master-games-30k.pgn"
OUT = REPO / "benchmarks" / "out" / "positions"
PIECES = ("pawns", "knights", "bishops", "rooks", "queens", "kings")
COMPARED = ("game_id", "ply", "fen", "key", "uci", "san", "result", "white_elo", "black_elo", "speed", "clock",
            "eval_cp", "eval_mate", "opening_eco")


def run_pgntools(path: Path, planes: bool, rounds: int):
    """(median wall s, median CPU s, rows) of `export --jobs 1 --positions` as a child process."""
    walls, cpus, rows = [], [], None
    import pyarrow.dataset as ds

    for _ in range(rounds):
        out = OUT / ("planes" if planes else "rows")
        shutil.rmtree(out, ignore_errors=True)
        argv = [sys.executable, "-m", "pgntools", "export", "--jobs", "1", "--no-progress", "--positions", str(out),
                *(["--planes"] if planes else []), str(path)]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(argv, cwd=REPO, capture_output=True, text=True)
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        if done.returncode not in (0, 1):
            raise SystemExit(f"pgntools failed: {done.stderr.strip()}")
        rows = ds.dataset(str(out), format="parquet").count_rows()
    return statistics.median(walls), statistics.median(cpus), rows


def slice_of(path: Path, games: int) -> bytes:
    """The first `games` games of the file (cut where the next one's tags begin)."""
    import re

    data = path.read_bytes()
    starts = [m.start() for m in re.finditer(rb"(?:\A|\n[ \t]*\r?\n)(?=\[Event )", data)]
    return data[:starts[games]] if len(starts) > games else data


def eco_table():
    """{EPD: ECO} of the Lichess opening table (pgntools' package data), replayed by python-chess."""
    import chess
    import chess.pgn

    table = {}
    for tsv in sorted((REPO / "pgntools" / "data" / "openings").glob("*.tsv")):
        for line in tsv.read_text(encoding="utf-8").splitlines()[1:]:
            eco, _, pgn = line.split("\t")
            game = chess.pgn.read_game(io.StringIO(pgn))
            table[game.end().board().epd()] = eco
    return table


def speed_of(time_control: str):
    """Lichess's rule (as the games table's speed): base + 40 x increment."""
    if time_control == "-":
        return "correspondence"
    try:
        base, _, inc = time_control.split(":")[0].split("/")[-1].partition("+")
        total = float(base) + 40 * float(inc or 0)
    except ValueError:
        return None
    for limit, name in ((30, "ultrabullet"), (180, "bullet"), (480, "blitz"), (1500, "rapid")):
        if total < limit:
            return name
    return "classical"


def python_chess_rows(data: bytes, planes: bool, ecos: dict, out_path: Path):
    """The python-chess loop: read, replay, one row a position with a move, written to Parquet.
    Returns (wall seconds, CPU seconds, rows, the rows as a table)."""
    import chess
    import chess.pgn
    import chess.polyglot
    import pyarrow as pa
    import pyarrow.parquet as pq

    start, wall_start = time.process_time(), time.perf_counter()
    handle = io.StringIO(data.decode("utf-8", "replace"))
    columns = {name: [] for name in COMPARED}
    if planes:
        for color in ("white", "black"):
            for piece in PIECES:
                columns[f"{color}_{piece}"] = []
        columns.update(white_to_move=[], castling=[], ep_file=[])
    scores = {"1-0": (1.0, 0.0), "0-1": (0.0, 1.0), "1/2-1/2": (0.5, 0.5)}
    game_id = -1
    while True:
        game = chess.pgn.read_game(handle)
        if game is None:
            break
        game_id += 1
        if game.errors:
            continue
        headers = game.headers
        score = scores.get(headers.get("Result", "*"))
        elos = [int(v) if v.isdigit() and len(v) <= 9 else None
                for v in (headers.get("WhiteElo", ""), headers.get("BlackElo", ""))]
        speed = speed_of(headers["TimeControl"]) if "TimeControl" in headers else None
        board = game.board()
        eco, nodes = None, list(game.mainline())
        for ply, node in enumerate(nodes[:40], 1):  # the opening: the deepest named position in 40 plies
            board.push(node.move)
            eco = ecos.get(board.epd(), eco)
        board = game.board()
        previous = [None, None]  # the node of each side's last move
        for ply, node in enumerate(nodes):
            move, mover = node.move, board.turn
            before = node.parent if ply else None
            ev = before.eval() if before is not None else None
            clock_node = previous[0 if mover == chess.WHITE else 1]
            row = {"game_id": game_id, "ply": ply, "fen": board.fen(), "key": chess.polyglot.zobrist_hash(board),
                   "uci": board.uci(move), "san": board.san(move),
                   "result": score[mover == chess.BLACK] if score else None, "white_elo": elos[0],
                   "black_elo": elos[1], "speed": speed,
                   "clock": clock_node.clock() if clock_node is not None else None,
                   "eval_cp": ev.white().score() if ev is not None and not ev.is_mate() else None,
                   "eval_mate": ev.white().mate() if ev is not None and ev.is_mate() else None, "opening_eco": eco}
            if planes:
                for color, color_name in ((chess.WHITE, "white"), (chess.BLACK, "black")):
                    for piece, name in zip(chess.PIECE_TYPES, PIECES):
                        row[f"{color_name}_{name}"] = int(board.pieces_mask(piece, color))
                row["white_to_move"] = board.turn == chess.WHITE
                row["castling"] = (board.has_kingside_castling_rights(chess.WHITE) | 2 *
                                   board.has_queenside_castling_rights(chess.WHITE) | 4 *
                                   board.has_kingside_castling_rights(chess.BLACK) | 8 *
                                   board.has_queenside_castling_rights(chess.BLACK))
                row["ep_file"] = chess.square_file(board.ep_square) if board.has_legal_en_passant() else None
            for name, value in row.items():
                columns[name].append(value)
            previous[0 if mover == chess.WHITE else 1] = node
            board.push(move)
    from pgntools.tables import schema  # the dataset's types (uint64 keys and planes)

    types = schema.position_rows_schema(planes)
    table = pa.table({name: pa.array(values, types.field(name).type) for name, values in columns.items()})
    pq.write_table(table, out_path, compression="zstd")
    return time.perf_counter() - wall_start, time.process_time() - start, table.num_rows, table


def check_same_rows(reference, ours_dir: Path, planes: bool) -> str:
    """pgntools' rows of the slice's games against the python-chess loop's."""
    import pyarrow.dataset as ds

    games = max(reference.column("game_id").to_pylist()) + 1
    ours = ds.dataset(str(ours_dir), format="parquet").to_table(filter=ds.field("game_id") < games)
    names = reference.column_names
    mine = ours.select(names).to_pylist()
    theirs = reference.to_pylist()
    mine_by = {(r["game_id"], r["ply"]): r for r in mine}
    bad = 0
    for row in theirs:
        got = mine_by.get((row["game_id"], row["ply"]))
        if got is None or any(got[k] != row[k] for k in names):
            bad += 1
    extra = len(mine) - len(theirs)
    return (f"{len(theirs):,} rows compared, all equal" if not bad and not extra else
            f"WRONG: {bad:,} of {len(theirs):,} rows differ, {extra:+,} rows") + (" (planes too)" if planes else "")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--input", type=Path, default=MASTER)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--slice", type=int, default=400, help="games of the python-chess loop (default 400)")
    parser.add_argument("--out", type=Path, help="append the section to this file (e.g. benchmarks/RESULTS.md)")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(REPO))
    OUT.mkdir(parents=True, exist_ok=True)
    ecos = eco_table()
    data = slice_of(args.input, args.slice)
    lines = [f"## Positions dataset, {datetime.date.today()} ({platform.machine()}, {os.cpu_count()} CPUs)", "",
             f"Input: `{args.input.name}`; python-chess on its first {args.slice} games "
             f"({len(data) / 1e6:.1f} MB); {args.rounds} round(s), medians.", "",
             "positions/s: rows / wall s, and rows / CPU s (on a shared machine the CPU figure is the steadier).",
             "", "| what | rows | wall s | CPU s | positions/s (wall; CPU) | vs python-chess (wall; CPU) | check |",
             "|---|---:|---:|---:|---:|---:|---|"]
    for planes in (False, True):
        wall, cpu, rows = run_pgntools(args.input, planes, args.rounds)
        pc_wall, pc_cpu, pc_rows, reference = python_chess_rows(data, planes, ecos, OUT / "python-chess.parquet")
        check = check_same_rows(reference, OUT / ("planes" if planes else "rows"), planes)
        flag = " --planes" if planes else ""
        lines.append(f"| pgntools export --jobs 1 --positions{flag} | {rows:,} | {wall:.2f} | {cpu:.2f} | "
                     f"{rows / wall:,.0f}; {rows / cpu:,.0f} | {(rows / wall) / (pc_rows / pc_wall):,.0f}x; "
                     f"{(rows / cpu) / (pc_rows / pc_cpu):,.0f}x | {check} |")
        lines.append(f"| python-chess loop + pyarrow{flag} (slice) | {pc_rows:,} | {pc_wall:.2f} | {pc_cpu:.2f} | "
                     f"{pc_rows / pc_wall:,.0f}; {pc_rows / pc_cpu:,.0f} | 1x | the reference |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        with open(args.out, "a", encoding="utf-8") as f:
            f.write("\n" + text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
