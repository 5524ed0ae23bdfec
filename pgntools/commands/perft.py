"""pgntools perft: the leaf nodes of the legal move tree (a rules-core self-check)."""
from __future__ import annotations

import click

import pgntools
from pgntools._core import variant_code
from pgntools.cli_options import Command
from pgntools.commands.common import handle_errors
from pgntools.usage import OptionError


@click.command("perft", cls=Command)
@click.argument("depth", type=click.IntRange(0, 12))
@click.option("--fen", default=None, help="Start position (default: the standard start).")
@click.option("--chess960", is_flag=True, help="Read --fen as a Chess960 (X-FEN/Shredder-FEN) position.")
@click.option("--variant", default="standard", show_default=True,
              help="The rules: kingofthehill, 3check, racingkings, horde, antichess, atomic, crazyhouse (or a "
                   "Variant tag's spelling); the start is the variant's.")
@handle_errors
def perft(depth, fen, chess960, variant):
    """Count the leaf nodes of the legal move tree to DEPTH (a rules-core self-check).

    Example: pgntools perft 5   prints 4865609.

    Exit status: 0, 2 usage error (a depth over 12, an invalid --fen, a variant not played), 74
    stdout could not be written (a full disk), 141 stdout closed by its reader, 130/143
    interrupted, 70 internal error.
    """
    if chess960 and not fen:
        raise OptionError("--chess960 reads --fen as a Chess960 position, and no --fen is given")
    try:
        rules = variant_code(variant)
    except ValueError as e:
        raise OptionError(f"--variant: {e}") from None
    board = pgntools.Board.from_fen(fen, chess960=chess960, variant=rules) if fen else pgntools.Board(variant=rules)
    click.echo(board.perft(depth))
