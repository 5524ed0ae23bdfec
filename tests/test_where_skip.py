"""Games that fail the tag-level part of --where are skipped by the reader (issue 18): never
replayed, never recorded, only counted. Through the real command line: a filtered-out game's
illegal movetext is no error and no invalid count (unlike the same file unfiltered), its bytes
are in no output, the games kept keep their ids; `speed` is decided there too; the same games
for --jobs 1, 2 and 3; and on every corpus file the reader's decision is the Python evaluator's."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import corpus_id, corpus_pgn_files
from pgntools.reader import iter_batches
from pgntools.where import Choose, compile_where
from test_parallel import assert_same_outputs, corpus_sample, CORPORA

REPO = Path(__file__).resolve().parents[1]


def game(event: str, white_elo: str, time_control: str, moves: str, white: str = "W") -> str:
    tags = {"Event": event, "White": white, "Black": "B", "Result": moves.split()[-1], "WhiteElo": white_elo,
            "TimeControl": time_control}
    return "".join(f'[{k} "{v}"]\n' for k, v in tags.items() if v is not None) + "\n" + moves + "\n"


# (kept by white_elo >= 2600?, kept by speed = 'blitz' and white_elo >= 2400?)
GAMES = [
    (game("A", "2700", "180+2", "1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0"), True, True),
    (game("B", "2000", "300+0", "1. e4 e5 2. Ke3 Qxx9 0-1"), False, False),           # illegal, invalid SAN
    (game("C", "2650", "60+0", "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. 0-0 *"), True, False),  # bullet; castling written with zeros (a note)
    (game("D", "?", "180+0", "1. d4 d5 2. Kd3 Kd6 3. Kxd5 1/2-1/2"), False, False),     # Elo unknown; illegal
    (game("E", "2450", "600+0", "1. c4 {a comment} (1. e4) c5 0-0-0 *"), False, False),  # illegal; Elo < 2600, rapid
    (game("F", "2610", None, "1. Nf3 Nf6 2. Ng1+ 1-0"), True, False),  # no TimeControl: speed null; a wrong +
    (game("G", "2500", "180+2", "1. e4 c5 2. Nf3 d6 *"), False, True),
]


def pgntools(*args, input=None):
    return subprocess.run([sys.executable, "-m", "pgntools", *map(str, args)], cwd=REPO, input=input,
                          capture_output=True)


@pytest.fixture
def games_file(tmp_path):
    path = tmp_path / "in.pgn"
    path.write_text("\n".join(text for text, _, _ in GAMES))
    return path


def run_outputs(tmp_path: Path, games_file: Path, *where):
    """validate with every output, and filter's bytes: (exit status, {name: text})."""
    out = tmp_path / ("where" if where else "all")
    out.mkdir()
    done = pgntools("validate", games_file, *where, "-o", out / "out.pgn", "--rejects", out / "rejects.pgn",
                    "--report", out / "report.jsonl", "--summary", out / "summary.json")
    assert done.returncode in (0, 1), done.stderr
    kept = pgntools("filter", games_file, *where, "-o", out / "filter.pgn", "--exit-zero")
    assert kept.returncode == 0, kept.stderr
    texts = {p.name: p.read_text() for p in out.iterdir()}
    texts["summary"] = json.loads(texts.pop("summary.json"))
    return done.returncode, texts


