"""The command line: a Click group with one short function per command over the library."""
from __future__ import annotations

import errno
import functools
import gc
import os
import sys

try:  # the signal module's C part: signal.py makes enums of every signal (~0.4 ms of start-up) that
    import _signal as signal  # this module does not need: it sets and restores SIGTERM's handler
except ImportError:  # (an interpreter without it)
    import signal

# Start-up (issue 23) makes tens of thousands of objects (Click, typing, the commands' options)
# and no garbage: the cyclic collector would walk them several times (~5 % of a small run's
# instructions). Paused until the commands are built (the end of this module); main() then
# freezes what start-up made, so the run's collections do not walk it again.
_collecting = gc.isenabled()
gc.disable()

import click

# The command line's Arrow allocations (export, to-fen tables) go to the system allocator: Arrow's
# default (mimalloc) keeps ~15-25 MB more resident for the same work. Set before pyarrow loads;
# an explicit setting wins.
os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")

import pgntools
from pgntools.errors import PgnToolsError
from pgntools import options
from pgntools.options import ReaderOptions, Workers
from pgntools.storage import is_url
from pgntools.usage import (OptionError, check_export_columns, check_positions, check_to_fen, check_validate,
                            to_fen_format)
from pgntools.sinks import FORMATS
from pgntools.sinks.base import SinkSpec
from pgntools.cli_options import (PATH, OptionalValues, checked, checking_options, inputs, parallel_options,
                                  parallel_settings, reader_recovery, recovery_options, report_spec, selected_games_options,
                                  selection_options)
from pgntools.exits import EXIT_INTERNAL, EXIT_INVALID, EXIT_IO, EXIT_PIPE, EXIT_USAGE

EXIT_STATUS_HELP = """
    Exit status: 0 every game valid or fixed (also with --exit-zero when some are invalid),
    1 some game invalid, 2 usage error or unreadable input, 74 an output could not be written
    (a full disk), 141 stdout or a pipe output was closed by its reader (as `| head` does; no
    message), 130/143 interrupted, 70 internal error.
"""



@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(pgntools.__version__, prog_name="pgntools")
def cli():
    """Validate, convert and export chess games (PGN) at pipeline scale.

    Every game is replayed move by move with a compiled rules core: illegal, ambiguous or
    malformed games are caught and located, never silently dropped or "fixed".

    Inputs may be .pgn files, '-' for stdin, or .gz/.bz2/.xz/.zst compressed files.

    \b
    Exit status:
      0    every game valid or fixed; also with --exit-zero when some game is invalid
      1    some game invalid
      2    usage error or unreadable input (a corrupt compressed stream: the games before the
           damage are still written)
      74   an output could not be written (a full disk, a write error)
      141  stdout or a pipe output was closed by its reader (`| head`): no message, and the
           other outputs are not left under their names
      130  interrupted (Ctrl-C), 143 terminated (SIGTERM)
      70   internal error (a bug in pgntools) or out of memory
    """


def handle_errors(f):
    """Library errors become one-line messages (exit 2); an output that fails while written, one
    line and exit 74; a closed stdout pipe, silence and exit 141 (as coreutils); anything else,
    one line and exit 70 (the traceback with PGNTOOLS_TRACEBACK=1). Ctrl-C and SIGTERM exit
    cleanly (130/143). In every case the outputs are not left under their final names."""

    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        previous = signal.signal(signal.SIGTERM, _raise_terminated)
        try:
            return f(*args, **kwargs)
        except PgnToolsError as exc:
            click.echo(f"pgntools: error: {exc}", err=True)
            sys.exit(EXIT_USAGE)
        except KeyboardInterrupt:
            click.echo("pgntools: interrupted; no output was left under its final name", err=True)
            sys.exit(130)
        except _Terminated:
            click.echo("pgntools: terminated; no output was left under its final name", err=True)
            sys.exit(143)
        except OSError as exc:  # a full disk, a write error, a closed pipe
            if not is_broken_pipe(exc):
                click.echo(f"pgntools: error: {exc}; no output was left under its final name", err=True)
            stdout_to_devnull()
            sys.exit(EXIT_PIPE if is_broken_pipe(exc) else EXIT_IO)
        except MemoryError:
            click.echo("pgntools: error: out of memory; no output was left under its final name", err=True)
            sys.exit(EXIT_INTERNAL)
        except Exception as exc:  # a bug: one line by default, the traceback on request
            if os.environ.get("PGNTOOLS_TRACEBACK"):
                raise
            click.echo(f"pgntools: internal error: {type(exc).__name__}: {exc} (a bug in pgntools; "
                       "PGNTOOLS_TRACEBACK=1 shows where)", err=True)
            sys.exit(EXIT_INTERNAL)
        finally:
            signal.signal(signal.SIGTERM, previous)

    return wrapper


