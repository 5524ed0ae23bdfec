"""pgntools split: the selected games into one file per N games or per value of a field."""
from __future__ import annotations

import functools

import click

from pgntools.cli_options import (Command, checked, game_format_option, inputs, parallel_settings, pgn_shape_flags, pgn_shape_options,
                                  reader_recovery, report_spec, selected_games_options)
from pgntools.commands.common import exit_options, finish, handle_errors
from pgntools.options import Workers
from pgntools.sinks.base import SinkSpec
from pgntools.usage import check_game_format, check_normalized


@click.command("split", cls=Command)
@inputs
@click.option("-o", "--output", "template", required=True, metavar="TEMPLATE",
              help="Where the parts go: a path whose file name holds {n} (with --games: the part number from "
                   "1; {n:04} zero-pads it to 4 digits: 0001) or {FIELD} (with --by: the value, made a safe "
                   "file name; no value is 'unknown'), e.g. parts/{n:04}.pgn, by-event/{event}.pgn. A suffix "
                   ".gz, .bz2, .xz or .zst compresses each part. The directory is made when missing.")
@click.option("--games", "per_part", type=click.IntRange(1), metavar="N",
              help="N selected games a file (the last may hold fewer), e.g. --games 10000.")
@click.option("--by", metavar="FIELD",
              help="A file per value of FIELD: event, site, date, date-month (YYYY-MM of Date), year, round, "
                   "white, black, eco, opening, time_control, result (1-0, 0-1, draw, unfinished), status, "
                   "... any column of the games table with one value a game (an unknown FIELD lists them). "
                   "Without --games or --by, the template's placeholder picks it: -o events/{event}.pgn.")
@click.option("--normalize", is_flag=True,
              help="Write the games in the PGN export format (as validate -o does; invalid games are then left "
                   "out) instead of byte for byte as they were.")
@click.option("--max-open", type=click.IntRange(1), default=64, show_default=True, metavar="N",
              help="At most N part files open at once (the least recently written is closed, and reopened "
                   "to append when its next game comes); e.g. --max-open 16 under a low ulimit -n.")
@game_format_option
@pgn_shape_options
@selected_games_options
@exit_options
@handle_errors
def split(files, template, per_part, by, normalize, max_open, game_format, pgn_shape, rejects, report, summary, strict,
          fix_results, progress, max_game_size, jobs, scheduler, chunk_bytes, selection):
    """Write the games of FILES that --where (and --sample, --limit) select into one file per N
    games (--games N) or per value of a field (--by FIELD), each game byte for byte as in the input
    (as filter writes it), in the export format with --normalize, or as JSON Lines with --format
    json (one object a valid or fixed game, as validate -o writes them). The parts appear when the run
    has succeeded (none when it fails); a value becomes a safe file name (no /, .., control
    characters, leading dot or dash, device names; at most ~100 bytes; a value that had to be
    changed ends in a hash of it, so two values never share a file).

    \b
    Examples:
      pgntools split games.pgn --games 1000 -o parts/{n:04}.pgn
      pgntools split twic.pgn.zst --by event -o events/{event}.pgn
      pgntools split games.pgn --by eco -o eco/{eco}.jsonl --format json
      pgntools split lichess_db_standard_rated_2024-01.pgn.zst --by eco -o eco/{eco}.pgn.zst \\
          --where "white_elo >= 2200 and black_elo >= 2200"
    """
    from pgntools.runner.run import Run
    from pgntools.sinks.pgn import RejectsSink
    from pgntools.sinks.split import SplitSink, split_plan

    check_game_format(game_format, pgn_shape_flags() + (["--normalize"] if normalize else []), template)
    check_normalized(normalize, pgn_shape_flags())
    plan = split_plan(template, per_part, by, normalize, max_open, list(files), [rejects, report, summary], pgn_shape,
                      game_format)
    report_sink = report_spec(report)
    run = Run("split", list(files), checked(strict, fix_results, max_game_size, **reader_recovery()),
              outputs={"rejects": rejects, "report": report, "summary": summary}, progress=progress,
              workers=Workers(**parallel_settings(jobs, scheduler, chunk_bytes)), selection=selection)
    result = run.execute([SinkSpec(None, functools.partial(SplitSink, plan)), SinkSpec("rejects", RejectsSink),
                          report_sink])
    if not click.get_current_context().meta.get("pgntools.quiet"):
        files_written = plan.outcome.get("files", 0)
        click.echo(f"split: {files_written:,} file{'s' * (files_written != 1)} written in "
                   f"{plan.parsed().directory}", err=True)
    finish(result)
