"""`validate -o` against an export-format writer of the test's own, and to-fen's default lines
against python-chess (issue 23: both outputs are now written by faster paths in C, so their bytes
are checked against text made without them).

The oracle: python-chess reads each game (SAN from its board, tags from its headers) and this
file lays it out as the PGN standard's export format says: the Seven Tag Roster in order (? and
????.??.?? for missing ones), the other tags in ASCII order, \\ and " escaped, a move number before
each White move (and before Black's first one, as N...), lines of at most 79 columns, the result.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from pgn_helpers import cli_run, corpus_params, in_sample, pc_replay_san, rel, write

chess_pgn = pytest.importorskip("chess.pgn")

SEVEN = ["Event", "Site", "Date", "Round", "White", "Black", "Result"]
DEFAULTS = {"Event": "?", "Site": "?", "Date": "????.??.??", "Round": "?", "White": "?", "Black": "?"}


def escaped(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def wrapped(units: list) -> str:
    lines, line = [], ""
    for unit in units:
        if line and len(line) + 1 + len(unit) > 79:
            lines.append(line)
            line = unit
        else:
            line = f"{line} {unit}" if line else unit
    return "\n".join(lines + [line])


def export_format(game) -> str:
    """One game (python-chess, mainline only) in the export format, as the test reads the standard."""
    tags = dict(game.headers)
    head = [f'[{name} "{escaped(tags.get(name, DEFAULTS.get(name, "*")))}"]' for name in SEVEN]
    head += [f'[{name} "{escaped(tags[name])}"]' for name in sorted(tags, key=lambda n: n.encode()) if name not in SEVEN]
    board = game.board()
    units, first = [], True
    for move in game.mainline_moves():
        if board.turn:
            units.append(f"{board.fullmove_number}.")
        elif first:
            units.append(f"{board.fullmove_number}...")
        units.append(board.san(move))
        board.push(move)
        first = False
    units.append(tags["Result"])
    return "\n".join(head) + "\n\n" + wrapped(units) + "\n\n"


def plain_games(path: Path, full: bool) -> list:
    """The sampled games of a corpus file that this oracle covers, as their bytes: ASCII, a
    mainline only (no comments, NAGs, glyphs or variations), no start position, a Result tag
    that the termination marker repeats, valid for pgntools without a fix (LF line ends: the
    output has them whatever the input's)."""
    import pgntools

    data = path.read_bytes()
    out = []
    for g in pgntools.read_games(str(path), moves=False, comments=False, final_fen=False):
        if not (full or in_sample(g.index)) or g.status != "valid" or g.fixes:
            continue
        raw = data[g.offset:g.offset + g.length].replace(b"\r\n", b"\n")
        head, _, body = raw.partition(b"\n\n")
        body = body.strip()  # (python-chess reads no moves after a second blank line)
        raw = head + b"\n\n" + body
        if (not raw.isascii() or any(c in body for c in b"{};($!?%") or b"[FEN " in raw
                or b"[Variant " in raw or b"[SetUp " in raw):
            continue
        result = g.headers.get("Result")
        if result not in ("1-0", "0-1", "1/2-1/2", "*") or not body.endswith(result.encode()):
            continue
        out.append(raw)
    return out


def check_against_oracle(tmp_path: Path, games: list):
    import io

    source = write(tmp_path, b"\n\n".join(games) + b"\n\n", "plain.pgn")
    out = tmp_path / "out.pgn"
    result = cli_run(["validate", str(source), "-o", str(out)])
    assert result.exit_code == 0, result.stderr
    want = []
    for raw in games:
        game = chess_pgn.read_game(io.StringIO(raw.decode("ascii")))
        assert not game.errors, raw[:200]
        want.append(export_format(game))
    got = out.read_text()
    if got != "".join(want):  # the first game that differs, for the message
        for i, text in enumerate(want):
            assert got.startswith(text), (i, got[:len(text) + 200], text)
            got = got[len(text):]
    assert out.read_text() == "".join(want)


@pytest.mark.parametrize("path", corpus_params())
def test_export_format_matches_the_oracle_on_corpus_sample(tmp_path, path):
    games = plain_games(path, full=False)
    if not games:
        pytest.skip(f"{rel(path)}: no game the oracle covers")
    check_against_oracle(tmp_path, games)


@pytest.mark.slow
@pytest.mark.parametrize("path", corpus_params())
def test_export_format_matches_the_oracle_on_every_corpus_game(tmp_path, path):
    games = plain_games(path, full=True)
    if not games:
        pytest.skip(f"{rel(path)}: no game the oracle covers")
    check_against_oracle(tmp_path, games)


# Moves whose text is not canonical SAN in ways that notes do not flag: the writer must format
# them, not copy their text (its shortcut takes only e4, Nf3, exd5, Nxd5 resolved without a note).
NOT_CANONICAL_TEXT = [
    # name, start position (None: the standard one), movetext, the SAN the checked move comes out as
    ("colon-capture", None, "1. e4 d5 2. e:d5", "exd5"),
    ("colon-capture-piece", None, "1. e4 d5 2. exd5 Qxd5 3. Nc3 Qd8 4. Nf3 Nf6 5. Ne5 Nc6 6. N:c6", "Nxc6"),
    ("glyph-attached", None, "1. e4!? e5 2. Nf3!", "Nf3"),
    ("double-plus-mate", None, "1. f3 e5 2. g4 Qh4++", "Qh4#"),
    ("file-origin", None, "1. Nf3 d5 2. Nc3 e5 3. Nd4 c5 4. Ndb5", "Ndb5"),
    ("rank-origin", "4k3/8/8/8/8/R7/8/R3K3 w - - 0 1", "1. R3a2", "R3a2"),
    ("both-origins", "4k3/8/8/8/8/Q1Q5/8/Q3K3 w - - 0 1", "1. Qa3b2", "Qa3b2"),
]


@pytest.mark.parametrize("name, fen, movetext, san", NOT_CANONICAL_TEXT, ids=[c[0] for c in NOT_CANONICAL_TEXT])
def test_written_san_is_canonical_whatever_the_text(tmp_path, name, fen, movetext, san):
    head = f'[FEN "{fen}"]\n[SetUp "1"]\n\n' if fen else ""
    path = write(tmp_path, (head + movetext + " *\n").encode())
    out = tmp_path / "out.pgn"
    assert cli_run(["validate", str(path), "-o", str(out)]).exit_code == 0
    body = out.read_text().split("\n\n")[1]
    sans = [t for t in body.split() if not t[0].isdigit() and t[0] != "$" and t not in ("*", "0-1", "1-0")]
    tokens = [t.replace(":", "x").rstrip("!?+#") for t in movetext.split() if not t[0].isdigit()]
    assert sans == pc_replay_san(tokens, fen)[1]  # python-chess's SAN of the same moves (its reading of them)
    assert sans[-1] == san


# ---------------------------------------------------------------- to-fen's default lines

@pytest.mark.parametrize("path", corpus_params())
def test_final_fen_lines_are_python_chess_final_positions(tmp_path, path):
    """to-fen's default output (final FEN lines made in one pass in C) is python-chess's final
    position of each game the oracle covers, in order."""
    import io

    games = plain_games(path, full=False)[:300]
    if not games:
        pytest.skip(f"{rel(path)}: no game the oracle covers")
    source = write(tmp_path, b"\n\n".join(games) + b"\n\n", "plain.pgn")
    out = tmp_path / "out.fen"
    assert cli_run(["to-fen", str(source), "-o", str(out)]).exit_code == 0
    want = []
    for raw in games:
        board = chess_pgn.read_game(io.StringIO(raw.decode("ascii"))).end().board()
        want.append(board.fen(en_passant="legal"))
    assert out.read_text().splitlines() == want


def test_final_fen_lines_with_invalid_games(tmp_path):
    """--include-invalid adds an invalid game's position after its last legal move, and a game
    without a replay (an unreadable start position) writes no line; --keep-invalid writes the
    marker where the invalid game's line would be (the per-game path: the same lines otherwise)."""
    text = ("1. e4 e5 *\n\n" "1. d4 d5 2. Ke3 *\n\n" '[FEN "bad"]\n[SetUp "1"]\n\n1. e4 *\n\n' "1. c4 *\n\n")
    path = write(tmp_path, text.encode())
    after_e4_e5 = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
    after_d4_d5 = "rnbqkbnr/ppp1pppp/8/3p4/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 0 2"
    after_c4 = "rnbqkbnr/pppppppp/8/8/2P5/8/PP1PPPPP/RNBQKBNR b KQkq - 0 1"
    runs = {(): [after_e4_e5, after_c4], ("--include-invalid",): [after_e4_e5, after_d4_d5, after_c4],
            ("--keep-invalid",): [after_e4_e5, "# invalid game 1", "# invalid game 2", after_c4]}
    for options, lines in runs.items():
        out = tmp_path / "out.fen"
        assert cli_run(["to-fen", str(path), "-o", str(out), *options]).exit_code == 0  # (invalid: counted)
        assert out.read_text().splitlines() == lines, options
