"""The scanner and game boundaries, observed through ``pgntools.read_games``.

Every input here is written by hand for this file; the expected values (game counts, moves as
UCI, byte offsets, line numbers, clock seconds) are worked out by hand from the input.
"""
from __future__ import annotations

import pytest

import pgntools
from pgn_helpers import kinds, note_kinds, read, read_one, write

# A few short games whose moves are easy to check by hand.
ITALIAN = "1. e4 e5 2. Nf3 Nc6 3. Bc4"
ITALIAN_UCI = ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4"]
QGD = "1. d4 d5 2. c4 e6"
QGD_UCI = ["d2d4", "d7d5", "c2c4", "e7e6"]


def game_text(event: str, moves: str = ITALIAN, result: str = "*", extra: str = "") -> str:
    return f'[Event "{event}"]\n[Result "{result}"]\n{extra}\n{moves} {result}\n'


# ---------------------------------------------------------------- game boundaries

def test_no_blank_line_between_games(tmp_path):
    data = (
        '[Event "one"]\n[Result "1-0"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bc4 1-0\n'
        '[Event "two"]\n[Result "0-1"]\n\n1. d4 d5 2. c4 e6 0-1\n'
        '[Event "three"]\n\n1. d4 d5 2. c4 e6 *\n'
    )
    games = read(tmp_path, data)
    assert [g.headers["Event"] for g in games] == ["one", "two", "three"]
    assert [g.uci for g in games] == [ITALIAN_UCI, QGD_UCI, QGD_UCI]
    assert [g.result for g in games] == ["1-0", "0-1", "*"]
    assert [g.index for g in games] == [0, 1, 2]


def test_next_tag_section_ends_a_game_without_termination_marker(tmp_path):
    data = '[Event "one"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bc4\n[Event "two"]\n\n1. d4 d5 2. c4 e6 *\n'
    one, two = read(tmp_path, data)
    assert one.uci == ITALIAN_UCI and one.result_marker is None
    assert one.headers == {"Event": "one"}
    assert two.uci == QGD_UCI and two.headers == {"Event": "two"}


def test_blank_lines_inside_the_tag_section(tmp_path):
    data = '[Event "e"]\n\n[Site "s"]\n\n\n[White "w"]\n[Black "b"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bc4 *\n'
    game = read_one(tmp_path, data)
    assert game.tags == [("Event", "e"), ("Site", "s"), ("White", "w"), ("Black", "b")]
    assert game.uci == ITALIAN_UCI


def test_two_blank_lines_between_tags_and_moves_is_one_game(tmp_path):
    # The master-games corpus has 39 games like this (python-chess splits each in two).
    data = '[Event "e"]\n[Result "1-0"]\n\n\n1. e4 e5 2. Nf3 Nc6 3. Bc4 1-0\n\n[Event "f"]\n\n1. d4 d5 2. c4 e6 *\n'
    first, second = read(tmp_path, data)
    assert first.headers == {"Event": "e", "Result": "1-0"}
    assert first.uci == ITALIAN_UCI and first.status == "valid"
    assert second.headers == {"Event": "f"} and second.uci == QGD_UCI


def test_comment_on_its_own_between_tags_and_moves_is_one_game(tmp_path):
    data = '[Event "e"]\n[Result "1/2-1/2"]\n\n{ Annotated by hand. }\n\n1. e4 e5 2. Nf3 Nc6 3. Bc4 1/2-1/2\n'
    game = read_one(tmp_path, data)
    assert game.headers["Event"] == "e"
    assert game.uci == ITALIAN_UCI and game.status == "valid"


@pytest.mark.parametrize("preamble", [
    "{A comment before the first game.}\n\n",
    "; a line comment before the first game\n",
    "% an escape line before the first game\n",
    "\n\n\n",
], ids=["brace-comment", "semicolon-comment", "escape-line", "blank-lines"])
def test_comment_before_the_first_tag(tmp_path, preamble):
    data = preamble + game_text("e")
    game = read_one(tmp_path, data)
    assert game.headers["Event"] == "e" and game.uci == ITALIAN_UCI
    assert game.offset == len(preamble.encode()) and game.status == "valid"


