"""pgntools stats (issue 21): through the CLI; numbers checked against DuckDB over export's Parquet
of the same file; the same JSON for any --jobs; the HTML rendered by headless Chromium."""
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
from corpora_dir import CORPORA_DIR  # noqa: E402

LICHESS = CORPORA_DIR / "lichess" / "lichess-magnus-carlsen.pgn"
SAMPLE = REPO / "fixtures" / "sample.pgn"
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


def run(*args, check=True):
    proc = subprocess.run([sys.executable, "-m", "pgntools", *map(str, args)], cwd=REPO, capture_output=True, text=True)
    if check:
        assert proc.returncode in (0, 1), proc.stderr
    return proc


def stats_json(tmp_path, source, *more, name="stats.json"):
    out = tmp_path / name
    run("stats", source, "--json", out, "--exit-zero", "-q", *more)
    doc = json.loads(out.read_text())
    doc.pop("run")
    for source in doc["sources"]:  # the timing fields vary from run to run
        assert source.pop("seconds") >= 0 and source.pop("games_per_second", None) is not False
    return doc


def test_numbers_agree_with_duckdb(tmp_path):
    duckdb = pytest.importorskip("duckdb")
    doc = stats_json(tmp_path, SAMPLE)
    run("export", SAMPLE, "--parquet", tmp_path / "ds", "--exit-zero", "-q")
    games = f"read_parquet('{tmp_path}/ds/games/*.parquet')"
    moves = f"read_parquet('{tmp_path}/ds/moves/*.parquet')"
    q = lambda sql: duckdb.sql(sql.format(games=games, moves=moves)).fetchall()
    assert doc["games"] == q("select count(*) from {games}")[0][0]
    assert doc["validity"] == {s: n for s, n in [(s, 0) for s in doc["validity"]]} | dict(
        q("select status::varchar, count(*) from {games} group by 1"))
    assert {k: v for k, v in doc["results"].items() if v and k != "none"} == dict(
        q("select result, count(*) from {games} where result <> '' group by 1"))
    assert {t["value"]: t["count"] for t in doc["first_moves"]["top"]} == dict(
        q("select m.san, count(*) from {moves} m join {games} g using (game_id) where m.ply = 1 and "
          "g.start_fen = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1' group by 1"))
    assert sum(doc["plies"]["counts"]) == doc["games"]
    clocks = dict(q("select (ply + 1) // 2, count(*) from {moves} where clock is not null group by 1"))
    assert clocks and {r["move"]: r["clocks"] for r in doc["clock_usage"]["by_move"]} == clocks
    assert doc["clock_usage"]["games_with_clocks"] == q("select count(distinct game_id) from {moves} where clock is not null")[0][0]
    assert doc["fields"]["ECO"]["present"] == q("select count(eco) from {games} where eco not in ('?', '-', '')")[0][0]


@pytest.mark.skipif(not LICHESS.exists(), reason="needs ../shared/corpora")
def test_lichess_against_duckdb_and_jobs(tmp_path):
    duckdb = pytest.importorskip("duckdb")
    one = stats_json(tmp_path, LICHESS, "-j1", name="one.json")
    two = stats_json(tmp_path, LICHESS, "-j2", "--chunk-bytes", "3000000", name="two.json")
    assert one == two
    run("export", LICHESS, "--parquet", tmp_path / "ds", "--exit-zero", "-q", "--columns",
        "white_elo,eco,opening_eco,ply_count,start_fen,variant")
    games = f"read_parquet('{tmp_path}/ds/games/*.parquet')"
    h = one["white_elo"]
    expected = dict(duckdb.sql(f"select least(greatest(white_elo, 0), {h['low'] + 50 * len(h['counts']) - 1}) // 50, "
                               f"count(*) from {games} where white_elo is not null group by 1").fetchall())
    assert {i: n for i, n in enumerate(h["counts"]) if n} == expected
    # openings: the classifier's code (opening_eco) for every game it names, the ECO tag for a game
    # from a set-up position or of a variant (Lichess' "From Position" and Chess960 games)
    eco = dict(duckdb.sql(f"select opening_eco, count(*) from {games} where opening_eco is not null group by 1").fetchall())
    tag = dict(duckdb.sql(f"select eco, count(*) from {games} where (start_fen <> '{START}' or variant "
                          "not in ('Standard', 'standard')) and eco not in ('?', '-', '') "
                          "group by 1").fetchall())
    by_source = {"table": eco, "eco_tag": tag}
    assert one["eco"]["top"] and all(by_source[t["source"]][t["value"]] == t["count"] for t in one["eco"]["top"])
    assert one["eco"]["error"] == 0 and one["opening_sources"]["table"] == sum(eco.values())
    assert one["opening_sources"]["eco_tag"] == sum(tag.values()) > 0
    assert one["clock_usage"]["games_with_clocks"] > 9000


