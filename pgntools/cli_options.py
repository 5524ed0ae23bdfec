"""The command line's shared options: the decorators that give every game-reading command the
same inputs, checking, selection, recovery and parallel options, and the helpers that turn their
values into a Run's reader options, workers, selection and report sink."""
from __future__ import annotations

import functools
import sys

import click

from pgntools import options
from pgntools.exits import EXIT_USAGE
from pgntools.options import ReaderOptions
from pgntools.sinks.base import SinkSpec
from pgntools.sinks.report import REPORT_LEVELS, ReportSink
from pgntools.usage import check_report_level, scheduler_address

# One path type for every path option: each click.Path() looks its name up with gettext (13
# look-ups, ~2.4 M instructions of start-up; one now).
PATH = click.Path(allow_dash=True)


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
        click.option("--task-size", type=ByteSize(), default=None, metavar="SIZE", expose_value=False,
                     callback=_remember,
                     help="With --scheduler: the plain PGN a task reads, e.g. 128MB (each worker opens its "
                          "inputs itself; a compressed file is one task) [default: 64MiB]."),
    ]
    for decorator in reversed(decorators):
        f = decorator(f)
    return f


def _remember(ctx, param, value):
    """Keeps a shared option's value for the helpers that use it (not a parameter of each command)."""
    ctx.meta[f"pgntools.{param.name}"] = value


def _remembered(name: str):
    """A shared option's value (None outside a command: e.g. a helper called by a test)."""
    ctx = click.get_current_context(silent=True)
    return ctx.meta.get(f"pgntools.{name}") if ctx is not None else None


def report_spec(report) -> SinkSpec:
    """The --report sink, at --report-level."""
    level = _remembered("report_level")
    check_report_level(level, report)
    return SinkSpec("report", functools.partial(ReportSink, level=level or "notes"))


def parallel_settings(jobs, scheduler, chunk_bytes, threads_per_job: int = 1) -> dict:
    """The Workers fields for the parallel options (the policy: pgntools.options.workers_for)."""
    if scheduler:  # Dask's own setting, read when its client connects (pgntools.runner.cluster.ClusterExecutor)
        try:
            import dask
        except ImportError:  # (pgntools.runner.cluster says how to install it)
            pass
        else:
            dask.config.set({"distributed.comm.timeouts.connect": f"{_remembered('connect_timeout')}s"})
    return options.workers_for(jobs, scheduler, chunk_bytes, threads_per_job, _remembered("task_size"))._asdict()


WHERE_HELP = ("Keep only the games for which this SQL-like condition is true (the others are left out of "
              "every output), over the games table's column names: e.g. \"white_elo >= 2400 and date >= "
              "'2023.01.01' and event like 'Rated Blitz%'\", \"result in ('1-0', '0-1')\", "
              "\"tags['Termination'] = 'Normal'\". Absent and unknown (?, -) tag values are null. "
              "A condition on tags alone is decided before the replay: the games it drops are read past at "
              "the scanner's speed. The language: README, Selecting games.")


WHERE_POSITION_HELP = (
    "Keep only the games whose mainline reaches this position at some ply (the start position included; "
    "transpositions count): placement, side to move, castling rights and a possible en-passant capture are "
    "compared, the move counters are not (they may be left out). Repeatable: any of them. With --where: both. "
    "E.g. --where-position 'rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq -'. [default: none]")
MATERIAL_HELP = (
    "Keep only the games that reach this material balance at some ply: White's pieces in upper case, then "
    "Black's in lower case, each side's king first; KRPkr is exactly king, rook and pawn against king and "
    "rook; a * after a side's pieces means 'and any further pieces' (KQ*kq*: both sides have at least a "
    "queen; KR*k: at least a rook against a bare king). Repeatable: any of them. [default: none]")


