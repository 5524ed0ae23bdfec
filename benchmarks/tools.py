"""The tools and tasks the harness times, and how to read a checkable answer out of each run.

Every tool runs as its own process with its working directory `work` (a fresh, empty folder):
its standard output and error are saved to work/stdout and work/stderr, and its output files go
in `work` too. `parse(work)` turns what the run left there into an Answer.
"""
import functools
import importlib.metadata
import importlib.util
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, List, Optional

import selection_tasks
from reference import REPO, fen4

HERE = Path(__file__).resolve().parent
DRIVERS = HERE / "drivers"
PGN_EXTRACT = "/usr/games/pgn-extract"
FEN_COMMENT = re.compile(rb'\{ "([1-8pnbrqkPNBRQK/]+ [wb] [-A-Ha-hKQkq]+ [-a-h1-8]+ \d+ \d+)" \}')
GAME_START = re.compile(rb"(?:\A|\n[ \t]*\r?\n)[ \t]*\[")


@dataclass
class Answer:
    games: Optional[int] = None          # games the tool reports or wrote
    fens: Optional[List] = None          # final FEN (4 fields) per game, None where it gave none
    valid: Optional[int] = None          # games the tool accepts, where it says
    notes: List[str] = field(default_factory=list)
    selected: Optional[int] = None       # a selection task: the games it selected


@dataclass
class Tool:
    name: str                            # id for --tools
    label: str                           # row label in the tables
    group: str                           # "peer" or "pgntools"
    argv: Callable[[Path, Path], list]   # (input file, work dir) -> command line
    parse: Callable[[Path], Answer]      # work dir -> Answer
    valid_only: bool = False             # writes only the games it accepts
    slow: bool = False                   # skipped on big inputs unless named in --tools
    needs: tuple = ()                    # python modules that must import
    subcommand: str = ""                 # pgntools subcommand (probed with --help)
    ok_codes: tuple = (0,)               # exit statuses of a finished run
    expect: Optional[Callable[[Path], int]] = None  # a selection task: the games it must select


# ---- reading answers ----

def _read(work, name):
    p = work / name
    return p.read_bytes() if p.exists() else b""


def driver_answer(work):
    """Driver output: one FEN (or "error") per line, then "# key=value ..."."""
    answer, fens, has_fens = Answer(), [], False
    for line in _read(work, "stdout").decode().splitlines():
        if line.startswith("#"):
            kv = dict(item.split("=", 1) for item in line[1:].split())
            answer.games = int(kv.pop("games"))
            answer.notes += [f"{k} {int(v):,}" for k, v in kv.items()]
        elif line.strip():
            has_fens = True
            fens.append(None if line == "error" else fen4(line))
    if has_fens:
        answer.fens = fens
    return answer


def count_game_starts(data):
    """Games in a PGN file: tag sections that begin the file or follow a blank line."""
    return len(GAME_START.findall(data))


def pgn_output_answer(work, name="out.pgn"):
    return Answer(games=count_game_starts(_read(work, name)))


def pgn_extract_fen_answer(work):
    data = _read(work, "out.pgn")
    fens = [fen4(m.decode()) for m in FEN_COMMENT.findall(data)]
    return Answer(games=count_game_starts(data), fens=fens)


def pgn_extract_check_answer(work):
    m = re.search(rb"(\d+) games? matched out of (\d+)", _read(work, "stderr"))
    errors = _read(work, "stderr").count(b"Failed to make move")
    return Answer(games=int(m.group(2)) if m else None, notes=[f"{errors} move errors reported"])


def first_count(text):
    """A game count from free text: JSON {"games": n}, 'games: n', 'n games', or the last integer."""
    try:
        return int(json.loads(text)["games"])
    except (ValueError, KeyError, TypeError):
        pass
    for pattern in (r"(\d[\d,]*)\s+games", r"games\W{0,3}(\d[\d,]*)"):
        m = re.search(pattern, text, re.IGNORECASE)
        if m:
            return int(m.group(1).replace(",", ""))
    numbers = re.findall(r"\d+", text)
    return int(numbers[-1]) if numbers else None


def scan_answer(work):
    return Answer(games=first_count(_read(work, "stdout").decode(errors="replace")))


