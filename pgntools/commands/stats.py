"""pgntools stats: a collection's statistics (a summary, --html charts, --json numbers)."""
from __future__ import annotations

import functools
import os

import click

from pgntools.cli_options import (PATH, Command, checked, checking_options, inputs, parallel_options,
                                  parallel_settings, reader_recovery, recovery_options, report_spec, selection_options)
from pgntools.commands.common import exit_options, finish, handle_errors
from pgntools.options import Workers
from pgntools.sinks.base import SinkSpec


@click.command("stats", cls=Command)
@inputs
@click.option("--html", type=PATH, metavar="PATH",
              help="Write the report as one self-contained HTML file (inline SVG charts and CSS, nothing from the "
                   "network; prints on paper), e.g. --html report.html.")
@click.option("--json", "json_path", type=PATH, metavar="PATH",
              help="Write every aggregate as JSON (stable keys: README, Collection statistics), e.g. --json stats.json.")
@checking_options
@selection_options
@recovery_options
@parallel_options
@exit_options
@handle_errors
def stats(files, html, json_path, report, summary, strict, fix_results, progress, max_game_size, jobs, scheduler,
          chunk_bytes, selection):
    """Look at the games of FILES before using them: validity and errors by kind, results,
    lengths, ratings, openings, dates, speeds, clocks and sources, counted in one pass in bounded
    memory. A short summary goes to stdout; --html writes the charts, --json every number.

    \b
    Examples:
      pgntools stats games.pgn
      pgntools stats lichess_db_standard_rated_2024-01.pgn.zst --html report.html --json stats.json
      pgntools stats games.pgn --where "white_elo >= 2400" --html strong.html
    """
    from pgntools.runner.run import Run

    report_sink = report_spec(report)
    run = Run("stats", list(files), checked(strict, fix_results, max_game_size, **reader_recovery()),
              outputs={"text": "-", "html": html, "json": json_path, "report": report, "summary": summary},
              progress=progress, workers=Workers(**parallel_settings(jobs, scheduler, chunk_bytes)),
              selection=selection)

    from pgntools.sinks.stats import StatsSink  # imports pyarrow: only for this command

    command_line = "pgntools stats " + " ".join(os.path.basename(f) for f in files)
    finish(run.execute([SinkSpec(("text", "html", "json"), functools.partial(StatsSink, command_line=command_line)),
                        report_sink]))
