"""`pgntools to-fen`: FEN snapshots of games (issue 5).

Every expected position and SAN comes from python-chess (the test-only oracle) or is written
by hand; nothing is computed by pgntools itself. The CLI is driven in-process with Click's
CliRunner. The corpus tests compare every ply of a sample of each shared corpus file (the
first ``SAMPLE_HEAD`` games); ``-m slow`` compares every game.
"""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import pytest
from click.testing import CliRunner

from conftest import (check_corpus_in_chunks, no_move_in, CHESS_REASON, corpus_id, corpus_pgn_files, head_games, PgnLines,
                      require_corpora, SAMPLE_HEAD, START_FEN)

chess = pytest.importorskip("chess", reason=CHESS_REASON)
chess_pgn = pytest.importorskip("chess.pgn", reason=CHESS_REASON)
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

from pgntools.cli import cli  # noqa: E402  (after the importorskips)

# ---------------------------------------------------------------- hand-written games

# Game 0: valid; Scholar's mate.
SCHOLAR = """[Event "Hand 0"]
[Site "tests"]
[Date "2026.01.01"]
[Round "1"]
[White "White Zero"]
[Black "Black Zero"]
[Result "1-0"]

1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0
"""

# Game 1: invalid; 4. Bg5 is legal, 4... Qxe2 is not (no black queen reaches e2): the error is at ply 8.
ILLEGAL = """[Event "Hand 1"]
[Site "tests"]
[Date "2026.01.01"]
[Round "2"]
[White "White One"]
[Black "Black One"]
[Result "*"]

1. d4 d5 2. c4 e6 3. Nc3 Nf6 4. Bg5 Qxe2 5. Nf3 *
"""

# Game 2: valid; starts from a FEN with Black to move (fullmove 30).
SETUP = """[Event "Hand 2"]
[Site "tests"]
[Date "2026.01.01"]
[Round "3"]
[White "White Two"]
[Black "Black Two"]
[Result "*"]
[SetUp "1"]
[FEN "4k3/8/8/8/8/8/4P3/4K3 b - - 3 30"]

30... Kd7 31. e4 Kc6 32. e5 *
"""

# Game 3: valid; en passant: after 2... d5 exd6 is legal (and played); after 3... h5 no capture exists.
EN_PASSANT = """[Event "Hand 3"]
[Site "tests"]
[Date "2026.01.01"]
[Round "4"]
[White "White Three"]
[Black "Black Three"]
[Result "*"]

1. e4 Nf6 2. e5 d5 3. exd6 h5 4. h3 *
"""

# Game 4: valid; 1... c5 puts a pawn beside b5, but bxc6 e.p. would expose the a5 king to the
# h5 rook: no legal en-passant capture, so the "legal" style writes '-' and the "fen" style c6.
PINNED_EP = """[Event "Hand 4"]
[Site "tests"]
[Date "2026.01.01"]
[Round "5"]
[White "White Four"]
[Black "Black Four"]
[Result "*"]
[SetUp "1"]
[FEN "7k/2p5/8/KP5r/8/8/8/8 b - - 0 1"]

1... c5 2. Ka4 *
"""

# A Chess960 game (start RKBNRBQN) with queen-side castling for both sides.
CHESS960 = """[Event "Hand 960"]
[Site "tests"]
[Date "2026.01.01"]
[Round "6"]
[White "White 960"]
[Black "Black 960"]
[Result "*"]
[Variant "Chess960"]
[SetUp "1"]
[FEN "rkbnrbqn/pppppppp/8/8/8/8/PPPPPPPP/RKBNRBQN w KQkq - 0 1"]

1. d4 d5 2. Ne3 Ne6 3. Bd2 Bd7 4. O-O-O O-O-O 5. Kb1 *
"""

HAND = [SCHOLAR, ILLEGAL, SETUP, EN_PASSANT, PINNED_EP]
INVALID_INDEX = 1


# ---------------------------------------------------------------- helpers

def invoke(args, expect=(0,)):
    """Run the CLI in-process; fail with its stderr when the exit status is unexpected or it crashed."""
    result = CliRunner().invoke(cli, [str(a) for a in args])
    crashed = result.exception is not None and not isinstance(result.exception, SystemExit)
    assert not crashed and result.exit_code in expect, (
        f"pgntools {' '.join(map(str, args))} -> exit {result.exit_code}\n"
        f"stderr: {result.stderr}\nexception: {result.exception!r}")
    return result


