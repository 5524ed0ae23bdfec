"""`pgntools split` (issue 18), through the real command line: the parts hold the selected games
byte for byte (the bytes `filter` writes), one file per N games or per value; hostile tag values
become safe names inside the output directory, never two values in one file; a bounded number of
files is open; the parts appear only when the run succeeds; the same files for any --jobs."""
from __future__ import annotations

import gzip
import os
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from typing import Dict, List, Optional

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pgntools import read_games
from pgntools.cli import cli
from pgntools.sinks import split as split_module
from pgntools.sinks.split_names import MAX_VALUE_BYTES, UNKNOWN, WINDOWS_DEVICES, NameTable, safe_name
from test_parallel import FIXTURES, tricky_input

REPO = Path(__file__).resolve().parents[1]
from corpora_dir import CORPORA_DIR  # noqa: E402

CORPUS = CORPORA_DIR / "lichess" / "lichess-magnus-carlsen.pgn"


def pgntools(*args, input=None):
    return subprocess.run([sys.executable, "-m", "pgntools", *map(str, args)], cwd=REPO, input=input,
                          capture_output=True)


def invoke(*args, expect=(0, 1)):
    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert result.exit_code in expect, (result.exit_code, result.output, result.exception)
    return result


def game(event: Optional[str], white: str = "W", moves: str = "1. e4 e5 2. Nf3 1-0", result: str = "1-0",
         date: str = "2024.01.02", line_end: str = "\n") -> bytes:
    tags = [] if event is None else [f'[Event "{escape(event)}"]']
    tags += [f'[Date "{date}"]', f'[White "{escape(white)}"]', f'[Result "{result}"]']
    return (line_end.join(tags) + line_end * 2 + moves).encode()


def escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def pgn(games: List[bytes]) -> bytes:
    return b"".join(g + (b"\r\n\r\n" if b"\r\n" in g else b"\n\n") for g in games)


def files_in(folder: Path) -> Dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


GAMES = [
    game("Open A", "Anna"),
    game("Open B", "Boris", line_end="\r\n"),
    game("Open A", "Carl", moves="1. e4 e5 2. Ke3 0-1", result="0-1"),  # invalid
    game("Open B", "Dora", moves="1. d4 d5 1/2-1/2", result="1/2-1/2", date="2023.??.??"),
    game(None, "Eve", moves="1. c4 *", result="*"),
    game("?", "Finn"),
    game("Open A", "Gus", moves="1. f3 e5 2. g4 Qh4# 0-1", result="0-1", date="2024.02.??"),
]


@pytest.fixture
def games_file(tmp_path):
    path = tmp_path / "in.pgn"
    path.write_bytes(pgn(GAMES))
    return path


# ---------------------------------------------------------------- the parts and their bytes

def test_games_parts_are_the_filter_output_cut_every_n_games(tmp_path, games_file):
    done = pgntools("split", games_file, "--games", 3, "-o", tmp_path / "parts" / "{n:04}.pgn", "--exit-zero")
    assert done.returncode == 0, done.stderr
    parts = files_in(tmp_path / "parts")
    assert sorted(parts) == ["0001.pgn", "0002.pgn", "0003.pgn"]
    assert parts["0001.pgn"] == pgn(GAMES[:3]) and parts["0003.pgn"] == pgn(GAMES[6:])
    filtered = tmp_path / "all.pgn"
    assert pgntools("filter", games_file, "-o", filtered, "--exit-zero").returncode == 0
    assert b"".join(parts.values()) == filtered.read_bytes()
    assert "split: 3 files written" in done.stderr.decode()