def test_empty_input_says_so(tmp_path):
    empty = tmp_path / "empty.pgn"
    empty.write_text("")
    proc = run("stats", empty, "--html", tmp_path / "r.html", "--json", tmp_path / "r.json")
    assert proc.returncode == 0 and "no games" in proc.stdout
    assert "No games" in (tmp_path / "r.html").read_text()
    assert json.loads((tmp_path / "r.json").read_text())["games"] == 0


def chromium():
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(not chromium(), reason="needs Chromium (apt-get install chromium; .ci/run installs it)")
def test_html_renders_with_expected_charts(tmp_path):
    source = LICHESS if LICHESS.exists() else SAMPLE
    html, out = tmp_path / "r.html", tmp_path / "r.json"
    run("stats", source, "--html", html, "--json", out, "--exit-zero", "-q")
    doc = json.loads(out.read_text())
    proc = subprocess.run([chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr",
                           "--dump-dom", html.as_uri()], capture_output=True, text=True, timeout=120)
    dom = proc.stdout
    assert "Uncaught" not in proc.stderr and "CONSOLE" not in proc.stderr
    charts = dict(re.findall(r'<svg data-chart="([a-z_0-9]+)"(.*?)</svg>', dom, re.S))
    assert charts["plies"].count('class="bar"') == len(doc["plies"]["counts"])
    assert charts["results"].count('class="bar"') == sum(1 for k, v in doc["results"].items() if k != "none" or v)
    assert charts["validity"].count('class="bar"') == len(doc["validity"])
    assert charts["eco"].count('class="bar"') == len(doc["eco"]["top"])
    # one clock chart per time control (issue 37 A3), the six with the most games
    families = [[r for r in f["by_move"] if r["clocks"] >= 5] for f in doc["clock_usage"]["by_time_control"][:6]]
    families = [rows for rows in families if rows]  # (a move with 5 clocks: a point)
    clock_charts = [charts[f"clock_usage_{k}"] for k in range(1, len(families) + 1)]
    if families:
        assert [chart.count("point\"") for chart in clock_charts] == [len(rows) for rows in families]
        assert f"clock_usage_{len(families) + 1}" not in charts
    else:  # (the sample without the corpora: no move has 5 clocks)
        assert "clock_usage_1" not in charts and "No move has a [%clk] clock." in dom
    assert os.path.getsize(html) < 2 << 20


def test_openings_from_the_classifier_and_the_eco_tag_of_custom_starts(tmp_path):
    """A game from the standard start is named by the opening table (whatever its ECO tag says);
    a game from a FEN start by its ECO/Opening tags, and the report says which is which."""
    pgn = tmp_path / "openings.pgn"
    pgn.write_text(
        '[Event "a"]\n[ECO "A00"]\n[Result "*"]\n\n1. e4 c5 2. Nf3 d6 *\n\n'
        '[Event "b"]\n[ECO "E99"]\n[Opening "Made up"]\n[SetUp "1"]\n'
        '[FEN "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"]\n[Result "*"]\n\n1. e4 *\n\n'
        '[Event "c"]\n[SetUp "1"]\n[FEN "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"]\n[Result "*"]\n\n1. e3 *\n\n'
        '[Event "d"]\n[Result "*"]\n\n*\n')
    doc = stats_json(tmp_path, pgn)
    assert [(t["value"], t["count"], t["source"]) for t in doc["eco"]["top"]] == [("B50", 1, "table"), ("E99", 1, "eco_tag")]
    assert [(t["value"], t["source"]) for t in doc["opening"]["top"]] == [("Made up", "eco_tag"), ("Sicilian Defense: Modern Variations", "table")]
    assert {k: v for k, v in doc["opening_sources"].items() if k != "note"} == {
        "table": 1, "eco_tag": 1, "custom_start_without_tag": 1, "unnamed": 1}
    html = tmp_path / "r.html"
    run("stats", pgn, "--html", html, "-q", "--exit-zero")
    assert "ECO tag" in html.read_text()