def write_pgn(tmp_path: Path, name: str, *games: str) -> Path:
    path = tmp_path / name
    path.write_text("\n".join(games), encoding="utf-8")
    return path


def oracle(text: str, en_passant: str = "legal", shredder: bool = False) -> Tuple[list, bool]:
    """python-chess: [(ply, san, fen)] from the start (ply 0, san '') and whether it found errors.
    The list stops at the last legal move."""
    game = chess_pgn.read_game(io.StringIO(text))
    board = game.board()
    rows = [(0, "", board.fen(en_passant=en_passant, shredder=shredder))]
    for ply, move in enumerate(game.mainline_moves(), 1):
        san = board.san(move)
        board.push(move)
        rows.append((ply, san, board.fen(en_passant=en_passant, shredder=shredder)))
    return rows, bool(game.errors)


def final_fens(games, include_invalid=False, **kw) -> List[str]:
    out = []
    for text in games:
        rows, errors = oracle(text, **kw)
        if include_invalid or not errors:
            out.append(rows[-1][2])
    return out


def read_csv(text: str) -> List[dict]:
    return list(csv.DictReader(io.StringIO(text)))


def test_hand_games_are_what_the_comments_say():
    """Guard for the fixtures above: python-chess agrees on which game is broken and where."""
    for i, text in enumerate(HAND):
        rows, errors = oracle(text)
        assert errors == (i == INVALID_INDEX), i
    rows, _ = oracle(ILLEGAL)
    assert len(rows) - 1 == 7  # 7 legal plies before the illegal 4... Qxe2
    rows, errors = oracle(CHESS960)
    assert not errors and rows[-1][0] == 9


# ---------------------------------------------------------------- default mode, outputs

def test_default_one_final_fen_per_valid_game_in_order(tmp_path):
    src = write_pgn(tmp_path, "hand.pgn", *HAND)
    result = invoke(["to-fen", src], expect=(0,))  # one game is invalid: counted, exit 0 (issue 37 A4)
    assert result.stdout.splitlines() == final_fens(HAND)
    assert len(result.stdout.splitlines()) == len(HAND) - 1


def test_default_all_valid_exits_zero(tmp_path):
    src = write_pgn(tmp_path, "ok.pgn", SCHOLAR, SETUP)
    result = invoke(["to-fen", src], expect=(0,))
    assert result.stdout.splitlines() == final_fens([SCHOLAR, SETUP])
    assert result.stdout.splitlines()[0] == "r1bqkb1r/pppp1Qpp/2n2n2/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 0 4"


def test_include_invalid_writes_position_after_last_legal_move(tmp_path):
    src = write_pgn(tmp_path, "hand.pgn", *HAND)
    result = invoke(["to-fen", "--include-invalid", src], expect=(0,))
    lines = result.stdout.splitlines()
    assert lines == final_fens(HAND, include_invalid=True)
    # by hand: after 1. d4 d5 2. c4 e6 3. Nc3 Nf6 4. Bg5
    assert lines[INVALID_INDEX] == "rnbqkb1r/ppp2ppp/4pn2/3p2B1/2PP4/2N5/PP2PPPP/R2QKBNR b KQkq - 3 4"


def test_output_file_instead_of_stdout(tmp_path):
    src = write_pgn(tmp_path, "hand.pgn", *HAND)
    out = tmp_path / "final.fen"
    result = invoke(["to-fen", src, "-o", out], expect=(0,))
    assert result.stdout == ""
    assert out.read_text(encoding="utf-8").splitlines() == final_fens(HAND)
    # nothing else (no temporary file) is left beside the output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["final.fen", "hand.pgn"]


def test_dash_output_is_stdout(tmp_path):
    src = write_pgn(tmp_path, "ok.pgn", SCHOLAR)
    result = invoke(["to-fen", src, "-o", "-"])
    assert result.stdout.splitlines() == final_fens([SCHOLAR])


def test_game_index_runs_across_inputs(tmp_path):
    a = write_pgn(tmp_path, "a.pgn", SCHOLAR, ILLEGAL)
    b = write_pgn(tmp_path, "b.pgn", SETUP)
    result = invoke(["to-fen", "--format", "csv", "--include-invalid", a, b], expect=(0,))
    rows = read_csv(result.stdout)
    assert [r["game_id"] for r in rows] == ["0", "1", "2"]
    assert [r["fen"] for r in rows] == final_fens([SCHOLAR, ILLEGAL, SETUP], include_invalid=True)
    # the default mode's row is the final position: ply = plies played, move = the last SAN
    assert [(r["ply"], r["san"]) for r in rows] == [("7", "Qxf7#"), ("7", "Bg5"), ("4", "e5")]


