"""Shared helpers for the rules-core tests.

The real-game corpora live outside the repository, in ``../shared/corpora`` (next to the
repo root). They are used only when present; tests that need them skip with a reason
otherwise. Nothing from them is copied into the project.
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterator, List, Optional, Tuple

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
from corpora_dir import CORPORA_DIR  # noqa: E402 ($PGNTOOLS_CORPORA, else ../shared/corpora)

START_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"

# Default (CI) sample of each corpus file: the first SAMPLE_HEAD games, plus every
# SAMPLE_STRIDE-th game after that. Deterministic, so a failure always reproduces.
SAMPLE_HEAD = 150
SAMPLE_STRIDE = 50

CHESS_REASON = "python-chess (pip install chess==1.11.2) is the test oracle and is not importable"


def corpus_pgn_files() -> List[Path]:
    """Every ``*.pgn`` file under the shared corpora, sorted; empty if the folder is absent."""
    if not CORPORA_DIR.is_dir():
        return []
    return sorted(p for p in CORPORA_DIR.rglob("*") if p.is_file() and p.suffix.lower() == ".pgn")


def corpus_id(path: Optional[Path]) -> str:
    if path is None:
        return "no-corpora"
    return path.relative_to(CORPORA_DIR).as_posix()


def in_sample(index: int, head: int = SAMPLE_HEAD, stride: int = SAMPLE_STRIDE) -> bool:
    """Whether the game at 0-based ``index`` of a file belongs to the default sample."""
    return index < head or index % stride == 0


def iter_games(path: Path, full: bool) -> Iterator[tuple]:
    """Yield ``(index, game)`` for the sampled games of one PGN file (every game if ``full``).

    Games outside the sample are skipped with ``chess.pgn.skip_game`` (no move parsing), so
    the default run stays fast even on the 30,000-game files.
    """
    chess_pgn = pytest.importorskip("chess.pgn", reason=CHESS_REASON)
    with open(path, encoding="utf-8-sig", errors="replace") as handle:
        index = 0
        while True:
            if full or in_sample(index):
                game = chess_pgn.read_game(handle)
                if game is None:
                    return
                yield index, game
            elif not chess_pgn.skip_game(handle):
                return
            index += 1


def require_corpora() -> None:
    if not CORPORA_DIR.is_dir():
        pytest.skip(f"shared corpora not found at {CORPORA_DIR} (they live beside the repo, not in it)")


@pytest.fixture(scope="session")
def chess_oracle():
    """python-chess, used only as an oracle inside tests."""
    return pytest.importorskip("chess", reason=CHESS_REASON)


# ---------------------------------------------------------------- python-chess reading with byte spans

class PgnLines:
    """A readline() source for python-chess that keeps the byte offset of every line."""

    def __init__(self, data: bytes):
        self.lines = data.splitlines(keepends=True)
        self.index = 0
        self.offset = 0

    def readline(self) -> str:
        if self.index >= len(self.lines):
            return ""
        raw = self.lines[self.index]
        self.index += 1
        self.offset += len(raw)
        return raw.decode("utf-8", "replace").rstrip("\r\n") + "\n"


def iter_chunks(path: Path, limit: Optional[int], size: int = 1000) -> Iterator[List[Tuple[object, bytes]]]:
    """The first ``limit`` games of a file (all if None) as python-chess reads them, each with its
    exact bytes, in chunks of ``size`` games (so a full-corpus run holds one chunk at a time)."""
    import chess.pgn

    data = path.read_bytes()
    reader = PgnLines(data)
    chunk: List[Tuple[object, bytes]] = []
    count = 0
    while limit is None or count < limit:
        start = reader.offset
        game = chess.pgn.read_game(reader)
        if game is None:
            break
        chunk.append((game, data[start:reader.offset]))
        count += 1
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def head_games(path: Path, limit: int) -> List[Tuple[object, bytes]]:
    return [item for chunk in iter_chunks(path, limit) for item in chunk]


def no_move_in(games) -> bool:
    """Whether python-chess read no move in any of a chunk's games: such a chunk (an HTML page of
    PGN, as an edge corpus holds) may be no PGN to pgntools either (exit 2, issue 37 A2), and has
    no move to compare."""
    return not any(game.variations for game, _raw in games)


def check_corpus_in_chunks(path: Path, limit: Optional[int], check_chunk) -> None:
    """Runs check_chunk(chunk, first_game_index) -> (problems, compared) over a corpus file read
    by python-chess in chunks; fails listing the first problems, skips when nothing compared."""
    require_corpora()
    problems, compared, first = [], 0, 0
    for chunk in iter_chunks(path, limit):
        found, n = check_chunk(chunk, first)
        problems += found
        compared += n
        first += len(chunk)
    assert not problems, f"{len(problems)} games differ; first ones:\n" + "\n".join(problems[:10])
    if not compared:
        pytest.skip(f"{corpus_id(path)}: python-chess and pgntools find no game in common to compare")
