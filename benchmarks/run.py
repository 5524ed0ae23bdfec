#!/usr/bin/env python3
"""Whole-process benchmark of pgntools against its peers, with a correctness check on every run.

    python benchmarks/run.py [--input FILE ...] [--rounds 3] [--tools a,b,c] [--out FILE] [--quick]
                             [--make-big] [--list]

Each tool runs as a child process on the same file, in interleaved rounds (A B C A B C ...);
wall time is measured around the child and peak RSS is the child's ru_maxrss (os.wait4).
Every run's output is checked against python-chess's answer for the same file (see reference.py).
See benchmarks/README.md.
"""
import argparse
import datetime
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import reference
import selection_tasks
from reference import LICHESS, MASTER, OUT, REPO, TCEC
from tools import BYTECODE_NOTE, JOBS_PAIRS, TOOLS, unavailable, versions

BIG_INPUT_BYTES = 200 * 10**6   # tools marked slow are skipped above this unless named
QUICK_GAMES = 3000
SPAWN = Path(__file__).resolve().parent / "spawn.py"


@dataclass
class Result:
    tool: object
    walls: list = field(default_factory=list)
    cpus: list = field(default_factory=list)
    rss_mb: list = field(default_factory=list)
    verdicts: list = field(default_factory=list)
    failed: str = ""


# ---- running one tool once ----

def run_child(argv, work):
    """Run argv with stdout/stderr into work/; returns (wall s, peak RSS MB, exit code, CPU s).

    The child is started by spawn.py, which times it and reads its rusage from os.wait4."""
    result = work / "spawn-result"
    launcher = [sys.executable, "-S", "-I", str(SPAWN), str(result), *argv]
    with open(work / "stdout", "wb") as out, open(work / "stderr", "wb") as err:
        code = subprocess.call(launcher, stdout=out, stderr=err, stdin=subprocess.DEVNULL, cwd=REPO)
    if code != 0 or not result.exists():
        return 0.0, 0.0, code or -1, 0.0
    wall, maxrss_kib, code, cpu = result.read_text().split()
    return float(wall), int(maxrss_kib) / 1024, int(code), float(cpu)


def rss_floor():
    """Peak RSS reported for a child that does nothing: the launcher's own share."""
    work = fresh_dir(OUT / "tmp" / "floor")
    _, rss, _, _ = run_child(["true"], work)
    shutil.rmtree(work, ignore_errors=True)
    return rss


def fresh_dir(path):
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(parents=True)
    return path


def tail(path, n=160):
    text = path.read_text(errors="replace").strip() if path.exists() else ""
    return (text.splitlines() or ["(no output)"])[-1][:n]


def run_round(result, path, ref):
    tool = result.tool
    work = fresh_dir(OUT / "tmp" / tool.name)
    wall, rss, code, cpu = run_child(tool.argv(path, work), work)
    if code not in tool.ok_codes:
        result.failed = f"exit {code}: {tail(work / 'stderr')}"
    else:
        result.walls.append(wall)
        result.cpus.append(cpu)
        result.rss_mb.append(rss)
        expected = tool.expect(path) if tool.expect else None
        result.verdicts.append(verdict(tool.parse(work), ref, tool.valid_only, expected))
    shutil.rmtree(work, ignore_errors=True)


# ---- correctness ----

def compare_fens(fens, ref):
    """(compared, differing). Game by game when the tool gave one line per game; otherwise as
    multisets (a tool that skips games it rejects cannot be aligned), against python-chess's
    positions for the games it accepted."""
    ref_fens, ok = ref["fens"], ref["valid_flags"]
    if len(fens) == len(ref_fens):
        pairs = [(f, r) for f, r, v in zip(fens, ref_fens, ok) if f is not None and v]
        return len(pairs), sum(f != r for f, r in pairs)
    mine = Counter(f for f in fens if f is not None)
    theirs = Counter(r for r, v in zip(ref_fens, ok) if v)
    return sum(mine.values()), sum((mine - theirs).values())