@pytest.mark.parametrize("expression, column", [("white_elo >= 2600", 1), ("speed = 'blitz' and white_elo >= 2400", 2)])
def test_a_game_failing_a_tag_predicate_is_not_replayed(tmp_path, games_file, expression, column):
    everything_status, everything = run_outputs(tmp_path, games_file)
    assert everything_status == 1 and everything["summary"]["invalid"] == 3  # B, D and E, unfiltered
    status, got = run_outputs(tmp_path, games_file, "--where", expression)
    wanted = [i for i, row in enumerate(GAMES) if row[column]]
    summary = got["summary"]
    assert status == 0  # the invalid games were never replayed
    assert (summary["games"], summary["read"], summary["dropped"]) == (len(wanted), 7, 7 - len(wanted))
    assert summary["invalid"] == 0 and summary["errors"] == {}
    assert got["rejects.pgn"] == ""
    # the kept games' report records are those of the unfiltered run (ids, offsets, lines, notes)
    records = [json.loads(line) for line in everything["report.jsonl"].splitlines()]
    assert [json.loads(line) for line in got["report.jsonl"].splitlines()] == [r for r in records if r["game"] in wanted]
    # filter writes the kept games byte for byte, and nothing of the others
    assert got["filter.pgn"] == "".join(GAMES[i][0] + "\n" for i in wanted)
    for i, (text, _, _) in enumerate(GAMES):
        if i not in wanted:
            assert all(f'[Event "{text[8]}"]' not in body for body in got.values() if isinstance(body, str))


def test_the_kept_games_keep_their_ids(tmp_path, games_file):
    report = tmp_path / "report.jsonl"
    done = pgntools("validate", games_file, "--where", "white_elo >= 2600", "--report", report,
                    "--report-level", "notes")
    assert done.returncode == 0, done.stderr
    assert [json.loads(line)["game"] for line in report.read_text().splitlines()] == [2, 5]  # C and F: notes
    fens = pgntools("to-fen", games_file, "--where", "white_elo >= 2600", "--format", "epd", "--every-ply")
    ids = {line.split('id "')[1].split(":")[0] for line in fens.stdout.decode().splitlines()}
    assert ids == {"0", "2", "5"}


def test_the_reader_counts_and_numbers_what_it_skips(tmp_path):
    """Many games, one kept: the reader's batches count the others (and end now and then), the
    kept game keeps its number, for any batch size."""
    path = tmp_path / "many.pgn"
    path.write_text("\n".join(game(f"E{i}", str(2000 + (i == 777) * 800), "180+0", "1. e4 e5 *") for i in range(1500)))
    choose = Choose("white_elo >= 2700")
    needs = {k: v for k, v in choose.needs.items() if k != "numbered"}
    for batch_games in (1, 7, 1024):
        batches = list(iter_batches(str(path), batch_games=batch_games, **needs))
        assert sum(b.read_count() for b in batches) == 1500
        assert [b.game_id(g) for b in batches for g in choose.kept(b)] == [777]
        if batch_games == 1:
            assert len(batches) > 1500 // 16  # (a batch ends after 16 x batch_games games skipped)


def test_a_skipped_game_ends_where_a_read_game_ends(tmp_path):
    """Games dropped by the filter whose end is not their first marker: a result inside a
    variation (an error when read; the game goes on), a comment holding a marker and a tag, no
    marker at all (the next tag section ends it). The game after them is found, kept, numbered."""
    games = ['[Event "x"]\n[WhiteElo "1000"]\n\n1. e4 (1. d4 1-0) e5 {0-1 [Event "y"]} 2. Nf3 0-1\n',
             '[Event "x"]\n[WhiteElo "1000"]\n\n1. e4 e5 (2. Nf3 (2. f4 *) Nc6) 2. Nc3\n',
             '[Event "x"]\n[WhiteElo "1000"]\n\n1. e4 {a comment cut by a tag line\n[Event "y"]\n\n1. d4 *\n',
             '[Event "z"]\n[WhiteElo "2700"]\n\n1. e4 e5 1-0\n']
    path = tmp_path / "ends.pgn"
    path.write_text("\n".join(games))
    everything = json.loads(pgntools("validate", path, "--summary", "-").stdout)
    assert everything["games"] == 5 and everything["invalid"] == 3  # (the cut comment's game y is a game)
    out = tmp_path / "out.pgn"
    done = pgntools("filter", path, "--where", "white_elo >= 2600", "-o", out, "--summary", tmp_path / "s.json")
    assert done.returncode == 0, done.stderr
    assert out.read_text() == games[3] + "\n"
    summary = json.loads((tmp_path / "s.json").read_text())
    assert (summary["games"], summary["read"], summary["invalid"]) == (1, 5, 0)
    ids = [batch.game_id(g) for batch in iter_batches(str(path), **{k: v for k, v in Choose(
        "white_elo >= 2600").needs.items() if k != "numbered"}) for g in range(batch.n_games)]
    assert ids == [4]


