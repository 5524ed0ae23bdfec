"""rust-pgn-reader-python-binding 4.1.0 through its Arrow API.

It has no file reader: the text is split into one string per game first, then parsed with
parse_games(pyarrow.chunked_array(...), num_threads=N). It returns arrays, not FENs, so this
prints only counts: "# games=N valid=V plies=P". Usage: python rust_binding.py FILE THREADS
(THREADS 0 = all CPUs).
"""
import re
import sys

import pyarrow
import rust_pgn_reader_python_binding as rpr

GAME_SPLIT = re.compile(r"(?:\r?\n){2,}(?=\[)")


def main(path, threads):
    with open(path, encoding="utf-8", errors="replace", newline="") as f:
        text = f.read()
    games = [g for g in GAME_SPLIT.split(text.lstrip("\ufeff")) if g.strip()]
    del text
    parsed = rpr.parse_games(pyarrow.chunked_array([games], type=pyarrow.large_string()),
                             num_threads=threads or None)
    valid = sum(int(chunk.valid.sum()) for chunk in parsed.chunks)
    print(f"# games={parsed.num_games} valid={valid} plies={parsed.num_moves}")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
