"""The derived per-game fields (speed, has_clock, has_eval, captures, checks, underpromotions,
max_halfmove_clock, max_repetitions), --where-position and --material (issue 18), against
python-chess (the test-only oracle) on the shared corpora: a sample of each file by default,
every game with -m slow. And each through the CLI on small inputs written here."""
from __future__ import annotations

import collections
import json
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional

import pytest

from conftest import CHESS_REASON, corpus_id, corpus_pgn_files, in_sample, iter_chunks, no_move_in, require_corpora

chess = pytest.importorskip("chess", reason=CHESS_REASON)
pytest.importorskip("chess.pgn", reason=CHESS_REASON)
pq = pytest.importorskip("pyarrow.parquet")

from pgntools import _core  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
FIELDS = ("has_clock", "has_eval", "captures", "checks", "underpromotions", "max_halfmove_clock", "max_repetitions")
FILES = [pytest.param(p, id=corpus_id(p)) for p in corpus_pgn_files()] or [pytest.param(None, id="no-corpora")]
SIGNATURES = ("KRkr", "KRPkr", "KQ*kq*", "KR*k*", "KBNk", "KPk")


def cli(*args, expect=(0,), input=None):
    done = subprocess.run([sys.executable, "-m", "pgntools", *map(str, args)], cwd=REPO, input=input,
                          capture_output=True)
    assert done.returncode in expect, done.stderr.decode()
    return done


# ---------------------------------------------------------------- the oracle

def lichess_speed(time_control: Optional[str]) -> Optional[str]:
    """Lichess's rule, written from its description: base + 40 x increment seconds."""
    if time_control is None:
        return None
    if time_control.strip() == "-":
        return "correspondence"
    first = time_control.split(":")[0]
    try:
        if first.startswith("*"):
            estimate = float(first[1:])
        else:
            first = first.split("/")[-1]
            base, _, increment = first.partition("+")
            estimate = float(base) + 40 * (float(increment) if increment else 0.0)
    except ValueError:
        return None
    for limit, name in ((30, "ultrabullet"), (180, "bullet"), (480, "blitz"), (1500, "rapid")):
        if estimate < limit:
            return name
    return "classical"


def material(board) -> tuple:
    return tuple(len(board.pieces(t, c)) for c in (chess.WHITE, chess.BLACK) for t in range(1, 6))


def signature_holds(signature: str, counts: tuple) -> bool:
    from pgntools.where.targets import material_signature

    white, black, white_more, black_more = material_signature(signature)
    for want, have, more in ((white, counts[:5], white_more), (black, counts[5:], black_more)):
        if any((h < w) if more else (h != w) for w, h in zip(want, have)):
            return False
    return True


def oracle(game) -> Optional[dict]:
    """The derived fields of a game python-chess replays cleanly, with every position it reaches
    (EPD, legal en passant) and material; None when it is not such a game."""
    if game.errors:
        return None
    board = game.board()
    seen = collections.Counter([board._transposition_key()])
    epds, materials = {board.epd()}, {material(board)}
    fields = dict.fromkeys(FIELDS, 0)
    fields["max_halfmove_clock"] = board.halfmove_clock
    has_clock = has_eval = False
    for node in game.mainline():
        move = node.move
        if move is None or not board.is_legal(move):
            return None
        fields["captures"] += board.is_capture(move)
        fields["checks"] += board.gives_check(move)
        fields["underpromotions"] += move.promotion in (chess.KNIGHT, chess.BISHOP, chess.ROOK)
        board.push(move)
        seen[board._transposition_key()] += 1
        epds.add(board.epd())
        materials.add(material(board))
        fields["max_halfmove_clock"] = max(fields["max_halfmove_clock"], board.halfmove_clock)
        has_clock |= node.clock() is not None
        has_eval |= node.eval() is not None
    fields.update(has_clock=has_clock, has_eval=has_eval, max_repetitions=max(seen.values()),
                  speed=lichess_speed(game.headers.get("TimeControl")), plies=board.ply() - game.board().ply())
    return {"fields": fields, "epds": epds, "materials": materials}


# ---------------------------------------------------------------- pgntools on the same games

def export_games(tmp_path: Path, chunk, *options) -> Dict[int, dict]:
    """The chunk's games (each without its leading blank lines) in one file, exported: the games
    rows by offset (python-chess's game i starts at starts[i])."""
    src = tmp_path / "games.pgn"
    with open(src, "wb") as out:
        for _, data in chunk:
            out.write(data.lstrip(b"\r\n \t") + b"\n\n")
    out_dir = tmp_path / "out"
    cli("export", "--parquet", out_dir, "--overwrite", "--jobs", "1", "-q", "--exit-zero", src, *options)
    rows = pq.read_table(out_dir / "games").to_pylist()
    return {row["offset"]: row for row in rows}


def starts(chunk) -> List[int]:
    at, found = 0, []
    for _, data in chunk:
        found.append(at)
        at += len(data.lstrip(b"\r\n \t")) + 2
    return found


def sampled_chunks(path: Path, full: bool):
    for chunk in iter_chunks(path, None if full else 600, size=4000 if full else 600):
        yield chunk if full else [item for i, item in enumerate(chunk) if in_sample(i)]