def mixed_input(tmp_path) -> Path:
    """Valid, fixed and invalid games, odd encodings and tags (test_parallel's), and the fixtures."""
    from test_parallel import fixtures_input, tricky_input

    path = tmp_path / "mixed.pgn"
    path.write_bytes(tricky_input(6) + b"\n" + fixtures_input())
    return path


def test_jobs_give_the_json_of_one_job(tmp_path):
    path = mixed_input(tmp_path)
    one = stats_json(tmp_path, path, "-j1", name="one.json")
    for jobs in (2, 3):
        assert stats_json(tmp_path, path, f"-j{jobs}", "--chunk-bytes", "600", name=f"j{jobs}.json") == one
    assert one["validity"]["invalid"] and one["validity"]["fixed"] and one["errors"] and one["first_moves"]["top"]


def test_a_selection_is_counted_as_duckdb_counts_it(tmp_path):
    """--where hands stats views of the batches (copied columns, not the reader's buffers)."""
    duckdb = pytest.importorskip("duckdb")
    path = mixed_input(tmp_path)
    doc = stats_json(tmp_path, path, "--where", "ply_count >= 4 and status != 'invalid'")
    run("export", path, "--parquet", tmp_path / "ds", "--exit-zero", "-q")
    games = f"read_parquet('{tmp_path}/ds/games/*.parquet')"
    moves = f"read_parquet('{tmp_path}/ds/moves/*.parquet')"
    where = "ply_count >= 4 and status <> 'invalid'"
    q = lambda sql: duckdb.sql(sql.format(games=games, moves=moves)).fetchall()
    assert doc["games"] == q(f"select count(*) from {{games}} where {where}")[0][0] > 0
    assert doc["games_read"] == q("select count(*) from {games}")[0][0]
    assert {t["value"]: t["count"] for t in doc["first_moves"]["top"]} == dict(
        q(f"select m.san, count(*) from {{moves}} m join {{games}} g using (game_id) where m.ply = 1 and "
          f"g.start_fen = '{START}' and {where} group by 1"))
    assert sum(doc["plies"]["counts"]) == doc["games"]
    assert doc["sources"][0]["games"] == doc["games"]


def test_value_counts_past_their_capacity_keep_the_heavy_values_within_the_bound():
    """The C summaries (Misra-Gries, mergeable): past the capacity every kept count is at most
    `error` low, `error` <= counted / (capacity + 1), and a value above `error` is never lost."""
    from pgntools import _core

    empty = _core.StatsAccumulator().part()
    true = {f"player{i}": (1000 if i < 3 else 1 + i % 7) for i in range(200)}
    acc = _core.StatsAccumulator(capacity=16)
    pairs = list(true.items())
    for k in range(0, len(pairs), 25):  # 8 parts, merged one after the other
        chunk = pairs[k:k + 25]
        values = dict(empty[1], players=(chunk, 0, sum(c for _, c in chunk)))
        acc.merge((empty[0], values))
    kept, error, total = acc.part()[1]["players"]
    assert total == sum(true.values()) and 0 < error <= total / 17 and len(kept) <= 16
    for value, count in kept:
        assert true[value] - error <= count <= true[value]
    assert {f"player{i}" for i in range(3)} <= {v for v, _ in kept}


# ---------------------------------------------------------------- issue 37 A3

