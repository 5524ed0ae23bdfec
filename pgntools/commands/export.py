"""pgntools export: the games as a Parquet dataset (games, moves), and the positions dataset."""
from __future__ import annotations

import functools
import os

import click

from pgntools import options
from pgntools.cli_options import (ByteSize, Command, checked, checking_options, inputs, parallel_options, parallel_settings,
                                  reader_recovery, recovery_options, report_spec, selection_options)
from pgntools.commands.common import exit_options, finish, handle_errors
from pgntools.options import Workers
from pgntools.sinks.base import SinkSpec
from pgntools.storage import is_url
from pgntools.usage import OptionError, check_export_columns, check_positions


@click.command("export", cls=Command)
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
@click.option("--partition-by", "partition_by", metavar="FIELD[,FIELD]",
              help="Write games/ and moves/ as hive partitions, e.g. --partition-by year,month,speed gives "
                   "games/year=2024/month=01/speed=blitz/part-00000.parquet (DuckDB: read_parquet('out/games/**/"
                   "*.parquet', hive_partitioning=true)). FIELD: year or month (of Date, else UTCDate), or a games "
                   "column of one value a game (speed, event, eco, white_elo, ...); a missing value goes to "
                   "FIELD=__HIVE_DEFAULT_PARTITION__ [default: no partitions].")
@click.option("--append", is_flag=True,
              help="Add this export's parts to a dataset OUT_DIR already holds (numbered after its parts, which "
                   "are left alone), e.g. one month after another; its columns must be the ones this export "
                   "writes (else exit 2, before anything is written).")
@click.option("--target-part-size", type=ByteSize(), default="256MB", show_default=True, metavar="SIZE",
              help="About this many bytes a part file of the moves table (a games part holds the same games, a "
                   "sixth of that): parts are ranges of game ids sized by a typical game, so the dataset's parts "
                   "are the same for any --jobs and cluster, e.g. --target-part-size 128MB.")
@click.option("--resume", is_flag=True,
              help="Continue an export into OUT_DIR that was interrupted (a killed process, a cluster without "
                   "workers) from the parts it committed (OUT_DIR/_pgntools_export.json): the same inputs and "
                   "options; the result is the uninterrupted export's.")
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
           with_comments, with_keys, en_passant, compression, overwrite, partition_by, append, target_part_size,
           resume, report, summary,
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
    from pgntools.runner.run import Run

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
    partitions = [f.strip() for f in partition_by.split(",") if f.strip()] if partition_by else None
    if (partitions or append) and out_dir is None:
        raise OptionError("--partition-by and --append are options of the --parquet dataset: give --parquet OUT_DIR")
    if append and overwrite:
        raise OptionError("--append keeps the parts OUT_DIR holds, --overwrite replaces them: choose one")
    if resume and (out_dir is None or overwrite or rows is not None):
        raise OptionError("--resume continues a --parquet export (not with --overwrite or --positions)")
    if resume and getattr(selection, "ordered", False):
        raise OptionError("--resume: not with --dedup or --limit (decided over the whole input in order)")
    check_export_columns(wanted, with_fen, with_comments, with_keys)
    report_sink = report_spec(report)
    specs = []
    if out_dir is not None:
        from pgntools.sinks.parquet import ParquetDatasetSink

        check_dataset(out_dir, files)  # no input is a part file this export would replace
        if scheduler and not is_url(out_dir):  # cluster workers do not share our working directory
            out_dir = os.path.abspath(out_dir)
        inputs = [[info.source, info.size] for info in run.inputs()]
        state = None
        if resume:
            from pgntools.runner.resume import resume_state

            state = resume_state(out_dir, inputs)
            if state is not None and state["complete"]:
                click.echo(f"pgntools: {out_dir}: the export is complete already; nothing to resume", err=True)
                return
            append = append or state is not None
            if state is not None:
                run.start = state["resume"]
        specs.append(SinkSpec(None, functools.partial(
            ParquetDatasetSink, out_dir, wanted, with_fen, with_comments, compression, writer_thread=writer_thread,
            en_passant=en_passant, overwrite=overwrite, with_keys=with_keys, partition_by=partitions,
            append=append and state is None, target_part_size=target_part_size, inputs=inputs, resume=state)))
    if rows is not None:
        from pgntools.sinks.positions_dataset import PositionDatasetSink

        check_dataset(positions_dir, files, tables=("",), option="--positions")
        if scheduler and not is_url(positions_dir):
            positions_dir = os.path.abspath(positions_dir)
        specs.append(SinkSpec(None, functools.partial(
            PositionDatasetSink, positions_dir, rows, compression, writer_thread=writer_thread, en_passant=en_passant,
            overwrite=overwrite)))
    finish(run.execute([*specs, report_sink]))
