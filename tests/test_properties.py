"""Properties of the Python API, and the bugs fuzzing found (see fuzz/README.md).

The properties (Hypothesis) hold for any input: arbitrary bytes through ``read_games``,
generated PGN, positions reached by random legal moves, ``validate`` run on its own output.
The regression tests each replay one input the fuzz harnesses found; the same inputs are in
``fuzz/regressions/`` for the sanitizer builds.
"""
from __future__ import annotations

import faulthandler
import json
import subprocess
import sys

import pytest

import pgntools
from pgn_helpers import cli_run, read, write

# A hang in the compiled reader is a C loop that no Python timeout can interrupt: the property
# tests arm a watchdog thread that ends the process (exit status 1; run pytest with -s to see
# its traceback), and the regression tests for hangs read in a child process with a timeout.
HANG_SECONDS = 120

READ_IN_CHILD = """
import json, sys, pgntools
print(json.dumps([{"tags": dict(g.tags), "status": g.status, "uci": g.uci,
                   "errors": [[e.kind, e.token, e.byte_offset] for e in g.errors]}
                  for g in pgntools.read_games(sys.argv[1])]))
"""


@pytest.fixture
def watchdog():
    faulthandler.dump_traceback_later(HANG_SECONDS, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


def read_in_child(path, timeout: float = 30) -> list:
    """read_games in another process, as JSON; a hang fails the test instead of stopping the run."""
    try:
        out = subprocess.run([sys.executable, "-c", READ_IN_CHILD, str(path)], capture_output=True, check=True,
                             timeout=timeout, text=True).stdout
    except subprocess.TimeoutExpired:
        pytest.fail(f"read_games did not finish within {timeout} s")
    return json.loads(out)


# ---------------------------------------------------------------- regressions found by fuzzing

@pytest.mark.parametrize("byte", [b"\x00", b"\x01", b"\x1a", b"\x1f", b"\x7f"])
def test_control_character_between_games_is_skipped(tmp_path, byte):
    # A control character or DEL started an empty "word" that never advanced the scanner:
    # read_games looped forever, e.g. on the Ctrl-Z (0x1a) that ends old DOS files.
    data = b'[Event "a"]\n\n1. e4 e5 *\n' + byte + b'\n[Event "b"]\n\n1. d4 *\n' + byte
    games = read_in_child(write(tmp_path, data))
    assert [g["tags"]["Event"] for g in games] == ["a", "b"]
    assert [g["status"] for g in games] == ["valid", "valid"]
    assert [g["uci"] for g in games] == [["e2e4", "e7e5"], ["d2d4"]]


def test_control_character_in_movetext_is_a_syntax_error(tmp_path):
    game, = read_in_child(write(tmp_path, b'[Event "a"]\n\n1. e4 \x01 e5 *\n'))
    assert game["status"] == "invalid"
    assert game["errors"] == [["syntax_error", "\x01", len(b'[Event "a"]\n\n1. e4 ')]]
    assert game["uci"] == ["e2e4", "e7e5"]  # the moves around it are still replayed


@pytest.mark.parametrize("fen, san", [
    ("4k3/8/8/8/8/8/8/4K3 b - - 0 1", "d8"),
    ("4k3/8/8/8/8/8/8/4K3 w - - 0 1", "d1"),
])
def test_pawn_move_to_its_own_first_rank_is_illegal(fen, san):
    # The fast SAN path looked for the pawn one square behind the target: off the board for a
    # target on the pawn's own first rank (a shift by 64 or more, undefined behaviour).
    with pytest.raises(pgntools.IllegalMoveError):
        pgntools.Board.from_fen(fen).push_san(san)


def test_pawn_move_to_its_own_first_rank_in_a_game(tmp_path):
    white, black = read(tmp_path, "1. Nf3 Nf6 2. g1 *\n\n1. Nf3 Nf6 2. Ng1 g8 *\n")
    assert [(e.kind, e.ply, e.token) for e in white.errors] == [("illegal_move", 3, "g1")]
    assert [(e.kind, e.ply, e.token) for e in black.errors] == [("illegal_move", 4, "g8")]


def test_empty_tag_values_and_comments(tmp_path):
    # The first string of a batch's column could be empty while its buffer was still NULL:
    # NULL + 0 and memcpy/memcmp on NULL are undefined behaviour (UBSan in the fuzz builds).
    game, = read(tmp_path, '[Event ""]\n[Round ""]\n[Annotator ""]\n\n1. e4 {} e5 *\n', pgn=True)
    assert game.status == "valid" and game.tags == [("Event", ""), ("Round", ""), ("Annotator", "")]
    assert game.moves[0].comment == "" and game.moves[1].comment is None
    assert game.pgn == ('[Event ""]\n[Site "?"]\n[Date "????.??.??"]\n[Round ""]\n[White "?"]\n[Black "?"]\n'
                        '[Result "*"]\n[Annotator ""]\n\n1. e4 {} 1... e5 *\n\n')


@pytest.mark.parametrize("fen", ["4k2P/8/8/3pP3/8/8/8/4K3 w - d6 0 1", "4k3/8/8/8/3Pp3/8/8/p3K3 b - d3 0 1"])
def test_pawn_on_its_last_rank_beside_an_en_passant_square(tmp_path, fen):
    # Checking the en-passant square generated pawn moves in the invalid position too, and the
    # push of a pawn on its last rank shifted a bitboard by 64 or more (undefined behaviour).
    with pytest.raises(pgntools.InvalidFenError) as excinfo:
        pgntools.Board.from_fen(fen)
    assert excinfo.value.problems == ["pawn_on_back_rank"]
    game, = read(tmp_path, f'[FEN "{fen}"]\n[SetUp "1"]\n\n*\n')
    assert [e.kind for e in game.errors] == ["invalid_start_position"]


def test_fen_after_move_999999999_reads_back():
    # The parser took at most 9 digits, so the FEN written after Black's 999999999th move
    # ("... 1000000000") could not be read back.
    board = pgntools.Board.from_fen("4k3/8/8/8/8/8/8/4K3 b - - 0 999999999")
    board.push_san("Kd7")
    assert board.fen() == "8/3k4/8/8/8/8/8/4K3 w - - 1 1000000000"
    assert pgntools.Board.from_fen(board.fen()).fen() == board.fen()


def test_move_number_stops_at_the_largest_one_a_fen_can_hold():
    board = pgntools.Board.from_fen("4k3/8/8/8/8/8/8/4K3 b - - 0 4294967295")
    board.push_san("Kd7")  # no wrap to 0, which no FEN could say
    assert board.fullmove_number == 4294967295
    assert pgntools.Board.from_fen(board.fen()).fen() == board.fen()
    with pytest.raises(pgntools.InvalidFenError) as excinfo:
        pgntools.Board.from_fen("4k3/8/8/8/8/8/8/4K3 b - - 0 4294967296")
    assert excinfo.value.problems == ["malformed"]


@pytest.mark.parametrize("magic", [b"\x1f\x8b", b"BZh91AY&SY", b"\xfd7zXZ\x00", b"\x28\xb5\x2f\xfd"],
                         ids=["gz", "bz2", "xz", "zst"])
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_corrupt_compressed_input_is_an_input_error(tmp_path, magic, jobs):
    # A corrupt .xz stream raised lzma.LZMAError, which is no OSError: read_games let it out
    # and the commands called it an internal error (a bug) instead of unreadable input.
    path = write(tmp_path, magic + b'garbage[Event "x"]\n\n1. e4 *\n')
    with pytest.raises(pgntools.InputError):
        list(pgntools.read_games(str(path)))
    # with --jobs 2 and small chunks, the parent's chunker reads the stream (chunks.py)
    result = cli_run(["validate", "--jobs", jobs, "--chunk-bytes", "64", str(path)])
    assert result.exit_code == 2
    assert result.stderr.startswith("pgntools: error: ") and result.stderr.count("\n") == 1


def test_reduced_export_keeps_the_variant(tmp_path):
    # The reduced format kept FEN and SetUp but not Variant: a Chess960 game came out as a
    # standard game whose FEN has impossible castling rights (invalid when validated again).
    fen = "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1"
    source = write(tmp_path, f'[Event "e"]\n[Variant "Chess960"]\n[SetUp "1"]\n[FEN "{fen}"]\n[ECO "A00"]\n\n'
                             '1. g3 g6 *\n')
    first, second = tmp_path / "first.pgn", tmp_path / "second.pgn"
    assert cli_run(["validate", "--jobs", "1", "--reduced", "-o", str(first), str(source)]).exit_code == 0
    text = first.read_text()
    assert '[Variant "Chess960"]' in text and "[ECO " not in text
    assert cli_run(["validate", "--jobs", "1", "--reduced", "-o", str(second), str(first)]).exit_code == 0
    assert second.read_text() == text


def test_comment_word_like_a_tag_never_starts_a_line(tmp_path):
    # Wrapping a long comment could put '[Event "x"]' at the start of a line, which the reader
    # takes for the next game's tag section (ending the comment as unclosed): validate's own
    # output read back as two invalid games. Such a word now starts its line after a space.
    comment = "a " * 36 + '[Event "x"] tail'
    source = write(tmp_path, '[Event "e"]\n\n1. e4 {' + comment + "} e5 *\n")
    first, second = tmp_path / "first.pgn", tmp_path / "second.pgn"
    assert cli_run(["validate", "--jobs", "1", "-o", str(first), str(source)]).exit_code == 0
    lines = first.read_text().splitlines()
    assert ' [Event "x"] tail} 1... e5 *' in lines and all(len(line) < 80 for line in lines)
    assert cli_run(["validate", "--jobs", "1", "-o", str(second), str(first)]).exit_code == 0
    assert second.read_text() == first.read_text()
    game, = pgntools.read_games(str(first))
    assert game.moves[0].comment.split() == comment.split()
