"""Checks of the command line's options before a command runs: options that cannot both hold,
to-fen's format from the output's suffix, the --scheduler address. Each problem is an
OptionError that says why: one line and exit 2, as every usage error of the commands."""
from __future__ import annotations

import os
import re
from typing import Optional, Sequence

import click

from pgntools.errors import PgnToolsError

# to-fen's formats by the output's suffix (behind a compression suffix too: out.csv.gz).
FORMAT_SUFFIXES = {".fen": "fen", ".epd": "epd", ".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl",
                   ".parquet": "parquet", ".pq": "parquet"}
COMPRESSION_SUFFIXES = (".gz", ".bz2", ".xz", ".zst", ".zstd")
# Dask's address schemes; a bare HOST:PORT is tcp.
SCHEDULER_SCHEMES = ("tcp", "tls", "ws", "wss", "ucx")
_ADDRESS = r"(?:(?P<scheme>[a-z]+)://)?(?P<host>\[[0-9A-Fa-f:.]+\]|[^\s:/\[\]]+):(?P<port>\d+)/?"


class OptionError(PgnToolsError):
    """Options that cannot both hold, or one that needs another."""


def conflict(reason: str):
    raise OptionError(reason)


def format_of(path: Optional[str]) -> Optional[str]:
    """The to-fen format an output name asks for (None: '-', or a name that says none)."""
    if path in (None, "-"):
        return None
    name = os.path.basename(path).lower()
    for suffix in COMPRESSION_SUFFIXES:
        if name.endswith(suffix):
            name = name[:-len(suffix)]
            break
    return FORMAT_SUFFIXES.get(os.path.splitext(name)[1])


def to_fen_format(fmt: Optional[str], output: str) -> str:
    """--format, or the one -o's suffix names, or fen; a suffix that contradicts --format is an error."""
    by_name = format_of(output)
    if fmt is None:
        return by_name or "fen"
    if by_name is not None and by_name != fmt:
        conflict(f"-o {output} names a {by_name} file but --format is {fmt}: change one of them")
    return fmt


def check_to_fen(every_ply: bool, plies: Sequence[int], fmt: str, c0: bool, include_invalid: bool,
                 keep_invalid: bool, ply_window: Optional[tuple] = None):
    if ply_window is not None and not every_ply:
        conflict("--max-plies, --drop-plies and --start-ply choose among --every-ply's positions: give "
                 "--every-ply (--ply N names the positions itself; the final position is the game's own)")
    if every_ply and plies:
        conflict("--every-ply and --ply cannot both hold: --every-ply writes every position, "
                 "--ply N only those after N plies")
    if c0 and fmt != "epd":
        conflict(f"--c0 adds an EPD operation: it needs --format epd (the format is {fmt})")
    if include_invalid and keep_invalid:
        conflict("--include-invalid and --keep-invalid cannot both hold: --include-invalid writes an "
                 "invalid game's positions up to its error, --keep-invalid a marker line instead")
    if keep_invalid and fmt not in ("fen", "epd"):
        conflict(f"--keep-invalid writes a marker line, for --format fen or epd (the format is {fmt}; "
                 "--include-invalid gives an invalid game's rows up to its error)")


def check_validate(output: Optional[str], strip_comments: bool, strip_variations: bool, reduced: bool,
                   shape_flags: Sequence[str] = ()):
    shaping = [name for name, given in (("--strip-comments", strip_comments), ("--strip-variations", strip_variations),
                                        ("--reduced", reduced)) if given] + list(shape_flags)
    if reduced and "--no-tags" in shape_flags:
        conflict("--no-tags and --reduced cannot both hold: the reduced export format keeps the Seven Tag Roster")
    if shaping and output is None:
        conflict(f"{', '.join(shaping)} shape{'s' if len(shaping) == 1 else ''} the PGN of -o, and no -o is given")


def check_normalized(normalize: bool, shape_flags: Sequence[str]):
    """filter and split: the PGN output options shape the export format, written with --normalize."""
    if shape_flags and not normalize:
        conflict(f"{', '.join(shape_flags)} shape{'s' if len(shape_flags) == 1 else ''} the export-format PGN "
                 "of --normalize (without it each game is written byte for byte as it was): add --normalize")