def test_text_before_the_first_tag_is_not_a_game(tmp_path):
    preamble = "Club championship 2024, all rounds\nExported by hand\n\n"
    data = preamble + game_text("e")
    games = read(tmp_path, data)
    assert [g.headers.get("Event") for g in games] == ["e"]
    assert games[0].uci == ITALIAN_UCI and games[0].offset == len(preamble)


def test_repeated_termination_marker_is_not_a_game(tmp_path):
    data = '[Event "e"]\n[Result "1-0"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bc4 1-0 1-0\n\n' + game_text("next", QGD)
    games = read(tmp_path, data)
    assert [g.headers.get("Event") for g in games] == ["e", "next"]


def test_games_with_no_tags(tmp_path):
    data = "1. e4 e5 2. Nf3 Nc6 3. Bc4 *\n\n1. d4 d5 2. c4 e6 1-0\n"
    first, second = read(tmp_path, data)
    assert first.tags == [] and first.uci == ITALIAN_UCI and first.result == "*"
    assert second.tags == [] and second.uci == QGD_UCI and second.result_marker == "1-0"
    assert "missing_result_tag" in note_kinds(second)


def test_tagless_games_on_consecutive_lines(tmp_path):
    # As pgn-extract's test files write them: one game per line, no blank lines, no tags.
    data = "e4 e5 Nf3 Nc6 Bc4 *\nd4 d5 c4 e6 *\nNf3 d5 *\n"
    games = read(tmp_path, data)
    assert [g.uci for g in games] == [ITALIAN_UCI, QGD_UCI, ["g1f3", "d7d5"]]
    assert all(g.status == "valid" for g in games)


def test_tags_and_movetext_on_one_line(tmp_path):
    data = '[Result "1-0"] e4 1-0\n[Result "0-1"] d4 0-1\n'
    games = read(tmp_path, data)
    assert [(g.headers, g.uci) for g in games] == [({"Result": "1-0"}, ["e2e4"]), ({"Result": "0-1"}, ["d2d4"])]


BROADCAST = (
    '[Event "Open"]\n[Round "1.1"]\n[White "A"]\n[Black "B"]\n[Result "1-0"]\n\n'
    '[Event "Open"]\n[Round "1.2"]\n[White "C"]\n[Black "D"]\n[Result "0-1"]\n\n'
    '[Round "1.3"]\n[White "E"]\n[Black "F"]\n[Result "1/2-1/2"]\n\n'
    '[Round "1.4"]\n[Event "Open"]\n[White "G"]\n[Black "H"]\n[Result "*"]\n\n1. d4 d5 2. c4 e6 *\n'
)


def test_tag_only_games_as_broadcasts_export_them(tmp_path):
    # Lichess broadcast exports: games without movetext, one tag section each. The third repeats
    # no Event (only Round) after a blank line, as edge/uzchesscup.pgn does.
    games = read(tmp_path, BROADCAST)
    assert [g.headers["Round"] for g in games] == ["1.1", "1.2", "1.3", "1.4"]
    assert [g.headers["White"] for g in games] == ["A", "C", "E", "G"]
    assert [g.ply_count for g in games] == [0, 0, 0, 4]
    assert [g.result for g in games] == ["1-0", "0-1", "1/2-1/2", "*"]
    assert games[3].uci == QGD_UCI
    assert all(g.status != "invalid" for g in games)
    assert [g.offset for g in games] == [BROADCAST.index('[Event "Open"]\n[Round "1.1"]'),
                                         BROADCAST.index('[Event "Open"]\n[Round "1.2"]'),
                                         BROADCAST.index('[Round "1.3"]'),
                                         BROADCAST.index('[Round "1.4"]')]


def test_tag_section_after_a_blank_line_starts_a_new_game_from_its_first_tag(tmp_path):
    # The second section begins with Event, which the tag-only game before it lacks; its Round and
    # White repeat. The new game starts at the first tag after the blank line, not at the repeat.
    data = '[Round "1"]\n[White "A"]\n\n[Event "E"]\n[Round "2"]\n[White "B"]\n\n1. e4 *\n'
    games = read(tmp_path, data)
    assert [g.tags for g in games] == [[("Round", "1"), ("White", "A")],
                                       [("Event", "E"), ("Round", "2"), ("White", "B")]]
    assert [g.uci for g in games] == [[], ["e2e4"]]
    assert games[1].offset == data.index('[Event "E"]')
    assert all("duplicate_tag" not in note_kinds(g) for g in games)


