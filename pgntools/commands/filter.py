"""pgntools filter: the games --where (and --sample, --limit) select, as they were or normalized."""
from __future__ import annotations

import functools

import click

from pgntools.cli_options import (PATH, Command, checked, game_format_option, inputs, parallel_settings, pgn_shape_flags, pgn_shape_options,
                                  reader_recovery, report_spec, selected_games_options)
from pgntools.commands.common import exit_options, finish, handle_errors
from pgntools.options import Workers
from pgntools.sinks.base import SinkSpec
from pgntools.usage import check_game_format, check_normalized, check_not_selected


@click.command("filter", cls=Command)
@inputs
@click.option("-o", "--output", required=True, type=PATH, metavar="PATH",
              help="Where to write the selected games ('-' for stdout).")
@click.option("--normalize", is_flag=True,
              help="Write the selected games in the PGN export format (as validate -o does; invalid games are "
                   "then left out) instead of byte for byte as they were.")
@click.option("--unselected", type=PATH, metavar="PATH",
              help="Write the games read and not selected there, byte for byte (--dedup's repeats among them; "
                   "pgn-extract -n).")
@click.option("--duplicates", type=PATH, metavar="PATH",
              help="Write the games --dedup dropped as repeats of an earlier game there, byte for byte "
                   "(pgn-extract -d).")
@game_format_option
@pgn_shape_options
@selected_games_options
@exit_options
@handle_errors
def filter_games(files, output, normalize, unselected, duplicates, game_format, pgn_shape, rejects, report, summary, strict, fix_results, progress, max_game_size,
                 jobs, scheduler, chunk_bytes, selection):
    """Write the games of FILES that --where (and --sample, --limit) select: byte for byte as they
    were in the input, each followed by a blank line (a filter never changes a game), or in the
    export format with --normalize. Every game is still checked: --report, --rejects and the exit
    status say which selected games are invalid.

    \b
    Examples:
      pgntools filter lichess_db_standard_rated_2024-01.pgn.zst -o strong.pgn \\
          --where "white_elo >= 2400 and black_elo >= 2400 and event like 'Rated Blitz%'"
      pgntools filter games.pgn -o sample.pgn --sample 0.01 --seed 7
      pgntools filter games.pgn -o first.pgn --where "eco like 'B%'" --limit 100
    """
    from pgntools.runner.run import Run
    from pgntools.sinks.pgn import NotSelectedSink, PgnSink, RawPgnSink, RejectsSink

    check_game_format(game_format, pgn_shape_flags() + (["--normalize"] if normalize else []), output)
    check_normalized(normalize, pgn_shape_flags())
    report_sink = report_spec(report)
    check_not_selected(duplicates, getattr(selection, "dedup", None))
    if unselected is not None and hasattr(selection, "record_dropped"):
        selection = selection.recording_dropped()  # (the games the tag filter would skip are written too)
    run = Run("filter", list(files), checked(strict, fix_results, max_game_size, **reader_recovery()),
              outputs={"pgn": output, "rejects": rejects, "report": report, "summary": summary,
                       "unselected": unselected, "duplicates": duplicates}, progress=progress,
              workers=Workers(**parallel_settings(jobs, scheduler, chunk_bytes)), selection=selection)
    games = functools.partial(PgnSink, **(pgn_shape or {})) if normalize else RawPgnSink
    if game_format == "json":  # (the games as the replay read them: valid and fixed ones)
        from pgntools.sinks.json_games import JsonGamesSink

        games = JsonGamesSink
    finish(run.execute([SinkSpec("pgn", games), SinkSpec("rejects", RejectsSink), report_sink,
                        SinkSpec("unselected", NotSelectedSink),
                        SinkSpec("duplicates", functools.partial(NotSelectedSink, repeats_only=True))]))