def selection_options(f):
    """--where, --sample/--seed and --limit: which games go to the outputs (pgntools.where). The
    command gets ``selection`` (checked here: a bad expression exits 2 before any input is read)."""

    @functools.wraps(f)
    def wrapper(*args, where, sample, seed, limit, dedup, where_position, material, dedup_keep, dedup_against,
                where_moves, **kwargs):
        from pgntools.selection import KEEP_ALL

        selection = KEEP_ALL
        if where is not None or sample is not None or limit is not None or dedup is not None or where_position \
                or material or dedup_keep != "first" or dedup_against or where_moves:
            from pgntools.where import Choose, WhereError
            from pgntools.where.targets import SelectionError

            try:
                selection = Choose(where, sample, seed, limit, dedup, where_position, material, dedup_keep,
                                   dedup_against, where_moves)
            except (WhereError, SelectionError) as exc:
                click.echo(f"pgntools: error: {exc}", err=True)
                sys.exit(EXIT_USAGE)
        return f(*args, selection=selection, **kwargs)

    decorators = [
        click.option("--where", metavar="EXPR", help=WHERE_HELP),
        click.option("--where-position", metavar="FEN", multiple=True, help=WHERE_POSITION_HELP),
        click.option("--material", metavar="SIGNATURE", multiple=True, help=MATERIAL_HELP),
        click.option("--sample", type=click.FloatRange(0, 1), metavar="FRACTION",
                     help="Keep a pseudo-random share of the games, chosen by game id and --seed: the same "
                          "games for any --jobs."),
        click.option("--seed", type=int, default=0, show_default=True,
                     help="The seed of --sample (and of export's --sample-plies)."),
        click.option("--limit", type=click.IntRange(0), metavar="N",
                     help="Stop after N selected games (and stop reading): the first N in input order, for any "
                          "--jobs and with --scheduler. Example: --limit 1000"),
        click.option("--dedup", type=click.Choice(["moves", "position"]), default=None,
                     help="Drop a game that repeats an earlier one (the first is kept): moves = the same start "
                          "position and mainline moves (as played: Nf3 and Ng1f3 alike; comments, NAGs, variations "
                          "and tags do not count; export's movetext_hash), position = the same final position. "
                          "--report names each dropped game and the game_id it repeats. Applied after --where, "
                          "before --sample and --limit; the same games for any --jobs and with --scheduler (decided in input order "
                          "by the main process). [default: keep duplicates] "
                          "Example: pgntools filter a.pgn b.pgn --dedup moves -o merged.pgn"),
        click.option("--dedup-keep", type=click.Choice(["first", "duplicates"]), default="first",
                     show_default=True,
                     help="Which games --dedup keeps: first (each game once), or duplicates (only the games that "
                          "repeat an earlier one; pgn-extract -U). --dedup-keep duplicates alone means --dedup moves."),
        click.option("--dedup-against", type=click.Path(exists=True, dir_okay=False), metavar="FILE",
                     help="Drop the games that occur in FILE (a PGN file; the same games as --dedup says, moves "
                          "unless --dedup position; pgn-extract -c). Without --dedup the input's own repeats stay. "
                          "--report names the game of FILE each dropped game repeats."),
        click.option("--where-moves", metavar="MOVES",
                     help="Keep the games whose mainline starts with these moves (SAN, with or without move "
                          "numbers; * stands for any one move); with a leading '...', the games whose mainline "
                          "holds them anywhere, from the position they are legal in. Example: "
                          "--where-moves \"1. e4 e5 2. Nf3 * 3. Bb5\" (pgn-extract -v)"),
    ]
    for decorator in reversed(decorators):
        wrapper = decorator(wrapper)
    return wrapper


def selected_games_options(f):
    """The options filter and split share after their own: --rejects (the selected invalid games),
    then those of every game-reading command (checking, selection, recovery, parallel)."""
    decorators = [
        click.option("--rejects", type=PATH, metavar="PATH",
                     help="Write the selected invalid games exactly as they were in the input."),
        checking_options, selection_options, recovery_options, parallel_options,
    ]
    for decorator in reversed(decorators):
        f = decorator(f)
    return f


PGN_SHAPE_FLAGS = {  # option -> the writer's shape (ReaderOptions.pgn_shape), pgn-extract's flag in the help
    "--strip-nags": ("strip_nags", "Leave NAGs ($1, $14, ...) out of the output (pgn-extract -N)."),
    "--no-check-marks": ("no_check_marks", "Write SAN without + and # (pgn-extract --nochecks)."),
    "--no-move-numbers": ("no_move_numbers", "Write the moves without move numbers (pgn-extract --nomovenumbers)."),
    "--no-results": ("no_results", "No result after the moves; the Result tag stays (pgn-extract --noresults)."),
    "--no-tags": ("no_tags", "The movetext alone, no tag section (pgn-extract --notags)."),
    "--fen-comments": ("fen_comments", "A comment after each move: the FEN of the position after it "
                                       "(pgn-extract --fencomments)."),
    "--key-comments": ("key_comments", "A comment after each move: the Polyglot key of the position after it, "
                                       "in hex (pgn-extract --hashcomments)."),
}


