"""The command line: a Click group whose commands load when used (pgntools/commands/, one module
each: building the options of all nine would cost every run ~3 ms of start-up). --help lists
them from COMMANDS, a table of their names and first sentences (tests/test_cli_lazy.py checks it
against the modules)."""
from __future__ import annotations

import gc
import importlib
import os
import sys
from collections.abc import MutableMapping
from gettext import gettext as _

# Start-up (issue 23) makes tens of thousands of objects (Click, typing, the commands' options)
# and no garbage: the cyclic collector would walk them several times (~5 % of a small run's
# instructions). Paused until the group is built (the end of this module) and while a command's
# module loads; main() freezes what start-up made, so the run's collections do not walk it again.
_collecting = gc.isenabled()
gc.disable()

import click

# The command line's Arrow allocations (export, to-fen tables) go to the system allocator: Arrow's
# default (mimalloc) keeps ~15-25 MB more resident for the same work. Set before pyarrow loads;
# an explicit setting wins.
os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")

import pgntools
from pgntools.commands.common import is_broken_pipe, stdout_to_devnull
from pgntools.exits import EXIT_IO, EXIT_PIPE

# name: (its module in pgntools.commands, the command's name there, the first sentence of its help:
# what --help lists, cut to the terminal's width as Click cuts a command's help)
COMMANDS = {
    "book": ("book", "book", "Build a Polyglot opening book from the games of FILES: every move of the first "
             "--max-ply plies of each valid or fixed game with a result (1-0, 0-1, 1/2-1/2) from the standard "
             "start, weighted by how it scored for the side that played it (2 a win, 1 a draw, summed; a move "
             "that only lost is left out; weights scaled down together when the largest passes 65535)."),
    "export": ("export", "export", "Export the games of FILES as a Parquet dataset: one row per game in games/, "
               "one row per mainline ply in moves/, keyed by game_id (input order, 0-based)."),
    "filter": ("filter", "filter_games", "Write the games of FILES that --where (and --sample, --limit) select: "
               "byte for byte as they were in the input, each followed by a blank line (a filter never changes "
               "a game), or in the export format with --normalize."),
    "perft": ("perft", "perft", "Count the leaf nodes of the legal move tree to DEPTH (a rules-core self-check)."),
    "scan": ("scan", "scan", "Count the games in FILES without replaying them (the scanner alone; for benchmarks)."),
    "split": ("split", "split", "Write the games of FILES that --where (and --sample, --limit) select into one "
              "file per N games (--games N) or per value of a field (--by FIELD), each game byte for byte as in "
              "the input (as filter writes it), in the export format with --normalize, or as JSON Lines with "
              "--format json (one object a valid or fixed game, as validate -o writes them)."),
    "stats": ("stats", "stats", "Look at the games of FILES before using them: validity and errors by kind, "
              "results, lengths, ratings, openings, dates, speeds, clocks and sources, counted in one pass in "
              "bounded memory."),
    "to-fen": ("to_fen", "to_fen", "Write FEN positions of the games in FILES: by default the final position of "
               "each valid game, one line per game, in input order."),
    "validate": ("validate", "validate", "Replay every game of FILES and check every move, the start position "
                 "and the result."),
}


class LazyCommands(MutableMapping):
    """A group's commands by name (Group.commands), each imported from its module on first use;
    the names, `in` and iteration need no import (Click's list of commands, `Did you mean`)."""

    def __init__(self, table: dict):
        self.table = dict(table)  # the names not loaded yet: (module, attribute, short help)
        self.loaded: dict = {}

    def __getitem__(self, name):
        if name not in self.loaded:
            module, attribute, _short = self.table[name]  # (KeyError: no such command)
            self.loaded[name] = load_command(module, attribute)
        return self.loaded[name]

    def __setitem__(self, name, command):
        self.loaded[name] = command

    def __delitem__(self, name):
        if name not in self.loaded and name not in self.table:
            raise KeyError(name)
        self.loaded.pop(name, None)
        self.table.pop(name, None)

    def __contains__(self, name):
        return name in self.loaded or name in self.table

    def __iter__(self):
        return iter([*self.table, *(name for name in self.loaded if name not in self.table)])

    def __len__(self):
        return len(self.table.keys() | self.loaded.keys())

    def short_help(self, name, limit: int) -> str | None:
        """What --help lists for ``name`` without loading it (None: it is loaded, or not in the table)."""
        if name in self.loaded or name not in self.table:
            return None
        return click.Command(name, help=self.table[name][2]).get_short_help_str(limit)  # (Click's own cut)