def summary_answer(work):
    try:
        s = json.loads(_read(work, "summary.json"))
    except ValueError:
        return Answer(notes=["no summary JSON"])
    notes = [f"{k} {s[k]:,}" for k in ("fixed", "invalid") if isinstance(s.get(k), int)]
    return Answer(games=s.get("games"), valid=s.get("valid"), notes=notes)


def stats_answer(work):
    """pgntools stats --json: its games and validity (issue 21: at most 1.2x validate's time)."""
    try:
        s = json.loads(_read(work, "stats.json"))
    except ValueError:
        return Answer(notes=["no stats JSON"])
    v = s.get("validity", {})
    notes = [f"{k} {v[k]:,}" for k in ("fixed", "invalid") if v.get(k)]
    return Answer(games=s.get("games"), valid=v.get("valid"), notes=notes)


def fen_lines_answer(work):
    lines = [line for line in _read(work, "out.fen").decode().splitlines() if line.strip()]
    return Answer(games=len(lines), fens=[fen4(line) for line in lines])


def parquet_answer(work):
    """Rows of the games table of a --parquet export (a file or folder named like 'games')."""
    import pyarrow.dataset as ds

    out = work / "parquet"
    candidates = sorted(p for p in out.rglob("*") if "game" in p.name.lower()) if out.exists() else []
    for p in candidates:
        if p.is_dir() or p.suffix == ".parquet":
            try:
                return Answer(games=ds.dataset(p, format="parquet").count_rows(), notes=[f"rows of {p.name}"])
            except Exception:
                continue
    files = sorted(out.rglob("*.parquet")) if out.exists() else []
    return Answer(notes=[f"no games table found ({len(files)} parquet files)"])


def positions_answer(work):
    """Rows of the positions dataset of `export --positions` (checked against python-chess by
    positions_bench.py, which times the same command)."""
    import pyarrow.dataset as ds

    out = work / "positions"
    files = sorted(out.glob("*.parquet")) if out.exists() else []
    if not files:
        return Answer(notes=["no positions dataset written"])
    return Answer(notes=[f"{ds.dataset(out, format='parquet').count_rows():,} positions"])


# ---- pgntools command line ----

@functools.lru_cache(maxsize=None)
def pgntools_base():
    """`python -m pgntools` run from the repository root (the working tree's code), or the command
    in $PGNTOOLS_CMD (split on spaces) to time another build."""
    if os.environ.get("PGNTOOLS_CMD"):
        return tuple(os.environ["PGNTOOLS_CMD"].split())
    compile_bytecode()
    return (sys.executable, "-m", "pgntools")


BYTECODE_NOTE = ("pgntools runs from the working tree with its bytecode compiled first, as `pip install` "
                 "does: with PYTHONDONTWRITEBYTECODE set (this machine sets it) Python would otherwise "
                 "compile every module at every start, ~8 ms")


def compile_bytecode():
    """Writes __pycache__/*.pyc for the working tree's package (compileall writes them even under
    PYTHONDONTWRITEBYTECODE), so that a timed run starts as an installed pgntools does."""
    import compileall

    compileall.compile_dir(str(REPO / "pgntools"), quiet=1)