def pgn_shape_options(f):
    """The PGN writer's output options (pgn-extract's): the command gets ``pgn_shape``, the
    keyword arguments of PgnSink (pgntools.sinks.pgn), or None when none was given."""

    @functools.wraps(f)
    def wrapper(*args, line_length, add_tags, notation, max_plies, drop_plies, start_ply, split_variations, **kwargs):
        names = tuple(PGN_SHAPE_FLAGS[flag][0] for flag in PGN_SHAPE_FLAGS if kwargs.pop(_flag_name(flag)))
        given = [flag for flag in PGN_SHAPE_FLAGS if PGN_SHAPE_FLAGS[flag][0] in names]
        given += ["--line-length"] if line_length is not None else []
        if add_tags:
            names += tuple(f"add_{tag}" for tag in add_tags)
            given.append("--add-tags")
        if notation in ("uci", "lan"):
            names += (notation,)
            given.append("--notation")
        plies = _ply_window(max_plies, drop_plies, start_ply)
        given += [flag for flag, value in (("--max-plies", max_plies), ("--drop-plies", drop_plies),
                                           ("--start-ply", start_ply)) if value is not None]
        if split_variations:
            if add_tags:
                raise click.UsageError("--add-tags and --split-variations cannot both hold: PlyCount and HashCode "
                                       "are the whole game's, not each variation's")
            given.append("--split-variations")
        shape = {"pgn_shape": names, "line_length": 79 if line_length is None else line_length,
                 "pgn_plies": plies} if given else None
        if split_variations:
            shape["split_variations"] = True
        click.get_current_context().meta["pgntools.pgn_shape_flags"] = given
        return f(*args, pgn_shape=shape, **kwargs)

    for flag in reversed(PGN_SHAPE_FLAGS):
        wrapper = click.option(flag, is_flag=True, help=PGN_SHAPE_FLAGS[flag][1])(wrapper)
    wrapper = click.option("--notation", type=click.Choice(["san", "uci", "lan"]), default=None,
                           help="The moves' notation in the PGN written: san (the standard's), uci (e2e4, "
                                "e7e8q, castling as the king's move e1g1; pgn-extract -Wuci) or lan (long "
                                "algebraic: e2-e4, Ng1-f3, Bb5xc6, e7-e8=Q, O-O; pgn-extract -Wxolalg). "
                                "[default: san]")(wrapper)
    wrapper = click.option("--split-variations", is_flag=True,
                           help="Write each variation as a game of its own, after the game's mainline: the moves "
                                "that lead to it (with their comments and NAGs), then its own; Result * "
                                "(pgn-extract --splitvariants).")(wrapper)
    wrapper = _ply_options(wrapper, "Write")
    wrapper = click.option("--add-tags", metavar="TAGS", callback=_tag_list,
                           help="Add tags to each game written: plycount (PlyCount, the mainline's plies), "
                                "hashcode (HashCode, the final position's Polyglot key in hex, as --where's "
                                "final_key); a game's own tag of that name is replaced (pgn-extract --plycount, "
                                "--addhashcode). Example: --add-tags plycount,hashcode")(wrapper)
    return click.option("--line-length", type=click.IntRange(0), metavar="N",
                        help="Wrap the movetext at N columns; 0: each game's movetext on one line "
                             "(pgn-extract -w). [default: 79]")(wrapper)


def game_format_option(f):
    """--format pgn|json of the commands that write games to -o (the command gets ``game_format``)."""
    return click.option("--format", "game_format", type=click.Choice(["pgn", "json"]), default="pgn",
                        show_default=True,
                        help="What -o holds: PGN, or json: JSON Lines, one object a valid or fixed game (its tags, "
                             "start FEN, mainline moves as SAN and UCI with their NAGs, comments, clocks and "
                             "evaluations, and result; pgn-extract --json). The PGN output options do not apply "
                             "to it.")(f)


ADDED_TAGS = ("plycount", "hashcode")