def check_export_columns(columns: Optional[Sequence[str]], with_fen: bool, with_comments: bool,
                         with_keys: bool = False):
    """--columns and the options that add a column: each must ask for the other's column."""
    if columns is None:
        return
    for column, flag, given in (("fen", "--with-fen", with_fen), ("comment", "--with-comments", with_comments),
                                ("key", "--with-keys", with_keys)):
        if column in columns and not given:
            conflict(f"--columns names {column}, a column that only {flag} adds: add {flag}")
        if given and column not in columns:
            conflict(f"{flag} adds the {column} column, which --columns leaves out: name it in --columns "
                     f"or drop {flag}")


def check_positions(out_dir: Optional[str], positions_dir: Optional[str], planes: bool, sample_plies: Optional[int],
                    min_ply: int, max_ply: Optional[int], unique: bool, seed: int, table_options: Sequence[str] = ()):
    """export's outputs and the positions dataset's options: the PositionRows of --positions
    (None without it). ``table_options``: the options given that shape --parquet's tables."""
    if out_dir is None and positions_dir is None:
        conflict("export writes --parquet OUT_DIR (games and moves), --positions DIR (the positions dataset) "
                 "or both: give one")
    if out_dir is None and table_options:
        conflict(f"{', '.join(table_options)} shape{'s' if len(table_options) == 1 else ''} the games and moves "
                 "tables of --parquet OUT_DIR, and no --parquet is given")
    if positions_dir is None:
        given = [name for name, value in (("--planes", planes), ("--sample-plies", sample_plies is not None),
                                          ("--min-ply", min_ply != 0), ("--max-ply", max_ply is not None),
                                          ("--unique-positions", unique)) if value]
        if given:
            conflict(f"{', '.join(given)} shape{'s' if len(given) == 1 else ''} the positions dataset of "
                     "--positions DIR, and no --positions is given")
        return None
    if out_dir is not None and any(os.path.abspath(positions_dir) == os.path.abspath(os.path.join(out_dir, table))
                                   for table in ("games", "moves")):
        conflict(f"--positions {positions_dir} is a table directory of --parquet {out_dir}: choose another")
    if max_ply is not None and min_ply > max_ply:
        conflict(f"--min-ply {min_ply} is above --max-ply {max_ply}: no position could be taken")
    from pgntools.positions_dataset import PositionRows

    return PositionRows(sample_plies, min_ply, max_ply, seed, planes, unique).checked()


def check_report_level(level: Optional[str], report: Optional[str]):
    if level is not None and report is None:
        conflict("--report-level chooses the games --report writes, and no --report is given")


def scheduler_address(ctx, param, value: Optional[str]) -> Optional[str]:
    """--scheduler's click callback: tcp://HOST:PORT (or another Dask scheme), or a bare HOST:PORT
    (tcp); anything else is a usage error before Dask is even imported."""
    if value is None:
        return None
    match = re.fullmatch(_ADDRESS, value.strip())  # (compiled on first use, not at start-up)
    if not match or (match["scheme"] or "tcp") not in SCHEDULER_SCHEMES or not 0 < int(match["port"]) < 65536:
        raise click.BadParameter(f"{value!r} is not a scheduler address: give tcp://HOST:PORT (or HOST:PORT), "
                                 "e.g. tcp://10.0.0.5:8786", ctx=ctx, param=param)
    return f"{match['scheme'] or 'tcp'}://{match['host']}:{int(match['port'])}"


def check_not_selected(duplicates: Optional[str], dedup):
    """filter --duplicates: the games --dedup drops as repeats; without --dedup there are none
    (and with --dedup-keep duplicates the repeats are what -o gets)."""
    if duplicates is not None and (dedup is None or dedup.keep == "duplicates" or not dedup.within):
        conflict("--duplicates writes the games --dedup drops as repeats: give --dedup moves|position "
                 "(not with --dedup-keep duplicates, which writes the repeats to -o)")


def check_game_format(game_format: str, shape_flags: Sequence[str], output: Optional[str] = None):
    """--format json: the games as JSON objects, which the PGN output options do not shape."""
    if game_format == "json" and shape_flags:
        conflict(f"{', '.join(shape_flags)} shape{'s' if len(shape_flags) == 1 else ''} PGN, and --format json "
                 "writes JSON objects: leave them out")
    if game_format == "json" and output is None:
        conflict("--format json says what -o holds, and no -o is given")
