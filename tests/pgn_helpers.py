"""Helpers shared by the reader and validate tests (scanner, I/O, differential, validate).

Small PGN inputs are written by the tests themselves into pytest's ``tmp_path``; the shared
corpora are read in place (never copied) and only when present.
"""
from __future__ import annotations

import io
import json
from dataclasses import fields
from pathlib import Path
from typing import Iterable, List, Optional, Sequence, Tuple, Union

import pytest

import pgntools

from corpora_dir import CORPORA_DIR  # noqa: E402 ($PGNTOOLS_CORPORA, else ../shared/corpora)
CORPORA_REASON = f"shared corpora not found at {CORPORA_DIR} (they live beside the repo, not in it)"
CHESS_REASON = "python-chess (pip install chess==1.11.2) is the test oracle and is not importable"

# Default (CI) sample of a corpus file: the first SAMPLE_HEAD games and every SAMPLE_STRIDE-th.
SAMPLE_HEAD = 200
SAMPLE_STRIDE = 25
# Files up to this size are compared game by game in full even in the default run.
SMALL_FILE = 1_000_000

Data = Union[str, bytes]


# ---------------------------------------------------------------- inputs

def as_bytes(data: Data) -> bytes:
    return data.encode("utf-8") if isinstance(data, str) else data


def write(tmp_path: Path, data: Data, name: str = "games.pgn") -> Path:
    path = tmp_path / name
    path.write_bytes(as_bytes(data))
    return path


def read(tmp_path: Path, data: Data, name: str = "games.pgn", **options) -> List[pgntools.Game]:
    """All game records of ``data`` (written to a file first)."""
    return list(pgntools.read_games(str(write(tmp_path, data, name)), **options))


def read_one(tmp_path: Path, data: Data, **options) -> pgntools.Game:
    games = read(tmp_path, data, **options)
    assert len(games) == 1, f"expected one game, read {len(games)}: {[g.tags for g in games]}"
    return games[0]


def kinds(game) -> List[str]:
    return [e.kind for e in game.errors]


def note_kinds(game) -> List[str]:
    return [n["kind"] for n in game.notes]


def record(game, drop: Sequence[str] = ("source",)) -> dict:
    """A game record as plain data (what ``dataclasses.asdict`` gives, faster), for comparing
    two reads of the same games."""
    out = {f.name: getattr(game, f.name) for f in fields(game) if f.name not in drop}
    out["tags"] = [list(t) for t in game.tags]
    out["moves"] = [dict(vars(m), nags=list(m.nags)) for m in game.moves]
    out["errors"] = [dict(vars(e)) for e in game.errors]
    out["notes"] = [dict(n) for n in game.notes]
    out["fixes"] = [dict(f) for f in game.fixes]
    return out


def tags_section(tags: Iterable[Tuple[str, str]]) -> str:
    def esc(v: str) -> str:
        return v.replace("\\", "\\\\").replace('"', '\\"')
    return "".join(f'[{k} "{esc(v)}"]\n' for k, v in tags)


# ---------------------------------------------------------------- python-chess as oracle

def chess_or_skip():
    return pytest.importorskip("chess", reason=CHESS_REASON)


def pc_read_game(text: str):
    chess_pgn = pytest.importorskip("chess.pgn", reason=CHESS_REASON)
    return chess_pgn.read_game(io.StringIO(text))


def pc_mainline(game) -> Tuple[List[str], "object"]:
    """python-chess's mainline of a game as UCI (Chess960 castling as king-takes-rook when the
    board is Chess960) and the final board."""
    board = game.board()
    out = []
    for move in game.mainline_moves():
        out.append(board.uci(move, chess960=board.chess960))
        board.push(move)
    return out, board


def pc_replay_san(moves: Sequence[str], fen: Optional[str] = None, chess960: bool = False):
    """Plays SAN (or UCI) moves with python-chess; returns (board, canonical SANs, UCIs)."""
    chess = chess_or_skip()
    board = chess.Board(fen, chess960=chess960) if fen else chess.Board(chess960=chess960)
    sans, ucis = [], []
    for text in moves:
        try:
            move = board.parse_san(text)
        except ValueError:
            move = board.parse_uci(text)
        sans.append(board.san(move))
        ucis.append(board.uci(move, chess960=chess960))
        board.push(move)
    return board, sans, ucis


# ---------------------------------------------------------------- corpora

def require_corpora() -> None:
    if not CORPORA_DIR.is_dir():
        pytest.skip(CORPORA_REASON)


def corpus_files() -> List[Path]:
    """Every ``*.pgn`` under the shared corpora (recursively), sorted; [] when absent."""
    if not CORPORA_DIR.is_dir():
        return []
    return sorted(p for p in CORPORA_DIR.rglob("*") if p.is_file() and p.suffix.lower() == ".pgn")


def corpus_params(marks: Optional[dict] = None) -> list:
    """pytest parameters, one per corpus file (ids relative to the corpora folder), or a single
    skipped parameter when the corpora are absent."""
    files = corpus_files()
    if not files:
        return [pytest.param(None, id="no-corpora", marks=pytest.mark.skip(reason=CORPORA_REASON))]
    marks = marks or {}
    out = []
    for path in files:
        rel = path.relative_to(CORPORA_DIR).as_posix()
        out.append(pytest.param(path, id=rel, marks=marks.get(rel, ())))
    return out


def rel(path: Path) -> str:
    return path.relative_to(CORPORA_DIR).as_posix()


def in_sample(index: int) -> bool:
    return index < SAMPLE_HEAD or index % SAMPLE_STRIDE == 0


# ---------------------------------------------------------------- CLI

def skip_unless_a_move(path: Path) -> None:
    """Skips a corpus file in which no game has a legal move: no PGN to the command line (exit 2,
    issue 37 A2), as an HTML page of PGN in the edge corpus is."""
    if not any(game.uci for game in pgntools.read_games(str(path), comments=False)):
        pytest.skip(f"{path.name}: no game with a legal move: not PGN to the command line")


def cli_run(args: Sequence[str], input: Optional[bytes] = None):
    """Runs ``pgntools`` in-process with Click's CliRunner (stderr kept apart from stdout)."""
    from click.testing import CliRunner
    from pgntools.cli import cli

    runner = CliRunner()
    return runner.invoke(cli, list(args), input=input, catch_exceptions=False)


def report_lines(text: Union[str, bytes]) -> List[dict]:
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def invoke(*args, expect=(0,)):
    """The CLI in-process (click's runner): fails when it crashed or its exit status is not in `expect`."""
    from click.testing import CliRunner

    from pgntools.cli import cli
    result = CliRunner().invoke(cli, [str(a) for a in args])
    crashed = result.exception is not None and not isinstance(result.exception, SystemExit)
    assert not crashed and result.exit_code in expect, (args, result.exit_code, result.output, result.exception)
    return result
