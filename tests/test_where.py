"""The --where language (issue 18): its grammar, its errors (pointing at the character), SQL's
three-valued logic over unknown tag values, and each operator, on games written here."""
from __future__ import annotations

import pickle
import re
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from conftest import CHESS_REASON
from pgntools.reader import iter_batches
from pgntools.where import WhereError, compile_where, names

# Eight games, one per row of TAGS: (White, Black, WhiteElo, BlackElo, Date, TimeControl, Opening)
# (None: the tag is absent); the movetext decides result, status and ply_count.
TAGS = [
    ("Anna", "Boris", "2400", "2350", "2023.05.01", "180+2", "Sicilian"),
    ("Boris", "Carl", "2600", "2590", "2022.12.31", "600+0", None),
    ("carl", "Anna", "?", "2000", "2023.??.??", "-", "French"),
    ("Dora", "Eve", "1500", "abc", "????.??.??", "60+0", "?"),
    ("Eve", "Dora", None, "1800", None, "180+0", "Sicilian Defense"),
    ("Fritz", "Gus", "2800", "2810", "2024.02.29", "300+3", "Caro-Kann"),
    ("Gus", "O'Hara", "2000", "2100", "2023.01.01", "180+2", "Sicilian"),
    ("Hal", "Ida", "2100", "2100", "2023.06.??", "?", "English"),
]
MOVES = [
    "1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0",  # checkmate, 7 plies
    "1. d4 d5 1/2-1/2",
    "1. e4 e5 2. Ke3 0-1",                          # illegal: invalid
    "1. e4 c5 2. Nf3 *",
    "1. f3 e5 2. g4 Qh4# 0-1",
    "1. c4 1-0",
    "1. e4 e6 2. d4 d5 3. Nc3 Bb4 1/2-1/2",
    "1. Nf3 Nf6 *",
]
RESULTS = ["1-0", "1/2-1/2", "0-1", "*", "0-1", "1-0", "1/2-1/2", "*"]


def pgn_text() -> str:
    games = []
    for (white, black, welo, belo, date, tc, opening), moves, result in zip(TAGS, MOVES, RESULTS):
        tags = {"Event": "Test", "White": white, "Black": black, "Result": result, "WhiteElo": welo,
                "BlackElo": belo, "Date": date, "TimeControl": tc, "Opening": opening,
                "LichessId": f"id{len(games)}"}
        head = "".join(f'[{k} "{v}"]\n' for k, v in tags.items() if v is not None)
        games.append(head + "\n" + moves + "\n")
    return "\n".join(games)


@pytest.fixture(scope="module")
def pgn_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("where") / "games.pgn"
    path.write_text(pgn_text())
    return path


def kept(pgn_file, expression: str, batch_games: int = 1024):
    where = compile_where(expression)
    out = []
    needs = {k: v for k, v in where.needs.items() if k != "numbered"}  # (a run's need, not the reader's)
    for batch in iter_batches(str(pgn_file), batch_games=batch_games, **needs):
        out.extend(batch.game_id(g) for g in where.kept(batch))
    return out


