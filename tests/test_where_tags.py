"""The reader's tag filter decides any tag-only --where condition before the replay (issue 18):
`in (...)`, every LIKE / ILIKE pattern, `tags['Name']`, `between`, and `and` / `or` / `not` of
them, in SQL's three-valued logic. Checked against the batch evaluator alone (pgntools.where's
Where, which never filters before the replay) on games written here with hostile tag values, on
random expressions (hypothesis), on every corpus file, and through the real command line
(byte-identical output to the path that decides nothing before the replay, for --jobs 1 and 2).
A condition that also reads the replay is decided in part: the reader only drops games the whole
condition drops, and the evaluator decides the rest."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from conftest import corpus_id, corpus_pgn_files
from pgntools.reader import iter_batches
from pgntools.where import Choose, compile_where
from test_parallel import CORPORA, assert_same_outputs, corpus_sample

REPO = Path(__file__).resolve().parents[1]

# Tag values that test the rules: nulls ("", "?", "-", absent), case (k and s have a non-ASCII
# case form: U+212A, U+017F), LIKE's own characters, non-ASCII text, numbers and dates of every form.
VALUES = [None, "", "?", "-", "a", "A", "ab", "aB", "Ab", "k", "K", "\u212a", "s", "S", "\u017f", "é", "É",
          "a%b", "a_b", "a\\b", "\\", "%", "_", "x\u212ay", "Straße", "ß", "日本", "Aronian,L", "O'Hara",
          "2023.01.01", "2023.??.??", "????.??.??", "2023.05.??", "2023.??.15", "2023.1.1", "1000", "2500",
          "0", "0001", "999999999", "1234567890", "2500x", " 2500", "+2500", "-5", "180+2", "60+0"]
FIELDS = ("White", "Black", "Event", "WhiteElo", "BlackElo", "Date", "Annotator", "Round")


def quoted(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def hostile_pgn() -> str:
    games = []
    n = len(VALUES)
    for i in range(2 * n):
        tags = {field: VALUES[(i * (2 * k + 1) + k * k) % n] for k, field in enumerate(FIELDS)}
        tags["TimeControl"] = ["180+2", "60+0", "-", None, "900+10", "15+0"][i % 6]
        head = "".join(f"[{k} {quoted(v)}]\n" for k, v in tags.items() if v is not None)
        games.append(head + "\n" + ["1. e4 e5 *", "1. d4 d5 2. c4 1-0", "1. e4 e5 2. Ke3 0-1"][i % 3] + "\n")
    return "\n".join(games)


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("tags") / "hostile.pgn"
    path.write_text(hostile_pgn(), encoding="utf-8")
    return path


def with_filter(path: Path, expression: str, **options):
    """The games kept by the selection of a run: the reader's tag filter, then (unless it decides
    the whole condition) the evaluator on the games it kept."""
    choose = Choose(expression)
    needs = {k: v for k, v in choose.needs.items() if k != "numbered"}
    return [b.game_id(g) for b in iter_batches(str(path), **needs, **options) for g in choose.kept(b)]


def evaluated(path: Path, expression: str, **options):
    """The games the batch evaluator alone keeps (every game read and recorded)."""
    where = compile_where(expression)
    needs = {k: v for k, v in where.needs.items() if k != "numbered"}
    return [b.game_id(g) for b in iter_batches(str(path), **needs, **options) for g in where.kept(b)]


def pgntools(*args):
    return subprocess.run([sys.executable, "-m", "pgntools", *map(str, args)], cwd=REPO, capture_output=True)


# ---------------------------------------------------------------- chosen expressions

DECIDED = [
    "white in ('Aronian,L', 'a', 'K', 'é')", "white not in ('a', 'A')", "event like '%a%'", "event like '%\\%'",
    "event like 'a\\%'", "event like '%\\b%'", "event like 'a\\\\b'", "white like '_'", "white like '__'",
    "white like '%b'", "white like 'A%b'", "white like '%'", "white like ''", "white ilike 'k'",
    "white ilike '%S%'", "white ilike 'a_'", "black not ilike '%k%'", "tags['Annotator'] = 'a'",
    "tags['Annotator'] is not null", "tags['Annotator'] is null", "tags['Annotator'] like '%a%'",
    "tags['White'] = 'a'", "tags['Nope'] is null", "not tags['Annotator'] in ('a', 'ab')",
    "white_elo between 1000 and 2500", "white_elo not between 1000 and 2500", "white_elo in (0, 2500, 1000.0)",
    "black_elo in (2500.5, 1)", "white_elo >= 2500 or black_elo >= 2500", "not (white_elo < 1000)",
    "white_elo > 999999998.5", "black_elo < 99999999999", "date in ('2023.01.01', '2023.05.20')",
    "date between '2023.01.01' and '2023.06.30'", "not date between '2023.01.01' and '2023.06.30'",
    "not (date >= '2023.05.01')", "date like '2023%'", "date is null", "date is not null and not (date = '2023.01.01')",
    "round between 'a' and 'b'", "not (event like 'a%' or white = 'A')", "speed = 'blitz' or white = 'a'",
    "not (speed like 'b%' and white_elo > 100)", "(speed is null) = true or white = 'a'", "true", "false or white = 'a'",
    "1 = 1 and not white = 'a'", "not (not (white = 'a') or black is null)",
]


@pytest.mark.parametrize("expression", DECIDED)
def test_the_reader_alone_decides_tag_conditions_as_the_evaluator(hostile, expression):
    choose = Choose(expression)
    if "= true" not in expression:  # (a condition compared with true: the evaluator's)
        assert choose.decided and "tag_filter" in choose.needs, expression
    assert with_filter(hostile, expression) == evaluated(hostile, expression)
    assert with_filter(hostile, expression, batch_games=7) == evaluated(hostile, expression)


PARTIAL = [  # (a replay field, a regular expression, arithmetic, two columns: the evaluator's part)
    "white = 'a' and ply_count > 2", "not (white like 'A%' and ply_count > 2)", "white ~ 'a' and black = 'A'",
    "(white_elo > 2000 or ply_count > 2) and black_elo > 500", "white_elo + 0 > 2000 and event like '%a%'",
    "not (not (ply_count > 2 and event like '%a%') and white_elo > 1000)", "white = black or white = 'a'",
    "white ilike 'é%' and black is not null", "status = 'valid' or not (white = 'a' or black = 'a')",
]


@pytest.mark.parametrize("expression", PARTIAL)
def test_a_condition_on_the_replay_too_is_decided_in_part(hostile, expression):
    choose = Choose(expression)
    assert not choose.decided
    assert with_filter(hostile, expression) == evaluated(hostile, expression)


def test_what_the_reader_cannot_decide_leaves_the_games_replayed():
    for expression in ("white = 'a' or ply_count > 2", "not (white = 'a' and ply_count > 2)", "white ~ 'a'",
                       "lower(white) = 'a'", "white = black"):
        assert "tag_filter" not in Choose(expression).needs, expression
    # the necessary part of a nested condition still drops games: (not (x and u) and y) is false
    # when x is false and y true; its negation is then true, whatever the unknown u
    assert "tag_filter" in Choose("not (not (ply_count > 2 and event = 'a') and white = 'b')").needs


# ---------------------------------------------------------------- null semantics, through the CLI

NULLS = [{"White": "x", "Annotator": "A"}, {"White": "y"}, {}, {"White": "?"}, {"White": "-"}, {"White": ""},
         {"White": "x", "Annotator": "?"}]


@pytest.mark.parametrize("expression, expected", [
    ("not (white = 'x')", [1]), ("white != 'x'", [1]), ("white = 'x' or white is null", [0, 2, 3, 4, 5, 6]),
    ("not (white in ('x', 'z'))", [1]), ("white like '%'", [0, 1, 6]), ("not (white like '%')", []),
    ("tags['Annotator'] = 'A'", [0]), ("not tags['Annotator'] = 'A'", []),
    ("tags['Annotator'] is null", [1, 2, 3, 4, 5, 6]), ("tags['Annotator'] is not null or white = 'y'", [0, 1]),
    ("not (white = 'x' and tags['Annotator'] = 'B')", [0, 1]), ("white ilike 'X' and not white ilike 'y'", [0, 6]),
])
def test_null_tags_are_unknown_as_in_sql(tmp_path, expression, expected):
    path = tmp_path / "nulls.pgn"
    path.write_text("\n".join("".join(f"[{k} {quoted(v)}]\n" for k, v in {"Event": str(i), **tags}.items())
                              + "\n1. e4 *\n" for i, tags in enumerate(NULLS)))
    out = tmp_path / "out.pgn"
    done = pgntools("filter", path, "--where", expression, "-o", out)
    assert done.returncode == 0, done.stderr
    events = [line.split('"')[1] for line in out.read_text().splitlines() if line.startswith("[Event ")]
    assert events == [str(i) for i in expected]
    assert Choose(expression).decided


def test_a_tag_without_a_column_is_read_without_an_output_that_shows_tags(tmp_path, hostile):
    """tags['Name'] asks the reader for the tag values (validate without -o kept none: it read
    every value as empty, null)."""
    summary = json.loads(pgntools("validate", hostile, "--where", "tags['Annotator'] is not null", "--summary",
                                  "-").stdout)
    assert summary["games"] == len(evaluated(hostile, "tags['Annotator'] is not null")) > 0


# ---------------------------------------------------------------- random expressions

def literal(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


STRINGS = [v for v in VALUES if v is not None]
STRING_FIELDS = st.sampled_from(["white", "black", "event", "round", "tags['Annotator']", "tags['Round']",
                                 "tags['Missing']"])
OPS = st.sampled_from(["=", "!=", "<", "<=", ">", ">="])
PATTERN = st.text(alphabet="aAbkKsS%_\\é\u212a\u017f.[", max_size=5)


def leaf_strings():
    return st.one_of(
        st.builds(lambda f, op, v: (f"{f} {op} {literal(v)}", True), STRING_FIELDS, OPS, st.sampled_from(STRINGS)),
        st.builds(lambda f, vs, neg: (f"{f} {'not ' * neg}in ({', '.join(map(literal, vs))})", True), STRING_FIELDS,
                  st.lists(st.sampled_from(STRINGS), min_size=1, max_size=4), st.booleans()),
        st.builds(lambda f, word, p: (f"{f} {word} {literal(p)}", "ilike" not in word or p.isascii()), STRING_FIELDS,
                  st.sampled_from(["like", "not like", "ilike", "not ilike"]), PATTERN),
        st.builds(lambda f, word: (f"{f} {word}", True), st.sampled_from(["white", "tags['Annotator']", "date",
                                                                         "white_elo", "event"]),
                  st.sampled_from(["is null", "is not null"])),
    )


NUMBERS = st.sampled_from(["0", "1", "1000", "2500", "2500.5", "999999999", "99999999999", "-1"])
DAYS = st.sampled_from(["'2023.01.01'", "'2023.05.15'", "'2022.12.31'", "'2023-06-01'"])


def leaf_others():
    return st.one_of(
        st.builds(lambda f, op, v: (f"{f} {op} {v}", True), st.sampled_from(["white_elo", "black_elo"]), OPS, NUMBERS),
        st.builds(lambda f, a, b: (f"{f} between {a} and {b}", True), st.sampled_from(["white_elo", "black_elo"]),
                  NUMBERS, NUMBERS),
        st.builds(lambda vs: (f"white_elo in ({', '.join(vs)})", True), st.lists(NUMBERS, min_size=1, max_size=3)),
        st.builds(lambda op, d: (f"date {op} {d}", True), OPS, DAYS),
        st.builds(lambda a, b: (f"date between {a} and {b}", True), DAYS, DAYS),
        st.builds(lambda ds: (f"date in ({', '.join(ds)})", True), st.lists(DAYS, min_size=1, max_size=3)),
        st.builds(lambda p: (f"date like {literal(p)}", True), st.sampled_from(["2023%", "%??%", "%.01", "_"])),
        st.sampled_from([("speed = 'blitz'", True), ("speed is null", True), ("speed like 'b%'", True),
                         ("true", True), ("false", True)]),
    )


UNDECIDED = st.sampled_from([("ply_count > 2", False), ("white ~ '^a'", False), ("status = 'valid'", False),
                             ("white_elo + 0 > 1000", False), ("white = black", False)])


def expressions(leaves):
    def combine(children):
        both = st.tuples(children, children)
        return st.one_of(
            st.builds(lambda ab, op: (f"({ab[0][0]}) {op} ({ab[1][0]})", ab[0][1] and ab[1][1]), both,
                      st.sampled_from(["and", "or"])),
            st.builds(lambda a: (f"not ({a[0]})", a[1]), children))
    return st.recursive(leaves, combine, max_leaves=6)


@settings(max_examples=250, deadline=None)
@given(expressions(st.one_of(leaf_strings(), leaf_others())))
def test_any_tag_condition_is_decided_by_the_reader_as_by_the_evaluator(hostile, case):
    expression, decidable = case
    assert Choose(expression).decided == decidable, expression
    assert with_filter(hostile, expression) == evaluated(hostile, expression), expression


@settings(max_examples=120, deadline=None)
@given(expressions(st.one_of(leaf_strings(), leaf_others(), UNDECIDED)))
def test_any_condition_keeps_the_games_the_evaluator_keeps(hostile, case):
    expression, decidable = case
    assert Choose(expression).decided == decidable, expression
    assert with_filter(hostile, expression) == evaluated(hostile, expression), expression


# ---------------------------------------------------------------- real games

CORPUS_EXPRESSIONS = [
    "white in ('Aronian,L', 'Anand,V', 'DrNykterstein', 'Carlsen, Magnus')", "event like '%Olympiad%'",
    "event like '%Blitz%' and not (site like '%lichess%')", "event ilike '%blitz%'", "white like '%, %'",
    "eco like 'B__'", "opening like '%Sicilian%' or opening like '%French%'", "tags['Annotator'] is not null",
    "tags['WhiteTitle'] in ('GM', 'IM') or tags['BlackTitle'] = 'GM'", "tags['PlyCount'] > '60'",
    "white_elo >= 2700 or black_elo >= 2700", "not (event like 'Titled%')", "white_elo between 2500 and 2600",
    "not white_elo between 2500 and 2600", "date in ('2020.04.15', '2019.03.01') or date like '2015%'",
    "not (date >= '2010.01.01') and white_elo is not null", "round not in ('1', '2', '?')",
    "(speed = 'blitz' or white_elo > 2800) and not black_elo is null", "result_tag in ('1-0', '0-1')",
    "termination not like '%time%'", "utc_time >= '12:00:00' and utc_date is not null",
]


@pytest.mark.parametrize("path", corpus_pgn_files() or [None], ids=corpus_id)
def test_the_reader_decides_as_the_evaluator_on_every_corpus_file(path):
    if path is None:
        pytest.skip("shared corpora not found")
    wheres = [compile_where(text) for text in CORPUS_EXPRESSIONS]
    expected = [[] for _ in wheres]
    for batch in iter_batches(str(path), replay=False, tag_columns=True):  # (read from the tags alone)
        for found, where in zip(expected, wheres):
            found.extend(batch.game_id(g) for g in where.kept(batch))
    for text, wanted in zip(CORPUS_EXPRESSIONS, expected):
        assert Choose(text).decided, text
        assert with_filter(path, text, replay=False) == wanted, text


CLI_EXPRESSIONS = ["white in ('Aronian,L', 'Anand,V', 'DrNykterstein', 'a')", "event like '%Olympiad%' or event like '%a%'",
                   "not (event like 'Rated%')", "tags['Annotator'] is null and white_elo >= 2600 or black_elo >= 2700",
                   "white_elo between 1000 and 2500 and ply_count > 2"]


@pytest.mark.parametrize("expression", CLI_EXPRESSIONS)
def test_filter_writes_what_the_evaluator_alone_selects_for_any_jobs(tmp_path, hostile, expression):
    """The output of `filter` and `validate -o` with the reader's filter is byte for byte that of
    the same condition or'ed with a replay field that is never true (nothing decided before the
    replay: every game replayed, the evaluator selects); and the same for --jobs 2."""
    data = hostile.read_bytes()
    if CORPORA.is_dir():
        data += b"\n" + corpus_sample(CORPORA / "bench" / "master-games-30k.pgn", 300_000)
        data += b"\n" + corpus_sample(CORPORA / "lichess" / "lichess-magnus-carlsen.pgn", 200_000)
    path = tmp_path / "in.pgn"
    path.write_bytes(data)
    old = f"({expression}) or ply_count < 0"
    assert "tag_filter" in Choose(expression).needs and "tag_filter" not in Choose(old).needs
    outputs = {}
    for name, where in (("new", expression), ("old", old)):
        for command in ("filter", "validate"):
            out = tmp_path / f"{name}-{command}.pgn"
            done = pgntools(command, path, "--where", where, "-o", out, "--exit-zero")
            assert done.returncode == 0, done.stderr
            outputs[name, command] = out.read_bytes()
    assert outputs["new", "filter"] == outputs["old", "filter"]
    assert outputs["new", "validate"] == outputs["old", "validate"]
    assert outputs["new", "filter"].count(b"[Event ") > 0
    assert_same_outputs(tmp_path, ["filter", "-o", "@", "--where", expression, "--exit-zero"], [path], jobs=(2,))