def test_empty_input_writes_nothing(tmp_path):
    src = tmp_path / "empty.pgn"
    src.write_bytes(b"")
    assert invoke(["to-fen", src]).stdout == ""
    result = invoke(["to-fen", "--format", "csv", src])
    assert result.stdout.strip() in ("", '"game_id","ply","san","fen"', "game_id,ply,san,fen")


# ---------------------------------------------------------------- --every-ply, --ply

def test_every_ply_fen_lines(tmp_path):
    src = write_pgn(tmp_path, "hand.pgn", *HAND)
    result = invoke(["to-fen", "--every-ply", src], expect=(0,))
    expected = []
    for i, text in enumerate(HAND):
        rows, errors = oracle(text)
        if not errors:
            expected += [fen for _, _, fen in rows]
    assert result.stdout.splitlines() == expected
    assert result.stdout.splitlines()[0] == START_FEN


def test_every_ply_rows_with_include_invalid(tmp_path):
    src = write_pgn(tmp_path, "hand.pgn", *HAND)
    result = invoke(["to-fen", "--every-ply", "--include-invalid", "--format", "csv", src], expect=(0,))
    got = [(int(r["game_id"]), int(r["ply"]), r["san"], r["fen"]) for r in read_csv(result.stdout)]
    expected = [(g, ply, san, fen) for g, text in enumerate(HAND) for ply, san, fen in oracle(text)[0]]
    assert got == expected
    # the invalid game runs to its last legal position (ply 7), never past it
    assert max(p for g, p, _, _ in got if g == INVALID_INDEX) == 7


def test_ply_repeatable_zero_and_beyond_the_end(tmp_path):
    src = write_pgn(tmp_path, "ok.pgn", SCHOLAR, SETUP)
    # SCHOLAR has 7 plies, SETUP 4: ply 6 exists only in SCHOLAR, 40 in neither
    result = invoke(["to-fen", "--ply", "0", "--ply", "6", "--ply", "40", "--ply", "3", "--format", "csv", src])
    got = [(int(r["game_id"]), int(r["ply"]), r["san"], r["fen"]) for r in read_csv(result.stdout)]
    expected = [(g, ply, san, fen) for g, text in enumerate([SCHOLAR, SETUP])
                for ply, san, fen in oracle(text)[0] if ply in (0, 3, 6)]
    assert got == expected
    assert [(g, p) for g, p, _, _ in got] == [(0, 0), (0, 3), (0, 6), (1, 0), (1, 3)]
    assert got[0][2] == "" and got[0][3] == START_FEN
    assert got[3][3] == "4k3/8/8/8/8/8/4P3/4K3 b - - 3 30"


def test_ply_beyond_every_game_writes_no_row(tmp_path):
    src = write_pgn(tmp_path, "ok.pgn", SCHOLAR)
    assert invoke(["to-fen", "--ply", "8", src]).stdout == ""
    assert invoke(["to-fen", "--ply", "7", src]).stdout.splitlines() == final_fens([SCHOLAR])


def test_negative_ply_is_a_usage_error(tmp_path):
    src = write_pgn(tmp_path, "ok.pgn", SCHOLAR)
    invoke(["to-fen", "--ply", "-1", src], expect=(2,))


# ---------------------------------------------------------------- --format

def test_format_epd(tmp_path):
    src = write_pgn(tmp_path, "ok.pgn", SCHOLAR, SETUP)
    result = invoke(["to-fen", "--every-ply", "--format", "epd", src])
    lines = result.stdout.splitlines()
    expected = [(g, ply, fen) for g, text in enumerate([SCHOLAR, SETUP]) for ply, _, fen in oracle(text)[0]]
    assert len(lines) == len(expected)
    for line, (g, ply, fen) in zip(lines, expected):
        fields = fen.split()
        assert line.split()[:4] == fields[:4], line
        board, ops = chess.Board.from_epd(line)
        assert board.fen() == fen, line  # python-chess folds hmvc/fmvn back into the FEN
        assert ops["hmvc"] == int(fields[4]) and ops["fmvn"] == int(fields[5]), line
        assert ops["id"] == f"{g}:{ply}", line
        assert "c0" not in ops
    # by hand: the FEN start of SETUP with its clocks
    assert lines[8] == '4k3/8/8/8/8/8/4P3/4K3 b - - hmvc 3; fmvn 30; id "1:0";'