CASES = [
    # comparisons on numbers; an unknown (?) or non-numeric rating and an absent tag are null
    ("white_elo >= 2400", [0, 1, 5]),
    ("white_elo < 2400", [3, 6, 7]),
    ("white_elo = 2100", [7]),
    ("white_elo != 2100", [0, 1, 3, 5, 6]),
    ("white_elo <> 2100", [0, 1, 3, 5, 6]),
    ("white_elo == 2100", [7]),
    ("black_elo is null", [3]),
    ("white_elo is null", [2, 4]),
    ("white_elo is not null", [0, 1, 3, 5, 6, 7]),
    ("not white_elo >= 2400", [3, 6, 7]),  # null stays null under NOT: games 2 and 4 are not kept
    ("white_elo >= 2400 or white_elo is null", [0, 1, 2, 4, 5]),
    ("white_elo >= 2400 and black_elo < 2600", [0, 1]),
    # arithmetic and abs()
    ("abs(white_elo - black_elo) <= 50", [0, 1, 5, 7]),
    ("white_elo - black_elo > 0", [0, 1]),
    ("(white_elo + black_elo) / 2 >= 2500", [1, 5]),
    ("white_elo * 2 = 4200", [7]),
    ("-white_elo < -2700", [5]),
    ("white_elo / 0 is null", [0, 1, 2, 3, 4, 5, 6, 7]),
    ("white_elo between 2000 and 2400", [0, 6, 7]),
    ("white_elo not between 2000 and 2400", [1, 3, 5]),
    ("white_elo in (1500, 2800)", [3, 5]),
    ("white_elo not in (1500, 2800)", [0, 1, 6, 7]),
    ("white_elo in (2100.0)", [7]),
    # strings; '?' and '-' are unknown, hence null
    ("white = 'Anna'", [0]),
    ("white in ('Anna', 'Eve')", [0, 4]),
    ("black = 'O''Hara'", [6]),
    ("time_control is null", [2, 7]),
    ("opening is null", [1, 3]),
    ("opening like 'Sicilian%'", [0, 4, 6]),
    ("opening not like 'Sicilian%'", [2, 5, 7]),
    ("opening like '_rench'", [2]),
    ("white ilike 'CARL'", [2]),
    ("white like 'Carl'", []),
    ("white ~ '^[A-C]'", [0, 1]),
    ("white !~ '^[A-C]'", [2, 3, 4, 5, 6, 7]),
    ("regexp_matches(time_control, '\\+[1-9]')", [0, 5, 6]),
    ("lower(white) = 'carl'", [2]),
    ("upper(white) = 'ANNA'", [0]),
    ("length(white) = 3", [4, 6, 7]),
    ("tags['LichessId'] = 'id3'", [3]),
    ("tags['Missing'] is null", [0, 1, 2, 3, 4, 5, 6, 7]),
    ("tags['WhiteElo'] = '?'", []),  # unknown is null, even through tags[]
    ("tags['White'] = 'Dora'", [3]),
    ("\"white\" = 'Dora'", [3]),  # a quoted name, as in SQL
    ("WHITE = 'Dora' AND Black_Elo IS NULL", [3]),  # keywords and names fold case
    # dates: '??' parts make an interval, an unknown year or an absent tag is null
    ("date >= '2023.01.01'", [0, 2, 5, 6, 7]),
    ("date < '2023.01.01'", [1]),
    ("date >= '2023.06.01'", [5, 7]),  # 2023.??.?? may be before or after: null
    ("date < '2023.06.01'", [0, 1, 6]),
    ("date = '2023.05.01'", [0]),
    ("date != '2023.05.01'", [1, 5, 6, 7]),  # 2023.??.?? may be that day: null
    ("date between '2023.01.01' and '2023.12.31'", [0, 2, 6, 7]),
    ("date in ('2023-01-01', '2024.02.29')", [5, 6]),
    ("date is null", [3, 4]),  # ????.??.?? is unknown
    ("date like '2023%'", [0, 2, 6, 7]),
    # replay fields
    ("result = '1-0'", [0, 5]),
    ("result_tag = '1-0'", [0, 5]),
    ("status = 'invalid'", [2]),
    ("status in ('valid', 'fixed')", [0, 1, 3, 4, 5, 6, 7]),
    ("outcome = 'checkmate'", [0, 4]),
    ("outcome is null", [1, 2, 3, 5, 6, 7]),
    ("ply_count >= 6", [0, 6]),
    ("game_id in (0, 7)", [0, 7]),
    # precedence: AND binds tighter than OR; parentheses
    ("white = 'Anna' or white = 'Boris' and black = 'X'", [0]),
    ("(white = 'Anna' or white = 'Boris') and black = 'Carl'", [1]),
    ("not not white = 'Anna'", [0]),
    ("1 = 1", [0, 1, 2, 3, 4, 5, 6, 7]),
    ("1 + 2 * 3 = 7", [0, 1, 2, 3, 4, 5, 6, 7]),
    # true and false, as in SQL: a condition compared with = or != (null stays null)
    ("true", [0, 1, 2, 3, 4, 5, 6, 7]),
    ("FALSE", []),
    ("outcome = 'checkmate' and true", [0, 4]),
    ("(outcome = 'checkmate') = true", [0, 4]),
    ("(outcome = 'checkmate') = false", []),  # outcome is null in the others: unknown, not false
    ("(ply_count >= 6) != true", [1, 2, 3, 4, 5, 7]),
]


@pytest.mark.parametrize("expression, expected", CASES)
def test_operator(pgn_file, expression, expected):
    assert kept(pgn_file, expression) == expected