def load_command(module: str, attribute: str) -> click.Command:
    """A command from its module, with the collector paused while its options are built."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        return getattr(importlib.import_module(f"pgntools.commands.{module}"), attribute)
    finally:
        if collecting:
            gc.enable()


class LazyGroup(click.Group):
    """A group of LazyCommands: its --help lists the commands from the table, as Click would."""

    def format_commands(self, ctx, formatter):
        # Click's Group.format_commands, with each command's short help from the table until it is loaded
        lazy = self.commands if isinstance(self.commands, LazyCommands) else LazyCommands({})
        commands = []
        for name in self.list_commands(ctx):
            if name in lazy.table and name not in lazy.loaded:
                commands.append((name, None))
                continue
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                commands.append((name, command))
        if commands:
            limit = formatter.width - 6 - max(len(name) for name, _command in commands)
            rows = [(name, command.get_short_help_str(limit) if command is not None else lazy.short_help(name, limit))
                    for name, command in commands]
            with formatter.section(_("Commands")):
                formatter.write_dl(rows)


@click.group(cls=LazyGroup, commands=LazyCommands(COMMANDS),
             context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(pgntools.__version__, prog_name="pgntools")
def cli():
    """Validate, convert and export chess games (PGN) at pipeline scale.

    Every game is replayed move by move with a compiled rules core: illegal, ambiguous or
    malformed games are caught and located, never silently dropped or "fixed".

    Inputs may be .pgn files, '-' for stdin, or .gz/.bz2/.xz/.zst compressed files.

    \b
    Exit status:
      0    every game valid or fixed; also with --exit-zero when some game is invalid; for the
           commands that produce data (all but validate): the run completed
      1    some game invalid (validate; the others with --fail-on-invalid)
      2    usage error or unreadable input (a corrupt compressed stream: the games before the
           damage are still written)
      74   an output could not be written (a full disk, a write error)
      141  stdout or a pipe output was closed by its reader (`| head`): no message, and the
           other outputs are not left under their names
      130  interrupted (Ctrl-C), 143 terminated (SIGTERM)
      70   internal error (a bug in pgntools) or out of memory
    """



def main():
    _without_numpy()
    gc.freeze()  # (see the top of this module)
    try:
        try:
            cli()
        finally:  # what is still buffered for stdout, written before the interpreter's own flush
            sys.stdout.flush()
    except OSError as exc:  # stdout failed outside a command (--help, --version) or at the very end
        if not is_broken_pipe(exc):
            click.echo(f"pgntools: error: stdout: {exc}", err=True)
        stdout_to_devnull()
        sys.exit(EXIT_PIPE if is_broken_pipe(exc) else EXIT_IO)


def _without_numpy():
    """pyarrow imports numpy when it is installed, though nothing the commands do with Arrow
    needs it: without it, export and the table formats of to-fen start ~50-80 ms sooner and hold
    ~11 MB less (measured: `import pyarrow.parquet` 44 ms and 56 MB instead of 80-140 ms and 67
    MB). Only for the command line; a Dask cluster client (pandas) keeps it."""
    if not any(arg.startswith("--scheduler") for arg in sys.argv[1:]):
        sys.modules.setdefault("numpy", None)  # `import numpy` now raises ImportError


if _collecting:  # (paused at the top of this module)
    gc.enable()
