"""Where a build's instructions (and, with --branch-sim=yes, mispredicted branches) go per ply,
by the C function whose body holds each source line: inlined code is charged to the function it
was written in (san_find, pos_make_plain, after_move, ...), not to read_game, which is what
callgrind's own per-function view shows for a reader that inlines the whole move path. Two
builds side by side give the table of what one costs more than the other.

    valgrind --tool=callgrind [--branch-sim=yes] --callgrind-out-file=A.out \\
        env PLY_BUDGET_ONLY=full benchmarks/out/ply_budget FILE 1     (prints the plies)
    python3 benchmarks/ply_budget/by_function.py --plies N A.out [B.out] [--top 40]

Self cost only: a call's inclusive cost is its callee's, which appears under its own name.
"""
import argparse
import collections
import os
import re
import sys

DEFINITION = re.compile(r"^[A-Za-z_][\w \t\*]*?\b([A-Za-z_]\w*)\s*\(")
ATTRIBUTE = re.compile(r"__attribute__\s*\(\([^)]*\)\)\s*")
NOT_DEFINITION = ("typedef", "extern", "return", "struct ", "enum ", "union ", "#")


def function_starts(path):
    """(line, name) of every function definition in a C source: a line at column 0 that names a
    function and is no declaration (it does not end with ';')."""
    starts = []
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().split("\n")
    except OSError:
        return starts
    for i, text in enumerate(lines, 1):
        if text.startswith(NOT_DEFINITION) or text.rstrip().endswith(";"):
            continue
        m = DEFINITION.match(ATTRIBUTE.sub("", text))
        if m:
            starts.append((i, m.group(1)))
    return starts


class Owners:
    """Source line -> the function whose definition holds it (the last one starting at or before it)."""

    def __init__(self):
        self.cache = {}

    def __call__(self, path, line):
        starts = self.cache.get(path)
        if starts is None:
            starts = self.cache[path] = function_starts(path)
        name = "(%s)" % os.path.basename(path)
        for at, fn in starts:
            if at > line:
                break
            name = fn
        return "%s:%s" % (os.path.basename(path), name)


def self_costs(path):
    """{(source file, line): [cost per event]} and the event names, from a callgrind output with
    line positions (its default)."""
    files = {}
    events = []
    costs = collections.defaultdict(lambda: None)
    current = None  # the source file of the cost lines (fl, then fi/fe for inlined code)
    last = 0
    after_calls = False
    with open(path, encoding="utf-8", errors="replace") as f:
        for raw in f:
            line = raw.rstrip("\n")
            if not line:
                continue
            if line.startswith("events:"):
                events = line.split()[1:]
                continue
            key, eq, value = line.partition("=")
            if eq and key in ("fl", "fi", "fe", "cfi", "cfl"):
                m = re.match(r"\((\d+)\)(?: (.*))?", value)
                if m:
                    if m.group(2) is not None:
                        files[m.group(1)] = m.group(2)
                    name = files.get(m.group(1), "?")
                else:
                    name = value
                if key in ("fl", "fi", "fe"):
                    current = name
                continue
            if eq and key == "calls":
                after_calls = True
                continue
            if eq and key in ("fn",):
                continue
            if eq and re.match(r"^[a-z]+$", key):
                continue
            head = line.split()
            if not head or not re.match(r"^([+-]?\d+|\*)$", head[0]):
                continue
            pos = head[0]
            if pos == "*":
                at = last
            elif pos[0] in "+-":
                at = last + int(pos)
            else:
                at = int(pos)
            last = at
            if after_calls:  # the call's inclusive cost: the callee's own lines hold it
                after_calls = False
                continue
            values = [int(v) for v in head[1:]]
            slot = costs[(current, at)]
            if slot is None:
                slot = costs[(current, at)] = [0] * len(events)
            for i, v in enumerate(values):
                slot[i] += v
    return costs, events


def by_function(path):
    owners = Owners()
    costs, events = self_costs(path)
    totals = collections.defaultdict(lambda: [0] * len(events))
    for (src, line), values in costs.items():
        if values is None:
            continue
        name = owners(src, line) if src and src.endswith((".c", ".h")) else "(outside the C core: %s)" % os.path.basename(src or "?")
        t = totals[name]
        for i, v in enumerate(values):
            t[i] += v
    return totals, events


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("outputs", nargs="+", help="one or two callgrind outputs (A, then B)")
    ap.add_argument("--plies", type=float, nargs="+", required=True, help="the plies of each run (one for both)")
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--event", default="Ir")
    args = ap.parse_args(argv)
    plies = args.plies * len(args.outputs) if len(args.plies) == 1 else args.plies
    tables = []
    for path, n in zip(args.outputs, plies):
        totals, events = by_function(path)
        if args.event not in events:
            sys.exit("%s: no event %s (events: %s)" % (path, args.event, " ".join(events)))
        i = events.index(args.event)
        tables.append({k: v[i] / n for k, v in totals.items()})
    names = set().union(*tables)
    if len(tables) == 1:
        rows = sorted(names, key=lambda k: -tables[0].get(k, 0))
        print("| function | %s a ply |" % args.event)
        print("|---|---:|")
        for k in rows[: args.top]:
            print("| %s | %.1f |" % (k, tables[0][k]))
        print("| all | %.1f |" % sum(tables[0].values()))
        return
    a, b = tables
    rows = sorted(names, key=lambda k: -abs(b.get(k, 0) - a.get(k, 0)))
    print("| function | A %s a ply | B | B - A |" % args.event)
    print("|---|---:|---:|---:|")
    shown = 0
    for k in rows[: args.top]:
        print("| %s | %.1f | %.1f | %+.1f |" % (k, a.get(k, 0), b.get(k, 0), b.get(k, 0) - a.get(k, 0)))
        shown += b.get(k, 0) - a.get(k, 0)
    rest = sum(b.values()) - sum(a.values()) - shown
    print("| the rest | | | %+.1f |" % rest)
    print("| all | %.1f | %.1f | %+.1f |" % (sum(a.values()), sum(b.values()), sum(b.values()) - sum(a.values())))


if __name__ == "__main__":
    main()
