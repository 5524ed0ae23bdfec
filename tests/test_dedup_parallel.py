"""--dedup and --limit through --jobs N (issue 18): the parent decides chunk by chunk in input order
(pgntools.runner.in_order), so every command writes the same bytes as --jobs 1, and --report names the same
duplicates, on inputs whose copies lie in other chunks. The Dask path: tests/test_dask.py."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

import pgntools.runner.in_order as in_order_module
from pgntools.cli import cli
from test_parallel import CORPORA, TO_FEN, VALIDATE, assert_same_outputs, corpus_sample, fixtures_input, tricky_input

pytest.importorskip("pyarrow")

MODES = ["moves", "position"]


def duplicated_input(tmp_path: Path) -> Path:
    """Games, a second copy later (across many chunk seams), part of them a third time, and a
    head written again (copies that are not byte-identical: other move numbers, a comment)."""
    games = tricky_input(4) + fixtures_input()
    again = b'[Event "A again"]\n[Result "1-0"]\n\n1. e4 {here} e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n'
    path = tmp_path / "dup.pgn"
    path.write_bytes(games + b"\n" + again + games + b"\n" + tricky_input(2) + b"\n" + again)
    return path


@pytest.fixture
def in_order(monkeypatch):
    """Counts the runs that went through pgntools.runner.in_order (so a test knows the path was taken)."""
    runs = []
    real = in_order_module.InOrder.run

    def counted(self):
        runs.append(self)
        return real(self)

    monkeypatch.setattr(in_order_module.InOrder, "run", counted)
    return runs


def report_lines(got: dict):
    return [json.loads(line) for line in got["report.jsonl"].splitlines()]


@pytest.mark.parametrize("mode", MODES)
def test_validate_same_outputs_and_duplicates(tmp_path, mode, in_order):
    path = duplicated_input(tmp_path)
    got = assert_same_outputs(tmp_path, VALIDATE + ["--dedup", mode], [path], chunk=500)
    assert len(in_order) == 2  # --jobs 2 and 3 (1 reads in-process)
    dropped = [r for r in report_lines(got) if r["status"] == "duplicate"]
    assert len(dropped) > 40 and all(r["duplicate_of"] < r["game"] for r in dropped)
    assert got["summary"]["read"] - got["summary"]["games"] == len(dropped)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("extra", [["--limit", "37"], ["--where", "event != 'c1'", "--limit", "60"],
                                   ["--sample", "0.5", "--seed", "3"], ["--sample", "0.7", "--limit", "20"],
                                   ["--limit", "0"]], ids=["limit", "where-limit", "sample", "sample-limit", "limit0"])
def test_filter_with_where_sample_and_limit(tmp_path, mode, extra, in_order):
    path = duplicated_input(tmp_path)
    command = ["filter", "-o", "@", "--report", "@", "--summary", "@", "--dedup", mode, *extra]
    got = assert_same_outputs(tmp_path, command, [path], chunk=400)
    if extra[-1] != "0":
        assert got["out"] and got["summary"]["dropped"] > 0


def test_limit_alone_stops_at_the_same_game(tmp_path, in_order):
    path = duplicated_input(tmp_path)
    got = assert_same_outputs(tmp_path, ["filter", "-o", "@", "--summary", "@", "--limit", "25"], [path], chunk=300)
    assert got["summary"]["games"] == 25 and in_order
    assert got["summary"]["read"] < 60  # the run stopped reading at the 25th game (not at a chunk's end)


@pytest.mark.parametrize("command", TO_FEN[:3], ids=lambda c: "-".join(c[3:5]) or "fen")
def test_to_fen(tmp_path, command):
    path = duplicated_input(tmp_path)
    got = assert_same_outputs(tmp_path, command + ["--dedup", "position"], [path], jobs=(2,), chunk=400)
    assert got["out"]


@pytest.mark.parametrize("mode", MODES)
def test_export(tmp_path, mode):
    path = duplicated_input(tmp_path)
    command = ["export", "--parquet", "@", "--report", "@", "--summary", "@", "--dedup", mode, "--limit", "40"]
    got = assert_same_outputs(tmp_path, command, [path], chunk=400)
    assert got["summary"]["games"] == 40


def _folder_outputs(tmp: Path, name: str, args: list) -> dict:
    out = tmp / name
    out.mkdir()
    args = [str(a).replace("@", str(out)) for a in args]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code in (0, 1), (result.output, result.exception)
    files = {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}
    if "stats.json" in files:  # without its timing
        stats = json.loads(files["stats.json"])
        del stats["run"]
        for source in stats.get("sources", []):
            source.pop("seconds", None), source.pop("games_per_second", None)
        files["stats.json"] = json.dumps(stats).encode()
    return {"stdout": re.sub(r", [\d,.]+ games/s", "", result.stdout), **files}  # (stats' text gives its rate)


@pytest.mark.parametrize("command", [
    ["split", "-o", "@/parts/{n}.pgn", "--games", "7", "--report", "@/r.jsonl"],
    ["split", "-o", "@/events/{event}.pgn", "--by", "event", "--limit", "50"],
    ["stats", "--json", "@/stats.json", "--report", "@/r.jsonl"],
], ids=["split-games", "split-by", "stats"])
@pytest.mark.parametrize("mode", MODES)
def test_split_and_stats(tmp_path, command, mode, in_order):
    path = duplicated_input(tmp_path)
    runs = [_folder_outputs(tmp_path, f"jobs{jobs}", [*command, "--dedup", mode, "--jobs", jobs, "--chunk-bytes", 500,
                                                      path]) for jobs in (1, 2, 3)]
    assert runs[0] == runs[1] == runs[2]
    assert len(runs[0]) > 1 and len(in_order) == 2
    if command[0] == "stats":  # the statistics count the distinct games only
        stats = json.loads(runs[0]["stats.json"])
        dropped = [line for line in runs[0]["r.jsonl"].splitlines() if b'"duplicate"' in line]
        assert stats["games"] == stats["games_read"] - len(dropped) and dropped


def test_duplicates_across_inputs(tmp_path):
    """A game of the second input that repeats one of the first: its duplicate_of names the
    first input's game (ids run on across inputs)."""
    a = tmp_path / "a.pgn"
    a.write_bytes(tricky_input(3))
    b = tmp_path / "b.pgn"
    b.write_bytes(fixtures_input() + b"\n" + tricky_input(2))
    got = assert_same_outputs(tmp_path, VALIDATE + ["--dedup", "moves"], [a, b], chunk=500)
    records = report_lines(got)
    in_a = {r["game"] for r in records if r["file"] == str(a)}
    across = [r for r in records if r["status"] == "duplicate" and r["file"] == str(b) and r["duplicate_of"] in in_a]
    assert across


@pytest.mark.skipif(not CORPORA.exists(), reason="needs ../shared/corpora")
@pytest.mark.parametrize("mode", MODES)
def test_corpus_merged_with_itself(tmp_path, mode):
    """Real games (a Lichess player's and the master file's heads) merged with themselves: the
    second copies are dropped and the outputs are the same for --jobs 1, 2 and 3."""
    lichess = corpus_sample(CORPORA / "lichess" / "lichess-magnus-carlsen.pgn", 150_000)
    master = corpus_sample(CORPORA / "bench" / "master-games-30k.pgn", 150_000)
    path = tmp_path / "merged.pgn"
    path.write_bytes(lichess + b"\n" + master + b"\n" + master + b"\n" + lichess)
    got = assert_same_outputs(tmp_path, VALIDATE + ["--dedup", mode], [path], chunk=40_000)
    summary = got["summary"]
    assert summary["read"] - summary["games"] >= summary["read"] // 2 - 1  # (the heads hold a few repeats too)