def test_a_view_of_a_batch_with_skipped_text_keeps_its_count(tmp_path):
    """Non-PGN text before the games, and a condition evaluated after the reader (a date): the
    selection's view keeps the batch's counts (it crashed on them)."""
    path = tmp_path / "junk.pgn"
    path.write_text("some prose before the games\n\n" + GAMES[0][0] + "\n" + GAMES[2][0])
    summary = tmp_path / "s.json"
    done = pgntools("validate", path, "--where", "white_elo >= 2600 and (event = 'C' or date is not null)",
                    "--summary", summary)  # (A passes the reader's white_elo, the evaluator drops it)
    assert done.returncode == 0, done.stderr
    counts = json.loads(summary.read_text())
    assert (counts["games"], counts["read"], counts["skipped_bytes"]) == (1, 2, len("some prose before the games"))


NULLS = [("180+2", "blitz"), ("-", "correspondence"), ("?", None), (None, None), ("abc", None), ("15+0", "ultrabullet")]


@pytest.mark.parametrize("expression, keep", [
    ("speed = 'blitz'", lambda s: s == "blitz"),
    ("speed != 'blitz'", lambda s: s is not None and s != "blitz"),
    ("not speed = 'blitz'", lambda s: s is not None and s != "blitz"),
    ("speed is null", lambda s: s is None),
    ("speed is not null and speed in ('blitz', 'correspondence')", lambda s: s in ("blitz", "correspondence")),
    ("speed = 'blitz' or speed is null", lambda s: s in ("blitz", None)),
    ("speed like '%bullet'", lambda s: s in ("bullet", "ultrabullet")),
])
def test_speed_predicates_keep_sql_null_semantics(tmp_path, expression, keep):
    path = tmp_path / "speeds.pgn"
    path.write_text("\n".join(game(str(i), "2500", tc, "1. e4 *") for i, (tc, _) in enumerate(NULLS)))
    out = tmp_path / "out.pgn"
    done = pgntools("filter", path, "--where", expression, "-o", out)
    assert done.returncode == 0, done.stderr
    events = [line.split('"')[1] for line in out.read_text().splitlines() if line.startswith("[Event ")]
    assert events == [str(i) for i, (_, speed) in enumerate(NULLS) if keep(speed)]
    assert "tag_filter" in Choose(expression).needs


def test_a_latin1_game_is_decided_on_its_decoded_tags(tmp_path):
    path = tmp_path / "latin1.pgn"
    path.write_bytes(game("A", "2500", "180+0", "1. e4 *", white="D\xf6ra").encode("latin-1") + b"\n" +
                     game("B", "2500", "180+0", "1. e4 *", white="Dora").encode())
    out = tmp_path / "out.pgn"
    assert pgntools("filter", path, "--where", "white = 'Döra'", "-o", out).returncode == 0
    assert out.read_bytes() == path.read_bytes().split(b"\n\n[")[0] + b"\n\n"


@pytest.mark.parametrize("expression", ["white_elo >= 2600", "speed = 'blitz' and white_elo >= 2400",
                                        "speed in ('bullet', 'blitz') and ply_count >= 5"])