def test_format_epd_c0_names_players_and_event(tmp_path):
    src = write_pgn(tmp_path, "ok.pgn", SCHOLAR, SETUP)
    lines = invoke(["to-fen", "--format", "epd", "--c0", src]).stdout.splitlines()
    assert len(lines) == 2
    for line, who in zip(lines, [("White Zero", "Black Zero", "Hand 0"), ("White Two", "Black Two", "Hand 2")]):
        board, ops = chess.Board.from_epd(line)
        assert all(name in ops["c0"] for name in who), line
    assert chess.Board.from_epd(lines[0])[1]["id"] == "0:7"


def test_format_epd_c0_escapes_quotes(tmp_path):
    text = SCHOLAR.replace('[White "White Zero"]', '[White "Zero \\"The Hammer\\""]')
    src = write_pgn(tmp_path, "q.pgn", text)
    line = invoke(["to-fen", "--format", "epd", "--c0", src]).stdout.splitlines()[0]
    _, ops = chess.Board.from_epd(line)
    assert 'Zero "The Hammer"' in ops["c0"]
    assert ops["id"] == "0:7"


def test_format_csv(tmp_path):
    src = write_pgn(tmp_path, "hand.pgn", *HAND)
    text = invoke(["to-fen", "--every-ply", "--format", "csv", src], expect=(0,)).stdout
    assert next(csv.reader(io.StringIO(text))) == ["game_id", "ply", "san", "fen"]
    got = [(int(r["game_id"]), int(r["ply"]), r["san"], r["fen"]) for r in read_csv(text)]
    expected = [(g, ply, san, fen) for g, t in enumerate(HAND) if g != INVALID_INDEX for ply, san, fen in oracle(t)[0]]
    assert got == expected


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_format_csv_of_no_rows_has_its_header(tmp_path, jobs):
    """A CSV with no rows still names its columns (pandas.read_csv fails on an empty file)."""
    empty, prose = tmp_path / "empty.pgn", tmp_path / "blank.pgn"
    empty.write_bytes(b"")
    prose.write_bytes(b" \n\r\n" * 500)  # (text without a game is not PGN: exit 2, tests/test_cli_io.py)
    for src in (empty, prose):
        text = invoke(["to-fen", "--format", "csv", "--jobs", jobs, "--chunk-bytes", "1000", src]).stdout
        assert list(csv.reader(io.StringIO(text))) == [["game_id", "ply", "san", "fen"]]
    invalid = write_pgn(tmp_path, "invalid.pgn", '[Result "*"]\n\n1. e5 *\n')
    text = invoke(["to-fen", "--format", "csv", "--jobs", jobs, invalid], expect=(0,)).stdout
    assert list(csv.reader(io.StringIO(text))) == [["game_id", "ply", "san", "fen"]]


def test_format_csv_header_once_across_inputs(tmp_path):
    a = write_pgn(tmp_path, "a.pgn", SCHOLAR)
    b = write_pgn(tmp_path, "b.pgn", SETUP)
    text = invoke(["to-fen", "--format", "csv", a, b]).stdout
    assert [row[0] for row in csv.reader(io.StringIO(text))] == ["game_id", "0", "1"]


def test_format_jsonl(tmp_path):
    src = write_pgn(tmp_path, "hand.pgn", *HAND)
    text = invoke(["to-fen", "--every-ply", "--format", "jsonl", src], expect=(0,)).stdout
    objects = [json.loads(line) for line in text.splitlines()]
    assert all(set(o) == {"game_id", "ply", "san", "fen"} for o in objects)
    got = [(o["game_id"], o["ply"], o["san"], o["fen"]) for o in objects]
    expected = [(g, ply, san, fen) for g, t in enumerate(HAND) if g != INVALID_INDEX for ply, san, fen in oracle(t)[0]]
    assert got == expected


def test_format_parquet(tmp_path):
    src = write_pgn(tmp_path, "hand.pgn", *HAND)
    out = tmp_path / "pos.parquet"
    invoke(["to-fen", "--every-ply", "--include-invalid", "--format", "parquet", "-o", out, src], expect=(0,))
    table = pq.read_table(out)
    assert table.schema.names == ["game_id", "ply", "san", "fen"]
    assert [f.type for f in table.schema] == [pa.int64(), pa.int16(), pa.string(), pa.string()]
    got = list(zip(*(table.column(c).to_pylist() for c in ("game_id", "ply", "san", "fen"))))
    expected = [(g, ply, san, fen) for g, t in enumerate(HAND) for ply, san, fen in oracle(t)[0]]
    assert got == expected


