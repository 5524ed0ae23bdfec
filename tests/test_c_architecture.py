"""The shape of the C core (issue 34, ARCHITECTURE.md): no header includes another that includes it
back, no two C files call each other's functions (each file a layer: bitboard < position < movegen
< san < replay < game, the findings of a game below all that read one), and one way to make a move:
the replay makes moves only through pos_make_undo, and only san_find resolves a piece move."""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Dict, List, Set

import pytest

from graph_cycles import cycles

C_DIR = Path(__file__).resolve().parents[1] / "pgntools" / "_c"
INCLUDE = re.compile(r'^#include "([^"]+)"', re.M)


def include_graph() -> Dict[str, Set[str]]:
    return {p.name: set(INCLUDE.findall(p.read_text())) - {p.name} for p in C_DIR.glob("*.[ch]")}


def test_the_include_graph_is_read():
    graph = include_graph()
    assert "position.h" in graph["movegen.h"] and "movegen.h" in graph["san.h"]


def test_no_include_cycles():
    assert cycles(include_graph()) == []


def test_a_cycle_is_found():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == [["a", "b", "c", "a"]]


def call_graph(tmp_path: Path) -> Dict[str, Set[str]]:
    """Which C files call a function another C file defines (the symbols of each object file)."""
    defined: Dict[str, str] = {}
    used: Dict[str, Set[str]] = {}
    for source in sorted(C_DIR.glob("*.c")):
        obj = tmp_path / (source.stem + ".o")
        subprocess.run(["gcc", "-std=c99", "-O2", "-c", str(source), "-o", str(obj)], check=True)
        for line in subprocess.run(["nm", str(obj)], capture_output=True, text=True, check=True).stdout.splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1] in "TDRB":
                defined[parts[2]] = source.stem
            elif len(parts) == 2 and parts[0] == "U":
                used.setdefault(source.stem, set()).add(parts[1])
    return {f: {defined[s] for s in symbols if s in defined and defined[s] != f} for f, symbols in used.items()}


@pytest.mark.skipif(not (shutil.which("gcc") and shutil.which("nm")), reason="needs gcc and nm to read the objects")
def test_no_two_c_files_call_each_other(tmp_path):
    graph = call_graph(tmp_path)
    assert {"findings", "replay"} <= graph["game"] and "findings" in graph["replay"]  # (the graph is read)
    assert cycles(graph) == []


def code_of(name: str) -> str:
    """A C file without its comments."""
    return re.sub(r"/\*.*?\*/", "", (C_DIR / name).read_text(), flags=re.S)


def test_one_way_to_make_a_move():
    # the replay makes moves through pos_make_undo alone, in one place (play_move)
    replay = code_of("replay.h") + code_of("replay.c")
    assert replay.count("pos_make_undo(") == 1
    assert "pos_make(" not in replay
    # one make: position.h's pos_make (the rare moves out of line in position.c); nothing else
    # writes a piece onto the board
    for name in ("san.c", "san.h", "movegen.h", "movegen.c", "replay.c", "replay.h", "game.c"):
        assert not re.search(r"->board\[[^\]]+\]\s*=[^=]", code_of(name)), name
    # one resolver: the piece moves are found in san_find alone (the shapes' front and san_resolve call it)
    san = code_of("san.h") + code_of("san.c")
    assert len(re.findall(r"pos_piece_origins\(", san)) == 2  # san_find, and SAN's disambiguation
    assert len(re.findall(r"pos_pawn_origins\(", san)) == 1