def is_broken_pipe(exc: BaseException) -> bool:
    """EPIPE, also when a library re-raised it as another error (the cause chain)."""
    while exc is not None:
        if isinstance(exc, OSError) and exc.errno == errno.EPIPE:
            return True
        exc = exc.__cause__ or exc.__context__
    return False


def stdout_to_devnull():
    """After stdout failed (a closed pipe, a full disk): the interpreter flushes stdout at exit, and
    a failing flush prints "Exception ignored ... BrokenPipeError"; /dev/null takes what is left
    (the Python docs' advice for SIGPIPE)."""
    try:
        fd = sys.stdout.fileno()
    except (OSError, ValueError):  # not a file (an embedding application's or a test's stream)
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)


def exit_options(f):
    """--exit-zero and -q/--quiet, for commands that end with a summary; adds the exit statuses
    to the command's --help. The choices are kept in the Click context for finish()."""

    @functools.wraps(f)
    def wrapper(*args, exit_zero, quiet, **kwargs):
        meta = click.get_current_context().meta
        meta["pgntools.exit_zero"], meta["pgntools.quiet"] = exit_zero, quiet
        if quiet and kwargs.get("progress") is None:  # quiet means no bar either, unless asked for
            kwargs["progress"] = False
        return f(*args, **kwargs)

    wrapper.__doc__ = (f.__doc__ or "").rstrip() + "\n" + EXIT_STATUS_HELP
    wrapper = click.option("--exit-zero", is_flag=True,
                           help="Exit 0 even when some game is invalid (it is still reported and counted); "
                                "usage errors, unreadable inputs and failed outputs still exit non-zero.")(wrapper)
    return click.option("-q", "--quiet", is_flag=True,
                        help="No summary line on stderr (and no progress bar unless --progress); "
                             "errors are still printed.")(wrapper)


class _Terminated(BaseException):
    pass


def _raise_terminated(signum, frame):
    raise _Terminated()


def finish(summary):
    """The summary line (unless --quiet), the inputs that broke, then the exit status."""
    sys.stdout.flush()  # a closed pipe shows here, inside handle_errors, not at interpreter exit
    meta = click.get_current_context().meta
    if not meta.get("pgntools.quiet"):
        click.echo(summary.line(), err=True)
    broken_inputs(summary)
    sys.exit(EXIT_INVALID if summary.invalid and not meta.get("pgntools.exit_zero") else 0)


def broken_inputs(summary):
    """A line per input that broke while read (a corrupt compressed stream), then exit 2: the
    outputs hold the games before each break, but not the whole input."""
    for message in summary.input_errors:
        click.echo(f"pgntools: error: {message}", err=True)
    if summary.input_errors:
        sys.exit(EXIT_USAGE)


# ---------------------------------------------------------------- commands