def test_by_event_puts_each_value_in_its_file_in_input_order(tmp_path, games_file):
    done = pgntools("split", games_file, "--by", "event", "-o", tmp_path / "ev" / "{event}.pgn")
    assert done.returncode == 0  # one game is invalid: still written (as filter does), and counted (exit 0: issue 37 A4)
    parts = files_in(tmp_path / "ev")
    assert parts == {"Open A.pgn": pgn([GAMES[0], GAMES[2], GAMES[6]]), "Open B.pgn": pgn([GAMES[1], GAMES[3]]),
                     f"{UNKNOWN}.pgn": pgn([GAMES[4], GAMES[5]])}  # no Event and "?" are both unknown
    for name, where in (("Open A.pgn", "event = 'Open A'"), ("Open B.pgn", "event = 'Open B'")):
        one = tmp_path / "one.pgn"
        pgntools("filter", games_file, "-o", one, "--where", where)
        assert parts[name] == one.read_bytes()


def test_normalize_writes_the_export_format(tmp_path, games_file):
    done = pgntools("split", games_file, "--games", 2, "--normalize", "-o", tmp_path / "p" / "{n}.pgn")
    assert done.returncode == 0
    filtered = tmp_path / "all.pgn"
    pgntools("filter", games_file, "-o", filtered, "--normalize")
    parts = files_in(tmp_path / "p")
    assert sorted(parts) == ["1.pgn", "2.pgn", "3.pgn"]  # 6 valid or fixed games, 2 a part
    assert b"".join(parts[f"{i}.pgn"] for i in (1, 2, 3)) == filtered.read_bytes()


def test_derived_fields_and_result_names(tmp_path, games_file):
    invoke("split", games_file, "--by", "date-month", "-o", tmp_path / "m" / "{date-month}.pgn")
    assert sorted(files_in(tmp_path / "m")) == ["2024-01.pgn", "2024-02.pgn", f"{UNKNOWN}.pgn"]
    assert files_in(tmp_path / "m")[f"{UNKNOWN}.pgn"] == pgn([GAMES[3]])
    invoke("split", games_file, "--by", "year", "-o", tmp_path / "y" / "games-{year}.pgn")
    assert sorted(files_in(tmp_path / "y")) == ["games-2023.pgn", "games-2024.pgn"]
    invoke("split", games_file, "--by", "result", "-o", tmp_path / "r" / "{result}.pgn")
    results = files_in(tmp_path / "r")
    assert sorted(results) == ["0-1.pgn", "1-0.pgn", "draw.pgn", "unfinished.pgn"]
    assert results["draw.pgn"] == pgn([GAMES[3]])


def test_where_limit_and_sample_select_first(tmp_path, games_file):
    invoke("split", games_file, "--by", "event", "--where", "white in ('Anna', 'Dora', 'Gus')",
           "-o", tmp_path / "w" / "{event}.pgn")
    assert files_in(tmp_path / "w") == {"Open A.pgn": pgn([GAMES[0], GAMES[6]]), "Open B.pgn": pgn([GAMES[3]])}
    invoke("split", games_file, "--games", 1, "--limit", 2, "-o", tmp_path / "l" / "{n}.pgn")
    assert files_in(tmp_path / "l") == {"1.pgn": pgn(GAMES[:1]), "2.pgn": pgn(GAMES[1:2])}
    sampled, split_sample = tmp_path / "s.pgn", tmp_path / "s"
    invoke("filter", games_file, "-o", sampled, "--sample", "0.5", "--seed", "3")
    invoke("split", games_file, "--games", 100, "--sample", "0.5", "--seed", "3", "-o", split_sample / "{n}.pgn")
    assert files_in(split_sample).get("1.pgn", b"") == sampled.read_bytes()


def test_rejects_report_and_summary(tmp_path, games_file):
    done = pgntools("split", games_file, "--by", "event", "-o", tmp_path / "ev" / "{event}.pgn",
                    "--rejects", tmp_path / "bad.pgn", "--report", tmp_path / "r.jsonl", "--summary", tmp_path / "s.json")
    assert done.returncode == 0
    assert (tmp_path / "bad.pgn").read_bytes() == pgn([GAMES[2]])
    assert '"invalid"' in (tmp_path / "r.jsonl").read_text()
    assert '"games": 7' in (tmp_path / "s.json").read_text()


