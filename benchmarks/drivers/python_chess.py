"""python-chess's fastest full replay: read_game with the BoardBuilder visitor.

Prints the final FEN of each game (or "error" where python-chess raised), then a summary line
"# games=N". Usage: python python_chess.py FILE
"""
import sys

import chess.pgn


def main(path):
    games = 0
    out = sys.stdout
    with open(path, encoding="utf-8", errors="replace") as handle:
        while True:
            try:
                board = chess.pgn.read_game(handle, Visitor=chess.pgn.BoardBuilder)
            except Exception:  # BoardBuilder raises on an illegal move; go on with the next game
                games += 1
                out.write("error\n")
                continue
            if board is None:
                break
            games += 1
            out.write(board.fen() + "\n")
    out.write(f"# games={games}\n")


if __name__ == "__main__":
    main(sys.argv[1])
