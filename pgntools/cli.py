"""The command line: a Click group with one short function per command over the library."""
from __future__ import annotations

import errno
import functools
import os
import signal
import sys

import click

# The command line's Arrow allocations (export, to-fen tables) go to the system allocator: Arrow's
# default (mimalloc) keeps ~15-25 MB more resident for the same work. Set before pyarrow loads;
# an explicit setting wins.
os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")

import pgntools
from pgntools.errors import PgnToolsError
from pgntools import options
from pgntools.options import ReaderOptions, Workers
from pgntools.outputs import check_dataset
from pgntools.pipeline import Run
from pgntools.storage import is_url
from pgntools.usage import (OptionError, check_export_columns, check_report_level, check_to_fen, check_validate,
                            scheduler_address, to_fen_format)
from pgntools.sinks import FORMATS
from pgntools.sinks.base import SinkSpec
from pgntools.sinks.pgn import PgnSink, RawPgnSink, RejectsSink
from pgntools.sinks.report import REPORT_LEVELS, ReportSink

# Exit statuses (README "Exit status"): each failure has its own, so a pipeline can tell a data
# problem (1) from a broken run. 70 and 74 are sysexits.h's EX_SOFTWARE and EX_IOERR.
EXIT_INVALID = 1       # some game is invalid (0 with --exit-zero)
EXIT_USAGE = 2         # usage error or unreadable input
EXIT_INTERNAL = 70     # a bug in pgntools, or out of memory
EXIT_IO = 74           # an output failed while written: a full disk, a write error
EXIT_PIPE = 141        # 128 + SIGPIPE: the reader of stdout or of a pipe output went away
EXIT_STATUS_HELP = """
    Exit status: 0 every game valid or fixed (also with --exit-zero when some are invalid),
    1 some game invalid, 2 usage error or unreadable input, 74 an output could not be written
    (a full disk), 141 stdout or a pipe output was closed by its reader (as `| head` does; no
    message), 130/143 interrupted, 70 internal error.
"""

# One path type for every path option: each click.Path() looks its name up with gettext (13
# look-ups, ~2.4 M instructions of start-up; one now).
PATH = click.Path(allow_dash=True)


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


# ---------------------------------------------------------------- shared options

def inputs(f):
    return click.argument("files", nargs=-1, type=PATH, metavar="FILES...", callback=_stdin_by_default)(f)


def _stdin_by_default(ctx, param, files):
    """No FILES: stdin when it is a pipe or a file (as jq and grep read it), the usage error on a terminal."""
    if files:
        return files
    if sys.stdin is None or sys.stdin.isatty():
        raise click.MissingParameter(ctx=ctx, param=param)
    return ("-",)


def checking_options(f):
    """Options every game-reading command shares: what is checked and what is reported."""
    decorators = [
        click.option("--report", type=PATH, metavar="PATH",
                     help="JSON Lines: one object per game that is not clean (invalid, fixed, or with notes)."),
        click.option("--report-level", type=click.Choice(list(REPORT_LEVELS)), default=None, expose_value=False,
                     callback=_remember,
                     help="Which games --report writes: errors (invalid ones), fixes (invalid and fixed), notes "
                          "(also valid games with notes) [default: notes]."),
        click.option("--summary", type=PATH, metavar="PATH",
                     help="JSON: games, valid, fixed, invalid, counts per error and note kind, bytes (of the "
                          "inputs as stored: compressed bytes for compressed input), pgn_bytes (decompressed), "
                          "seconds (and input_errors: inputs whose compressed stream broke)."),
        click.option("--strict", is_flag=True,
                     help="Treat notation that needed normalising (e8Q, 0-0, e2e4, Ngf3, a wrong +/#) as errors."),
        click.option("--fix-results/--no-fix-results", default=True, show_default=True,
                     help="Repair a Result tag or termination marker that the game itself decides; "
                          "with --no-fix-results such games are invalid."),
        click.option("--progress/--no-progress", default=None,
                     help="Progress bar on stderr (default: only when stderr is a terminal)."),
        click.option("--max-game-size", type=click.IntRange(1), default=64, show_default=True, metavar="MIB",
                     help="A game larger than this (e.g. a runaway comment) is reported as game_too_large "
                          "and skipped; memory use is bounded by it."),
    ]
    for decorator in reversed(decorators):
        f = decorator(f)
    return f


