"""pgntools scan: count the games without replaying them (the scanner alone)."""
from __future__ import annotations

import click

from pgntools.cli_options import Command, inputs
from pgntools.commands.common import broken_inputs, handle_errors
from pgntools.options import ReaderOptions


@click.command("scan", cls=Command)
@inputs
@handle_errors
def scan(files):
    """Count the games in FILES without replaying them (the scanner alone; for benchmarks). With
    several FILES: a line a file (its games, a tab, its name), then the total.

    Exit status: 0, 2 unreadable input, 74 stdout could not be written, 141 stdout closed by its
    reader, 130/143 interrupted, 70 internal error.
    """
    from pgntools.runner.run import Run

    run = Run("scan", list(files), ReaderOptions(replay=False), progress=False)
    summary = run.execute([])
    if len(files) > 1:  # as wc does: a line a file, then the total
        for name, games in summary.games_by_source.items():
            click.echo(f"{games}\t{name}")
        click.echo(f"{summary.games}\ttotal")
    else:
        click.echo(summary.games)
    broken_inputs(summary)