def test_tag_only_game_at_end_of_file(tmp_path):
    data = game_text("first") + '\n[Event "last"]\n[Result "1-0"]\n'
    first, last = read(tmp_path, data)
    assert first.uci == ITALIAN_UCI
    assert last.headers == {"Event": "last", "Result": "1-0"}
    assert last.ply_count == 0 and last.uci == [] and last.result == "1-0"
    assert last.status != "invalid"


def test_last_game_cut_off_at_end_of_file(tmp_path):
    data = game_text("whole", QGD) + '\n[Event "cut"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bc4'
    whole, cut = read(tmp_path, data)
    assert whole.uci == QGD_UCI and whole.status == "valid"
    assert cut.headers == {"Event": "cut"}
    assert cut.uci == ITALIAN_UCI
    assert cut.result_marker is None and cut.result == "*"
    assert cut.status != "invalid"


@pytest.mark.parametrize("tail, kind", [
    ("1. e4 e5 {the comment was cut", "unterminated_comment"),
    ("1. e4 e5 (2. Nf3", "unterminated_variation"),
])
def test_last_game_cut_inside_a_comment_or_variation(tmp_path, tail, kind):
    data = game_text("whole", QGD) + '\n[Event "cut"]\n\n' + tail
    whole, cut = read(tmp_path, data)
    assert whole.status == "valid"
    assert cut.status == "invalid" and kind in kinds(cut)
    assert cut.uci[:2] == ["e2e4", "e7e5"]


# ---------------------------------------------------------------- encodings and line ends

BOM = b"\xef\xbb\xbf"


def test_utf8_bom_at_start_and_in_the_middle(tmp_path):
    one = game_text("Müller").encode()
    two = game_text("two", QGD).encode()
    data = BOM + one + BOM + two  # two files concatenated, each with its BOM
    first, second = read(tmp_path, data)
    assert first.headers["Event"] == "Müller" and second.headers["Event"] == "two"
    assert first.uci == ITALIAN_UCI and second.uci == QGD_UCI
    assert first.offset == 3 and data[first.offset:first.offset + 1] == b"["
    assert second.offset == len(BOM + one + BOM)
    assert first.status == second.status == "valid"
    assert "latin1_encoding" not in note_kinds(first)


@pytest.mark.parametrize("newline", ["\r\n", "\r"], ids=["CRLF", "CR"])
def test_crlf_and_lone_cr_line_ends(tmp_path, newline):
    text = (
        '[Event "one"]\n[White "W"]\n\n1. e4 e5\n2. Nf3 Nc6 {a\ncomment} 3. Bc4 *\n\n'
        '[Event "two"]\n\n1. d4 d5\n2. Ke3 *\n'
    )
    data = text.replace("\n", newline).encode()
    one, two = read(tmp_path, data)
    assert one.tags == [("Event", "one"), ("White", "W")]
    assert one.uci == ITALIAN_UCI and one.moves[3].comment.replace("\r\n", "\n").replace("\r", "\n") == "a\ncomment"
    assert two.offset == data.index(b'[Event "two"]') and two.line == 8
    error = two.errors[0]
    assert (error.kind, error.ply, error.token) == ("illegal_move", 3, "Ke3")
    assert error.line == 11 and error.column == 4 and error.byte_offset == data.index(b"Ke3")