def recovery_options(f):
    """What the reader recovers from instead of calling a game invalid (issue 20): play after an
    automatic draw, null moves, bad moves (--repair). The choices go to the Click context; reader_recovery() hands them to a Run."""

    @functools.wraps(f)
    def wrapper(*args, automatic_ends, allow_null_moves, repair, **kwargs):
        click.get_current_context().meta["pgntools.recovery"] = {"automatic_ends": automatic_ends,
                                                                 "allow_null_moves": allow_null_moves or None,
                                                                 "repair": repair}
        return f(*args, **kwargs)

    wrapper = click.option(
        "--repair", type=click.Choice(["none", "truncate"]), default=None,
        help="truncate: a game stopped by an illegal or unreadable mainline move is kept as its legal "
             "prefix (status truncated, Result *, a comment at the cut naming the error and the move "
             "text dropped; validate's rejects file still gets its bytes). A game with no legal move "
             "first stays invalid. [default: none]")(wrapper)
    wrapper = click.option(
        "--allow-null-moves", is_flag=True,
        help="Read --, Z0, 0000 and @@@@ as a null move (the side to move passes; not when in check), "
             "written -- in PGN and 0000 as UCI. Without it a null move is an error.")(wrapper)
    return click.option(
        "--automatic-ends", type=click.Choice(["note", "enforce", "truncate"]), default=None,
        help="A game that goes on after an automatic draw (dead position, fivefold repetition, 75-move "
             "rule): note (the default) keeps it valid with a note play_after_automatic_end; enforce "
             "(the default with --strict) makes the moves after it an error; truncate cuts the game "
             "there with the rule's result (a fix).")(wrapper)


def reader_recovery() -> dict:
    """The reader options recovery_options chose (an option left unset keeps the reader's default)."""
    chosen = click.get_current_context().meta.get("pgntools.recovery", {})
    return {name: value for name, value in chosen.items() if value is not None}


JOBS_HELP = ("Threads to use [default: the number of CPUs]: N workers read chunks of the input. "
             "Outputs are the same for any N; --jobs 1 reads in the main thread.")


SCHEDULER_HELP = ("Run on a Dask cluster (tcp://HOST:PORT, or HOST:PORT; needs the dask extra: pip install "
                  "'pgntools-chess[dask]', or '.[dask]' in a checkout): its workers read and check the games, "
                  "the outputs are written here.")


def parallel_options(f=None, *, jobs_help=JOBS_HELP, scheduler_help=SCHEDULER_HELP):
    """--jobs and --scheduler: where the games are read and checked."""
    if f is None:  # @parallel_options(jobs_help=...)
        return functools.partial(parallel_options, jobs_help=jobs_help, scheduler_help=scheduler_help)
    decorators = [
        click.option("-j", "--jobs", type=click.IntRange(1), default=None, metavar="N", help=jobs_help),
        click.option("--scheduler", metavar="ADDRESS", callback=scheduler_address, help=scheduler_help),
        click.option("--connect-timeout", type=click.FloatRange(0, min_open=True), default=10, show_default=True,
                     metavar="SECONDS", expose_value=False, callback=_remember,
                     help="With --scheduler: give up connecting to it after this long."),
        click.option("--chunk-bytes", type=click.IntRange(1), default=None, hidden=True,
                     help="Target chunk size of a parallel run, in bytes (for tests and tuning)."),
    ]
    for decorator in reversed(decorators):
        f = decorator(f)
    return f


def _remember(ctx, param, value):
    """Keeps a shared option's value for the helpers that use it (not a parameter of each command)."""
    ctx.meta[f"pgntools.{param.name}"] = value


def _remembered(name: str):
    return click.get_current_context().meta.get(f"pgntools.{name}")