def check_file(path: Optional[Path], tmp_path: Path, full: bool):
    if path is None:
        require_corpora()
    problems, compared = [], 0
    for chunk in sampled_chunks(path, full):
        truths = [oracle(game) for game, _ in chunk]
        if not any(truths) or no_move_in(chunk):  # nothing python-chess reads cleanly (or no move: maybe no
            continue                                # PGN to pgntools, exit 2): no pgntools run to compare with
        target = next((sorted(t["epds"])[len(t["epds"]) // 2] for t in truths if t and len(t["epds"]) > 8), None)
        options = ["--where-position", target] if target else []
        rows = export_games(tmp_path, chunk)
        reached = set(export_games(tmp_path, chunk, *options)) if target else set()
        by_material = {s: set(export_games(tmp_path, chunk, "--material", s)) for s in SIGNATURES[:3]}
        for i, (truth, at) in enumerate(zip(truths, starts(chunk))):
            row = rows.get(at)
            if truth is None or row is None or row["status"] not in ("valid", "fixed") or \
                    row["ply_count"] != truth["fields"]["plies"]:
                continue
            compared += 1
            mine = {k: row[k] for k in (*FIELDS, "speed")}
            theirs = {k: truth["fields"][k] for k in (*FIELDS, "speed")}
            if mine != theirs:
                problems.append(f"game at {at}: pgntools {mine} != python-chess {theirs}")
            if target and (at in reached) != (target in truth["epds"]):
                problems.append(f"game at {at}: --where-position {target!r}: pgntools {at in reached}")
            for s, kept in by_material.items():
                expected = any(signature_holds(s, m) for m in truth["materials"])
                if (at in kept) != expected:
                    problems.append(f"game at {at}: --material {s}: pgntools {at in kept}, python-chess {expected}")
    assert not problems, f"{len(problems)} differences; first ones:\n" + "\n".join(problems[:10])
    if not compared:
        pytest.skip(f"{corpus_id(path)}: no game both read cleanly")


@pytest.mark.parametrize("path", FILES)
def test_derived_fields_and_selections_match_python_chess(path, tmp_path):
    check_file(path, tmp_path, full=False)


@pytest.mark.slow
@pytest.mark.parametrize("path", FILES)
def test_derived_fields_and_selections_match_python_chess_every_game(path, tmp_path):
    check_file(path, tmp_path, full=True)


# ---------------------------------------------------------------- speed

@pytest.mark.parametrize("time_control, speed", [
    ("15+0", "ultrabullet"), ("29+0", "ultrabullet"), ("10.931+0.109", "ultrabullet"), ("30+0", "bullet"),
    ("60+0", "bullet"), ("120+1", "bullet"), ("180+0", "blitz"), ("180+2", "blitz"), ("300+0", "blitz"),
    ("420+2", "rapid"), ("480+0", "rapid"), ("900+10", "rapid"), ("1500+0", "classical"), ("1800+3", "classical"),
    ("40/7200:3600", "classical"), ("40/5400+30:1800+30", "classical"), ("*180", "blitz"), ("300", "blitz"),
    ("-", "correspondence"), ("?", ""), ("", ""), ("15 min. + 10 s. per move", ""), ("3+x", ""), ("40/", ""),
])
def test_speed_of_time_control(time_control, speed):
    assert _core.speed_of(time_control) == speed
    assert (lichess_speed(time_control) or "") == speed


GAMES = """[Event "a"]
[TimeControl "180+2"]

1. e4 {[%clk 0:03:00]} e5 {[%eval 0.2]} 2. Nf3 Nc6 3. Ng1 Nb8 4. Nf3 Nc6 5. Ng1 Nb8 1/2-1/2

[Event "b"]
[TimeControl "-"]

1. e4 d5 2. exd5 Qxd5 3. Nc3 Qa5 4. d4 c6 5. Nf3 Bg4 6. Bf4 e6 7. h3 Bxf3 8. Qxf3 Bb4 9. Be2 Nd7 10. a3 O-O-O
11. axb4 Qxa1+ 12. Kd2 Qxh1 13. Qxc6+ bxc6 14. Ba6# 1-0

[Event "c"]
[SetUp "1"]
[FEN "8/P7/8/8/8/8/8/k6K w - - 40 80"]

1. a8=N Kb2 2. Nb6 1/2-1/2
"""


def test_fields_through_the_cli(tmp_path):
    src = tmp_path / "g.pgn"
    src.write_text(GAMES)
    out = tmp_path / "out"
    cli("export", "--parquet", out, src)
    rows = pq.read_table(out / "games", columns=["event", "speed", *FIELDS]).to_pylist()
    a, b, c = rows
    assert (a["speed"], a["has_clock"], a["has_eval"], a["max_repetitions"], a["max_halfmove_clock"]) == \
        ("blitz", True, True, 3, 8)
    assert (b["speed"], b["has_clock"], b["captures"], b["checks"]) == ("correspondence", False, 9, 3)
    assert (c["speed"], c["underpromotions"], c["max_halfmove_clock"], c["max_repetitions"]) == (None, 1, 40, 1)


@pytest.mark.parametrize("expression, events", [
    ("max_repetitions >= 3", ["a"]), ("speed = 'correspondence'", ["b"]), ("speed is null", ["c"]),
    ("has_clock and has_eval", ["a"]), ("not has_clock", ["b", "c"]), ("underpromotions > 0", ["c"]),
    ("captures >= 6 and checks = 3", ["b"]), ("speed in ('blitz', 'bullet')", ["a"]),
    ("max_halfmove_clock >= 40", ["c"]),
])
def test_where_on_derived_fields(tmp_path, expression, events):
    src = tmp_path / "g.pgn"
    src.write_text(GAMES)
    done = cli("filter", src, "-o", "-", "--where", expression, "-q")
    assert [line.split('"')[1] for line in done.stdout.decode().splitlines() if line.startswith("[Event")] == events


def test_speed_enum_values_are_checked(tmp_path):
    done = cli("validate", tmp_path / "none.pgn", "--where", "speed = 'ultraBullet'", expect=(2,))
    assert b"speed is one of ultrabullet, bullet, blitz" in done.stderr


# ---------------------------------------------------------------- --where-position, --material

START_AFTER_E4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -"


def selected(tmp_path, *options, jobs="1"):
    src = tmp_path / "g.pgn"
    src.write_text(GAMES)
    done = cli("filter", src, "-o", "-", "-q", "--jobs", jobs, *options)
    return [line.split('"')[1] for line in done.stdout.decode().splitlines() if line.startswith("[Event")]


def test_where_position(tmp_path):
    assert selected(tmp_path, "--where-position", START_AFTER_E4 + " 0 1") == ["a", "b"]
    # the counters are ignored; the en-passant field of a double step nobody can take is too
    assert selected(tmp_path, "--where-position", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 7 9") == ["a", "b"]
    # a transposition: a's position after 3. Ng1 (the start with Black to move... reached again)
    assert selected(tmp_path, "--where-position", "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq -") == ["a"]
    # the start position itself (ply 0), of a game with a FEN
    assert selected(tmp_path, "--where-position", "8/P7/8/8/8/8/8/k6K w - -") == ["c"]
    # repeatable: any of them; with --where: both
    assert selected(tmp_path, "--where-position", "8/P7/8/8/8/8/8/k6K w - -", "--where-position",
                    START_AFTER_E4) == ["a", "b", "c"]
    assert selected(tmp_path, "--where-position", START_AFTER_E4, "--where", "speed = 'blitz'") == ["a"]
    # the side to move matters
    assert selected(tmp_path, "--where-position", START_AFTER_E4.replace(" b ", " w ")) == []


def test_where_position_same_for_any_jobs(tmp_path):
    one = selected(tmp_path, "--where-position", START_AFTER_E4, "--material", "KNk")
    assert one == selected(tmp_path, "--where-position", START_AFTER_E4, "--material", "KNk", jobs="2") == []
    assert selected(tmp_path, "--material", "KNk", jobs="2") == selected(tmp_path, "--material", "KNk") == ["c"]


@pytest.mark.parametrize("fen, message", [
    ("xx", "fields: 1, not 6"), ("8/8/8/8/8/8/8/8 w - -", "no white king"),
])
def test_invalid_where_position_is_a_usage_error(tmp_path, fen, message):
    done = cli("validate", tmp_path / "missing.pgn", "--where-position", fen, expect=(2,))
    assert message.encode() in done.stderr and b"--where-position" in done.stderr


@pytest.mark.parametrize("signature, events", [
    ("KNk", ["c"]), ("KPk", ["c"]), ("KQ*kq*", ["a", "b"]), ("K*k*", ["a", "b", "c"]), ("KQRRBBNNPPPPPPPPkqrrbbnnpppppppp", ["a", "b"]),
    ("KBk", []),
])
def test_material(tmp_path, signature, events):
    assert selected(tmp_path, "--material", signature) == events


@pytest.mark.parametrize("signature", ["KRPr", "krKR", "KRPkr**", "Kk9", "KPPPPPPPPPk", ""])
def test_invalid_material_is_a_usage_error(tmp_path, signature):
    done = cli("validate", tmp_path / "missing.pgn", "--material", signature, expect=(2,))
    assert b"--material" in done.stderr


@pytest.mark.parametrize("command", [["validate"], ["to-fen"], ["export", "--parquet", "OUT"], ["filter", "-o", "OUT"]])
def test_options_on_every_command(tmp_path, command):
    src = tmp_path / "g.pgn"
    src.write_text(GAMES)
    command = [str(tmp_path / "out") if c == "OUT" else c for c in command]
    done = cli(*command, src, "--material", "KNk", "--summary", tmp_path / "s.json", "-q")
    assert json.loads((tmp_path / "s.json").read_text())["games"] >= 1
    assert b"1 of 3 games selected" in cli(*command[:1], src, "--material", "KNk",
                                           *(["-o", tmp_path / "o2"] if command[0] in ("filter",) else []),
                                           *(["--parquet", tmp_path / "o3"] if command[0] == "export" else [])).stderr