def verdict(answer, ref, valid_only, expected=None):
    """'ok (...)', 'WRONG: n games differ (...)', 'differs (...)' or 'unchecked: ...'.

    WRONG: a count of all games, or a final position, that is not python-chess's. 'differs': a
    tool that writes only the games it accepts wrote neither python-chess's count of all games nor
    of valid ones; validity rules differ between tools, so this is shown, not failed."""
    facts, wrong, differs = [], 0, False
    if answer.games is not None:
        facts.append(f"{answer.games:,} games")
        if valid_only and answer.games not in (ref["games"], ref["valid"]):
            differs = True
            facts[-1] = f"wrote {answer.games:,} games, python-chess accepts {ref['valid']:,}"
        elif not valid_only and answer.games != ref["games"]:
            wrong = abs(answer.games - ref["games"])
            facts[-1] += f" vs {ref['games']:,}"
    if answer.valid is not None:
        facts.append(f"valid {answer.valid:,}" + ("" if answer.valid == ref["valid"]
                                                  else f" vs python-chess {ref['valid']:,}"))
    if answer.fens is not None:
        compared, differ = compare_fens(answer.fens, ref)
        facts.append(f"{compared:,} FENs compared" + (f", {differ:,} differ" if differ else " ok"))
        wrong = max(wrong, differ)
    if answer.selected is not None or expected is not None:  # a selection task: the games it selected
        if answer.selected is None:
            facts.append("no selection found")
            wrong = max(wrong, 1)
        elif expected is None:
            facts.append(f"{answer.selected:,} selected")
        elif answer.selected == expected:
            facts.append(f"{answer.selected:,} selected, as the tags say")
        else:
            facts.append(f"{answer.selected:,} selected, the tags say {expected:,}")
            wrong = max(wrong, abs(answer.selected - expected))
    facts += answer.notes
    if answer.games is None and answer.fens is None and answer.selected is None:
        return "unchecked: " + ("; ".join(facts) or "no count in output")
    label = f"WRONG: {wrong:,} games differ" if wrong else "differs" if differs else "ok"
    return f"{label} (" + "; ".join(facts) + ")"


# ---- the benchmark of one input ----

def warm_cache(path):
    with open(path, "rb") as f:
        while f.read(1 << 24):
            pass


def selects(name, tool):
    """--tools entries: a tool name, a prefix of names ('rust', 'pgn-extract'), a group ('peer',
    'pgntools') or a pgntools subcommand ('validate': both validate tasks)."""
    return name in (tool.name, tool.group, tool.subcommand) or tool.name.startswith(name + "-")


def select_tools(names, path):
    """(tools to run, {label: why skipped})."""
    explicit = set(names or [])
    chosen, skipped = [], {}
    for tool in TOOLS:
        if explicit and not any(selects(n, tool) for n in explicit):
            continue
        why = unavailable(tool)
        if not why and tool.slow and tool.name not in explicit and os.path.getsize(path) > BIG_INPUT_BYTES:
            why = "skipped on a big input (slow or memory-hungry); name it in --tools to run it"
        if why:
            skipped[tool.label] = why
        else:
            chosen.append(tool)
    return chosen, skipped


def bench_input(path, rounds, names, log):
    ref = reference.reference(path, log)
    tools, skipped = select_tools(names, path)
    results = [Result(t) for t in tools]
    warm_cache(path)
    for r in range(rounds):
        for result in results:
            if result.failed:
                continue
            log(f"  round {r + 1}/{rounds}: {result.tool.name} ...")
            run_round(result, path, ref)
            if result.failed:
                log(f"    failed: {result.failed}")
    for result in results:
        if result.failed:
            skipped[result.tool.label] = "run failed: " + result.failed
    return ref, [r for r in results if r.walls], skipped


# ---- report ----

def fmt_int(x):
    return f"{x:,.0f}"


def row(result, ref, size):
    med = statistics.median(result.walls)
    wrong = [v for v in result.verdicts if not v.startswith("ok")]
    check = wrong[0] if wrong else result.verdicts[0]
    if len(set(result.verdicts)) > 1:
        check += f" ({len(wrong)} of {len(result.verdicts)} rounds)"
    return (f"| {result.tool.label} | {med:.2f} | {min(result.walls):.2f}–{max(result.walls):.2f} "
            f"| {statistics.median(result.cpus):.2f} | {fmt_int(ref['games'] / med)} | {fmt_int(ref['plies'] / med)} | {size / 1e6 / med:.1f} "
            f"| {max(result.rss_mb):.1f} | {check} |")