@cli.command(cls=OptionalValues)
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
@exit_options
@handle_errors
def validate(files, output, rejects, strip_comments, strip_variations, reduced, classify, report, summary, strict,
             fix_results, progress, max_game_size, jobs, scheduler, chunk_bytes, selection):
    """Replay every game of FILES and check every move, the start position and the result.

    \b
    Examples:
      pgntools validate games.pgn                      # check; exit status 1 if any game is invalid
      pgntools validate games.pgn.zst -o clean.pgn --rejects bad.pgn --report report.jsonl
      zstdcat month.pgn.zst | pgntools validate --summary summary.json   # no FILES: stdin
      pgntools validate games.pgn -o named.pgn --classify=overwrite     # ECO and Opening tags from the table
    """
    from pgntools.pipeline import Run  # (the runner and the reader: when a command runs, not for --help)
    from pgntools.sinks.pgn import PgnSink, RejectsSink

    check_validate(output, strip_comments, strip_variations, reduced)
    report_sink = report_spec(report)
    run = Run("validate", list(files), checked(strict, fix_results, max_game_size, opening_tags=classify or "none",
                                               **reader_recovery()),
              outputs={"pgn": output, "rejects": rejects, "report": report, "summary": summary}, progress=progress,
              workers=Workers(**parallel_settings(jobs, scheduler, chunk_bytes)), selection=selection)
    pgn = functools.partial(PgnSink, strip_comments=strip_comments, strip_variations=strip_variations, reduced=reduced)
    finish(run.execute([SinkSpec("pgn", pgn), SinkSpec("rejects", RejectsSink), report_sink]))


@cli.command("to-fen")
@inputs
@click.option("-o", "--output", type=PATH, default="-", show_default=True, metavar="PATH",
              help="Where to write the positions; a name ending in .fen, .epd, .csv, .jsonl or .parquet "
                   "(also before .gz, .bz2, .xz, .zst) sets the format when --format is not given.")
@click.option("--every-ply", is_flag=True, help="The start position and the position after every move.")
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
def to_fen(files, output, every_ply, plies, fmt, en_passant, shredder, include_invalid, keep_invalid, c0, report,
           summary, strict, fix_results, progress, max_game_size, jobs, scheduler, chunk_bytes, selection):
    """Write FEN positions of the games in FILES: by default the final position of each valid game,
    one line per game, in input order. An invalid game gives no line (nor row), unless
    --include-invalid (its positions up to the error) or --keep-invalid (a marker line).

    \b
    Examples:
      pgntools to-fen games.pgn > final.fen
      pgntools to-fen --every-ply games.pgn.zst -o positions.csv.gz
      pgntools to-fen --ply 20 games.pgn -o ply20.parquet
    """
    from pgntools.pipeline import Run

    fmt = to_fen_format(fmt, output)
    check_to_fen(every_ply, plies, fmt, c0, include_invalid, keep_invalid)
    report_sink = report_spec(report)
    run = Run("to-fen", list(files), checked(strict, fix_results, max_game_size, **reader_recovery()),
              outputs={"positions": output, "report": report, "summary": summary}, progress=progress,
              workers=Workers(**parallel_settings(jobs, scheduler, chunk_bytes)), selection=selection)

    from pgntools.sinks.fen import PositionSink  # imports pyarrow: only for the commands that need it

    positions = functools.partial(PositionSink, fmt=fmt, every_ply=every_ply, plies=list(plies) or None,
                                  include_invalid=include_invalid, c0=c0, keep_invalid=keep_invalid,
                                  en_passant=en_passant, shredder=shredder)
    finish(run.execute([SinkSpec("positions", positions), report_sink]))


@cli.command()
@inputs
@click.option("--parquet", "out_dir", type=click.Path(file_okay=False), metavar="OUT_DIR",
              help="The dataset directory to create: OUT_DIR/games/part-*.parquet and OUT_DIR/moves/part-*.parquet "
                   "(--parquet, --positions or both).")
@click.option("--positions", "positions_dir", type=click.Path(file_okay=False), metavar="DIR",
              help="Also (or instead) write the positions dataset, DIR/part-*.parquet: one row per mainline position "
                   "a move was played from, of the valid and fixed games: fen, key, the move (uci, san), the result "
                   "from the side to move's view (1, 0.5, 0), ratings, speed, clock, eval, opening_eco (README: The "
                   "positions dataset). E.g. export --positions pos/ --sample-plies 8 --seed 1 games.pgn.zst")
