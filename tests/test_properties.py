"""Properties of the Python API, and the bugs fuzzing found (see fuzz/README.md).

The properties (Hypothesis) hold for any input: arbitrary bytes through ``read_games``,
generated PGN, positions reached by random legal moves, ``validate`` run on its own output.
The regression tests each replay one input the fuzz harnesses found; the same inputs are in
``fuzz/regressions/`` for the sanitizer builds.
"""
from __future__ import annotations

import faulthandler
import json
import os
import subprocess
import sys
from contextlib import contextmanager

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pgntools
import pgntools.reader
from pgn_helpers import cli_run, read, record, tags_section, write

# A hang in the compiled reader is a C loop that no Python timeout can interrupt: the property
# tests arm a watchdog that ends the process (exit status 1; pytest -s shows its traceback),
# and the regression tests for hangs read in a child process with a timeout.
HANG_SECONDS = 60

READ_IN_CHILD = """
import json, sys, pgntools
print(json.dumps([{"tags": dict(g.tags), "status": g.status, "uci": g.uci,
                   "errors": [[e.kind, e.token, e.byte_offset] for e in g.errors]}
                  for g in pgntools.read_games(sys.argv[1])]))
"""


@contextmanager
def hang_guard():
    """Around one example's reading: a hang ends the process (a watchdog thread, so it works
    while the C loop holds no GIL and never returns to Python)."""
    faulthandler.dump_traceback_later(HANG_SECONDS, exit=True)
    try:
        yield
    finally:
        faulthandler.cancel_dump_traceback_later()


def read_in_child(path, timeout: float = 30) -> list:
    """read_games in another process, as JSON; a hang fails the test instead of stopping the run."""
    try:
        out = subprocess.run([sys.executable, "-c", READ_IN_CHILD, str(path)], capture_output=True, check=True,
                             timeout=timeout, text=True).stdout
    except subprocess.TimeoutExpired:
        pytest.fail(f"read_games did not finish within {timeout} s")
    return json.loads(out)


# ---------------------------------------------------------------- properties