def test_compressed_parts_read_back_after_reopening(tmp_path, games_file):
    """With --max-open 1 every part is closed and reopened: each reopening appends a gzip member,
    which gzip and pgntools read as one stream."""
    invoke("split", games_file, "--by", "white", "-o", tmp_path / "plain" / "{white}.pgn")
    invoke("split", games_file, "--by", "event", "--max-open", "1", "-o", tmp_path / "gz" / "{event}.pgn.gz")
    invoke("split", games_file, "--by", "event", "-o", tmp_path / "ev" / "{event}.pgn")
    plain = files_in(tmp_path / "ev")
    packed = files_in(tmp_path / "gz")
    assert {name[:-3]: gzip.decompress(data) for name, data in packed.items()} == plain
    back = [g.tags for g in read_games(str(tmp_path / "gz" / "Open A.pgn.gz"))]
    assert [dict(t)["White"] for t in back] == ["Anna", "Carl", "Gus"]


# ---------------------------------------------------------------- open files, atomicity, inputs

def test_more_groups_than_max_open(tmp_path, monkeypatch):
    """40 players, interleaved, with --max-open 3: never more than 3 parts open (counted as the
    parts are written, with the process's descriptors), and the same files as with 64."""
    games = [game(f"E{i % 7}", f"player {i % 40}") for i in range(200)]
    path = tmp_path / "many.pgn"
    path.write_bytes(pgn(games))
    invoke("split", path, "--by", "white", "-o", tmp_path / "wide" / "{white}.pgn")
    most = {"open": 0, "fds": 0}
    base_fds = len(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else None
    append = split_module.PartFiles.append

    def counted(self, path, data):
        append(self, path, data)
        most["open"] = max(most["open"], len(self.open))
        if base_fds is not None:
            most["fds"] = max(most["fds"], len(os.listdir("/proc/self/fd")) - base_fds)

    monkeypatch.setattr(split_module.PartFiles, "append", counted)
    invoke("split", path, "--by", "white", "--max-open", "3", "--jobs", "1", "-o", tmp_path / "narrow" / "{white}.pgn")
    assert most["open"] == 3
    if base_fds is not None:
        assert most["fds"] <= 3 + 2  # the parts, and the input (and its listing)
    narrow, wide = files_in(tmp_path / "narrow"), files_in(tmp_path / "wide")
    assert len(wide) == 40 and narrow == wide
    assert wide["player 7.pgn"] == pgn([g for i, g in enumerate(games) if i % 40 == 7])


def test_a_failed_run_leaves_no_part(tmp_path, games_file):
    """The part for 'Open B' would be the second input: the run fails there (exit 2), after the
    'Open A' part was begun, and leaves no part, no temporary file, and the old file as it was."""
    out = tmp_path / "ev"
    out.mkdir()
    second = out / "Open B.pgn"
    second.write_bytes(pgn([game("Open B", "Zed")]))
    (out / "Open A.pgn").write_bytes(b"an earlier run's file\n")
    done = pgntools("split", games_file, second, "--by", "event", "-o", out / "{event}.pgn")
    assert done.returncode == 2
    assert "is the input" in done.stderr.decode() and done.stderr.decode().count("\n") == 1
    assert sorted(p.name for p in out.iterdir()) == ["Open A.pgn", "Open B.pgn"]
    assert (out / "Open A.pgn").read_bytes() == b"an earlier run's file\n"
    assert second.read_bytes() == pgn([game("Open B", "Zed")])


def test_a_failed_run_removes_the_directory_it_made(tmp_path, games_file):
    """The second input is no PGN: the run fails after its parts were begun (exit 2); the
    directories it made are gone again."""
    prose = tmp_path / "notes.txt"
    prose.write_bytes(b"Not a chess game, only some prose.\n" * 20)
    done = pgntools("split", games_file, prose, "--by", "event", "-o", tmp_path / "new" / "deeper" / "{event}.pgn")
    assert done.returncode == 2, done.stderr
    assert "notes.txt" in done.stderr.decode()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.pgn", "notes.txt"]


def test_an_interrupted_run_leaves_no_part(tmp_path):
    """SIGTERM during a run (a big input written slowly to a pipe): exit 143 and no part."""
    import signal
    import time

    proc = subprocess.Popen([sys.executable, "-m", "pgntools", "split", "-", "--games", "1", "-o",
                             str(tmp_path / "p" / "{n}.pgn")], cwd=REPO, stdin=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    proc.stdin.write(pgn([game("E", f"p{i}") for i in range(3000)]))
    proc.stdin.flush()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not any((tmp_path / "p").glob(".*.part")):
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    proc.stdin.close()
    assert proc.wait(60) in (143, 0)  # (0: the run had already finished: then every part is there)
    left = list((tmp_path / "p").iterdir()) if (tmp_path / "p").exists() else []
    assert left == [] or (proc.returncode == 0 and len(left) == 3000)


# ---------------------------------------------------------------- names from hostile values

HOSTILE = ["../../escape", "/etc/passwd", "..", ".", ".hidden", "-rf", "--help", "CON", "nul.txt", "com1",
           "LPT9 ", "a\\b", "a/b", "a_b", "tab\there", "nul\x01byte", "bell\x07", "trailing.", "trailing ",
           " leading", "x" * 400, "é" * 200, "日本語" * 40, "", "-", "?", UNKNOWN, "Unknown", "rtl\u202eexe.pgn",
           "q?*<>|:\"", "Same", "same", "zero\u200bwidth"]


def test_hostile_event_values_become_safe_distinct_files(tmp_path):
    games = [game(value, f"p{i}") for i, value in enumerate(HOSTILE)]
    path = tmp_path / "hostile.pgn"
    path.write_bytes(pgn(games))
    box = tmp_path / "box"
    invoke("split", path, "--by", "event", "-o", box / "out" / "{event}.pgn")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["box", "hostile.pgn"]  # nothing outside
    check_groups(box / "out", path, "Event")


def check_groups(folder: Path, source: Path, tag: str):
    """Every file is a plain, safe name in ``folder``; the games of one value are in one file, and
    one file holds the games of one value (no value: the fixed word)."""
    expected = defaultdict(list)
    for g in read_games(str(source)):
        value = dict(g.tags).get(tag)
        expected[None if value in (None, "", "?", "-") else value].append(dict(g.tags)["White"])
    found = {}
    for p in folder.iterdir():
        assert p.is_file() and not p.is_symlink()
        assert_safe(p.name[:-len(".pgn")])
        values = {dict(g.tags).get(tag) for g in read_games(str(p))}
        values = {None if v in (None, "", "?", "-") else v for v in values}
        assert len(values) == 1, (p.name, values)
        found[values.pop()] = [dict(g.tags)["White"] for g in read_games(str(p))]
    assert found == dict(expected)
    if None in expected:
        assert (folder / f"{UNKNOWN}.pgn").exists()


def assert_safe(name: str):
    assert name and "/" not in name and "\\" not in name and ".." not in name, name
    assert not name.startswith((".", "-", " ")) and not name.endswith((".", " ")), name
    assert not any(ord(c) < 32 or 0x7f <= ord(c) < 0xa0 for c in name), name
    assert name.split(".")[0].strip().upper() not in WINDOWS_DEVICES, name
    assert len(name.encode()) <= MAX_VALUE_BYTES + 1 + 2 * 8 + 8, name
    assert not set(name) & set('<>:"|?*'), name


@given(st.binary(max_size=300) | st.text(max_size=200).map(str.encode))
@settings(max_examples=400, deadline=None)
def test_any_value_gets_a_safe_name(value):
    name = safe_name(value)
    assert_safe(name)
    assert os.path.dirname(os.path.join("out", name + ".pgn")) == "out"
    if value and name.encode() != value:  # changed: it ends in a hash of the value
        assert re.fullmatch(r".+-[0-9a-f]{8}", name), name


@given(st.lists(st.binary(max_size=40) | st.text(max_size=30).map(str.encode), max_size=30))
@settings(max_examples=200, deadline=None)
def test_distinct_values_never_share_a_name(values):
    table = NameTable()
    names = {value or None: table(value) for value in values + [None]}  # empty: no value
    folded = [n.casefold() for n in names.values()]
    assert len(set(folded)) == len(folded)  # distinct values, distinct names (also case-folded)
    assert names[None] == UNKNOWN


def test_crafted_collisions_are_resolved_by_order():
    hashed = safe_name(b"a/b")  # a_b-<hash>
    table = NameTable()
    assert table(hashed.encode()) == hashed  # a clean value that looks like the other's name
    other = table(b"a/b")
    assert other != hashed and other.startswith("a_b-")
    assert table(b"Same") == "Same" and table(b"same") != "same"  # case-folding file systems
    assert table(b"unknown") != UNKNOWN and table(None) == UNKNOWN


@given(st.lists(st.text(alphabet=st.characters(blacklist_characters="\r\n", blacklist_categories=("Cs",)),
                        max_size=25), min_size=1, max_size=12))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_any_tag_strings_through_the_command(tmp_path_factory, values):
    tmp = tmp_path_factory.mktemp("split")
    path = tmp / "in.pgn"
    path.write_bytes(pgn([game(v, f"p{i}") for i, v in enumerate(values)]))
    invoke("split", path, "--by", "event", "-o", tmp / "out" / "{event}.pgn")
    assert sorted(p.name for p in tmp.iterdir()) == ["in.pgn", "out"]
    check_groups(tmp / "out", path, "Event")


# ---------------------------------------------------------------- usage errors: exit 2, nothing read

@pytest.mark.parametrize("args, message", [
    (["-o", "p/{n}.pgn"], "one of --games N"),
    (["-o", "p/{n}-{event}.pgn"], "one of --games N"),
    (["-o", "p/{nosuch}.pgn"], "one of --games N"),
    (["--games", "2", "--by", "event", "-o", "p/{n}.pgn"], "not both"),
    (["--by", "evnt", "-o", "p/{evnt}.pgn"], "did you mean event?"),
    (["--by", "nosuch", "-o", "p/{nosuch}.pgn"], "the fields are source, event"),
    (["--by", "event", "-o", "p/all.pgn"], "has no {event}"),
    (["--by", "event", "-o", "p/{white}.pgn"], "{white} is not this split's placeholder"),
    (["--games", "5", "-o", "p/{event}.pgn"], "--by event splits by that field"),
    (["--by", "event", "-o", "{event}/games.pgn"], "goes in the file name"),
    (["--games", "5", "-o", "p/{n:>5}.pgn"], "zero-padded width"),
    (["--games", "5", "-o", "p/{n.pgn"], "literal brace"),
    (["--games", "5", "-o", "-"], "local path"),
    (["--by", "game_id", "-o", "p/{game_id}.pgn"], "no such field"),
])
def test_usage_errors_before_any_input_is_read(tmp_path, args, message):
    done = pgntools("split", tmp_path / "missing.pgn", *args)  # the input does not exist: not read yet
    assert done.returncode == 2
    err = done.stderr.decode()
    assert message in err and "missing.pgn" not in err and err.count("\n") == 1, err
    assert not (tmp_path / "p").exists()


def test_a_field_placeholder_alone_means_by_that_field(tmp_path):
    path = tmp_path / "in.pgn"
    path.write_bytes(pgn([game("A"), game("B"), game("A", "X")]))
    invoke("split", path, "--by", "event", "-o", tmp_path / "by" / "{event}.pgn")
    invoke("split", path, "-o", tmp_path / "inferred" / "{event}.pgn")
    assert files_in(tmp_path / "inferred") == files_in(tmp_path / "by")
    assert sorted(files_in(tmp_path / "by")) == ["A.pgn", "B.pgn"]


def test_help_teaches_the_template():
    text = re.sub(r"-\n\s+", "-", invoke("split", "--help").output)  # (a wrap after a hyphen)
    for words in ("{n:04}", "--max-open", "date-month", "unknown", "[default: 64"):
        assert words in text


# ---------------------------------------------------------------- --jobs and the cluster

def split_outputs(tmp_path: Path, name: str, files, *args) -> Dict[str, bytes]:
    out = tmp_path / name
    out.mkdir()
    field = args[args.index("--by") + 1] if "--by" in args else "n"
    invoke("split", *files, *args, "-o", out / "parts" / f"{{{field}}}.pgn",
           "--rejects", out / "rejects.pgn")
    return files_in(out)


@pytest.mark.parametrize("how", [["--games", "7"], ["--by", "event"], ["--by", "white", "--max-open", "2"],
                                 ["--by", "date-month", "--normalize"]])
def test_same_files_for_any_jobs(tmp_path, how):
    path = tmp_path / "in.pgn"
    path.write_bytes(tricky_input(5) + b"\n".join(p.read_bytes() for p in sorted(FIXTURES.glob("*.pgn"))))
    how = ["--where", "ply_count >= 1 or event = 'tags only'", *how]
    base = split_outputs(tmp_path, "jobs1", [path], *how, "--jobs", "1")
    assert len([k for k in base if k.startswith("parts/")]) > 2
    for jobs in (2, 3):
        assert split_outputs(tmp_path, f"jobs{jobs}", [path], *how, "--jobs", str(jobs), "--chunk-bytes", "600") == base


@pytest.mark.skipif(not CORPUS.exists(), reason="the shared corpora are not beside the repository")
def test_corpus_by_eco_with_jobs_matches_filter(tmp_path):
    sample = tmp_path / "lichess.pgn"
    with open(CORPUS, "rb") as f:
        data = f.read(3_000_000)
    sample.write_bytes(data[:data.rindex(b"\n[Event ")])
    where = ["--where", "white_elo >= 2900"]
    one = split_outputs(tmp_path, "one", [sample], "--by", "eco", *where, "--jobs", "1")
    two = split_outputs(tmp_path, "two", [sample], "--by", "eco", *where, "--jobs", "2", "--chunk-bytes", "200000")
    assert one == two and len(one) > 20
    some = sorted(k for k in one if k.startswith("parts/"))[len(one) // 2]
    eco = some[len("parts/"):-len(".pgn")]
    filtered = tmp_path / "f.pgn"
    invoke("filter", sample, "-o", filtered, "--where", f"white_elo >= 2900 and eco = '{eco}'")
    assert one[some] == filtered.read_bytes()


def test_same_files_on_a_dask_cluster(tmp_path):
    distributed = pytest.importorskip("distributed")
    path = tmp_path / "in.pgn"
    path.write_bytes(tricky_input(4))
    base = split_outputs(tmp_path, "local", [path], "--by", "event", "--jobs", "1")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=40) as cluster:
        remote = split_outputs(tmp_path, "remote", [path], "--by", "event", "--scheduler", cluster.scheduler_address,
                               "--chunk-bytes", "600")
    assert remote == base


def test_filter_and_split_share_their_option_tail():
    """From --rejects on, filter and split take the same options (one decorator, cli_options'
    selected_games_options), in the same order and with the same help; their own come first."""
    def tail(name):
        params = [p for p in cli.commands[name].params if p.name != "files"]
        names = [p.name for p in params]
        return [(p.name, p.help, p.default, p.hidden) for p in params[names.index("rejects"):]]

    shared = tail("split")
    assert shared == tail("filter")
    names = [name for name, *_ in shared]
    assert names[:3] == ["rejects", "report", "report_level"] and {"where", "jobs", "repair", "exit_zero"} <= set(names)
    assert [p.name for p in cli.commands["split"].params][:6] == ["files", "template", "per_part", "by", "normalize",
                                                                  "max_open"]