def ratio_table(results):
    ours = [r for r in results if r.tool.group == "pgntools"]
    peers = [r for r in results if r.tool.group == "peer"]
    if not ours or not peers:
        return []
    lines = ["", "Speed ratio, peer median time / pgntools median time (above 1: pgntools is faster):", "",
             "| pgntools task | " + " | ".join(p.tool.label for p in peers) + " |",
             "|---|" + "---:|" * len(peers)]
    for o in ours:
        mine = statistics.median(o.walls)
        cells = [f"{statistics.median(p.walls) / mine:.2f}×" for p in peers]
        lines.append(f"| {o.tool.label} | " + " | ".join(cells) + " |")
    return lines


def jobs_lines(results):
    """The speed-up of each --jobs 2 row over its --jobs 1 row (tools.JOBS_PAIRS)."""
    by_name = {r.tool.name: r for r in results}
    lines = []
    for one, two in JOBS_PAIRS:
        if one in by_name and two in by_name:
            t1, t2 = statistics.median(by_name[one].walls), statistics.median(by_name[two].walls)
            lines.append(f"- {by_name[two].tool.label}: {t1 / t2:.2f}× {by_name[one].tool.label} "
                         f"({t1:.3f} → {t2:.3f} s)")
    return ["", "--jobs 2 against --jobs 1 (same run, medians):", ""] + lines if lines else []


def selection_lines(results, size):
    """Issue 18's selection targets: overheads over validate, the tag filter against pgn-extract
    -t, the ~1 % tag-only predicate's MB/s (selection_tasks.py)."""
    by_name = {r.tool.name: r for r in results}
    median = lambda r: statistics.median(r.walls)  # noqa: E731
    lines = selection_tasks.overhead_lines(by_name, median)
    rates = selection_tasks.rate_lines(by_name, median, size)
    if rates and not lines:
        lines = ["", "Selection (issue 18; same run, medians):", ""]
    return lines + rates