def report_spec(report) -> SinkSpec:
    """The --report sink, at --report-level."""
    level = _remembered("report_level")
    check_report_level(level, report)
    return SinkSpec("report", functools.partial(ReportSink, level=level or "notes"))


def parallel_settings(jobs, scheduler, chunk_bytes, threads_per_job: int = 1) -> dict:
    """The Workers fields for the parallel options (the policy: pgntools.options.workers_for)."""
    if scheduler:  # Dask's own setting, read when its client connects (pgntools.dask.ClusterExecutor)
        try:
            import dask
        except ImportError:  # (pgntools.dask says how to install it)
            pass
        else:
            dask.config.set({"distributed.comm.timeouts.connect": f"{_remembered('connect_timeout')}s"})
    return options.workers_for(jobs, scheduler, chunk_bytes, threads_per_job)._asdict()


WHERE_HELP = ("Keep only the games for which this SQL-like condition is true (the others are left out of "
              "every output), over the games table's column names: e.g. \"white_elo >= 2400 and date >= "
              "'2023.01.01' and event like 'Rated Blitz%'\", \"result in ('1-0', '0-1')\", "
              "\"tags['Termination'] = 'Normal'\". Absent and unknown (?, -) tag values are null. "
              "The language: README, Selecting games.")


def selection_options(f):
    """--where, --sample/--seed and --limit: which games go to the outputs (pgntools.where). The
    command gets ``selection`` (checked here: a bad expression exits 2 before any input is read)."""

    @functools.wraps(f)
    def wrapper(*args, where, sample, seed, limit, **kwargs):
        from pgntools.selection import KEEP_ALL

        selection = KEEP_ALL
        if where is not None or sample is not None or limit is not None:
            from pgntools.where import Choose, WhereError

            try:
                selection = Choose(where, sample, seed, limit)
            except WhereError as exc:
                click.echo(f"pgntools: error: {exc}", err=True)
                sys.exit(EXIT_USAGE)
        if limit is not None:  # the first N of the input in order: one reader
            if kwargs.get("scheduler"):
                click.echo("pgntools: error: --limit reads in order in one thread: not with --scheduler", err=True)
                sys.exit(EXIT_USAGE)
            kwargs["jobs"] = 1
        return f(*args, selection=selection, **kwargs)

    decorators = [
        click.option("--where", metavar="EXPR", help=WHERE_HELP),
        click.option("--sample", type=click.FloatRange(0, 1), metavar="FRACTION",
                     help="Keep a pseudo-random share of the games, chosen by game id and --seed: the same "
                          "games for any --jobs."),
        click.option("--seed", type=int, default=0, show_default=True, help="The seed of --sample."),
        click.option("--limit", type=click.IntRange(0), metavar="N",
                     help="Stop after N selected games (and stop reading); reads in one thread."),
    ]
    for decorator in reversed(decorators):
        wrapper = decorator(wrapper)
    return wrapper


def checked(strict: bool, fix_results: bool, max_game_size: int, **more) -> ReaderOptions:
    """The reader options of the checking options (what the outputs need, the run adds)."""
    return ReaderOptions(strict=strict, fix_results=fix_results, max_game_size=max_game_size << 20, **more)


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