def _final_keys(pgn_file) -> dict:
    """Each valid game's final Polyglot key, by python-chess (the oracle)."""
    chess_pgn = pytest.importorskip("chess.pgn", reason=CHESS_REASON)
    polyglot = pytest.importorskip("chess.polyglot", reason=CHESS_REASON)
    keys = {}
    with open(pgn_file) as handle:
        for index in range(len(MOVES)):
            game = chess_pgn.read_game(handle)
            if not game.errors:
                keys[index] = polyglot.zobrist_hash(game.end().board())
    return keys


def test_keys_compare_over_their_whole_range(pgn_file):
    """final_key is a uint64: keys above 2**63 (half of them) compare and equal, in decimal and hex,
    against thresholds on both sides of 2**63 and against negative numbers (issue 37)."""
    keys = _final_keys(pgn_file)
    assert any(k > 2 ** 63 for k in keys.values()) and any(k < 2 ** 63 for k in keys.values())
    thresholds = [-1, 0, 2 ** 63 - 1, 2 ** 63, 2 ** 64 - 1] + [k + d for k in keys.values() for d in (-1, 0, 1)]
    valid = "status != 'invalid' and "
    for t in thresholds:
        for op, holds in (("=", int.__eq__), ("<", int.__lt__), (">=", int.__ge__), ("!=", int.__ne__)):
            expected = [g for g, k in keys.items() if holds(k, t)]
            assert kept(pgn_file, f"{valid}final_key {op} {t}") == expected, (op, t)
            if 0 <= t < 2 ** 64:
                assert kept(pgn_file, f"{valid}final_key {op} {t:#x}") == expected, (op, hex(t))
                flipped = {"<": ">", ">=": "<="}.get(op, op)
                assert kept(pgn_file, f"{valid}{t} {flipped} final_key") == expected, (op, t)
    listed = sorted(keys.values())[::2]
    assert kept(pgn_file, f"final_key in ({', '.join(map(str, listed + [-5, 2 ** 64 - 1]))})") == \
        [g for g, k in keys.items() if k in listed]


@pytest.mark.parametrize("expression, message", [
    ("final_key + 1 > 2", "final_key is a 64-bit key: compare it"),
    ("-final_key < 0", "final_key is a 64-bit key"),
    ("white_elo + 10000000000000000000 > 1", "a number above 2**63 - 1 is only compared with a key"),
    ("final_key = 0x10000000000000000", "number too large (the largest is 0xffffffffffffffff"),
    ("final_key = 18446744073709551616", "number too large"),
])
def test_keys_are_compared_not_computed_with(expression, message):
    with pytest.raises(WhereError, match=re.escape(message)):
        compile_where(expression)


def test_a_huge_or_hex_number_against_a_rating(pgn_file):
    assert kept(pgn_file, "white_elo < 18446744073709551615") == kept(pgn_file, "white_elo is not null")
    assert kept(pgn_file, "white_elo = 0x834") == [7]  # 2100
    assert kept(pgn_file, "white_elo in (0x834, 18446744073709551615)") == [7]


def test_batches_of_one_game_select_the_same(pgn_file):
    for expression, expected in CASES[::5]:
        assert kept(pgn_file, expression, batch_games=1) == expected


def test_tag_only_or_replay():
    assert compile_where("white_elo > 2000 and date >= '2023.01.01' and tags['X'] = 'y'").tag_only
    for expression in ("result = '1-0'", "status = 'valid'", "ply_count > 3", "outcome is null",
                       "white = 'a' or ply_count > 3"):
        assert not compile_where(expression).tag_only


def test_names_are_the_games_columns():
    from pgntools.tables import schema

    declared = {c.name for c in schema.GAME_COLUMNS}
    assert set(names()) <= declared
    for name in ("white", "white_elo", "black_elo", "date", "eco", "time_control", "result", "result_tag",
                 "status", "ply_count", "outcome", "event", "site", "round"):
        assert name in names()
    assert {"tags", "errors"} & set(names()) == set()


def test_picklable():
    where = compile_where("white_elo > 2000")
    again = pickle.loads(pickle.dumps(where))
    assert again.text == where.text and again.checked == where.checked