def test_format_parquet_final_positions(tmp_path):
    src = write_pgn(tmp_path, "hand.pgn", *HAND)
    out = tmp_path / "final.parquet"
    invoke(["to-fen", "--format", "parquet", "-o", out, src], expect=(0,))
    table = pq.read_table(out)
    assert table.column("fen").to_pylist() == final_fens(HAND)
    assert table.column("game_id").to_pylist() == [0, 2, 3, 4]


PARQUET_MODES = [[], ["--every-ply"], ["--ply", "0", "--ply", "5", "--ply", "7"], ["--include-invalid"],
                 ["--every-ply", "--include-invalid"], ["--every-ply", "--sample", "0.5", "--seed", "3"]]


@pytest.mark.parametrize("mode", PARQUET_MODES, ids=lambda mode: " ".join(mode) or "final")
def test_format_parquet_rows_are_the_jsonl_rows(tmp_path, mode):
    """to-fen's Parquet (our writer, rows made in C) holds the rows the JSON Lines output (Arrow)
    holds, in the same order, for each selection of positions, also of a selection's view of a
    batch (--sample: games keep their ids)."""
    sample = (Path(__file__).resolve().parent.parent / "fixtures" / "sample.pgn").read_text()
    src = write_pgn(tmp_path, "hand.pgn", *(HAND * 3), sample)
    invoke(["to-fen", *mode, "--format", "parquet", "-o", tmp_path / "p.parquet", src], expect=(0, 1))
    invoke(["to-fen", *mode, "--format", "jsonl", "-o", tmp_path / "p.jsonl", src], expect=(0, 1))
    rows = [json.loads(line) for line in (tmp_path / "p.jsonl").read_text().splitlines()]
    assert rows and pq.read_table(tmp_path / "p.parquet").to_pylist() == rows


def test_format_parquet_one_row_group_a_batch(tmp_path):
    """One row group per batch (1,024 games of the hand-written ones are one batch)."""
    src = write_pgn(tmp_path, "many.pgn", *(HAND * 500))  # 2,500 games: 3 batches
    invoke(["to-fen", "--every-ply", "-o", tmp_path / "p.parquet", src], expect=(0,))
    meta = pq.ParquetFile(tmp_path / "p.parquet").metadata
    assert meta.num_row_groups == 3
    assert meta.num_rows == pq.read_table(tmp_path / "p.parquet").num_rows > 0


def test_format_parquet_schema_is_the_one_pyarrow_writes(tmp_path):
    """The Parquet schema (types, repetition) and the Arrow schema read back are pyarrow's."""
    from pgntools.parquet.fen_rows_file import FenRowsFile
    from pgntools.tables.schema import POSITIONS

    with open(tmp_path / "ours.parquet", "wb") as file:
        FenRowsFile(file).close()
    pq.write_table(POSITIONS.empty_table(), tmp_path / "pyarrow.parquet")
    ours, theirs = pq.ParquetFile(tmp_path / "ours.parquet").schema, pq.ParquetFile(tmp_path / "pyarrow.parquet").schema
    assert ours.equals(theirs), f"ours:\n{ours}\npyarrow:\n{theirs}"
    assert pq.read_table(tmp_path / "ours.parquet").schema.equals(POSITIONS)


