"""pgntools to-fen: the positions of the games as FEN, EPD or rows."""
from __future__ import annotations

import functools

import click

from pgntools.cli_options import (PATH, Command, checked, checking_options, inputs, parallel_options,
                                  parallel_settings, ply_window_options, reader_recovery, recovery_options, report_spec,
                                  selection_options)
from pgntools.commands.common import exit_options, finish, handle_errors
from pgntools.options import Workers
from pgntools.sinks import FORMATS
from pgntools.sinks.base import SinkSpec
from pgntools.usage import check_to_fen, to_fen_format


@click.command("to-fen", cls=Command)
@inputs
@click.option("-o", "--output", type=PATH, default="-", show_default=True, metavar="PATH",
              help="Where to write the positions; a name ending in .fen, .epd, .csv, .jsonl or .parquet "
                   "(also before .gz, .bz2, .xz, .zst) sets the format when --format is not given.")
@click.option("--every-ply", is_flag=True, help="The start position and the position after every move.")
@ply_window_options
@click.option("--ply", "plies", type=click.IntRange(0), multiple=True, metavar="N",
              help="The position after N plies (0 = start); repeatable.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default=None,
              help="fen: bare FEN lines; epd: EPD with id \"game:ply\"; csv/jsonl/parquet: rows of "
                   "game_id, ply, san (the move that led here), fen [default: by -o's suffix, else fen].")
@click.option("--en-passant", type=click.Choice(["legal", "fen"]), default="legal", show_default=True,
              help="legal: the en-passant square only when a capture is legal (python-chess, Lichess); "
                   "fen: after every double step (the FEN standard).")
@click.option("--shredder", is_flag=True, help="Chess960 castling rights as rook files (Shredder-FEN).")
@click.option("--include-invalid", is_flag=True, help="Also write invalid games' positions, up to the last legal move.")
@click.option("--keep-invalid", is_flag=True,
              help="fen, epd: write the line '# invalid game N' (N: the game's 0-based number, as in EPD ids) "
                   "where an invalid game's positions would be, so lines stay in step with the games.")
@click.option("--c0", is_flag=True, help="EPD: add a c0 operation naming the players and event.")
@checking_options
@selection_options
@recovery_options
@parallel_options
@exit_options
@handle_errors
def to_fen(files, output, every_ply, ply_window, plies, fmt, en_passant, shredder, include_invalid, keep_invalid, c0,
           report, summary, strict, fix_results, progress, max_game_size, jobs, scheduler, chunk_bytes, selection):
    """Write FEN positions of the games in FILES: by default the final position of each valid game,
    one line per game, in input order. An invalid game gives no line (nor row), unless
    --include-invalid (its positions up to the error) or --keep-invalid (a marker line).

    \b
    Examples:
      pgntools to-fen games.pgn > final.fen
      pgntools to-fen --every-ply games.pgn.zst -o positions.csv.gz
      pgntools to-fen --ply 20 games.pgn -o ply20.parquet
      pgntools to-fen --every-ply --max-plies 20 games.pgn -o openings.epd
    """
    from pgntools.runner.run import Run

    fmt = to_fen_format(fmt, output)
    check_to_fen(every_ply, plies, fmt, c0, include_invalid, keep_invalid, ply_window)
    report_sink = report_spec(report)
    run = Run("to-fen", list(files), checked(strict, fix_results, max_game_size, **reader_recovery()),
              outputs={"positions": output, "report": report, "summary": summary}, progress=progress,
              workers=Workers(**parallel_settings(jobs, scheduler, chunk_bytes)), selection=selection)

    from pgntools.sinks.fen import PositionSink  # imports pyarrow: only for the commands that need it

    positions = functools.partial(PositionSink, fmt=fmt, every_ply=every_ply, plies=list(plies) or None,
                                  include_invalid=include_invalid, c0=c0, keep_invalid=keep_invalid,
                                  en_passant=en_passant, shredder=shredder,
                                  ply_window=ply_window or (0, -1))
    finish(run.execute([SinkSpec("positions", positions), report_sink]))