ERRORS = [
    ("white_elo > 'abc'", "type mismatch: white_elo is a number, 'abc' is a string", 12),
    ("white = 3", "type mismatch: white is a string, 3 is a number", 8),
    ("WhiteElo > 2000", "unknown name WhiteElo: did you mean white_elo?", 0),
    ("whte = 'x'", "did you mean white or white_elo?", 0),
    ("nonsense = 1", "black, black_elo,", 0),
    ("white_elo >", "expected a value, found the end of the expression", 11),
    ("white_elo >= 2000 and", "expected a value", 21),
    ("(white_elo > 1", "expected ')'", 14),
    ("white_elo > 1)", "unexpected ')'", 13),
    ("white = 'x", "unterminated string", 8),
    ("white # 'x'", "unexpected character '#'", 6),
    ("status = 'vaild'", "status is one of valid, fixed, invalid", 9),
    ("outcome = 'mate'", "outcome is one of checkmate, stalemate", 10),
    ("white ~ '('", "invalid regular expression", 8),
    ("date > '2023'", "is not a date: write 'YYYY.MM.DD'", 7),
    ("date > white", "a date is compared with a date or a 'YYYY.MM.DD' string", 7),
    ("white", "the expression is a string, not a condition", 0),
    ("white_elo + 1", "the expression is a number, not a condition", 10),
    ("white_elo > 1 and white", "AND needs a condition, not a string", 18),
    ("abs(white)", "abs() needs a number, not a string", 4),
    ("abs(1, 2) = 1", "abs() takes 1 argument, not 2", 0),
    ("nope(1) = 1", "unknown function nope", 0),
    ("white like 3", "expected a pattern in single quotes", 11),
    ("white_elo in ()", "expected a number or a 'string', found ')'", 14),
    ("white_elo not = 3", "expected IN, BETWEEN, LIKE or ILIKE after NOT", 14),
    ("tags[White] = 'x'", "expected a tag name in single quotes", 5),
    ("white_elo > 99999999999999999999", "number too large", 12),
    ("", "empty expression", 0),
    ("(white_elo > 1) < (black_elo > 1)", "a condition compares only with = or !=", 11),
    ("1 = true", "a condition compares only with = or !=", 4),
    ("white - 1 > 0", "'-' needs numbers, not a string", 0),
]


@pytest.mark.parametrize("expression, message, pos", ERRORS)
def test_error_points_at_the_character(expression, message, pos):
    with pytest.raises(WhereError) as info:
        compile_where(expression)
    text = str(info.value)
    assert message in text
    assert info.value.pos == pos
    lines = text.split("\n")
    assert lines[1] == "  " + expression
    assert lines[2] == "  " + " " * pos + "^"


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("abcdeilnorstuwxz_ ()[]'\"=<>!~+-*/,.0123456789?%#")) | st.characters(),
               max_size=40))
def test_any_string_parses_or_fails_cleanly(expression):
    try:
        where = compile_where(expression)
    except WhereError as exc:
        assert str(exc).startswith("--where: ")
        assert exc.pos is None or 0 <= exc.pos <= len(expression)
    else:
        assert where.checked.tree.type == "bool"


WORDS = ["white", "white_elo", "black_elo", "date", "status", "tags['X']", "abs(", "(", ")", "and", "or", "not",
         "in", "between", "like", "is", "null", "=", "<", ">=", "!=", "+", "-", "*", "/", "~", "'2023.01.01'", "'a%'",
         "3", "2.5", ",", "ply_count"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(WORDS), max_size=12))
def test_any_word_sequence_parses_or_fails_cleanly(words):
    expression = " ".join(words)
    try:
        compile_where(expression)
    except WhereError as exc:
        assert 0 <= exc.pos <= len(expression)


def test_sample_is_by_game_id_and_the_fraction():
    from pgntools.where.sample import mix_one, sampled, threshold

    keep = sampled(1000, 20000, 0.1, seed=5).to_pylist()
    assert keep == [mix_one(1000 + i, 5) < threshold(0.1) for i in range(20000)]
    assert 1700 < sum(keep) < 2300  # about a tenth
    assert keep != sampled(1000, 20000, 0.1, seed=6).to_pylist()  # the seed matters
    assert all(sampled(0, 100, 1.0, seed=1).to_pylist()) and not any(sampled(0, 100, 0.0, seed=1).to_pylist())


def test_choose_limit_counts_across_batches(pgn_file):
    from pgntools.where import Choose

    choose = Choose("white_elo is not null", limit=4)
    chosen = []
    needs = {k: v for k, v in choose.needs.items() if k != "numbered"}  # (a parallel run's need)
    for batch in iter_batches(str(pgn_file), batch_games=2, **needs):
        chosen.extend(batch.game_id(g) for g in choose.kept(batch))
        if choose.done:
            break
    assert chosen == [0, 1, 3, 5]


