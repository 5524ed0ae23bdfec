"""Validate's replay of each Lichess variant against standard chess, in plies per CPU second
(issue 38: a variant's plies/s should be at least half of standard's).

Inputs: random legal games of each variant made with python-chess (seeded; the same number of
games a variant, standard chess made the same way as the reference), made once and kept in
benchmarks/out/variant_games/; and the real Lichess file (its standard games, and its Atomic
games alone). Each input is held in memory, repeated until it has about --plies plies, and read
by the reader validate uses (`_core.BatchReader` with its defaults: scan and replay); the CPU
time of the process (time.process_time, best of --rounds) is what counts, not wall time (the
machine is shared).

    python benchmarks/variant_speed.py [--games 1000] [--plies 2000000] [--rounds 3]
"""
import argparse
import io
import random
import re
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "out" / "variant_games"
LICHESS = HERE.parent.parent / "shared" / "corpora" / "lichess" / "lichess-magnus-carlsen.pgn"

# name: (python-chess board class name, the Variant tag Lichess writes)
VARIANTS = {
    "standard": ("Board", None),
    "king_of_the_hill": ("KingOfTheHillBoard", "King of the Hill"),
    "three_check": ("ThreeCheckBoard", "Three-check"),
    "racing_kings": ("RacingKingsBoard", "Racing Kings"),
    "horde": ("HordeBoard", "Horde"),
    "antichess": ("AntichessBoard", "Antichess"),
    "atomic": ("AtomicBoard", "Atomic"),
    "crazyhouse": ("CrazyhouseBoard", "Crazyhouse"),
}
MAX_PLIES = 300  # a random game's longest (random play rarely ends a game of chess sooner)


def board_class(name: str):
    import chess
    import chess.variant

    return getattr(chess, name, None) or getattr(chess.variant, name)


def random_games(variant: str, games: int, seed: int) -> Path:
    """The file of `games` random legal games of the variant (made once, then reused)."""
    path = OUT / f"{variant}-{games}-{seed}.pgn"
    if path.exists():
        return path
    cls_name, tag = VARIANTS[variant]
    cls = board_class(cls_name)
    rng = random.Random(f"{seed}:{variant}")
    texts = []
    for i in range(games):
        board = cls()
        sans = []
        while len(sans) < MAX_PLIES and not board.is_game_over():
            move = rng.choice(list(board.legal_moves))
            sans.append(board.san_and_push(move))
        tags = [f'[Event "random {variant} {i + 1}"]']
        if tag:
            tags.append(f'[Variant "{tag}"]')
        tags.append(f'[Result "{board.result()}"]')
        moves = " ".join(f"{n // 2 + 1}. {san}" if n % 2 == 0 else san for n, san in enumerate(sans))
        texts.append("\n".join(tags) + "\n\n" + moves + " " + board.result() + "\n")
    OUT.mkdir(parents=True, exist_ok=True)
    part = path.with_suffix(".part")
    part.write_text("\n".join(texts))
    part.rename(path)
    return path


def lichess_games(variant_tag):
    """The shared Lichess file's games of one Variant tag (None: the standard ones), as bytes."""
    text = LICHESS.read_text(encoding="utf-8")
    games = re.split(r"\n(?=\[Event )", text)
    if variant_tag is None:
        keep = [g for g in games if "[Variant " not in g or '[Variant "Standard"]' in g]
    else:
        keep = [g for g in games if f'[Variant "{variant_tag}"]' in g]
    return "\n".join(g.rstrip("\n") + "\n" for g in keep).encode()


def measure(data: bytes, plies_wanted: int, rounds: int):
    """(games, plies, best CPU seconds) of the reader over `data` repeated to about plies_wanted
    plies; every game must replay without an error."""
    from pgntools._core import BatchReader
    from pgntools.reader import STATUS_INVALID, GameBatch

    once_games = once_plies = invalid = 0
    for raw in BatchReader(io.BytesIO(data)):
        batch = GameBatch(raw, "bench", 0)
        once_games += batch.n_games
        once_plies += sum(batch.column("ply_count"))
        invalid += sum(1 for s in batch.column("status") if s == STATUS_INVALID)
    if invalid:
        raise SystemExit(f"{invalid} of {once_games} games were invalid: not a fair measurement")
    repeat = max(1, plies_wanted // max(once_plies, 1))
    big = (data.rstrip(b"\n") + b"\n\n") * repeat
    best = None
    for _ in range(rounds):
        start = time.process_time()
        for raw in BatchReader(io.BytesIO(big)):
            pass
        secs = time.process_time() - start
        best = secs if best is None else min(best, secs)
    return once_games * repeat, once_plies * repeat, best


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000, help="random games a variant")
    parser.add_argument("--seed", type=int, default=38)
    parser.add_argument("--plies", type=int, default=2_000_000, help="plies read a round (the input repeated)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", nargs="*", help="these variants only (standard is always measured)")
    args = parser.parse_args(argv)

    rows = []
    names = [v for v in VARIANTS if v == "standard" or not args.only or v in args.only]
    for variant in names:
        print(f"{variant}: random games...", file=sys.stderr)
        data = random_games(variant, args.games, args.seed).read_bytes()
        rows.append((f"{variant} (random)", *measure(data, args.plies, args.rounds)))
    if LICHESS.exists():
        rows.append(("standard (Lichess file)", *measure(lichess_games(None), args.plies, args.rounds)))
        if not args.only or "atomic" in args.only:
            rows.append(("atomic (Lichess file's)", *measure(lichess_games("Atomic"), args.plies, args.rounds)))
    reference = rows[0][2] / rows[0][3]
    print("| input | games | plies | CPU s | plies/s | of standard (random) |")
    print("|---|---:|---:|---:|---:|---:|")
    for label, games, plies, secs in rows:
        rate = plies / secs
        print(f"| {label} | {games:,} | {plies:,} | {secs:.3f} | {rate / 1e6:.2f} M | {rate / reference:.0%} |")


if __name__ == "__main__":
    main()
