"""pgntools validate: check every game; write the valid ones (-o), the invalid ones (--rejects)."""
from __future__ import annotations

import functools

import click

from pgntools.cli_options import (PATH, OptionalValues, checked, checking_options, inputs, parallel_options,
                                  game_format_option, parallel_settings, pgn_shape_flags, pgn_shape_options,
                                  reader_recovery,
                                  recovery_options, report_spec, selection_options)
from pgntools.commands.common import finish, handle_errors, verdict_exit_options
from pgntools.options import Workers
from pgntools.sinks.base import SinkSpec
from pgntools.usage import check_game_format, check_validate


@click.command("validate", cls=OptionalValues)
@inputs
@click.option("-o", "--output", type=PATH, metavar="PATH",
              help="Write the valid and fixed games as export-format PGN ('-' for stdout).")
@click.option("--rejects", type=PATH, metavar="PATH",
              help="Write the invalid games exactly as they were in the input.")
@click.option("--strip-comments", is_flag=True, help="Leave comments out of the output.")
@click.option("--strip-variations", is_flag=True, help="Leave variations out of the output.")
@click.option("--reduced", is_flag=True, help="The PGN standard's reduced export format: Seven Tag Roster, "
                                               "moves and result only (and FEN, SetUp and Variant, which a "
                                               "game that has them needs to be read).")
@game_format_option
@pgn_shape_options
@click.option("--classify", type=click.Choice(["missing", "overwrite"]), default=None, metavar="[=missing|overwrite]",
              help="Name each game's opening from the Lichess opening table (the deepest position of its first 40 "
                   "plies the table names) and write it as ECO and Opening tags in -o's output. --classify "
                   "(=missing, the default) keeps the tags a game already has; --classify=overwrite replaces them. "
                   "A game whose own tags differ gets an opening_tags_differ note (--report). Games from another "
                   "start position (FEN, Chess960) get none. Default: off. Example: validate g.pgn -o out.pgn --classify")
@checking_options
@selection_options
@recovery_options
@parallel_options
@verdict_exit_options
@handle_errors
def validate(files, output, rejects, strip_comments, strip_variations, reduced, game_format, pgn_shape, classify, report, summary, strict,
             fix_results, progress, max_game_size, jobs, scheduler, chunk_bytes, selection):
    """Replay every game of FILES and check every move, the start position and the result.

    \b
    Examples:
      pgntools validate games.pgn                      # check; exit status 1 if any game is invalid
      pgntools validate games.pgn.zst -o clean.pgn --rejects bad.pgn --report report.jsonl
      zstdcat month.pgn.zst | pgntools validate --summary summary.json   # no FILES: stdin
      pgntools validate games.pgn -o named.pgn --classify=overwrite     # ECO and Opening tags from the table
    """
    from pgntools.runner.run import Run  # (the runner and the reader: when a command runs, not for --help)
    from pgntools.sinks.pgn import PgnSink, RejectsSink

    check_validate(output, strip_comments, strip_variations, reduced, pgn_shape_flags())
    check_game_format(game_format, [name for name, given in (("--strip-comments", strip_comments),
                                                             ("--strip-variations", strip_variations),
                                                             ("--reduced", reduced), ("--classify", classify))
                                    if given] + pgn_shape_flags(), output)
    report_sink = report_spec(report)
    run = Run("validate", list(files), checked(strict, fix_results, max_game_size, opening_tags=classify or "none",
                                               **reader_recovery()),
              outputs={"pgn": output, "rejects": rejects, "report": report, "summary": summary}, progress=progress,
              workers=Workers(**parallel_settings(jobs, scheduler, chunk_bytes)), selection=selection)
    pgn = functools.partial(PgnSink, strip_comments=strip_comments, strip_variations=strip_variations, reduced=reduced,
                            **(pgn_shape or {}))
    if game_format == "json":
        from pgntools.sinks.json_games import JsonGamesSink

        pgn = JsonGamesSink
    finish(run.execute([SinkSpec("pgn", pgn), SinkSpec("rejects", RejectsSink), report_sink]))