@pytest.mark.parametrize("newline", ["\n", "\r\n"], ids=["LF", "CRLF"])
@pytest.mark.parametrize("blank", ["", " ", "\t"], ids=["empty", "space", "tab"])
@pytest.mark.parametrize("blank_lines", [1, 2, 3])
@pytest.mark.parametrize("buffer_size", [1 << 20, 4096])
def test_blank_lines_before_tags_and_movetext(tmp_path, newline, blank, blank_lines, buffer_size):
    """Runs of empty lines before a game's first tag, inside its tag section and before its
    movetext are read in the tag line's one pass; a space or a tab on them takes the scanner's
    long way. The games, and where their errors are, must not tell the two apart (200 games:
    some across a small buffer's refills)."""
    gap = (blank + "\n") * blank_lines
    game = (gap + '[Event "e"]\n[White "W"]\n' + gap + '[Black "B"]\n' + gap +
            "1. e4 { [%clk 0:01:00] } e5 2. Nf3 Nc6 3. Bc4 4. Ke3 *\n")
    data = (game * 200).replace("\n", newline).encode()
    games = read(tmp_path, data, buffer_size=buffer_size)
    assert len(games) == 200
    lines_a_game = 3 * blank_lines + 4
    for n, g in enumerate(games):
        assert g.tags == [("Event", "e"), ("White", "W"), ("Black", "B")] and g.uci == ITALIAN_UCI
        assert g.line == n * lines_a_game + blank_lines + 1
        error = g.errors[0]
        assert (error.kind, error.ply, error.token) == ("illegal_move", 6, "Ke3")
        assert error.line == (n + 1) * lines_a_game and error.column == 50
        assert data[error.byte_offset:error.byte_offset + 3] == b"Ke3"


def test_latin1_game_is_decoded_and_noted(tmp_path):
    latin = ('[Event "Café"]\n[White "Müller, Jörg"]\n[Black "Ñúñez"]\n\n'
             '1. e4 {très bien} e5 2. Nf3 Nc6 3. Bc4 *\n\n').encode("latin-1")
    utf8 = '[Event "Straße"]\n\n1. d4 d5 2. c4 e6 *\n'.encode("utf-8")
    one, two = read(tmp_path, latin + utf8)
    assert one.headers == {"Event": "Café", "White": "Müller, Jörg", "Black": "Ñúñez"}
    assert one.moves[0].comment == "très bien"
    assert one.uci == ITALIAN_UCI and one.status == "valid"
    assert "latin1_encoding" in note_kinds(one)
    assert two.headers == {"Event": "Straße"} and "latin1_encoding" not in note_kinds(two)
    assert two.offset == len(latin)


# ---------------------------------------------------------------- movetext tokens

def test_percent_escape_lines_are_ignored(tmp_path):
    data = '% header written by a program\n[Event "e"]\n\n1. e4 e5\n% 2. d4 ignored\n2. Nf3 Nc6 3. Bc4 *\n'
    game = read_one(tmp_path, data)
    assert game.uci == ITALIAN_UCI
    assert game.offset == data.index("[") and game.line == 2


def test_semicolon_comments_run_to_end_of_line(tmp_path):
    data = '[Event "e"]\n\n1. e4 ; a comment with 1. d4 and { in it\ne5 2. Nf3 Nc6 3. Bc4 *\n'
    game = read_one(tmp_path, data)
    assert game.uci == ITALIAN_UCI and game.status == "valid"
    assert game.moves[0].comment == "a comment with 1. d4 and { in it"


def test_multiline_brace_comments(tmp_path):
    data = ('[Event "e"]\n\n1. e4 {first line\nsecond line (not a variation) 2. d4\n; not a line comment\n'
            '[not a tag] last line} e5 2. Nf3 Nc6 3. Bc4 4. Ke3 *\n')
    game = read_one(tmp_path, data)
    assert game.uci == ITALIAN_UCI
    assert game.moves[0].comment == ("first line\nsecond line (not a variation) 2. d4\n; not a line comment\n"
                                     "[not a tag] last line")
    error = game.errors[0]  # Ke3 is black's move here: illegal, located after the comment
    assert (error.kind, error.ply, error.token) == ("illegal_move", 6, "Ke3")
    assert error.line == 6 and error.byte_offset == data.encode().index(b"Ke3")


