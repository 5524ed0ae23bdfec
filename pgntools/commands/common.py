"""What every command shares once it runs: the error handling (one line and an exit status per
failure), the exit status of invalid games (--fail-on-invalid, validate's --exit-zero), --quiet, and the summary line at the end."""
from __future__ import annotations

import errno
import functools
import os
import sys

try:  # the signal module's C part: signal.py makes enums of every signal (~0.4 ms of start-up) that
    import _signal as signal  # this module does not need: it sets and restores SIGTERM's handler
except ImportError:  # (an interpreter without it)
    import signal

import click

from pgntools.errors import PgnToolsError, WorkersLostError
from pgntools.exits import EXIT_INTERNAL, EXIT_INVALID, EXIT_IO, EXIT_PIPE, EXIT_USAGE

EXIT_STATUS_HELP = """
    Exit status: 0 every game valid or fixed (also with --exit-zero when some are invalid),
    1 some game invalid, 2 usage error or unreadable input, 74 an output could not be written
    (a full disk) or the --scheduler cluster lost its workers, 141 stdout or a pipe output was closed by its reader (as `| head` does; no
    message), 130/143 interrupted, 70 internal error.
"""
DATA_EXIT_STATUS_HELP = """
    Exit status: 0 the run completed (invalid games are counted in the summary; 1 for them with
    --fail-on-invalid), 2 usage error or unreadable input, 74 an output could not be written (a
    full disk) or the --scheduler cluster lost its workers, 141 stdout or a pipe output was closed by its reader (as `| head` does; no
    message), 130/143 interrupted, 70 internal error.
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
        except WorkersLostError as exc:  # (the committed parts stay, for --resume)
            click.echo(f"pgntools: error: {exc}", err=True)
            sys.exit(EXIT_IO)
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
            if exc.errno == errno.ENOSPC:
                click.echo(f"pgntools: error: {disk_full(exc)}; no output was left under its final name", err=True)
            elif not is_broken_pipe(exc):
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


def disk_full(exc: OSError) -> str:
    """ENOSPC as a sentence: the output and the games read when it failed (pgntools.runner.run)."""
    where = getattr(exc, "pgntools_output", None) or exc.filename
    games = getattr(exc, "pgntools_games", None)
    return "disk full writing " + (str(where) if where else "an output") + \
        (f" after {games:,} game{'s' * (games != 1)}" if games else "") + f" ({exc.strerror})"


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
    """For a command whose job is to produce data (export, to-fen, stats, ...): it exits 0 when it
    completed, invalid games counted in its summary; --fail-on-invalid gives 1 for them (issue 37
    A4). --exit-zero, once needed for that, is still accepted (hidden, no effect)."""
    return _summary_options(f, verdict=False)


def verdict_exit_options(f):
    """For validate, whose verdict is its job: exit 1 when some game is invalid, 0 with --exit-zero."""
    return _summary_options(f, verdict=True)


def _summary_options(f, verdict: bool):
    """-q/--quiet and the option that decides the exit status of invalid games; adds the exit
    statuses to the command's --help. The choices are kept in the Click context for finish()."""

    @functools.wraps(f)
    def wrapper(*args, exit_zero, quiet, fail_on_invalid=False, **kwargs):
        meta = click.get_current_context().meta
        meta["pgntools.fail_on_invalid"] = (not exit_zero) if verdict else fail_on_invalid
        meta["pgntools.quiet"] = quiet
        if quiet and kwargs.get("progress") is None:  # quiet means no bar either, unless asked for
            kwargs["progress"] = False
        return f(*args, **kwargs)

    wrapper.__doc__ = (f.__doc__ or "").rstrip() + "\n" + (EXIT_STATUS_HELP if verdict else DATA_EXIT_STATUS_HELP)
    if verdict:
        wrapper = click.option("--exit-zero", is_flag=True,
                               help="Exit 0 even when some game is invalid (it is still reported and counted); "
                                    "usage errors, unreadable inputs and failed outputs still exit non-zero.")(wrapper)
    else:
        wrapper = click.option("--exit-zero", is_flag=True, hidden=True,
                               help="Accepted, no effect: invalid games exit 0 unless --fail-on-invalid.")(wrapper)
        wrapper = click.option("--fail-on-invalid", is_flag=True,
                               help="Exit 1 when some game is invalid (by default the run exits 0 when it "
                                    "completed; the invalid games are counted in the summary).")(wrapper)
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
    sys.exit(EXIT_INVALID if summary.invalid and meta.get("pgntools.fail_on_invalid") else 0)


def broken_inputs(summary):
    """A line per input that broke while read (a corrupt compressed stream), then exit 2: the
    outputs hold the games before each break, but not the whole input."""
    for message in summary.input_errors:
        click.echo(f"pgntools: error: {message}", err=True)
    if summary.input_errors:
        sys.exit(EXIT_USAGE)
