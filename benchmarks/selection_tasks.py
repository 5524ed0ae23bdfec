"""The selection tasks of the harness (issue 18): a tag filter against pgn-extract `-t` with the
same criterion, a tag-only predicate that keeps about 1 % of the games (read in MB/s), and the
overhead of --dedup and --where-position over plain validate.

Their check is the number of games selected: for a tag criterion, counted here from the input's
tags (python-chess's split of the file into games, reference.split_games), so that pgntools and
pgn-extract are each checked against the same count; for --dedup and --where-position, the games
read must be python-chess's count and the games kept are shown.
"""
import functools
import json
import re

from reference import read_text, split_games

WHITE_ELO = re.compile(r'^\[WhiteElo "(\d{1,9})"\]', re.MULTILINE)
MATCHED = re.compile(rb"(\d+) games? matched out of (\d+)")
GAME_START = re.compile(rb"(?:\A|\n[ \t]*\r?\n)[ \t]*\[")
ELO = 2600            # the tag filter both tools run: WhiteElo >= 2600
KEEP_SHARE = 0.01     # the tag-only predicate keeps about this share of the games
# a position most master games reach: 1. e4 e5 (transpositions count)
OPEN_GAME = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq -"
# (pgntools task, its baseline, the limit on the overhead in %)
OVERHEADS = [("validate-dedup-moves", "validate", 15), ("validate-dedup-position", "validate", 15),
             ("validate-where-position", "validate", 20)]
# (pgntools task, peer task, the speed-up target)
SELECTION_PAIRS = [("filter-elo", "pgn-extract-tags", 5.0)]
MB_S_TARGETS = [("filter-1pct", 300.0)]  # tag-only, ~1 % kept: MB/s on one core (whole process)


@functools.lru_cache(maxsize=None)
def white_elos(path):
    """Each game's WhiteElo as a number (None: absent, or not a whole number)."""
    out = []
    for game in split_games(read_text(path)):
        head = game.split("\n\n", 1)[0]
        m = WHITE_ELO.search(head)
        out.append(int(m.group(1)) if m else None)
    return tuple(out)


def games_with_elo_at_least(path, elo):
    return sum(1 for e in white_elos(path) if e is not None and e >= elo)


@functools.lru_cache(maxsize=None)
def rare_elo(path):
    """The lowest WhiteElo that at most KEEP_SHARE of the input's games reach (about 1 % kept)."""
    elos = sorted((e for e in white_elos(path) if e is not None), reverse=True)
    budget = max(1, int(len(white_elos(path)) * KEEP_SHARE))
    if len(elos) <= budget:
        return elos[-1] if elos else 10 ** 9
    cut = elos[budget - 1]
    if elos[budget] == cut:  # ties at the cut: the next value up keeps fewer than the budget
        higher = [e for e in elos[:budget] if e > cut]
        cut = higher[-1] if higher else cut
    return cut


# ---- answers

def count_games(data):
    return len(GAME_START.findall(data))


def summary_selection_answer(work, answer_type):
    """pgntools with --summary (and -o out.pgn for filter): games read, games selected."""
    try:
        s = json.loads((work / "summary.json").read_bytes())
    except (OSError, ValueError):
        return answer_type(notes=["no summary JSON"])
    read, kept = s.get("read", s.get("games")), s.get("games")
    notes = [f"kept {kept:,} of {read:,} read"]
    out = work / "out.pgn"
    if out.exists():
        written = count_games(out.read_bytes())
        if written != kept:
            notes.append(f"but out.pgn holds {written:,}")
        kept = written
    return answer_type(games=read, selected=kept, notes=notes)


def pgn_extract_selection_answer(work, answer_type):
    """pgn-extract -t --quiet: the games it wrote to out.pgn (--quiet: no 'N games matched' line)."""
    err = (work / "stderr").read_bytes() if (work / "stderr").exists() else b""
    m = MATCHED.search(err)
    out = work / "out.pgn"
    written = count_games(out.read_bytes()) if out.exists() else None
    return answer_type(games=int(m.group(2)) if m else None, selected=written,
                       notes=[f"matched {int(m.group(1)):,}"] if m else [])


def tag_criteria(work):
    """pgn-extract's tag file (-t) for WhiteElo >= ELO: its manual's relational form for Elo tags."""
    path = work / "criteria.txt"
    path.write_text(f'WhiteElo >= "{ELO}"\n')
    return path


# ---- the report's lines

def overhead_lines(by_name, median):
    lines = []
    for task, base, limit in OVERHEADS:
        if task in by_name and base in by_name:
            t, b = median(by_name[task]), median(by_name[base])
            over = 100 * (t / b - 1)
            lines.append(f"- {by_name[task].tool.label}: {over:+.1f} % over {by_name[base].tool.label} "
                         f"({b:.3f} → {t:.3f} s; issue 18's limit {limit} %: {'met' if over <= limit else 'NOT met'})")
    for task, peer, target in SELECTION_PAIRS:
        if task in by_name and peer in by_name:
            ratio = median(by_name[peer]) / median(by_name[task])
            lines.append(f"- {by_name[task].tool.label}: {ratio:.2f}× {by_name[peer].tool.label} "
                         f"(target ≥ {target:g}×: {'met' if ratio >= target else 'NOT met'})")
    return ["", "Selection (issue 18; same run, medians):", ""] + lines if lines else []


def rate_lines(by_name, median, size):
    lines = []
    for task, target in MB_S_TARGETS:
        if task in by_name:
            rate = size / 1e6 / median(by_name[task])
            lines.append(f"- {by_name[task].tool.label}: {rate:.0f} MB/s, whole process "
                         f"(target ≥ {target:g} MB/s: {'met' if rate >= target else 'NOT met'})")
    return lines