# Each property runs a few seconds at most; a failure prints the smallest example found.
# PGNTOOLS_PROPERTY_EXAMPLES=5000 searches longer (the validate property gets a quarter).
EXAMPLES = int(os.environ.get("PGNTOOLS_PROPERTY_EXAMPLES", "150"))
PROPERTY = settings(max_examples=EXAMPLES, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
SLOW_PROPERTY = settings(PROPERTY, max_examples=max(1, EXAMPLES // 4))


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    return tmp_path_factory.mktemp("properties")


def check_records(games: list, size: int) -> None:
    """What every game record promises, whatever the input was."""
    end = 0
    for i, game in enumerate(games):
        assert game.index == i
        assert game.status in ("valid", "fixed", "invalid")
        assert (game.status == "invalid") == bool(game.errors)
        assert end <= game.offset and game.length >= 0 and game.offset + game.length <= size  # in order, apart
        end = game.offset + game.length
        assert game.ply_count == len(game.moves)
        assert all(e.kind in pgntools.reader.ERROR_KINDS for e in game.errors)
        assert all(e.byte_offset >= game.offset for e in game.errors)


# ---- any bytes through read_games

# Pieces of PGN (and of what breaks it) for inputs that reach further than random bytes do.
PGN_PIECES = [
    b'[Event "x"]', b'[Result "1-0"]', b'[Result "*"]', b'[FEN "', b"4k3/8/8/8/8/8/4P3/4K3 w - - 0 1",
    b'[SetUp "1"]', b'[Variant "Chess960"]', b'"]', b"[", b"]", b'"', b"\\", b"\n", b"\r\n", b"\n\n", b" ", b"\t",
    b"{", b"}", b"(", b")", b";", b"%", b"$1", b"$300", b"!?", b"1.", b"1...", b"e4", b"e5", b"Nf3", b"Nc6",
    b"O-O", b"0-0-0", b"e8=Q", b"exd6", b"e.p.", b"--", b"P@e4", b"1-0", b"0-1", b"1/2-1/2", b"*",
    b"[%clk 0:01:02.5]", b"[%eval #-3]", b"[%eval 0.25]", b"\x1a", b"\x00", b"\xef\xbb\xbf", b"\xe9", b"\xc3\xa9",
]
MAGICS = [b"", b"", b"", b"\x1f\x8b", b"BZh91AY&SY", b"\xfd7zXZ\x00", b"\x28\xb5\x2f\xfd"]
any_bytes = st.one_of(
    st.binary(max_size=2000),
    st.builds(lambda magic, pieces: magic + b"".join(pieces), st.sampled_from(MAGICS),
              st.lists(st.one_of(st.sampled_from(PGN_PIECES), st.binary(max_size=6)), max_size=300)),
)


@PROPERTY
@given(data=any_bytes)
def test_read_games_on_any_bytes(scratch, data):
    """Terminates (the watchdog ends a hang), raises nothing but documented errors, and every
    record keeps its promises."""
    path = write(scratch, data)
    try:
        with hang_guard():
            games = list(pgntools.read_games(str(path)))
    except pgntools.PgnToolsError:
        return  # e.g. InputError for a corrupt compressed stream
    check_records(games, len(data))


# ---- generated PGN: one game per tag section

TAG_NAMES = ["Site", "Date", "Round", "White", "Black", "Result", "WhiteElo", "ECO", "Annotator",
             "TimeControl", "Opening", "X_Custom-1"]
tag_value = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n\x85\u2028\u2029"),
                    max_size=20)
# Movetext tokens that may be wrong (illegal moves, stray characters, unclosed comments and
# variations) but never start a game: no '[' and no result marker mid-game.
MOVETEXT_TOKENS = st.one_of(
    st.sampled_from(["1.", "2...", "e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "O-O", "d4", "exd5", "Qxf7#", "e8=Q",
                     "h9", "Zz", "--", "$1", "!?", "(", ")", "{ a comment }", "{", "}", "; rest of line\n",
                     "\n", "\x01", "é"]),
    st.text(st.characters(whitelist_categories=("L", "N")), min_size=1, max_size=5).map(lambda w: "{" + w + "}"),
)


@st.composite
def pgn_games(draw):
    """(text, [tag lists]): games of well-formed tag sections and any movetext. Each section
    starts with Event: without it, tag-only games apart by blank lines would read as one game
    with blank lines in its tag section, which the reader accepts on purpose."""
    games, parts = [], []
    for _ in range(draw(st.integers(1, 6))):
        names = ["Event"] + draw(st.lists(st.sampled_from(TAG_NAMES), max_size=4, unique=True))
        tags = [(name, draw(tag_value)) for name in names]
        movetext = " ".join(draw(st.lists(MOVETEXT_TOKENS, max_size=30)))
        end = draw(st.sampled_from(["", " *", " 1-0", " 0-1", " 1/2-1/2"]))
        parts.append(tags_section(tags) + "\n" + movetext + end + "\n\n")
        games.append(tags)
    return "".join(parts), games


@PROPERTY
@given(generated=pgn_games(), padding=st.integers(0, 6000))
def test_one_game_per_tag_section(scratch, generated, padding):
    """As many games as tag sections, each with its tags as written (escapes undone), and the
    same records whatever the buffer size (a long comment up front makes the smallest one
    refill and grow across games)."""
    text, expected = generated
    data = ("{" + "x" * padding + "}\n\n" if padding else "").encode() + text.encode()
    path = write(scratch, data)
    with hang_guard():
        games = list(pgntools.read_games(str(path)))
        small = list(pgntools.read_games(str(path), buffer_size=4096))
    assert [g.tags for g in games] == expected
    check_records(games, len(data))
    assert [record(g) for g in small] == [record(g) for g in games]


# ---- FEN out, FEN in: positions reached by random legal moves


def chess960_start(draw) -> str:
    """A Chess960 start position: bishops on opposite colours, the king between the rooks."""
    squares = list(range(8))
    back = [""] * 8
    back[draw(st.sampled_from([0, 2, 4, 6]))] = "B"
    back[draw(st.sampled_from([1, 3, 5, 7]))] = "B"
    for piece in "QNN":
        back[draw(st.sampled_from([s for s in squares if not back[s]]))] = piece
    rest = [s for s in squares if not back[s]]
    for square, piece in zip(rest, "RKR"):
        back[square] = piece
    row = "".join(back)
    return f"{row.lower()}/pppppppp/8/8/8/8/PPPPPPPP/{row} w KQkq - 0 1"


@st.composite
def random_games(draw, max_plies: int = 120):
    """(start FEN, chess960, UCI moves): random legal moves from the start or a Chess960 start."""
    chess960 = draw(st.booleans())
    fen = chess960_start(draw) if chess960 else pgntools.Board().fen()
    board = pgntools.Board.from_fen(fen, chess960=chess960)
    moves = []
    for _ in range(draw(st.integers(0, max_plies))):
        legal = board.legal_moves()
        if not legal or board.outcome():
            break
        move = legal[draw(st.integers(0, len(legal) - 1))]
        board.push_uci(move)
        moves.append(move)
    return fen, chess960, moves


@PROPERTY
@given(game=random_games())
def test_fen_round_trip_after_random_moves(game):
    """After every move: FEN -> Board -> FEN is the identity in every style, and the SAN and
    UCI of the move read back as that move."""
    fen, chess960, moves = game
    board = pgntools.Board.from_fen(fen, chess960=chess960)
    for uci in moves:
        san = board.san(uci)
        check = board.copy()
        assert check.push_san(san) == uci and check.last_notes == []
        board.push_uci(uci)
        for style in ({}, {"en_passant": "fen"}, {"shredder": True}, {"en_passant": "fen", "shredder": True}):
            text = board.fen(**style)
            again = pgntools.Board.from_fen(text, chess960=chess960)
            assert again.fen(**style) == text
            if "en_passant" in style:  # this style keeps every en-passant square: the same position
                assert again == board


def test_fen_round_trip_agrees_with_python_chess():
    chess = pytest.importorskip("chess", reason="python-chess is the test oracle")

    @PROPERTY
    @given(game=random_games(max_plies=60))
    def check(game):
        fen, chess960, moves = game
        ours = pgntools.Board.from_fen(fen, chess960=chess960)
        theirs = chess.Board(fen, chess960=chess960)
        for uci in moves:
            ours.push_uci(uci)
            theirs.push(theirs.parse_uci(uci))  # (Chess960 castling as king takes rook, as ours)
            assert ours.fen() == theirs.fen()
            assert ours.fen(shredder=True) == theirs.fen(shredder=True)

    check()


# ---- validate's output, validated again

NAGS = ["$1", "$2", "$14", "!", "?!"]
# Comment words, some of which would mean something else at the start of a line or outside.
COMMENT_WORDS = st.one_of(
    st.text("abcxyz19é€", min_size=1, max_size=4),
    st.sampled_from(['[Event "x"]', '[Event', '"x"]', '[%clk', "0:01:00]", "%", ";", "{", "(", ")", "1-0", "*",
                     "e4", "$1", "\\", '"', "\n"]),
)


@st.composite
def pgn_of_random_games(draw):
    """A PGN file of random legal games written loosely: non-canonical notation (UCI, 0-0, no
    check marker), comments, NAGs, variations, and result markers that may need a fix."""
    out = []
    for index in range(draw(st.integers(1, 4))):
        fen, chess960, moves = draw(random_games(max_plies=60))
        board = pgntools.Board.from_fen(fen, chess960=chess960)
        tags = [("Event", f"game {index}"), ("White", draw(tag_value))]
        if chess960:
            tags += [("Variant", "Chess960"), ("SetUp", "1"), ("FEN", fen)]
        words = []
        for ply, uci in enumerate(moves):
            if ply % 2 == 0:
                words.append(f"{ply // 2 + 1}.")
            san = board.san(uci)
            loose = {"uci": uci, "bare": san.rstrip("+#"), "zeros": san.replace("O", "0")}
            words.append(loose.get(draw(st.sampled_from(["san", "san", "san", "uci", "bare", "zeros"])), san))
            if draw(st.integers(0, 9)) == 0:
                words.append(draw(st.sampled_from(NAGS)))
            if draw(st.integers(0, 3)) == 0:
                words.append("{" + " ".join(draw(st.lists(COMMENT_WORDS, max_size=60))) + "}")
            if ply and draw(st.integers(0, 19)) == 0:  # a one-move variation: another move from the same position
                before = board.copy()
                alternatives = [m for m in before.legal_moves() if m != uci]
                if alternatives:
                    words.append("( " + before.san(draw(st.sampled_from(alternatives))) + " )")
            board.push_uci(uci)
        result_tag = draw(st.sampled_from(["*", "1-0", "0-1", "1/2-1/2", None]))
        if result_tag:
            tags.append(("Result", result_tag))
        marker = draw(st.sampled_from(["*", "1-0", "0-1", "1/2-1/2", ""]))
        out.append(tags_section(tags) + "\n" + " ".join(words + [marker]) + "\n\n")
    return "".join(out)


@SLOW_PROPERTY
@given(text=pgn_of_random_games(), flags=st.sampled_from([[], ["--strip-comments"], ["--strip-variations"],
                                                           ["--reduced"]]))
def test_validate_output_validated_again_is_identical(scratch, text, flags):
    source, first, second = scratch / "in.pgn", scratch / "first.pgn", scratch / "second.pgn"
    source.write_text(text, encoding="utf-8")
    with hang_guard():
        cli_run(["validate", "--jobs", "1", "-o", str(first), *flags, str(source)])
        result = cli_run(["validate", "--jobs", "1", "-o", str(second), *flags, str(first)])
    assert result.exit_code == 0, result.stderr  # every game written is valid
    assert second.read_bytes() == first.read_bytes()
    claims = {"fifty_move_claimable", "threefold_claimable"}  # the only notes canonical output can have
    for game in pgntools.read_games(str(first)):
        assert game.status == "valid" and {n["kind"] for n in game.notes} <= claims


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
    # with --jobs 2 and small chunks, the parent's chunker reads the stream (pgntools/runner/chunks.py)
    result = cli_run(["validate", "--jobs", jobs, "--chunk-bytes", "64", str(path)])
    assert result.exit_code == 2
    # the summary of what was read before the damage, then the error, one line each
    lines = result.stderr.splitlines()
    assert len(lines) == 2 and lines[-1].startswith("pgntools: error: "), result.stderr


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


def test_added_setup_tag_sorts_before_longer_names_it_begins(tmp_path):
    # A FEN without SetUp gets SetUp "1" in the output, among the other tags in ASCII order;
    # it was put after a tag like "SetUpX" (a prefix sorts first), so the output's tags were
    # out of order and validating it again reordered them.
    source = write(tmp_path, '[Event "e"]\n[FEN "7k/5Q2/8/6K1/8/8/8/8 w - - 0 60"]\n[SetUpX "x"]\n\n'
                             "60. Kg6 1/2-1/2\n")
    first, second = tmp_path / "first.pgn", tmp_path / "second.pgn"
    assert cli_run(["validate", "--jobs", "1", "-o", str(first), str(source)]).exit_code == 0
    tags = [line for line in first.read_text().splitlines() if line.startswith("[")][7:]
    assert tags == ['[FEN "7k/5Q2/8/6K1/8/8/8/8 w - - 0 60"]', '[SetUp "1"]', '[SetUpX "x"]']
    assert cli_run(["validate", "--jobs", "1", "-o", str(second), str(first)]).exit_code == 0
    assert second.read_text() == first.read_text()


@pytest.mark.parametrize("sequence", [b"\xf6\xa4\xad\x8c", b"\xe0\x80\x80", b"\xf0\x80\x80\x80", b"\xed\xa0\x80",
                                      b"\xf4\x90\x80\x80"],
                         ids=["lead-f6", "overlong-3", "overlong-4", "surrogate", "past-10ffff"])
def test_bytes_python_does_not_decode_as_utf8_are_read_as_latin1(tmp_path, sequence):
    # The reader's UTF-8 check let these through (a lead byte past F4, overlong forms,
    # surrogates, code points past U+10FFFF), so the game was not re-read as Latin-1 and the
    # batch's strings failed to decode: read_games raised UnicodeDecodeError.
    text = b'[Event "' + sequence + b'"]\n[Result "*"]\n\n1. e4 {' + sequence + b"} e5 *\n"
    game, = read(tmp_path, text)
    # (read as Windows-1252, Latin-1 but for 80-9F; its 5 unassigned bytes as the C1 controls)
    windows_1252 = "".join(bytes([b]).decode("cp1252", "ignore") or chr(b) for b in sequence)
    assert game.headers["Event"] == windows_1252
    assert game.moves[0].comment == windows_1252
    assert [n["kind"] for n in game.notes] == ["latin1_encoding"] and game.status == "valid"