# (comment text, its text as read, line ends in it): one-line comments without braces inside end
# on the tokenizer's short cut; the others on the full comment scan (nesting, line ends)
COMMENT_SHAPES = [
    ("{one line}", "one line", 0), ("{}", "", 0), ("{ [%eval 0.3] [%clk 0:01:00] }", "[%eval 0.3] [%clk 0:01:00]", 0),
    ("{" + "x" * 40 + "}", "x" * 40, 0), ("{two\nlines}", "two\nlines", 1), ("{crlf\r\nends}", "crlf\r\nends", 1),
    ("{lone\rcr}", "lone\rcr", 1), ("{outer {inner} outer}", "outer {inner} outer", 0),
    ("{a stray { brace}", "a stray { brace", 0),
    # bytes outside ' '..'z' that end no comment (the short cut looks again from them)
    ("{tab\there}", "tab\there", 0), ("{très bien | ~ 0:01}", "très bien | ~ 0:01", 0),
    ("{" + "é" * 20 + "}", "é" * 20, 0), ("{" + "x" * 20 + "\t{inner}}", "x" * 20 + "\t{inner}", 0),
]


@pytest.mark.parametrize("comment, text, line_ends", COMMENT_SHAPES)
@pytest.mark.parametrize("buffer_size", [1 << 20, 4096])
def test_comment_shapes_after_a_move(tmp_path, comment, text, line_ends, buffer_size):
    """Each shape of comment after each move of 500 games (some of them across a small buffer's
    refills): the comment's text, the moves after it, and the line of an error after it."""
    game = f'[Event "e"]\n\n1. e4 {comment} e5 {comment} 2. Nf3 {comment} Nc6 {comment} 3. Bc4 {comment} 4. Ke3 *\n\n'
    path = write(tmp_path, (game * 500).encode(), "games.pgn")
    games = list(pgntools.read_games(str(path), buffer_size=buffer_size))
    assert len(games) == 500
    for n, g in enumerate(games):
        assert g.uci == ITALIAN_UCI and [m.comment for m in g.moves] == [text] * 5
        error = g.errors[0]  # Ke3 is black's move here: illegal, located after the comments
        assert (error.kind, error.ply, error.token) == ("illegal_move", 6, "Ke3")
        assert error.line == 3 + n * (4 + 5 * line_ends) + 5 * line_ends


def test_nested_variations(tmp_path):
    data = ('[Event "e"]\n\n1. e4 (1. d4 d5 (1... Nf6 2. c4 (2. Nf3)) 2. c4) 1... e5 '
            '2. Nf3 (2. f4 exf4 (2... d5 3. exd5) 3. Nf3) 2... Nc6 3. Bc4 *\n')
    game = read_one(tmp_path, data)
    assert game.uci == ITALIAN_UCI and game.status == "valid"


def test_illegal_move_in_a_variation_makes_the_game_invalid(tmp_path):
    data = '[Event "e"]\n\n1. e4 e5 2. Nf3 (2. Ke3 Nc6) 2... Nc6 3. Bc4 *\n'
    game = read_one(tmp_path, data)
    assert game.status == "invalid"
    error = game.errors[0]
    assert (error.kind, error.ply, error.token) == ("illegal_move", 3, "Ke3")


def test_nags_and_suffix_annotations(tmp_path):
    data = '[Event "e"]\n\n1. e4! e5? 2. Nf3!! Nc6?? 3. Bc4!? Bc5?! 4. c3 $14 $1 Nf6 $255 *\n'
    game = read_one(tmp_path, data)
    assert [m.nags for m in game.moves] == [[1], [2], [3], [4], [5], [6], [14, 1], [255]]
    assert game.san == ["e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5", "c3", "Nf6"]
    assert game.status == "valid"


@pytest.mark.parametrize("movetext", [
    "12. e4 12... e5 13. Nf3 13... Nc6 14. Bc4",
    "1.e4 e5 2.Nf3 Nc6 3.Bc4",
    "1.e4 1...e5 2.Nf3 2...Nc6 3.Bc4",
    "1. e4 e5 2. Nf3 Nc6 3. Bc4",
    "e4 e5 Nf3 Nc6 Bc4",
], ids=["numbered-from-12", "glued", "glued-black", "spaced", "no-numbers"])
def test_move_numbers(tmp_path, movetext):
    game = read_one(tmp_path, f'[Event "e"]\n\n{movetext} *\n')
    assert game.uci == ITALIAN_UCI and game.status == "valid"