@cli.command()
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
@checking_options
@selection_options
@recovery_options
@parallel_options
@exit_options
@handle_errors
def validate(files, output, rejects, strip_comments, strip_variations, reduced, report, summary, strict,
             fix_results, progress, max_game_size, jobs, scheduler, chunk_bytes, selection):
    """Replay every game of FILES and check every move, the start position and the result.

    \b
    Examples:
      pgntools validate games.pgn                      # check; exit status 1 if any game is invalid
      pgntools validate games.pgn.zst -o clean.pgn --rejects bad.pgn --report report.jsonl
      zstdcat month.pgn.zst | pgntools validate --summary summary.json   # no FILES: stdin
    """
    check_validate(output, strip_comments, strip_variations, reduced)
    report_sink = report_spec(report)
    run = Run("validate", list(files), checked(strict, fix_results, max_game_size, **reader_recovery()),
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
@click.option("--parquet", "out_dir", required=True, type=click.Path(file_okay=False), metavar="OUT_DIR",
              help="The dataset directory to create: OUT_DIR/games/part-*.parquet and OUT_DIR/moves/part-*.parquet.")
@click.option("--columns", metavar="NAMES", help="Comma-separated columns to keep, by their lower-case names (e.g. white_elo,result,san; game_id and ply always stay).")
@click.option("--with-fen", is_flag=True, help="Add the FEN after each move to the moves table.")
@click.option("--with-comments", is_flag=True, help="Add each move's comment text to the moves table.")
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
def export(files, out_dir, columns, with_fen, with_comments, en_passant, compression, overwrite, report, summary,
           strict, fix_results, progress, max_game_size, jobs, scheduler, chunk_bytes, selection):
    """Export the games of FILES as a Parquet dataset: one row per game in games/, one row per
    mainline ply in moves/, keyed by game_id (input order, 0-based). Invalid games stay in games/
    with their errors, and their moves up to the error.

    \b
    Example:
      pgntools export --parquet out/ lichess_db_standard_rated_2024-01.pgn.zst
      duckdb -c "SELECT san, count(*) FROM 'out/moves/*.parquet' WHERE ply = 1 GROUP BY 1 ORDER BY 2 DESC"
    """
    # a reader and its writer thread: two threads a worker (on 2 CPUs, one worker with its writer
    # is faster than two without, 0.32 vs 0.38 s on the master file: see benchmarks/RESULTS.md)
    writer_thread = options.writer_thread(jobs, scheduler)
    run = Run("export", list(files), checked(strict, fix_results, max_game_size, **reader_recovery()),
              outputs={"report": report, "summary": summary}, progress=progress,
              workers=Workers(**parallel_settings(jobs, scheduler, chunk_bytes, threads_per_job=2)), selection=selection)
    wanted = [c.strip() for c in columns.split(",") if c.strip()] if columns else None
    check_export_columns(wanted, with_fen, with_comments)
    report_sink = report_spec(report)

    from pgntools.sinks.parquet import ParquetDatasetSink

    check_dataset(out_dir, files)  # no input is a part file this export would replace
    if scheduler and not is_url(out_dir):  # cluster workers do not share our working directory
        out_dir = os.path.abspath(out_dir)
    dataset = functools.partial(ParquetDatasetSink, out_dir, wanted, with_fen, with_comments, compression,
                                writer_thread=writer_thread, en_passant=en_passant, overwrite=overwrite)
    finish(run.execute([SinkSpec(None, dataset), report_sink]))


@cli.command("filter")
@inputs
@click.option("-o", "--output", required=True, type=PATH, metavar="PATH",
              help="Where to write the selected games ('-' for stdout).")
@click.option("--normalize", is_flag=True,
              help="Write the selected games in the PGN export format (as validate -o does; invalid games are "
                   "then left out) instead of byte for byte as they were.")
@click.option("--rejects", type=PATH, metavar="PATH",
              help="Write the selected invalid games exactly as they were in the input.")
@checking_options
@selection_options
@recovery_options
@parallel_options
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
    report_sink = report_spec(report)
    run = Run("filter", list(files), checked(strict, fix_results, max_game_size, **reader_recovery()),
              outputs={"pgn": output, "rejects": rejects, "report": report, "summary": summary}, progress=progress,
              workers=Workers(**parallel_settings(jobs, scheduler, chunk_bytes)), selection=selection)
    games = PgnSink if normalize else RawPgnSink
    finish(run.execute([SinkSpec("pgn", games), SinkSpec("rejects", RejectsSink), report_sink]))


@cli.command()
@inputs
@handle_errors
def scan(files):
    """Count the games in FILES without replaying them (the scanner alone; for benchmarks).

    Exit status: 0, 2 unreadable input, 74 stdout could not be written, 141 stdout closed by its
    reader.
    """
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
