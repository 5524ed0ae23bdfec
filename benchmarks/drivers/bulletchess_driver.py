"""bulletchess 0.4.0 (GPL; used only as an installed peer, nothing copied): read every game.

Prints "# games=N". Usage: python bulletchess_driver.py FILE
"""
import sys

from bulletchess.pgn import PGNFile


def main(path):
    games = 0
    pgn = PGNFile.open(path)
    while pgn.next_game() is not None:
        games += 1
    print(f"# games={games}")


if __name__ == "__main__":
    main(sys.argv[1])