def test_periods_apart_from_the_move_number(tmp_path):
    data = ('[FEN "r1bqk1nr/pppp1ppp/2n5/4p3/1bB1P3/2P2N2/P2P1PPP/RNBQK2R b KQkq - 0 1"]\n[SetUp "1"]\n\n'
            '1. ... Ba5 2. O-O d6 *\n')
    game = read_one(tmp_path, data)
    assert game.uci == ["b4a5", "e1g1", "d7d6"] and game.status == "valid"


def test_unterminated_comment_does_not_swallow_the_next_game(tmp_path):
    data = ('[Event "one"]\n\n1. e4 e5 {this comment is never closed\n2. Nf3 Nc6\n\n'
            '[Event "two"]\n[Result "1-0"]\n\n1. d4 d5 2. c4 e6 1-0\n')
    one, two = read(tmp_path, data)
    assert one.status == "invalid" and "unterminated_comment" in kinds(one)
    assert one.errors[0].line == 3
    assert two.headers == {"Event": "two", "Result": "1-0"}
    assert two.uci == QGD_UCI and two.status == "valid"
    assert two.offset == data.index('[Event "two"]') and two.line == 6


def test_tag_value_escapes_are_undone(tmp_path):
    data = '[Event "He said \\"hi\\" \\\\o/"]\n[Site "C:\\\\games\\\\"]\n[Annotator "\\\\\\""]\n\n1. e4 *\n'
    game = read_one(tmp_path, data)
    assert game.headers == {"Event": 'He said "hi" \\o/', "Site": "C:\\games\\", "Annotator": '\\"'}
    assert game.uci == ["e2e4"]


def test_duplicate_tags_first_wins_and_is_noted(tmp_path):
    data = '[Event "e"]\n[White "first"]\n[Black "b"]\n[White "second"]\n[Result "1-0"]\n\n1. e4 1-0\n'
    game = read_one(tmp_path, data)
    assert game.tags == [("Event", "e"), ("White", "first"), ("Black", "b"), ("Result", "1-0")]
    assert "duplicate_tag" in note_kinds(game)


# ---------------------------------------------------------------- offsets and lines

def test_byte_offsets_and_lines_point_at_each_games_first_byte(tmp_path):
    parts = [
        b"% produced by hand\n\n",
        b'[Event "g0"]\n[Result "1-0"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bc4 1-0\n',
        b'[Event "g1"]\n\n1. d4 d5 2. c4 e6 *\n\n\n\n',
        b'{between games}\n\n',
        b'[Event "g2"]\r\n\r\n1. e4 e5 *\r\n\r\n',
        BOM + b'[Event "g3"]\n\n1. d4 {caf\xc3\xa9} d5 *\n',
        b"1. e4 e5 *\n\n",  # g4: no tags
        b'[Event "g5"]\n\n1. e4 {' + b"x" * 300_000 + b'} e5 *\n\n',
        b'[Event "g6"]\n\n1. d4 d5 2. c4 *',
    ]
    data = b"".join(parts)
    games = read(tmp_path, data, buffer_size=4096)  # small buffer: offsets survive refills
    expected = [data.index(b'[Event "g%d"]' % i) for i in (0, 1, 2, 3)]
    expected.append(data.index(b"1. e4 e5 *\n\n", expected[-1]))
    expected += [data.index(b'[Event "g5"]'), data.index(b'[Event "g6"]')]
    assert [g.offset for g in games] == expected
    for game in games:
        assert data[game.offset:game.offset + 1] in (b"[", b"1")
        assert game.line == data[:game.offset].replace(b"\r\n", b"\n").count(b"\n") + 1
        span = data[game.offset:game.offset + game.length]
        assert span.rstrip().endswith((b"1-0", b"*")), span[-20:]
    assert [g.index for g in games] == list(range(7))
    assert all(g.status != "invalid" for g in games)


# ---------------------------------------------------------------- sizes

def test_five_megabyte_comment(tmp_path):
    comment = ("0123456789 " * 460_000)[:5_000_000]
    data = f'[Event "big"]\n\n1. e4 {{{comment}}} e5 2. Nf3 Nc6 3. Bc4 *\n\n' + game_text("next", QGD)
    big, nxt = read(tmp_path, data)
    assert big.uci == ITALIAN_UCI and big.status == "valid"
    assert big.moves[0].comment == comment.strip()
    assert nxt.uci == QGD_UCI and nxt.offset == data.index('[Event "next"]')