def _ply_window(max_plies, drop_plies, start_ply, positions: bool = False) -> tuple:
    """--max-plies, --drop-plies, --start-ply as the writer's window of mainline plies (drop, max]
    (max -1: no limit); max counts the plies of the game as played, so it must lie beyond drop
    (with ``positions``, to-fen's positions [drop, max]: it may be drop, one position a game)."""
    if drop_plies is not None and start_ply is not None:
        raise click.UsageError("--drop-plies and --start-ply say the same thing (--start-ply N is --drop-plies "
                               "N-1): give one of them")
    drop = drop_plies if drop_plies is not None else (start_ply - 1 if start_ply is not None else 0)
    if max_plies is not None and (max_plies < drop or (max_plies == drop and not positions)) and drop > 0:
        raise click.UsageError(f"--max-plies {max_plies} ends the games before the ply --drop-plies/--start-ply "
                               f"starts them at ({drop + 1}): --max-plies counts the plies from the game's start")
    return (drop, -1 if max_plies is None else max_plies)


def _ply_options(f, verb: str):
    """--max-plies, --drop-plies, --start-ply on ``f`` (``verb``: what the command does with a
    game's plies, for the help): the PGN writer's and to-fen --every-ply's window of mainline plies."""
    f = click.option("--start-ply", type=click.IntRange(1), metavar="N",
                     help=PLY_HELP[verb]["--start-ply"])(f)
    f = click.option("--drop-plies", type=click.IntRange(0), metavar="N", help=PLY_HELP[verb]["--drop-plies"])(f)
    return click.option("--max-plies", type=click.IntRange(0), metavar="N", help=PLY_HELP[verb]["--max-plies"])(f)


PLY_HELP = {
    "Write": {
        "--start-ply": "Write each game from its Nth ply on (the same as --drop-plies N-1: FEN and SetUp tags "
                       "give the position before ply N).",
        "--drop-plies": "Leave each game's first N plies out: the game is written from the position after them, "
                        "given as FEN and SetUp tags (a shorter game: from its final position, with a comment "
                        "saying so; pgn-extract --dropply).",
        "--max-plies": "Write at most N plies of each game's mainline (with their comments and variations); a "
                       "game cut short ends, and its Result tag says, * (pgn-extract --plylimit)."},
    "Position": {
        "--start-ply": "With --every-ply: the positions from the one before ply N on (the same as --drop-plies "
                       "N-1).",
        "--drop-plies": "With --every-ply: the positions from the one after N plies on (a shorter game gives "
                        "none; pgn-extract --dropply).",
        "--max-plies": "With --every-ply: the positions up to the one after N plies (pgn-extract --plylimit)."},
}


def ply_window_options(f):
    """to-fen's --max-plies, --drop-plies, --start-ply: the command gets ``ply_window``, the
    positions' plies [first, last] (last -1: to the game's end), or None when none was given."""

    @functools.wraps(f)
    def wrapper(*args, max_plies, drop_plies, start_ply, **kwargs):
        given = any(v is not None for v in (max_plies, drop_plies, start_ply))
        window = _ply_window(max_plies, drop_plies, start_ply, positions=True) if given else None
        return f(*args, ply_window=window, **kwargs)

    return _ply_options(wrapper, "Position")


def _tag_list(ctx, param, value):
    """--add-tags a,b: the names, each one of ADDED_TAGS (a usage error names the others)."""
    if value is None:
        return ()
    names = tuple(dict.fromkeys(n.strip().lower() for n in value.split(",") if n.strip()))
    unknown = [n for n in names if n not in ADDED_TAGS]
    if unknown or not names:
        raise click.BadParameter(f"{', '.join(unknown) or repr(value)}: the tags it adds are {', '.join(ADDED_TAGS)}")
    return names


def pgn_shape_flags() -> list:
    """The output options of pgn_shape_options given on the command line (for usage checks)."""
    return click.get_current_context().meta.get("pgntools.pgn_shape_flags", [])


def _flag_name(flag: str) -> str:
    return flag.lstrip("-").replace("-", "_")


def checked(strict: bool, fix_results: bool, max_game_size: int, **more) -> ReaderOptions:
    """The reader options of the checking options (what the outputs need, the run adds)."""
    return ReaderOptions(strict=strict, fix_results=fix_results, max_game_size=max_game_size << 20, **more)


try:  # Click's parser (private: looked up, and left alone when this Click has none of that shape)
    from click.parser import _OptionParser as _Parser, _normalize_opt
