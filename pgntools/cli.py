"""The command line: a Click group with one short function per command."""
from __future__ import annotations

import click

import pgntools


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(pgntools.__version__, prog_name="pgntools")
def cli():
    """Validate, convert and export chess games (PGN) at pipeline scale.

    Every game is replayed move by move with a compiled rules core: illegal, ambiguous or
    malformed games are caught and located, never silently dropped or "fixed".
    """


@cli.command()
@click.argument("depth", type=click.IntRange(0, 12))
@click.option("--fen", default=None, help="Start position (default: the standard start).")
@click.option("--chess960", is_flag=True, help="Read --fen as a Chess960 (X-FEN/Shredder-FEN) position.")
def perft(depth, fen, chess960):
    """Count the leaf nodes of the legal move tree to DEPTH (a rules-core self-check).

    Example: pgntools perft 5   prints 4865609.
    """
    board = pgntools.Board.from_fen(fen, chess960=chess960) if fen else pgntools.Board()
    click.echo(board.perft(depth))


def main():
    cli()
