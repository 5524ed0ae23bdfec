"""Writes the seed corpora of the fuzz harnesses into fuzz/seeds/<harness>/ (not committed).

Seeds come from the repository: the games of fixtures/*.pgn, and the PGN texts, FENs and move
texts written as string literals in tests/*.py. ``--extra FILE.pgn`` adds the first games of
other PGN files, or of every PGN file under a folder (e.g. the shared corpora), for longer
local runs.

    python3 fuzz/make_seeds.py [--extra FILE.pgn|FOLDER ...] [--extra-games N]
"""
from __future__ import annotations

import argparse
import ast
import hashlib
import re
import shutil
from pathlib import Path

FUZZ = Path(__file__).resolve().parent
REPO = FUZZ.parent

FEN_RE = re.compile(r"^\s*[pnbrqkPNBRQK1-8]{1,8}(/[pnbrqkPNBRQK1-8]{1,8}){7}\s+[wb]\b.*$")
# A move text as the tests write them: SAN, LAN, UCI, castling, null moves, drops, suffixes.
MOVE_RE = re.compile(r"^[KQRBNPa-h1-8xX:=+#!?@O0Z\-e.p]{2,12}$")
# Games in a file: a split before each tag line that follows a blank line.
GAME_SPLIT = re.compile(rb"(?:\r?\n){2,}(?=\[)")


def test_literals() -> list[str]:
    """Every string constant in the tests (f-strings contribute their constant parts)."""
    out = []
    for path in sorted((REPO / "tests").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                out.append(node.value)
    return out


def games_of(data: bytes, limit: int | None = None) -> list[bytes]:
    games = [g.strip() + b"\n" for g in GAME_SPLIT.split(data) if g.strip()]
    return games[:limit] if limit is not None else games


def movetext_of(game: bytes) -> bytes:
    return b"\n".join(line for line in game.splitlines() if not line.startswith(b"["))


def write_corpus(name: str, seeds: list[bytes], max_len: int) -> int:
    folder = FUZZ / "seeds" / name
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    kept = {s[:max_len] for s in seeds if s}
    for seed in kept:
        (folder / hashlib.sha1(seed).hexdigest()).write_bytes(seed)
    return len(kept)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--extra", action="append", default=[], type=Path, help="another PGN file, or a folder of them, to take games from")
    parser.add_argument("--extra-games", type=int, default=200, help="games taken from each --extra file")
    args = parser.parse_args()

    literals = test_literals()
    pgn_texts = [s.encode() for s in literals if "[" in s and '"' in s or re.search(r"\b1\.\s*[a-hNBRQKO]", s)]
    fens = sorted({s.strip() for s in literals if FEN_RE.match(s)})
    moves = sorted({s for s in literals if MOVE_RE.match(s)})

    games = []
    for path in sorted((REPO / "fixtures").glob("*.pgn")):
        data = path.read_bytes()
        games += [data] + games_of(data)
    for extra in args.extra:  # a file, or every .pgn under a folder
        for path in sorted(extra.rglob("*.pgn")) if extra.is_dir() else [extra]:
            games += games_of(path.read_bytes(), args.extra_games)

    fen_tags = [m.group(1).decode() for g in games for m in re.finditer(rb'\[FEN "([^"]*)"\]', g)]
    all_fens = sorted(set(fens) | set(fen_tags))
    move_line = " ".join(moves).encode()

    counts = {
        "tokenizer": write_corpus("tokenizer", games + pgn_texts, 4096),
        "game": write_corpus("game", games + pgn_texts, 8192),
        "fen": write_corpus("fen", [f.encode() for f in all_fens], 256),
        "san": write_corpus("san", [f.encode() + b"\n" + move_line for f in all_fens]
                            + [movetext_of(g) for g in games] + [m.encode() for m in moves], 1024),
    }
    print("seeds:", ", ".join(f"{name} {n}" for name, n in counts.items()))


if __name__ == "__main__":
    main()