@click.option("--planes", is_flag=True,
              help="--positions: add the twelve piece bitboards (uint64, bit 0 = a1), white_to_move, castling and "
                   "ep_file, for a model to read without parsing FEN [default: off].")
@click.option("--sample-plies", type=click.IntRange(min=1), metavar="K",
              help="--positions: at most K positions a game, chosen pseudo-randomly by the game's id and --seed "
                   "(the same for any --jobs), e.g. --sample-plies 8 [default: every position].")
@click.option("--min-ply", type=click.IntRange(min=0), default=0, show_default=True, metavar="N",
              help="--positions: only positions after at least N plies (0: the start position too), e.g. --min-ply 10.")
@click.option("--max-ply", type=click.IntRange(min=0), metavar="N",
              help="--positions: only positions after at most N plies, e.g. --max-ply 80 [default: no bound].")
@click.option("--unique-positions", is_flag=True,
              help="--positions: keep only the first row of each position (by its Polyglot key, in input order, "
                   "after --where and the sample); reads in one thread; memory grows with the distinct positions, "
                   "at most ~43 bytes each (README) [default: off].")
@click.option("--columns", metavar="NAMES", help="Comma-separated columns to keep, by their lower-case names (e.g. white_elo,result,san; game_id and ply always stay).")
@click.option("--with-fen", is_flag=True, help="Add the FEN after each move to the moves table.")
@click.option("--with-comments", is_flag=True, help="Add each move's comment text to the moves table.")
@click.option("--with-keys", is_flag=True,
              help="Add a key column to the moves table: the Polyglot key (uint64) of the position after each "
                   "move, as chess.polyglot.zobrist_hash and Polyglot books have it [default: off]. E.g. "
                   "export --with-keys --parquet out/ games.pgn, then "
                   "SELECT game_id, ply FROM 'out/moves/*.parquet' WHERE key = 9384546495678726550.")
@click.option("--en-passant", type=click.Choice(["legal", "fen"]), default="legal", show_default=True,
              help="En-passant field style of the FEN columns.")
@click.option("--compression", type=click.Choice(["zstd", "snappy", "gzip", "none"]), default="zstd",
              show_default=True)
@click.option("--overwrite", is_flag=True,
              help="Replace the part files an earlier export wrote into OUT_DIR/games and OUT_DIR/moves (removed "
                   "only once the new export is complete; other files there are left alone).")
@checking_options
@selection_options
@recovery_options
@parallel_options(jobs_help="Threads to use [default: the number of CPUs], two a worker: one reads and "
                            "replays, one writes Parquet. --jobs 1 does both in the main thread, --jobs 2 "
                            "adds the writer thread, from 4 on N/2 workers share chunks of the input. The "
                            "dataset's rows are the same for any N.",
                  scheduler_help="Run on a Dask cluster (tcp://HOST:PORT, or HOST:PORT; needs the dask extra: "
                                 "pip install 'pgntools-chess[dask]', or '.[dask]' in a checkout): its workers "
                                 "read the games and write the Parquet parts into OUT_DIR, which every worker "
                                 "must be able to write.")