def test_the_same_games_for_any_jobs(tmp_path, expression):
    data = "\n".join(text for text, _, _ in GAMES).encode()
    if CORPORA.is_dir():
        data += b"\n" + corpus_sample(CORPORA / "lichess" / "lichess-magnus-carlsen.pgn", 200_000)
    path = tmp_path / "in.pgn"
    path.write_bytes(data * 3)
    command = ["validate", "-o", "@", "--rejects", "@", "--report", "@", "--summary", "@", "--where", expression]
    base = assert_same_outputs(tmp_path, command, [path])
    assert 0 < base["summary"]["games"] < base["summary"]["read"]
    filtered = ["filter", "-o", "@", "--where", expression, "--exit-zero"]
    assert_same_outputs(tmp_path, filtered, [path])


SPEEDS = ["speed = 'blitz'", "speed in ('bullet', 'ultrabullet')", "speed is null", "not speed = 'classical'",
          "speed between 'bullet' and 'classical' or speed is null", "speed like 'c%'"]
# dates with ?? parts are intervals of days (2023.??.?? is some day of 2023): compared so in C too
DATES = ["date >= '2019.01.01'", "date < '2015.06.01'", "date = '2021.03.14'", "date != '2019.03.01'",
         "date between '1990.01.01' and '2010.12.31'", "utc_date > '2020.04.15'", "date <= '1980.12.31'"]


@pytest.mark.parametrize("path", corpus_pgn_files() or [None], ids=corpus_id)
def test_conditions_the_reader_decides_agree_with_the_evaluator_on_every_corpus_file(path):
    """The reader's decision on speed (its mask of speed codes) and on dates (intervals of days)
    keeps exactly the games the batch evaluator keeps when it sees every game."""
    if path is None:
        pytest.skip("shared corpora not found")
    texts = SPEEDS + DATES
    wheres = [compile_where(text) for text in texts]
    evaluated = [[] for _ in texts]
    for batch in iter_batches(str(path), replay=False, tag_columns=True):  # (read from the tags alone)
        for found, where in zip(evaluated, wheres):
            found.extend(batch.game_id(g) for g in where.kept(batch))
    for text, expected in zip(texts, evaluated):
        choose = Choose(text)
        assert choose.decided and "tag_filter" in choose.needs
        needs = {k: v for k, v in choose.needs.items() if k != "numbered"}
        decided = [b.game_id(g) for b in iter_batches(str(path), replay=False, **needs) for g in choose.kept(b)]
        assert decided == expected, text


@pytest.mark.parametrize("path", corpus_pgn_files() or [None], ids=corpus_id)
def test_skipping_a_game_finds_the_game_boundaries_reading_it_finds(path):
    """A game the filter drops is read past by its tokens alone (game.c skip_movetext): the games
    kept are those the evaluator keeps when every game is read, and they start, end and sit on
    the lines they have then, on every corpus file (comments, variations, results inside them,
    prose between games, Latin-1, CR LF)."""
    if path is None:
        pytest.skip("shared corpora not found")
    fields = ("offset", "length", "line", "status", "ply_count")
    expressions = ("white >= 'M'", "white < 'M'")
    wheres = [compile_where(text) for text in expressions]
    every, evaluated = {}, [[] for _ in expressions]
    for batch in iter_batches(str(path), tag_columns=True):
        for g, row in enumerate(zip(*(batch.column(f) for f in fields))):
            every[batch.game_id(g)] = row
        for found, where in zip(evaluated, wheres):
            found.extend(batch.game_id(g) for g in where.kept(batch))
    for expression, expected in zip(expressions, evaluated):
        choose = Choose(expression)
        needs = {k: v for k, v in choose.needs.items() if k != "numbered"}
        read, kept = 0, {}
        for batch in iter_batches(str(path), **needs):
            read += batch.read_count()
            for g in choose.kept(batch):
                kept[batch.game_id(g)] = tuple(batch.column(f)[g] for f in fields)
        assert read == len(every)
        assert list(kept) == expected, expression
        assert kept == {i: every[i] for i in kept}, expression