except ImportError:  # Click < 8.2
    _Parser = _normalize_opt = None


if _Parser is not None and hasattr(_Parser, "_process_opts") and hasattr(_Parser, "_match_short_opt"):
    class _ShortOptionsFirst(_Parser):
        """Click's parser, minus the exception it builds and drops for each short option: it tries
        '-o' as a long option first, and the NoSuchOption of that try imports difflib and looks
        for close matches among the long options (~1.5 ms), then it matches '-o' as a short one."""

        def _process_opts(self, arg, state):
            if arg[:2] not in self._opt_prefixes and \
                    _normalize_opt(arg.split("=", 1)[0], self.ctx) not in self._long_opt:
                self._match_short_opt(arg, state)  # (what Click's own does once the long try failed)
                return
            super()._process_opts(arg, state)
else:
    _ShortOptionsFirst = None


# --help's headings (issue 37 A7): a command's own options first (what most users need, on the
# first screen), then these groups in this order; an option not named here is the command's own.
OPTION_GROUPS = {
    "Reports": ("rejects", "report", "report_level", "summary"),
    "PGN output": ("game_format", "strip_comments", "strip_variations", "reduced", "strip_nags", "no_check_marks", "no_move_numbers",
                   "no_results", "no_tags", "line_length", "add_tags", "fen_comments", "key_comments", "notation",
                   "max_plies", "drop_plies", "start_ply", "split_variations"),
    "Selection": ("where", "where_position", "where_moves", "material", "sample", "seed", "limit", "dedup",
                  "dedup_keep", "dedup_against", "unselected", "duplicates"),
    "Rules": ("strict", "fix_results", "automatic_ends", "allow_null_moves", "repair", "max_game_size"),
    "Run": ("jobs", "scheduler", "connect_timeout", "task_size", "chunk_bytes", "progress", "quiet", "exit_zero", "fail_on_invalid"),
}
_GROUP_OF = {name: heading for heading, names in OPTION_GROUPS.items() for name in names}


class Command(click.Command):
    """The commands' class: Click's, with a parser that matches a short option straight away, and
    --help's options under headings (OPTION_GROUPS)."""

    def format_options(self, ctx, formatter):
        sections: dict = {"Options": []}
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx) if isinstance(param, click.Option) else None
            if record is not None:
                heading = "Run" if "--help" in param.opts else _GROUP_OF.get(param.name, "Options")
                sections.setdefault(heading, []).append(record)
        for heading in ("Options", *OPTION_GROUPS):
            if sections.get(heading):
                with formatter.section(heading):
                    formatter.write_dl(sections[heading])

    def make_parser(self, ctx):
        parser = super().make_parser(ctx)
        if _ShortOptionsFirst is not None and type(parser) is _Parser:
            parser.__class__ = _ShortOptionsFirst  # (a subclass that only overrides one method)
        return parser


class OptionalValues(Command):
    """A command whose options in ``optional_values`` take a value only attached with '='
    (``--classify=overwrite``); alone (``--classify``) each means its default value. Click's own
    optional values take the next word, a file name too."""

    optional_values = {"--classify": "missing"}

    def parse_args(self, ctx, args):
        out, options = [], True
        for arg in args:
            if arg == "--":
                options = False
            out.append(f"{arg}={self.optional_values[arg]}" if options and arg in self.optional_values else arg)
        return super().parse_args(ctx, out)



class ByteSize(click.ParamType):
    """A size in bytes: 268435456, 256MB, 64MiB, 1.5GB (k/M/G/T: powers of 1000; KiB/MiB/GiB: of 1024)."""

    name = "size"
    UNITS = {"": 1, "b": 1, "k": 10**3, "kb": 10**3, "m": 10**6, "mb": 10**6, "g": 10**9, "gb": 10**9,
             "t": 10**12, "tb": 10**12, "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40}

    def convert(self, value, param, ctx):
        if isinstance(value, int):
            return value
        text = str(value).strip().lower().replace(" ", "")
        number = text.rstrip("kmgtib")
        unit = text[len(number):]
        try:
            size = int(float(number) * self.UNITS[unit])
        except (ValueError, KeyError):
            self.fail(f"{value!r} is not a size (e.g. 256MB, 64MiB, 1000000)", param, ctx)
        if size < 1:
            self.fail(f"{value!r}: a size is at least one byte", param, ctx)
        return size
