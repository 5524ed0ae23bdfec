"""How pgntools' opening classification agrees with the ECO and Opening tags of real Lichess files,
which Lichess wrote from older versions of the same table (issue 19). Prints a Markdown section
for benchmarks/RESULTS.md: counts, then each kind of disagreement with examples.

    python benchmarks/openings_agreement.py [FILES...]   # default: the corpora's Lichess file

Runs `pgntools export` (the games' opening columns next to their ECO and Opening tags) into a
scratch directory under benchmarks/out/.
"""
from __future__ import annotations

import argparse
import collections
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq

REPO = Path(__file__).resolve().parents[1]
CORPORA = REPO.parent / "shared" / "corpora"
DEFAULT = [CORPORA / "lichess" / "lichess-magnus-carlsen.pgn"]
COLUMNS = ["game_id", "variant", "start_fen", "ply_count", "eco", "opening", "opening_eco", "opening_name", "opening_ply"]


def family(name: str) -> str:
    return name.split(":", 1)[0]


def kind_of(row, names: set) -> str:
    """The kind of a game's (dis)agreement with its tags."""
    eco, name, our_eco, our_name = row["eco"], row["opening"], row["opening_eco"], row["opening_name"]
    if our_name is None:
        return "tags, but no classification (another start position, or no move)"
    if (eco, name) == (our_eco, our_name):
        return "same ECO and name"
    if name == our_name:
        return "same name, other ECO (the table moved the name to another code)"
    if our_name.startswith(name + ":") or our_name.startswith(name + ","):
        return "ours deeper: the tag's name, then more (a line the table added since)"
    if name.startswith(our_name + ":") or name.startswith(our_name + ","):
        return "the tag deeper: our name is the tag's, cut short (a line the table dropped or renamed)"
    if name not in names:
        return "the tag's name is not in today's table (renamed or removed), same family" \
            if family(name) == family(our_name) else \
            "the tag's name is not in today's table (renamed or removed), other family"
    if family(name) == family(our_name):
        return "another name of the same family (both in today's table)"
    return "another family (both names in today's table)"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", type=Path, default=DEFAULT)
    parser.add_argument("--examples", type=int, default=2, help="examples shown per kind (default 2)")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(REPO))
    from pgntools import openings

    names = {name for _, name in openings.rows()}
    out = REPO / "benchmarks" / "out" / "openings-agreement"
    rows = []
    for path in args.files:
        shutil.rmtree(out, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "pgntools", "export", "--parquet", str(out), str(path), "-q",
                        "--columns", ",".join(COLUMNS)], cwd=REPO, check=False)
        rows += [dict(r, source=path.name) for r in pq.read_table(out / "games", columns=COLUMNS).to_pylist()]
    tagged = [r for r in rows if r["eco"] is not None and r["opening"] is not None and r["opening"] != "?"]
    kinds = collections.defaultdict(list)
    for r in tagged:
        kinds[kind_of(r, names)].append(r)
    named = sum(r["opening_name"] is not None for r in rows)
    eco_same = sum(r["eco"] == r["opening_eco"] for r in tagged)
    name_same = sum(r["opening"] == r["opening_name"] for r in tagged)
    print(f"Files: {', '.join(p.name for p in args.files)}; {len(rows):,} games, {named:,} classified by pgntools, "
          f"{len(tagged):,} with ECO and Opening tags.\n")
    print(f"- same ECO: {eco_same:,} of {len(tagged):,} ({eco_same / max(len(tagged), 1):.1%}); same name: "
          f"{name_same:,} ({name_same / max(len(tagged), 1):.1%})\n")
    print("| kind | games | example (tag ECO, name → ours, at ply) |")
    print("|---|---:|---|")
    for kind, members in sorted(kinds.items(), key=lambda kv: -len(kv[1])):
        shown = "; ".join(f"game {r['game_id']}: {r['eco']} {r['opening']} → {r['opening_eco']} {r['opening_name']} "
                          f"({r['opening_ply']})" for r in members[:args.examples] if kind != "same ECO and name")
        print(f"| {kind} | {len(members):,} | {shown.replace('|', '/')} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