@functools.lru_cache(maxsize=None)
def pgntools_help(subcommand):
    """(help text, None) or (None, why it cannot run)."""
    try:
        p = subprocess.run([*pgntools_base(), subcommand, "--help"], cwd=REPO, capture_output=True,
                           text=True, timeout=120, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, str(e)
    if p.returncode != 0:
        lines = (p.stderr or p.stdout).strip().splitlines() or [f"exit {p.returncode}"]
        return None, lines[-1][:160]
    return p.stdout, None


def pgntools_argv(subcommand, *args, jobs=1):
    """pgntools SUBCOMMAND [--no-progress] [--jobs N] ARGS, the flags only where --help lists them."""
    def argv(path, work):
        help_text, _ = pgntools_help(subcommand)
        flags = [f for f in ("--no-progress",) if help_text and f in help_text]
        if help_text and "--jobs" in help_text:
            flags += ["--jobs", str(jobs)]
        fill = {"FILE": str(path), "WORK": str(work)}
        return [*pgntools_base(), subcommand, *flags, *(a.format(**fill) for a in args)]
    return argv


# ---- the tools ----

def _py(script, *extra):
    return lambda path, work: [sys.executable, str(DRIVERS / script), str(path), *extra]


def _pgn_extract(*flags, out=True):
    return lambda path, work: [PGN_EXTRACT, *flags, *(["-o", str(work / "out.pgn")] if out else []), str(path)]


VALIDATE_CODES = (0, 1)   # pgntools validate: 0 all games valid, 1 some invalid, 2 usage/input error

TOOLS = [
    Tool("pgn-extract-check", "pgn-extract `-r` (check only)", "peer", _pgn_extract("-r", out=False),
         pgn_extract_check_answer),
    Tool("pgn-extract-rewrite", "pgn-extract `-s` (rewrite)", "peer", _pgn_extract("-s", "--quiet"),
         pgn_output_answer, valid_only=True),
    Tool("pgn-extract-fen", "pgn-extract `-F` (final FEN)", "peer", _pgn_extract("-F", "-s", "--quiet"),
         pgn_extract_fen_answer, valid_only=True),
    Tool("python-chess", "python-chess BoardBuilder", "peer", _py("python_chess.py"), driver_answer,
         slow=True, needs=("chess",)),
    Tool("rust-1t", "rust binding, 1 thread (Arrow)", "peer", _py("rust_binding.py", "1"), driver_answer,
         slow=True, needs=("rust_pgn_reader_python_binding", "pyarrow")),
    Tool("rust-all", "rust binding, all threads (Arrow)", "peer", _py("rust_binding.py", "0"), driver_answer,
         slow=True, needs=("rust_pgn_reader_python_binding", "pyarrow")),
    Tool("bulletchess", "bulletchess", "peer", _py("bulletchess_driver.py"), driver_answer,
         needs=("bulletchess",)),
    Tool("scan", "pgntools scan", "pgntools", pgntools_argv("scan", "{FILE}"), scan_answer, subcommand="scan"),
    Tool("validate", "pgntools validate --summary", "pgntools",
         pgntools_argv("validate", "--summary", "{WORK}/summary.json", "{FILE}"), summary_answer,
         subcommand="validate", ok_codes=VALIDATE_CODES),
    Tool("validate-out", "pgntools validate -o", "pgntools",
         pgntools_argv("validate", "-o", "{WORK}/out.pgn", "{FILE}"), pgn_output_answer,
         valid_only=True, subcommand="validate", ok_codes=VALIDATE_CODES),
    Tool("stats", "pgntools stats --json --html", "pgntools",
         pgntools_argv("stats", "--json", "{WORK}/stats.json", "--html", "{WORK}/stats.html", "{FILE}"),
         stats_answer, subcommand="stats", ok_codes=VALIDATE_CODES),
    Tool("to-fen", "pgntools to-fen", "pgntools", pgntools_argv("to-fen", "{FILE}", "-o", "{WORK}/out.fen"),
         fen_lines_answer, valid_only=True, subcommand="to-fen", ok_codes=VALIDATE_CODES),
    Tool("export", "pgntools export --parquet (--jobs 1: one thread)", "pgntools",
         pgntools_argv("export", "--parquet", "{WORK}/parquet", "{FILE}"), parquet_answer,
         subcommand="export", ok_codes=VALIDATE_CODES),
    Tool("export-positions", "pgntools export --positions (--jobs 1: one thread)", "pgntools",
         pgntools_argv("export", "--positions", "{WORK}/positions", "{FILE}"), positions_answer,
         subcommand="export", ok_codes=VALIDATE_CODES),
    # the same tasks on two threads (--jobs 2; the rows above run on one): validate's two workers
    # read chunks of the input, export's one worker reads while its writer thread encodes
    Tool("validate-jobs2", "pgntools validate --summary --jobs 2", "pgntools",
         pgntools_argv("validate", "--summary", "{WORK}/summary.json", "{FILE}", jobs=2), summary_answer,
         subcommand="validate", ok_codes=VALIDATE_CODES),
    Tool("export-jobs2", "pgntools export --parquet --jobs 2 (reader + writer thread)", "pgntools",
         pgntools_argv("export", "--parquet", "{WORK}/parquet", "{FILE}", jobs=2), parquet_answer,
         subcommand="export", ok_codes=VALIDATE_CODES),
]

# ---- selection (issue 18): a tag filter against pgn-extract -t, a ~1 % tag-only predicate, and
# the overhead of --dedup and --where-position over validate (benchmarks/selection_tasks.py)

def _selection_answer(work):
    return selection_tasks.summary_selection_answer(work, Answer)


def _pgn_extract_tags(path, work):
    return [PGN_EXTRACT, "-t", str(selection_tasks.tag_criteria(work)), "--quiet", "-o", str(work / "out.pgn"),
            str(path)]


def _rare_filter(path, work):
    where = f"white_elo >= {selection_tasks.rare_elo(path)}"
    return pgntools_argv("filter", "{FILE}", "-o", "{WORK}/out.pgn", "--summary", "{WORK}/summary.json",
                         "--where", where, "--exit-zero")(path, work)


def _elo_count(path):
    return selection_tasks.games_with_elo_at_least(path, selection_tasks.ELO)


def _rare_count(path):
    return selection_tasks.games_with_elo_at_least(path, selection_tasks.rare_elo(path))


TOOLS += [
    Tool("filter-elo", f'pgntools filter --where "white_elo >= {selection_tasks.ELO}" -o', "pgntools",
         pgntools_argv("filter", "{FILE}", "-o", "{WORK}/out.pgn", "--summary", "{WORK}/summary.json",
                       "--where", f"white_elo >= {selection_tasks.ELO}", "--exit-zero"),
         _selection_answer, subcommand="filter", expect=_elo_count),
    Tool("pgn-extract-tags", f'pgn-extract `-t` (WhiteElo >= "{selection_tasks.ELO}")', "peer", _pgn_extract_tags,
         lambda work: selection_tasks.pgn_extract_selection_answer(work, Answer), expect=_elo_count),
    Tool("filter-1pct", "pgntools filter --where \"white_elo >= X\" -o (X: ~1 % kept)", "pgntools", _rare_filter,
         _selection_answer, subcommand="filter", expect=_rare_count),
    Tool("validate-dedup-moves", "pgntools validate --summary --dedup moves", "pgntools",
         pgntools_argv("validate", "--summary", "{WORK}/summary.json", "--dedup", "moves", "{FILE}"),
         _selection_answer, subcommand="validate", ok_codes=VALIDATE_CODES),
    Tool("validate-dedup-position", "pgntools validate --summary --dedup position", "pgntools",
         pgntools_argv("validate", "--summary", "{WORK}/summary.json", "--dedup", "position", "{FILE}"),
         _selection_answer, subcommand="validate", ok_codes=VALIDATE_CODES),
    Tool("validate-where-position", "pgntools validate --summary --where-position (1. e4 e5)", "pgntools",
         pgntools_argv("validate", "--summary", "{WORK}/summary.json", "--where-position", selection_tasks.OPEN_GAME,
                       "{FILE}"),
         _selection_answer, subcommand="validate", ok_codes=VALIDATE_CODES),
]

# --jobs 2 against --jobs 1 (issue 7: >= 1.7x on 2 cores), from the same run
JOBS_PAIRS = [("validate", "validate-jobs2"), ("export", "export-jobs2")]


def unavailable(tool):
    """None if the tool can run here, else why not."""
    if tool.name.startswith("pgn-extract") and not Path(PGN_EXTRACT).exists():
        return f"{PGN_EXTRACT} not installed (run benchmarks/setup_peers.sh)"
    for module in tool.needs:
        if importlib.util.find_spec(module) is None:
            return f"python module {module} not installed"
    if tool.subcommand:
        _, why = pgntools_help(tool.subcommand)
        if why:
            return f"`pgntools {tool.subcommand}` not available yet: {why}"
    return None


# ---- versions ----

def _dist_version(name):
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def _git_head():
    p = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return p.stdout.strip() if p.returncode == 0 else "no commit yet"


def versions():
    out = {}
    if Path(PGN_EXTRACT).exists():
        p = subprocess.run([PGN_EXTRACT, "-h"], capture_output=True, text=True)
        m = re.search(r"pgn-extract (v[\w.-]+)", p.stdout + p.stderr)
        out["pgn-extract"] = m.group(1) if m else "?"
    for dist in ("chess", "rust-pgn-reader-python-binding", "pyarrow", "bulletchess"):
        v = _dist_version(dist)
        if v:
            out["python-chess" if dist == "chess" else dist] = v
    out["pgntools"] = f"{_dist_version('pgntools') or 'not installed'} (repo {_git_head()})"
    return out