@exit_options
@handle_errors
def export(files, out_dir, positions_dir, planes, sample_plies, min_ply, max_ply, unique_positions, columns, with_fen,
           with_comments, with_keys, en_passant, compression, overwrite, report, summary,
           strict, fix_results, progress, max_game_size, jobs, scheduler, chunk_bytes, selection):
    """Export the games of FILES as a Parquet dataset: one row per game in games/, one row per
    mainline ply in moves/, keyed by game_id (input order, 0-based). Invalid games stay in games/
    with their errors, and their moves up to the error.

    \b
    With --positions DIR, the positions dataset (one row per sampled position, for analysis and
    training) goes to DIR, with or without --parquet.

    \b
    Examples:
      pgntools export --parquet out/ lichess_db_standard_rated_2024-01.pgn.zst
      duckdb -c "SELECT san, count(*) FROM 'out/moves/*.parquet' WHERE ply = 1 GROUP BY 1 ORDER BY 2 DESC"
      pgntools export --positions pos/ --planes --sample-plies 8 --seed 1 --where "white_elo >= 2000" games.pgn.zst
    """
    from pgntools.outputs import check_dataset
    from pgntools.pipeline import Run

    seed = click.get_current_context().params.get("seed", 0)  # --seed (selection_options): --sample-plies' too
    table_options = [name for name, given in (("--columns", columns), ("--with-fen", with_fen),
                                              ("--with-comments", with_comments), ("--with-keys", with_keys)) if given]
    rows = check_positions(out_dir, positions_dir, planes, sample_plies, min_ply, max_ply, unique_positions, seed,
                           table_options)
    if rows is not None and rows.unique:  # the first row of each key in input order: one reader
        if scheduler:
            raise OptionError("--unique-positions keeps the first row of each position in input order, in one "
                              "thread: not with --scheduler")
        jobs = min(options.threads_wanted(jobs), 2)  # one reader (and its writer thread)
    # a reader and its writer thread: two threads a worker (on 2 CPUs, one worker with its writer
    # is faster than two without, 0.32 vs 0.38 s on the master file: see benchmarks/RESULTS.md)
    writer_thread = options.writer_thread(jobs, scheduler)
    run = Run("export", list(files), checked(strict, fix_results, max_game_size, **reader_recovery()),
              outputs={"report": report, "summary": summary}, progress=progress,
              workers=Workers(**parallel_settings(jobs, scheduler, chunk_bytes, threads_per_job=2)), selection=selection)
    wanted = [c.strip() for c in columns.split(",") if c.strip()] if columns else None
    check_export_columns(wanted, with_fen, with_comments, with_keys)
    report_sink = report_spec(report)
    specs = []
    if out_dir is not None:
        from pgntools.sinks.parquet import ParquetDatasetSink

        check_dataset(out_dir, files)  # no input is a part file this export would replace
        if scheduler and not is_url(out_dir):  # cluster workers do not share our working directory
            out_dir = os.path.abspath(out_dir)
        specs.append(SinkSpec(None, functools.partial(
            ParquetDatasetSink, out_dir, wanted, with_fen, with_comments, compression, writer_thread=writer_thread,
            en_passant=en_passant, overwrite=overwrite, with_keys=with_keys)))
    if rows is not None:
        from pgntools.sinks.position_dataset import PositionDatasetSink

        check_dataset(positions_dir, files, tables=("",), option="--positions")
        if scheduler and not is_url(positions_dir):
            positions_dir = os.path.abspath(positions_dir)
        specs.append(SinkSpec(None, functools.partial(
            PositionDatasetSink, positions_dir, rows, compression, writer_thread=writer_thread, en_passant=en_passant,
            overwrite=overwrite)))
    finish(run.execute([*specs, report_sink]))


@cli.command("filter")
@inputs
@click.option("-o", "--output", required=True, type=PATH, metavar="PATH",
              help="Where to write the selected games ('-' for stdout).")
@click.option("--normalize", is_flag=True,
              help="Write the selected games in the PGN export format (as validate -o does; invalid games are "
                   "then left out) instead of byte for byte as they were.")
