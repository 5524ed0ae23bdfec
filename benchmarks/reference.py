"""Inputs and the python-chess reference answers the harness checks every tool against.

The reference is python-chess run on one game at a time: the file is split into games at a
blank line followed by a tag line, and runs of blank lines inside a game are collapsed first,
so that python-chess does not split a game with two blank lines after its tags into two.
For each game it records the final position (first 4 FEN fields), the number of mainline plies
replayed, and whether python-chess met an illegal or unreadable move.

Answers are cached in benchmarks/out/ keyed by file name, size and mtime.
"""
import io
import json
import os
import re
from pathlib import Path

import chess.pgn

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
OUT = HERE / "out"
CORPORA = REPO.parent / "shared" / "corpora"
MASTER = CORPORA / "bench" / "master-games-30k.pgn"
LICHESS = CORPORA / "lichess" / "lichess-magnus-carlsen.pgn"
TCEC = CORPORA / "engine" / "tcec-sample.pgn"

GAME_SPLIT = re.compile(r"(?:\r?\n){2,}(?=\[)")
BLANK_RUN = re.compile(r"(?:[ \t]*\r?\n){3,}")
CACHE_VERSION = 2


def read_text(path):
    with open(path, encoding="utf-8", errors="replace", newline="") as f:
        return f.read()


def split_games(text):
    """One string per game: the split the rust binding driver uses too."""
    return [g for g in GAME_SPLIT.split(text.lstrip("\ufeff")) if g.strip()]


def fen4(fen):
    """The first 4 FEN fields in python-chess's conventions, so that equal positions compare equal:
    the en passant square only when an en passant capture is legal (pgn-extract writes it after
    every double pawn push), and Chess960 castling rights as X-FEN (KQkq where unambiguous, file
    letters otherwise) whichever of X-FEN or Shredder-FEN the tool wrote."""
    fields = fen.split()[:4]
    if len(fields) < 4:
        return " ".join(fields)
    odd_castling = fields[2].strip("KQkq-") != ""
    if fields[3] == "-" and not odd_castling:
        return " ".join(fields)
    try:
        board = chess.Board(" ".join(fields) + " 0 1", chess960=odd_castling)
    except ValueError:
        return " ".join(fields)
    return " ".join(board.fen().split()[:4])


class _FinalBoard(chess.pgn.BoardBuilder):
    """BoardBuilder that notes an illegal move instead of raising (python-chess then skips the
    rest of the mainline) and returns (final board, error seen)."""

    def begin_game(self):
        super().begin_game()
        self.error = False

    def handle_error(self, error):
        self.error = True

    def result(self):
        return self.board, self.error


def reference_game(game_text):
    """(fen4 or None, plies replayed, status): status "ok", "error" (an illegal or unreadable
    move), or "variant" (a game python-chess plays under other rules, e.g. Atomic: not compared)."""
    text = BLANK_RUN.sub("\n\n", game_text)
    try:
        found = chess.pgn.read_game(io.StringIO(text), Visitor=_FinalBoard)
    except Exception:  # python-chess fails on some odd input: count the game, no position
        return None, 0, "error"
    if found is None:
        return None, 0, "error"
    board, error = found
    status = "variant" if board.uci_variant != "chess" else "error" if error else "ok"
    return fen4(board.fen()), len(board.move_stack), status


def compute_reference(path):
    """{"games", "valid", "variants", "plies", "fens": [fen4 or None per game], "valid_flags": [...]}.

    valid_flags mark the games python-chess replayed without error under standard (or Chess960)
    rules: the only ones whose final positions are compared."""
    fens, statuses, plies = [], [], 0
    for game_text in split_games(read_text(path)):
        fen, n, status = reference_game(game_text)
        fens.append(fen)
        statuses.append(status)
        plies += n
    flags = [s == "ok" for s in statuses]
    return {"games": len(fens), "valid": sum(flags), "variants": statuses.count("variant"), "plies": plies,
            "fens": fens, "valid_flags": flags}


def _cache_path(path):
    st = os.stat(path)
    return OUT / f"ref-{Path(path).name}-{st.st_size}-{int(st.st_mtime)}-v{CACHE_VERSION}.json"


def reference(path, log=print):
    """The cached reference for a file, computing it (or composing it for a big file) if needed."""
    recipe = _recipe_path(path)
    if recipe.exists():
        return _compose_reference(json.loads(recipe.read_text()), log)
    cache = _cache_path(path)
    if cache.exists():
        return json.loads(cache.read_text())
    log(f"computing the python-chess reference for {path} (once; cached in {cache.name}) ...")
    ref = compute_reference(path)
    OUT.mkdir(exist_ok=True)
    cache.write_text(json.dumps(ref))
    return ref


# ---- inputs made by the harness ----

def _eol(text):
    return "\r\n" if "\r\n" in text[:10000] else "\n"


def make_head(path, n_games, dest):
    """Write the first n_games games of path to dest (for --quick); returns dest."""
    dest = Path(dest)
    if not dest.exists():
        OUT.mkdir(exist_ok=True)
        text = read_text(path)
        eol = _eol(text)
        games = split_games(text)[:n_games]
        dest.write_text((eol * 2).join(g.strip() for g in games) + eol * 2, encoding="utf-8", newline="")
    return dest


def _recipe_path(path):
    return Path(str(path) + ".recipe.json")


def make_big(dest, parts, target_bytes=1 << 30, log=print):
    """Repeat the parts (each normalised to end in one blank line) until dest reaches ~target_bytes.

    Its reference is composed from the parts' references, so nothing is replayed twice.
    """
    dest = Path(dest)
    recipe_path = _recipe_path(dest)
    if dest.exists() and recipe_path.exists():
        return dest
    OUT.mkdir(exist_ok=True)
    texts = [read_text(p) for p in parts]
    blobs = [(t.lstrip("\ufeff").rstrip() + _eol(t) * 2).encode("utf-8") for t in texts]
    per_round = sum(len(b) for b in blobs)
    repeats = max(1, round(target_bytes / per_round))
    log(f"writing {dest} ({repeats} x {per_round / 1e6:.1f} MB) ...")
    with open(dest, "wb") as f:
        for _ in range(repeats):
            for b in blobs:
                f.write(b)
    st = os.stat(dest)
    recipe = {"parts": [str(p) for p in parts], "repeats": repeats, "size": st.st_size}
    recipe_path.write_text(json.dumps(recipe))
    return dest


def _compose_reference(recipe, log):
    refs = [reference(p, log) for p in recipe["parts"]]
    k = recipe["repeats"]
    out = {"games": 0, "valid": 0, "variants": 0, "plies": 0, "fens": [], "valid_flags": []}
    for _ in range(k):
        for r in refs:
            out["fens"] += r["fens"]
            out["valid_flags"] += r["valid_flags"]
    for key in ("games", "valid", "variants", "plies"):
        out[key] = k * sum(r[key] for r in refs)
    return out