def test_format_parquet_does_not_import_pyarrow(tmp_path):
    import subprocess
    import sys

    src = write_pgn(tmp_path, "hand.pgn", *HAND)
    code = ("import sys; from pgntools.cli import main\n"
            f"sys.argv = ['pgntools', 'to-fen', '--every-ply', '-o', {str(tmp_path / 'p.parquet')!r}, {str(src)!r}]\n"
            "try: main()\n"
            "except SystemExit as exit: assert exit.code == 0, exit.code\n"
            "print(sorted(m for m, module in sys.modules.items() if module and m.split('.')[0] == 'pyarrow'))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          cwd=Path(__file__).resolve().parent.parent)
    assert done.stdout.strip() == "[]", done.stdout + done.stderr
    assert pq.read_table(tmp_path / "p.parquet").num_rows > 0


# ---------------------------------------------------------------- --en-passant, --shredder

def test_en_passant_legal_is_the_default(tmp_path):
    src = write_pgn(tmp_path, "ep.pgn", EN_PASSANT, PINNED_EP)
    default = invoke(["to-fen", "--every-ply", src]).stdout.splitlines()
    legal = invoke(["to-fen", "--every-ply", "--en-passant", "legal", src]).stdout.splitlines()
    expected = [fen for t in (EN_PASSANT, PINNED_EP) for _, _, fen in oracle(t, en_passant="legal")[0]]
    assert default == legal == expected
    ep_fields = [fen.split()[3] for fen in legal]
    # by hand: start, e4 (no capture), -, -, d5 (exd6 legal), exd6, h5 (no capture), -  |  start, c5 (pinned), -
    assert ep_fields == ["-", "-", "-", "-", "d6", "-", "-", "-", "-", "-", "-"]


def test_en_passant_fen_after_every_double_step(tmp_path):
    src = write_pgn(tmp_path, "ep.pgn", EN_PASSANT, PINNED_EP)
    lines = invoke(["to-fen", "--every-ply", "--en-passant", "fen", src]).stdout.splitlines()
    expected = [fen for t in (EN_PASSANT, PINNED_EP) for _, _, fen in oracle(t, en_passant="fen")[0]]
    assert lines == expected
    assert [fen.split()[3] for fen in lines] == ["-", "e3", "-", "-", "d6", "-", "h6", "-", "-", "c6", "-"]


def test_shredder_castling_field_for_chess960(tmp_path):
    src = write_pgn(tmp_path, "960.pgn", CHESS960)
    shredder = invoke(["to-fen", "--every-ply", "--shredder", src]).stdout.splitlines()
    xfen = invoke(["to-fen", "--every-ply", src]).stdout.splitlines()
    assert shredder == [fen for _, _, fen in oracle(CHESS960, shredder=True)[0]]
    assert xfen == [fen for _, _, fen in oracle(CHESS960)[0]]
    # by hand: rooks on a and e files, king on b; after both queen-side castlings no rights are left
    assert [f.split()[2] for f in shredder][:2] == ["EAea", "EAea"]
    assert [f.split()[2] for f in xfen][:2] == ["KQkq", "KQkq"]
    assert shredder[7].split()[2] == "ea" and xfen[7].split()[2] == "kq"
    assert shredder[8].split()[2] == xfen[8].split()[2] == "-"
    assert shredder[-1].split()[0] == "2krrbqn/pppbpppp/4n3/3p4/3P4/4N3/PPPBPPPP/1K1RRBQN"


def test_chess960_san_castling_rows(tmp_path):
    src = write_pgn(tmp_path, "960.pgn", CHESS960)
    rows = read_csv(invoke(["to-fen", "--every-ply", "--format", "csv", src]).stdout)
    assert [r["san"] for r in rows] == [san for _, san, _ in oracle(CHESS960)[0]]
    assert [r["san"] for r in rows][7:9] == ["O-O-O", "O-O-O"]


# ---------------------------------------------------------------- report, summary, exit status

def test_report_and_summary(tmp_path):
    src = write_pgn(tmp_path, "hand.pgn", *HAND)
    report, summary = tmp_path / "report.jsonl", tmp_path / "summary.json"
    result = invoke(["to-fen", src, "--report", report, "--summary", summary, "--no-progress"], expect=(0,))
    assert result.stdout.splitlines() == final_fens(HAND)
    records = [json.loads(line) for line in report.read_text().splitlines()]
    invalid = [r for r in records if r["status"] == "invalid"]
    assert [r["game"] for r in invalid] == [INVALID_INDEX]
    assert invalid[0]["errors"] and invalid[0]["errors"][0]["ply"] == 8
    totals = json.loads(summary.read_text())
    assert (totals["games"], totals["valid"] + totals["fixed"], totals["invalid"]) == (5, 4, 1)
    assert "1 invalid" in result.stderr


def test_summary_all_valid_exit_zero(tmp_path):
    src = write_pgn(tmp_path, "ok.pgn", SCHOLAR, SETUP, EN_PASSANT)
    summary = tmp_path / "summary.json"
    invoke(["to-fen", "--every-ply", "--format", "jsonl", src, "--summary", summary, "--strict"], expect=(0,))
    totals = json.loads(summary.read_text())
    assert (totals["games"], totals["invalid"]) == (3, 0)


def test_missing_input_is_exit_2(tmp_path):
    result = invoke(["to-fen", tmp_path / "nope.pgn"], expect=(2,))
    assert "nope.pgn" in result.stderr


def test_unknown_format_is_usage_error(tmp_path):
    src = write_pgn(tmp_path, "ok.pgn", SCHOLAR)
    invoke(["to-fen", "--format", "xml", src], expect=(2,))


# ---------------------------------------------------------------- shared corpora vs python-chess

def expected_rows(game) -> Optional[list]:
    """python-chess's (ply, san, fen) sequence of a game, or None if it cannot set the game up."""
    try:
        board = game.board()
    except ValueError:
        return None
    if type(board) is not chess.Board or not board.is_valid():
        return None  # other variants, broken start positions: nothing to compare
    rows = [(0, "", board.fen())]
    for ply, move in enumerate(game.mainline_moves(), 1):
        if not move:  # a null move: pgntools stops there by design
            break
        san = board.san(move)
        board.push(move)
        rows.append((ply, san, board.fen()))
    return rows


def run_positions(tmp_path: Path, name: str, data: bytes) -> Tuple[Dict[int, list], set, int]:
    """to-fen --every-ply --include-invalid as Parquet: rows per game, invalid game ids, game count."""
    src = tmp_path / f"{name}.pgn"
    src.write_bytes(data)
    out, report, summary = tmp_path / f"{name}.parquet", tmp_path / f"{name}.jsonl", tmp_path / f"{name}.json"
    invoke(["to-fen", "--every-ply", "--include-invalid", "--format", "parquet", "-o", out,
            "--report", report, "--summary", summary, src], expect=(0, 1))
    table = pq.read_table(out)
    per_game: Dict[int, list] = {}
    for g, ply, move, fen in zip(*(table.column(c).to_pylist() for c in ("game_id", "ply", "san", "fen"))):
        per_game.setdefault(g, []).append((ply, move, fen))
    invalid = {r["game"] for r in map(json.loads, report.read_text().splitlines()) if r["status"] == "invalid"}
    return per_game, invalid, json.loads(summary.read_text())["games"]


def compare_game(label: str, ours: list, theirs: list, clean: bool) -> Optional[str]:
    """Both clean: the sequences are equal. Otherwise they agree on every ply both have."""
    if clean and ours != theirs:
        n = next((i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b), min(len(ours), len(theirs)))
        return (f"{label} ply {n}: pgntools {ours[n] if n < len(ours) else '(end)'} != "
                f"python-chess {theirs[n] if n < len(theirs) else '(end)'}")
    for a, b in zip(ours, theirs):
        if a != b:
            return f"{label} ply {a[0]}: pgntools {a} != python-chess {b}"
    return None


_FILES = corpus_pgn_files()
FILE_PARAMS = [pytest.param(p, id=corpus_id(p)) for p in _FILES] or [pytest.param(None, id="no-corpora")]


def pgntools_slices(data: bytes, src: Path) -> List[bytes]:
    """The bytes of each game as pgntools splits the input (game boundaries only: no values)."""
    import pgntools

    starts = [game.offset for game in pgntools.read_games(str(src), moves=False, final_fen=False)]
    return [data[a:b] for a, b in zip(starts, starts[1:] + [len(data)])]


def single_game(data: bytes):
    """python-chess's game when it reads exactly one game from one pgntools game's bytes, else
    None. Blank lines are dropped first: python-chess ends a game at any blank line (e.g. one
    after a comment), the PGN standard does not."""
    reader = PgnLines(b"\n".join(line for line in data.splitlines() if line.strip()) + b"\n")
    game = chess_pgn.read_game(reader)
    if game is None or chess_pgn.read_game(reader) is not None:
        return None
    return game


def check_chunk(path: Path, tmp_path: Path, games: List[Tuple[object, bytes]], first: int) -> Tuple[list, int]:
    """Compare one run of pgntools over ``games`` (python-chess's games ``first``...); returns the
    problems found and the number of games compared."""
    problems, compared = [], 0
    if no_move_in(games):  # (maybe no PGN to pgntools: nothing to compare)
        return [], 0
    data = b"".join(raw for _, raw in games)
    per_game, invalid, count = run_positions(tmp_path, "slice", data)

    aligned = count == len(games)
    if aligned:
        pairs = [(g, game) for g, (game, _) in enumerate(games)]
    else:
        # The readers split this file into games differently (games with no blank line between
        # them, tags run together with moves, ...): cut the input where pgntools starts each game
        # and compare the games python-chess also reads as exactly one game, on the plies both
        # read (the readers disagree on this file's layout, so not on the game lengths).
        slices = pgntools_slices(data, tmp_path / "slice.pgn")
        assert len(slices) == count
        pairs = [(g, game) for g, game in ((g, single_game(raw)) for g, raw in enumerate(slices)) if game is not None]

    for g, game in pairs:
        theirs = expected_rows(game)
        if theirs is None:
            continue
        ours = per_game.get(g, [])
        clean = aligned and not game.errors and g not in invalid
        label = f"{corpus_id(path)} game #{first + g}" if aligned else \
            f"{corpus_id(path)} pgntools game #{g} of the run from python-chess game #{first}"
        if not ours:
            # no positions: pgntools could not set the game up, so it must have found it invalid
            if clean:
                problems.append(f"{label}: no positions for a game both find valid")
            continue
        compared += 1
        problem = compare_game(label, ours, theirs, clean)
        if problem:
            problems.append(problem)
    return problems, compared


def check_corpus_file(path: Optional[Path], tmp_path: Path, limit: Optional[int]):
    check_corpus_in_chunks(path, limit, lambda chunk, first: check_chunk(path, tmp_path, chunk, first))


@pytest.mark.parametrize("path", FILE_PARAMS)
def test_corpus_sample_every_ply_matches_python_chess(path, tmp_path):
    check_corpus_file(path, tmp_path, SAMPLE_HEAD)


@pytest.mark.slow
@pytest.mark.parametrize("path", FILE_PARAMS)
def test_corpus_full_every_ply_matches_python_chess(path, tmp_path):
    check_corpus_file(path, tmp_path, None)


def test_chess960_corpus_shredder_matches_python_chess(tmp_path):
    """Chess960 games of the TCEC FRC file with --shredder against python-chess chess960 boards."""
    require_corpora()
    path = next((p for p in _FILES if p.parent.name == "chess960"), None)
    if path is None:
        pytest.skip("corpora/chess960 has no PGN file")
    games = head_games(path, 20)
    src = tmp_path / "960.pgn"
    src.write_bytes(b"".join(data for _, data in games))
    out = tmp_path / "960.parquet"
    invoke(["to-fen", "--every-ply", "--shredder", "--format", "parquet", "-o", out, src], expect=(0, 1))
    table = pq.read_table(out)
    got: Dict[int, list] = {}
    for g, fen in zip(table.column("game_id").to_pylist(), table.column("fen").to_pylist()):
        got.setdefault(g, []).append(fen)
    compared = 0
    for g, (game, _) in enumerate(games):
        board = game.board()
        assert board.chess960, f"game #{g} is not read as Chess960 by python-chess"
        if game.errors:
            continue
        expected = [board.fen(shredder=True)]
        for move in game.mainline_moves():
            board.push(move)
            expected.append(board.fen(shredder=True))
        assert got.get(g) == expected, f"game #{g}"
        compared += 1
    assert compared >= 10


# ---------------------------------------------------------------- many batches, games without moves

def test_many_games_across_batches_csv(tmp_path):
    """More games than one reader batch: game indices continue, the CSV header appears once."""
    lines = ["1. e4 e5 2. Nf3 *", "1. d4 *", "*", "1. c4 e5 2. Nc3 Nf6 3. g3 *"]
    texts = [f'[Event "Many"]\n[Round "{i}"]\n[Result "*"]\n\n{lines[i % len(lines)]}\n' for i in range(2500)]
    src = tmp_path / "many.pgn"
    src.write_text("\n".join(texts), encoding="utf-8")
    text = invoke(["to-fen", "--every-ply", "--format", "csv", src]).stdout
    assert text.count("game_id,") + text.count('"game_id",') == 1
    got = [(int(r["game_id"]), int(r["ply"]), r["san"], r["fen"]) for r in read_csv(text)]
    expected = [(g, ply, san, fen) for g, t in enumerate(texts) for ply, san, fen in oracle(t)[0]]
    assert got == expected


def test_games_without_moves(tmp_path):
    """A game with no moves has one position, its start, as ply 0 with an empty move."""
    no_moves = '[Event "Empty"]\n[Result "*"]\n\n*\n'
    src = write_pgn(tmp_path, "n.pgn", no_moves, SETUP, no_moves)
    rows = read_csv(invoke(["to-fen", "--format", "csv", src]).stdout)
    assert [(r["game_id"], r["ply"], r["san"]) for r in rows] == [("0", "0", ""), ("1", "4", "e5"), ("2", "0", "")]
    assert rows[0]["fen"] == rows[2]["fen"] == START_FEN
    every = read_csv(invoke(["to-fen", "--every-ply", "--format", "csv", src]).stdout)
    assert [(r["game_id"], r["ply"]) for r in every] == [("0", "0")] + [("1", str(p)) for p in range(5)] + [("2", "0")]
