"""pgntools book: a Polyglot opening book from the games."""
from __future__ import annotations

import functools

import click

from pgntools.cli_options import (PATH, Command, checked, checking_options, inputs, parallel_options,
                                  parallel_settings, reader_recovery, recovery_options, report_spec, selection_options)
from pgntools.commands.common import exit_options, finish, handle_errors
from pgntools.options import Workers
from pgntools.sinks.base import SinkSpec


@click.command("book", cls=Command)
@inputs
@click.option("-o", "--output", type=PATH, required=True, metavar="BOOK",
              help="The Polyglot book to write (e.g. book.bin), readable by any Polyglot reader "
                   "(chess.polyglot.open_reader, engines' OwnBook).")
@click.option("--max-ply", type=click.IntRange(1), default=24, show_default=True, metavar="N",
              help="Take the first N moves (plies) of each game, e.g. --max-ply 40.")
@click.option("--min-games", type=click.IntRange(1), default=1, show_default=True, metavar="N",
              help="Leave out a move played fewer than N times from its position, e.g. --min-games 5.")
@checking_options
@selection_options
@recovery_options
@parallel_options
@exit_options
@handle_errors
def book(files, output, max_ply, min_games, report, summary, strict, fix_results, progress, max_game_size, jobs,
         scheduler, chunk_bytes, selection):
    """Build a Polyglot opening book from the games of FILES: every move of the first --max-ply
    plies of each valid or fixed game with a result (1-0, 0-1, 1/2-1/2) from the standard start,
    weighted by how it scored for the side that played it (2 a win, 1 a draw, summed; a move
    that only lost is left out; weights scaled down together when the largest passes 65535).

    \b
    Examples:
      pgntools book games.pgn -o book.bin
      pgntools book lichess_db_standard_rated_2024-01.pgn.zst -o blitz.bin --max-ply 30 --min-games 10 \\
          --where "speed = 'blitz' and white_elo >= 2200 and black_elo >= 2200"
    """
    from pgntools.runner.run import Run

    report_sink = report_spec(report)
    run = Run("book", list(files), checked(strict, fix_results, max_game_size, **reader_recovery()),
              outputs={"book": output, "report": report, "summary": summary}, progress=progress,
              workers=Workers(**parallel_settings(jobs, scheduler, chunk_bytes)), selection=selection)

    from pgntools.sinks.book import BookSink  # imports pyarrow: only for this command

    finish(run.execute([SinkSpec("book", functools.partial(BookSink, max_ply=max_ply, min_games=min_games)),
                        report_sink]))