@pytest.mark.parametrize("expression, expected", CASES)
def test_the_tag_filter_before_the_replay_selects_the_same(pgn_file, expression, expected):
    """With the reader's tag filter (games failing a tag conjunct are not replayed), the same games."""
    from pgntools.where import Choose

    choose = Choose(expression)
    needs = {k: v for k, v in choose.needs.items() if k != "numbered"}
    chosen = []
    for batch in iter_batches(str(pgn_file), **needs):
        chosen.extend(batch.game_id(g) for g in choose.kept(batch))
    assert chosen == expected


def test_games_failing_the_tag_filter_are_not_replayed(pgn_file):
    """Nor recorded: the reader counts them (filtered) and numbers the games it keeps between them."""
    from pgntools.where import Choose
    from pgntools.where.prefilter import C, tag_filter

    choose = Choose("white_elo >= 2400 and opening like 'Sic%' and date >= '2023.01.01'")
    assert [clause.op for clause in tag_filter(choose.where.checked)] == [C["GE"], C["LIKE"], C["AND"], C["GE"], C["AND"]]
    assert choose.decided
    batch = next(iter(iter_batches(str(pgn_file), **choose.needs)))
    assert (batch.n_games, batch.raw["filtered"], batch.games_read) == (1, 7, 8)
    assert list(batch.column("replayed")) == [1] and [batch.game_id(0)] == [0]
    assert choose.kept(batch) == [0]
    choose = Choose("white_elo < 2400")  # games 3, 6 and 7 pass; their ids stay
    batch = next(iter(iter_batches(str(pgn_file), **choose.needs)))
    assert (batch.n_games, batch.games_read) == (3, 8) and list(batch.ids) == [3, 6, 7]
    # a condition it cannot decide on tags (a replay field, arithmetic, a regular expression, an OR
    # with one of those) leaves games replayed
    for expression in ("ply_count > 3", "white_elo + 0 > 2400", "white ~ 'E'", "white_elo > 2400 or ply_count > 3",
                       "not (white = 'Eve' and ply_count > 3)"):
        assert "tag_filter" not in Choose(expression).needs


CLAUSES = ["white_elo >= 2400", "black_elo < 2100", "white_elo between 2000 and 2600", "2500 > black_elo",
           "white >= 'C'", "white < 'Eve'", "black = 'Anna'", "opening like 'Sic%'", "opening like 'Car%'",
           "date >= '2023.01.01'", "date > '2023.06.15'", "date < '2023.06.01'", "date <= '2023.06.30'",
           "date = '2023.05.01'", "date != '2023.05.01'", "date between '2023.01.01' and '2023.06.30'",
           "speed = 'blitz'", "(speed in ('bullet', 'blitz') or speed is null)", "not speed = 'correspondence'",
           "time_control != '180+2'", "opening is not null",
           "white_elo is not null", "white_elo > 2099.5", "result_tag = '1-0'", "eco like 'B%'"]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(CLAUSES), min_size=1, max_size=4))
def test_the_tag_filter_never_drops_a_game_the_expression_keeps(tmp_path_factory, clauses):
    """Any conjunction of tag clauses: the same games with the reader's tag filter as without."""
    from pgntools.where import Choose

    path = tmp_path_factory.getbasetemp() / "conjunctions.pgn"
    if not path.exists():
        path.write_text(pgn_text())
    expression = " and ".join(clauses)
    choose = Choose(expression)
    assert "tag_filter" in choose.needs
    with_filter = [batch.game_id(g) for batch in iter_batches(str(path), **choose.needs)
                   for g in choose.kept(batch)]
    assert with_filter == kept(path, expression)


from corpora_dir import CORPORA_DIR  # noqa: E402

CORPUS = CORPORA_DIR / "lichess" / "lichess-magnus-carlsen.pgn"


@pytest.mark.skipif(not CORPUS.exists(), reason="shared corpora not found")
@pytest.mark.parametrize("expression", [
    "white_elo >= 3000 and black_elo < 2900", "event like 'Rated Blitz%' and date >= '2020.04.15'",
    "time_control = '60+0' and white_elo is not null", "eco between 'B20' and 'B99' and result = '0-1'",
])
def test_the_tag_filter_on_real_games(expression):
    from pgntools.where import Choose

    choose = Choose(expression)
    assert "tag_filter" in choose.needs
    with_filter = [batch.game_id(g) for batch in iter_batches(str(CORPUS), **choose.needs)
                   for g in choose.kept(batch)]
    assert with_filter == kept(CORPUS, expression) and with_filter