@selected_games_options
@exit_options
@handle_errors
def filter_games(files, output, normalize, rejects, report, summary, strict, fix_results, progress, max_game_size,
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
    from pgntools.pipeline import Run
    from pgntools.sinks.pgn import PgnSink, RawPgnSink, RejectsSink

    report_sink = report_spec(report)
    run = Run("filter", list(files), checked(strict, fix_results, max_game_size, **reader_recovery()),
              outputs={"pgn": output, "rejects": rejects, "report": report, "summary": summary}, progress=progress,
              workers=Workers(**parallel_settings(jobs, scheduler, chunk_bytes)), selection=selection)
    games = PgnSink if normalize else RawPgnSink
    finish(run.execute([SinkSpec("pgn", games), SinkSpec("rejects", RejectsSink), report_sink]))


@cli.command()
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
@selected_games_options
@exit_options
@handle_errors
def split(files, template, per_part, by, normalize, max_open, rejects, report, summary, strict, fix_results,
          progress, max_game_size, jobs, scheduler, chunk_bytes, selection):
    """Write the games of FILES that --where (and --sample, --limit) select into one file per N
    games (--games N) or per value of a field (--by FIELD), each game byte for byte as in the input
    (as filter writes it) or in the export format with --normalize. The parts appear when the run
    has succeeded (none when it fails); a value becomes a safe file name (no /, .., control
    characters, leading dot or dash, device names; at most ~100 bytes; a value that had to be
    changed ends in a hash of it, so two values never share a file).

    \b
    Examples:
      pgntools split games.pgn --games 1000 -o parts/{n:04}.pgn
      pgntools split twic.pgn.zst --by event -o events/{event}.pgn
      pgntools split lichess_db_standard_rated_2024-01.pgn.zst --by eco -o eco/{eco}.pgn.zst \\
          --where "white_elo >= 2200 and black_elo >= 2200"
    """
    from pgntools.pipeline import Run
    from pgntools.sinks.pgn import RejectsSink
    from pgntools.sinks.split import SplitSink, split_plan

    plan = split_plan(template, per_part, by, normalize, max_open, list(files), [rejects, report, summary])
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


@cli.command()
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
    from pgntools.pipeline import Run

    report_sink = report_spec(report)
    run = Run("stats", list(files), checked(strict, fix_results, max_game_size, **reader_recovery()),
              outputs={"text": "-", "html": html, "json": json_path, "report": report, "summary": summary},
              progress=progress, workers=Workers(**parallel_settings(jobs, scheduler, chunk_bytes)),
              selection=selection)

    from pgntools.stats.sink import StatsSink  # imports pyarrow: only for this command

    command_line = "pgntools stats " + " ".join(os.path.basename(f) for f in files)
    finish(run.execute([SinkSpec(("text", "html", "json"), functools.partial(StatsSink, command_line=command_line)),
                        report_sink]))


@cli.command()
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
    from pgntools.pipeline import Run

    report_sink = report_spec(report)
    run = Run("book", list(files), checked(strict, fix_results, max_game_size, **reader_recovery()),
              outputs={"book": output, "report": report, "summary": summary}, progress=progress,
              workers=Workers(**parallel_settings(jobs, scheduler, chunk_bytes)), selection=selection)

    from pgntools.sinks.book import BookSink  # imports pyarrow: only for this command

    finish(run.execute([SinkSpec("book", functools.partial(BookSink, max_ply=max_ply, min_games=min_games)),
                        report_sink]))


@cli.command()
@inputs
@handle_errors
def scan(files):
    """Count the games in FILES without replaying them (the scanner alone; for benchmarks).

    Exit status: 0, 2 unreadable input, 74 stdout could not be written, 141 stdout closed by its
    reader.
    """
    from pgntools.pipeline import Run

    run = Run("scan", list(files), ReaderOptions(replay=False), progress=False)
    summary = run.execute([])
    click.echo(summary.games)
    broken_inputs(summary)


@cli.command()
@click.argument("depth", type=click.IntRange(0, 12))
@click.option("--fen", default=None, help="Start position (default: the standard start).")
@click.option("--chess960", is_flag=True, help="Read --fen as a Chess960 (X-FEN/Shredder-FEN) position.")
@handle_errors
def perft(depth, fen, chess960):
    """Count the leaf nodes of the legal move tree to DEPTH (a rules-core self-check).

    Example: pgntools perft 5   prints 4865609.

    Exit status: 0, 2 usage error (a depth over 12, an invalid --fen).
    """
    if chess960 and not fen:
        raise OptionError("--chess960 reads --fen as a Chess960 position, and no --fen is given")
    board = pgntools.Board.from_fen(fen, chess960=chess960) if fen else pgntools.Board()
    click.echo(board.perft(depth))


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