def input_section(path, ref, results, skipped, rounds):
    size = os.path.getsize(path)
    variants = f", {ref['variants']:,} other-variant games not compared" if ref["variants"] else ""
    lines = [f"### {Path(path).name}: {size / 1e6:.1f} MB, {ref['games']:,} games "
             f"({ref['valid']:,} valid for python-chess{variants}), {ref['plies']:,} plies; {rounds} round(s)", "",
             "| tool / task | median s | min–max s | CPU s | games/s | plies/s | MB/s | peak RSS MB | check |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    lines += [row(r, ref, size) for r in results]
    lines += ratio_table(results)
    lines += jobs_lines(results)
    lines += selection_lines(results, size)
    if skipped:
        lines += ["", "Not run:"] + [f"- {label}: {why}" for label, why in skipped.items()]
    return lines + [""]


def rss_by_input(per_input):
    """Peak RSS of each tool on each input (memory flatness: 20 MB vs 1 GB)."""
    names = [Path(p).name for p, _ in per_input]
    labels = list(dict.fromkeys(r.tool.label for _, rs in per_input for r in rs))
    lines = ["### Peak RSS MB by input", "",
             "Flat means the largest input's peak within 10 % of the first input's (the issue's test).", "",
             "| tool / task | " + " | ".join(names) + " | last / first | flat |",
             "|---|" + "---:|" * len(names) + "---:|---|"]
    for label in labels:
        cells, peaks = [], []
        for _, rs in per_input:
            hit = [r for r in rs if r.tool.label == label]
            cells.append(f"{max(hit[0].rss_mb):.1f}" if hit else "–")
            peaks.append(max(hit[0].rss_mb) if hit else None)
        ratio = peaks[-1] / peaks[0] if len(peaks) > 1 and None not in (peaks[0], peaks[-1]) else None
        verdict = "–" if ratio is None else ("yes" if ratio <= 1.10 else "NO")
        lines.append(f"| {label} | " + " | ".join(cells) + f" | {'–' if ratio is None else f'{ratio:.2f}'} | {verdict} |")
    return lines + [""]


def machine_lines(floor=None):
    cpu = "unknown CPU"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    tools = ", ".join(f"{k} {v}" for k, v in versions().items())
    lines = [f"Machine: {os.cpu_count()} CPUs (nproc), {cpu}; {platform.system()} {platform.release()}; "
            f"Python {platform.python_version()}.", f"Versions: {tools}."]
    if floor is not None:
        lines.append(f"Peak RSS floor: {floor:.1f} MB (what the launcher reports for a child that does "
                     "nothing; a figure at the floor means 'at most this').")
        lines.append(f"{BYTECODE_NOTE}.")
        lines.append(startup_line())
    return lines + [""]


def startup_line():
    """The interpreter's own start-up, with and without its site (the .pth files of site-packages
    run at every start: an editable install's finder costs ~20 ms, which every Python row pays)."""
    def best_ms(*flags):
        times = []
        for _ in range(7):
            t0 = time.perf_counter()
            subprocess.run([sys.executable, *flags, "-c", "pass"], check=True)
            times.append((time.perf_counter() - t0) * 1000)
        return min(times)

    bare, with_site = best_ms("-I", "-S"), best_ms()
    line = (f"Interpreter start-up (best of 7): `python -c pass` {with_site:.1f} ms, of which "
            f"site-packages' .pth files and site {with_site - bare:.1f} ms (`-I -S`: {bare:.1f} ms).")
    if with_site - bare > 8:
        line += (" Inflated: every Python row pays it; run from a venv with a regular install "
                 "(benchmarks/README.md).")
    return line


def report(per_input_sections, per_input_results, rounds, floor):
    stamp = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    lines = [f"## {stamp}: whole-process benchmark (run.py), {rounds} interleaved round(s)", ""]
    lines += machine_lines(floor)
    for section in per_input_sections:
        lines += section
    if len(per_input_results) > 1:
        lines += rss_by_input(per_input_results)
    return "\n".join(lines)


def append_results(out, text):
    out = Path(out)
    if not out.exists():
        out.write_text("# Benchmark results\n\nAppended by `benchmarks/run.py`, newest last. "
                       "See benchmarks/README.md for what the columns mean.\n\n")
    with open(out, "a") as f:
        f.write(text + "\n")


# ---- command line ----

def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--input", action="append", help=f"PGN file (repeatable; default {MASTER})")
    ap.add_argument("--rounds", type=int, help="interleaved rounds (default 3; 1 with --quick)")
    ap.add_argument("--tools", help="comma-separated tool names or prefixes, 'peer', 'pgntools' (see --list)")
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent / "RESULTS.md"))
    ap.add_argument("--quick", action="store_true",
                    help=f"1 round; default input the first {QUICK_GAMES} master games")
    ap.add_argument("--make-big", action="store_true",
                    help="also run on a ~1 GB file of repeated corpora (benchmarks/out/big-1gb.pgn)")
    ap.add_argument("--list", action="store_true", help="list the tools and whether they can run")
    return ap.parse_args(argv)


def inputs_from(args, log):
    if args.input:
        paths = [Path(p).resolve() for p in args.input]
    elif args.quick:
        paths = [reference.make_head(MASTER, QUICK_GAMES, OUT / f"master-first-{QUICK_GAMES}.pgn")]
    else:
        paths = [MASTER]
    if args.make_big:
        paths.append(reference.make_big(OUT / "big-1gb.pgn", [MASTER, LICHESS, TCEC], log=log))
    return paths


def main(argv=None):
    args = parse_args(argv)
    log = lambda msg: print(msg, file=sys.stderr, flush=True)   # noqa: E731
    if args.list:
        for t in TOOLS:
            print(f"{t.name:20} {t.group:9} {unavailable(t) or 'ok'}")
        return 0
    rounds = args.rounds or (1 if args.quick else 3)
    names = [n.strip() for n in args.tools.split(",")] if args.tools else None
    sections, per_input = [], []
    for path in inputs_from(args, log):
        log(f"{path}:")
        ref, results, skipped = bench_input(path, rounds, names, log)
        sections.append(input_section(path, ref, results, skipped, rounds))
        per_input.append((path, results))
    text = report(sections, per_input, rounds, rss_floor())
    print(text)
    append_results(args.out, text)
    log(f"appended to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