def test_one_megabyte_tag_value(tmp_path):
    value = "v" * 1_000_000
    data = f'[Event "e"]\n[Annotator "{value}"]\n\n1. d4 d5 2. c4 e6 *\n\n' + game_text("next")
    big, nxt = read(tmp_path, data)
    assert big.headers["Annotator"] == value and big.uci == QGD_UCI
    assert nxt.uci == ITALIAN_UCI


def test_game_over_the_size_limit_is_an_error_of_that_game_only(tmp_path):
    data = (game_text("before", QGD) + "\n" + '[Event "huge"]\n\n1. e4 {' + "x" * 300_000 + "} e5 *\n\n"
            + game_text("after"))
    games = read(tmp_path, data, buffer_size=4096, max_game_size=65536)
    assert len(games) == 3 and games[0].headers["Event"] == "before" and games[2].headers["Event"] == "after"
    assert [g.status for g in games] == ["valid", "invalid", "valid"]
    assert kinds(games[1]) == ["game_too_large"]
    assert games[1].offset == data.index('[Event "huge"]')
    assert games[2].uci == ITALIAN_UCI and games[2].offset == data.index('[Event "after"]')


def test_ten_thousand_nested_variations(tmp_path):
    depth = 10_000
    data = ('[Event "deep"]\n\n1. e4 ' + "( 1. d4 " * depth + ")" * depth + " 1... e5 2. Nf3 Nc6 3. Bc4 *\n\n"
            + game_text("next", QGD))
    deep, nxt = read(tmp_path, data, pgn=True)
    assert deep.uci == ITALIAN_UCI and deep.status == "valid"
    assert deep.pgn.count("(") == depth and deep.pgn.count(")") == depth
    assert nxt.uci == QGD_UCI


# ---------------------------------------------------------------- clocks and evaluations

def test_clock_emt_and_eval_annotations(tmp_path):
    data = ('[Event "e"]\n\n'
            '1. e4 {[%clk 1:02:03.4]} e5 {[%emt 0:00:05] [%eval 0.35]} '
            '2. Nf3 {[%eval -1.61] [%clk 0:59:58]} Nc6 {a remark [%eval #-3] more} '
            '3. Bc4 { [%eval #4] [%emt 1:00] } Bc5 {[%clk 0:00:00.25]} 4. c3 *\n')
    game = read_one(tmp_path, data)
    clk = [m.clock for m in game.moves]
    assert clk[0] == pytest.approx(3723.4) and clk[2] == pytest.approx(3598) and clk[5] == pytest.approx(0.25)
    assert clk[1] is None and clk[3] is None and clk[4] is None and clk[6] is None
    assert game.moves[1].emt == pytest.approx(5) and game.moves[4].emt == pytest.approx(60)
    assert [m.eval_cp for m in game.moves] == [None, 35, -161, None, None, None, None]
    assert [m.eval_mate for m in game.moves] == [None, None, None, -3, 4, None, None]
    assert game.moves[3].comment == "a remark [%eval #-3] more"
    assert game.moves[6].comment is None


# ---------------------------------------------------------------- `pgntools scan`

def test_scan_counts_games_without_replay(tmp_path):
    from pgn_helpers import cli_run

    data = (BROADCAST + "\n" + "e4 e5 *\nd4 d5 *\n" + '[Event "x"]\n\n1. e4 Ke3 *\n'
            + "{stray comment between games}\n\n" + '[Event "cut"]\n\n1. d4 d5 2. c')
    path = write(tmp_path, data)
    result = cli_run(["scan", str(path)])
    assert result.exit_code == 0
    assert result.stdout.strip() == "8"  # 4 broadcast games, 2 one-line games, the illegal one, the cut one
    assert len(read(tmp_path, data)) == 8


def test_scan_agrees_with_the_reader_on_the_corpora():
    from pgn_helpers import cli_run, corpus_files, require_corpora

    require_corpora()
    for path in corpus_files():
        count = sum(1 for _ in pgntools.read_games(str(path), moves=False, comments=False, final_fen=False))
        result = cli_run(["scan", str(path)])
        assert result.exit_code == 0 and int(result.stdout) == count, path