def clocked_game(n: int, time_control: str, clocks: list, date: str = "2024.03.01", elo=(None, None),
                 variant: str = "") -> str:
    """A game of len(clocks) plies (knights out and back) with a [%clk] after each move."""
    moves = ["Nf3", "Nf6", "Ng1", "Ng8"]
    tags = {"Event": f"G{n}", "Date": date, "Result": "*", "TimeControl": time_control}
    if elo[0]:
        tags["WhiteElo"] = str(elo[0])
    if elo[1]:
        tags["BlackElo"] = str(elo[1])
    if variant:
        tags["Variant"] = variant
    text = "".join(f'[{k} "{v}"]\n' for k, v in tags.items() if v) + "\n"
    for ply, seconds in enumerate(clocks):
        h, m, s = seconds // 3600, seconds // 60 % 60, seconds % 60
        text += (f"{ply // 2 + 1}. " if ply % 2 == 0 else "") + f"{moves[ply % 4]} {{[%clk {h}:{m:02}:{s:02}]}} "
    return text + "*\n\n"


def test_year_only_dates_count_in_games_per_year(tmp_path):
    pgn = tmp_path / "dates.pgn"
    pgn.write_text(clocked_game(0, "", [], "1851.??.??") + clocked_game(1, "", [], "1851.??.??")
                   + clocked_game(2, "", [], "2020.05.01") + clocked_game(3, "", [], "????.??.??"))
    doc = stats_json(tmp_path, pgn)
    assert doc["years_without_month"] == {"1851": 2} and doc["months"] == {"2020.05": 1}
    assert doc["games_without_year"] == 1
    html = tmp_path / "r.html"
    run("stats", pgn, "--html", html, "-q")
    page = html.read_text()
    chart = re.search(r'<svg data-chart="months".*?</svg>', page, re.S).group(0)
    assert "1851" in chart and "2020" in chart and "Games per year" in chart
    assert "2 games have a year only" in page and "1 games have no year" in page
    assert "with a year only" in run("stats", pgn).stdout


def test_white_and_black_ratings_share_the_x_axis(tmp_path):
    pgn = tmp_path / "elo.pgn"
    pgn.write_text(clocked_game(0, "", [], elo=(1200, 2400)) + clocked_game(1, "", [], elo=(1250, 2600)))
    html = tmp_path / "r.html"
    run("stats", pgn, "--html", html, "-q")
    page = html.read_text()
    ticks = {key: re.findall(r'class="tick"[^>]*text-anchor="middle">([^<]*)<', re.search(rf'<svg data-chart="{key}".*?</svg>', page,
                                                                      re.S).group(0))
             for key in ("white_elo", "black_elo")}
    assert ticks["white_elo"] == ticks["black_elo"]
    assert ticks["white_elo"][0] == "1,200"
    for key in ("white_elo", "black_elo"):  # 1200 to 2650: 29 bins of 50 in both
        assert re.search(rf'<svg data-chart="{key}".*?</svg>', page, re.S).group(0).count('class="bar"') == 29


def test_clock_curves_one_per_time_control(tmp_path):
    bullet = [60 - 2 * k for k in range(8)]       # 60+0: seconds run out fast
    blitz = [180 - 5 * k + 2 for k in range(8)]   # 180+2
    pgn = tmp_path / "clocks.pgn"
    pgn.write_text("".join(clocked_game(n, "60+0", bullet) for n in range(6))
                   + "".join(clocked_game(10 + n, "180+2", blitz) for n in range(5)))
    doc = stats_json(tmp_path, pgn)
    families = {f["time_control"]: f for f in doc["clock_usage"]["by_time_control"]}
    assert {name: f["games"] for name, f in families.items()} == {"60+0": 6, "180+2": 5}
    for name, clocks in (("60+0", bullet), ("180+2", blitz)):  # move 1: White's and Black's first clocks
        first = families[name]["by_move"][0]
        assert first["move"] == 1 and first["clocks"] == 2 * families[name]["games"]
        assert min(clocks[:2]) - 1 <= first["median"] <= max(clocks[:2]) + 1
    html = tmp_path / "r.html"
    run("stats", pgn, "--html", html, "-q")
    page = html.read_text()
    assert "TimeControl 60+0 (6 games" in page and "TimeControl 180+2 (5 games" in page
    assert doc == stats_json(tmp_path, pgn, "--jobs", "2", "--chunk-bytes", "1", name="j2.json")


def test_invalid_game_examples_say_why(tmp_path):
    pgn = tmp_path / "bad.pgn"
    pgn.write_text(clocked_game(0, "", [60, 60], variant="Duck Chess") + "[Event \"x\"]\n\n1. e4 e5 2. Ke3 *\n\n")
    doc = stats_json(tmp_path, pgn)
    messages = {kind: [ex["message"] for ex in e["examples"]] for kind, e in doc["errors"].items()}
    assert "Duck Chess" in messages["unsupported_variant"][0]
    assert messages["illegal_move"] == ["illegal move 'Ke3' at ply 3"]
    html = tmp_path / "r.html"
    run("stats", pgn, "--html", html, "-q")
    assert "illegal move &#x27;Ke3&#x27; at ply 3" in html.read_text()


@pytest.mark.skipif(not chromium(), reason="needs Chromium (apt-get install chromium; .ci/run installs it)")
def test_html_uses_the_screen_width(tmp_path):
    source = LICHESS if LICHESS.exists() else SAMPLE
    html = tmp_path / "r.html"
    run("stats", source, "--html", html, "-q")
    probe = tmp_path / "probe.html"  # the page, and a script that writes what the layout gave
    probe.write_text(html.read_text().replace("</body>", "<script>const s=[...document.querySelectorAll('svg')]"
                                              ".map(e=>e.getBoundingClientRect());document.body.dataset.layout="
                                              "JSON.stringify({body:document.body.getBoundingClientRect().width,"
                                              "lefts:[...new Set(s.map(r=>Math.round(r.left)))],widths:s.map(r=>"
                                              "Math.round(r.width))})</script></body>"))
    proc = subprocess.run([chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--window-size=1280,900",
                           "--dump-dom", probe.as_uri()], capture_output=True, text=True, timeout=120)
    layout = json.loads(re.search(r'data-layout="([^"]*)"', proc.stdout).group(1).replace("&quot;", '"'))
    assert layout["body"] >= 1100  # (it was 736 of 1280)
    assert len(layout["lefts"]) >= 2  # charts side by side
    assert max(layout["widths"]) <= layout["body"]


def test_games_counted_by_variant(tmp_path):
    # issue 38: the rules each game was played by; python-chess (test-only oracle) makes the
    # variant games, so each is a legal game of its variant
    import chess.variant

    games = []
    for cls, tag, sans in ((chess.variant.AtomicBoard, "Atomic", ["e4", "d5", "exd5"]),
                           (chess.variant.CrazyhouseBoard, "Crazyhouse", ["e4", "d5", "exd5", "Qxd5"]),
                           (chess.variant.CrazyhouseBoard, "Crazyhouse", ["d4"])):
        board = cls()
        for san in sans:
            board.push_san(san)
        games.append(f'[Event "v"]\n[Variant "{tag}"]\n[Result "*"]\n\n{" ".join(sans)} *\n')
    games += ['[Event "s"]\n[Result "*"]\n\n1. e4 e5 *\n'] * 2
    games.append('[Event "d"]\n[Variant "Duck Chess"]\n[Result "*"]\n\n1. e4 *\n')
    pgn = tmp_path / "variants.pgn"
    pgn.write_text("\n".join(games))
    doc = stats_json(tmp_path, pgn)
    assert doc["variants"] == {"standard": 3, "crazyhouse": 2, "atomic": 1}
    assert doc["errors"]["unsupported_variant"]["count"] == 1
    assert doc == stats_json(tmp_path, pgn, "--jobs", "2", "--chunk-bytes", "1", name="j2.json")
    text = run("stats", pgn, "--exit-zero").stdout
    assert "variants    standard 3, crazyhouse 2, atomic 1" in text
