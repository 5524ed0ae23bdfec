"""Dask: the commands on a cluster (``--scheduler tcp://HOST:PORT``), and the games as Dask
DataFrames. Needs the dask extra: ``pip install 'pgntools-chess[dask]'``.

    import pgntools.dask
    games = pgntools.dask.read_games(["2024-01.pgn", "2024-02.pgn"])       # one partition per chunk
    moves = pgntools.dask.read_moves("2024-01.pgn", with_fen=True)
    games.groupby("eco").size().compute()  # export's column names (lower-case)

Both use the numbered chunks of pgntools.chunks: this process reads the inputs once with the scanner to
find game-aligned chunks (and number the games); the workers replay them. A chunk of a plain
file is sent as (path, byte range) and read by the worker itself, so the path must be readable
at the same place on every worker (a shared filesystem); chunks of compressed files and stdin
are sent as bytes. For the commands, a worker that cannot read the path makes the client send
the bytes instead; a DataFrame's partitions always read paths.
"""
from __future__ import annotations

import os
from typing import List, Optional, Sequence, Union

from pgntools.errors import PgnToolsError
from pgntools.chunks import Chunk, chunk_batches, iter_chunks
from pgntools.options import MAX_GAME_SIZE, ReaderOptions
from pgntools.work import ChunkWork, read_here, run_chunk

__all__ = ["ClusterExecutor", "read_games", "read_moves"]

DATAFRAME_CHUNK = 64 << 20  # (a partition's PGN bytes)


def _distributed():
    try:
        import distributed
    except ImportError:
        raise PgnToolsError("Dask is not installed: pip install 'pgntools-chess[dask]' (or '.[dask]' in a "
                             "checkout of pgntools)") from None
    return distributed


class ClusterExecutor:
    """Runs the chunks of a run on a Dask cluster; the interface of pgntools.parallel.LocalThreads."""

    def __init__(self, address: str):
        distributed = _distributed()
        try:  # the connect timeout is Dask's (distributed.comm.timeouts.connect: the CLI's --connect-timeout)
            self.client = distributed.Client(address, set_as_default=False)
        except (OSError, TimeoutError, ValueError) as exc:
            raise PgnToolsError(f"cannot reach the Dask scheduler at {address}: {exc}") from None
        threads = sum(self.client.nthreads().values())
        self.window = 2 * max(threads, 1)
        self.paths_readable = True
        self.futures: list = []

    holds = False  # a task's batches do not outlive it (pgntools.ordered reads a chunk again)

    def submit(self, work: ChunkWork, chunk: Chunk, fn=None, extra: tuple = ()):
        """``fn(work, chunk, data, *extra)`` (default run_chunk) on a worker (data None: the worker
        reads the chunk)."""
        fn = fn or run_chunk
        if chunk.data is None and self.paths_readable:
            future = self.client.submit(fn, work, chunk, None, *extra, pure=False)
        else:
            data = chunk.read() if chunk.data is not None else read_here(chunk)
            scattered = self.client.scatter(data, hash=False)
            future = self.client.submit(fn, work, chunk.without_data(), scattered, *extra, pure=False)
        self.futures.append(future)
        if len(self.futures) > 4 * self.window:
            self.futures = [f for f in self.futures if not f.done()]
        return future

    def resubmit_with_bytes(self, work: ChunkWork, chunk: Chunk, fn=None, extra: tuple = ()):
        self.paths_readable = False
        return self.submit(work, chunk, fn, extra)

    @staticmethod
    def result(future) -> dict:
        return future.result()

    @staticmethod
    def done(future) -> bool:
        return future.done()

    def close(self):
        self.client.close()

    def abort(self):
        """Cancels what has not finished (a task already running on a worker runs to its end;
        the Parquet parts it writes have temporary names that the parent removes)."""
        try:
            self.client.cancel([f for f in self.futures if not f.done()], force=True)
        finally:
            self.client.close()


# ---------------------------------------------------------------- DataFrames

def _sources(paths) -> List[str]:
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    return [os.fspath(p) for p in paths]


def _chunks(paths, chunk_bytes: int, max_game_size: int) -> List[Chunk]:
    chunks = list(iter_chunks(_sources(paths), chunk_bytes, max_game_size))
    return chunks


def _arrow_to_pandas(table):
    import pandas as pd

    return table.to_pandas(types_mapper=pd.ArrowDtype)


def _games_partition(chunk: Chunk, options: ReaderOptions):
    import pyarrow as pa

    from pgntools.sinks import schema
    from pgntools.sinks.tables import games_table

    tables = [games_table(batch) for batch in chunk_batches(chunk, chunk.read(), options)]
    return _arrow_to_pandas(pa.concat_tables(tables) if tables else schema.GAMES.empty_table())


def _moves_partition(chunk: Chunk, options: ReaderOptions, with_comments: bool, with_fen: bool,
                     with_keys: bool = False):
    import pyarrow as pa

    from pgntools.sinks import schema
    from pgntools.sinks.tables import moves_table

    tables = [moves_table(batch, with_comments, with_fen, with_keys)
              for batch in chunk_batches(chunk, chunk.read(), options)]
    empty = schema.moves_schema(with_comments, with_fen, with_keys).empty_table()
    return _arrow_to_pandas(pa.concat_tables(tables) if tables else empty)


def _options(strict: bool, fix_results: bool, max_game_size: int, **extra) -> ReaderOptions:
    return ReaderOptions(strict=strict, fix_results=fix_results, max_game_size=max_game_size, **extra)


def read_games(paths: Union[str, os.PathLike, Sequence[Union[str, os.PathLike]]], *, strict: bool = False,
               fix_results: bool = True, max_game_size: int = MAX_GAME_SIZE, en_passant: str = "legal",
               chunk_bytes: int = DATAFRAME_CHUNK):
    """A Dask DataFrame with one row per game: the columns and types of the ``games`` table of
    ``pgntools export`` (pyarrow-backed pandas dtypes), one partition per chunk of the inputs."""
    import dask.dataframe as dd

    from pgntools.sinks import schema

    options = _options(strict, fix_results, max_game_size, moves=True, final_fen=True, tag_columns=True,
                       en_passant=en_passant, openings=True)
    chunks = _chunks(paths, chunk_bytes, max_game_size)
    meta = _arrow_to_pandas(schema.GAMES.empty_table())
    if not chunks:
        return dd.from_pandas(meta, npartitions=1)
    return dd.from_map(_games_partition, chunks, options=options, meta=meta, enforce_metadata=False,
                       label="pgntools-games")


def read_moves(paths: Union[str, os.PathLike, Sequence[Union[str, os.PathLike]]], *, with_comments: bool = False,
               with_fen: bool = False, strict: bool = False, fix_results: bool = True,
               max_game_size: int = MAX_GAME_SIZE, en_passant: str = "legal", chunk_bytes: int = DATAFRAME_CHUNK,
               with_keys: bool = False):
    """A Dask DataFrame with one row per mainline ply: the ``moves`` table of ``pgntools export``
    (``comment``, ``fen`` and ``key`` columns on request), one partition per chunk of the inputs."""
    import dask.dataframe as dd

    from pgntools.sinks import schema

    options = _options(strict, fix_results, max_game_size, moves=True, comments=with_comments,
                       fen_every_ply=with_fen, keys_every_ply=with_keys, en_passant=en_passant)
    chunks = _chunks(paths, chunk_bytes, max_game_size)
    meta = _arrow_to_pandas(schema.moves_schema(with_comments, with_fen, with_keys).empty_table())
    if not chunks:
        return dd.from_pandas(meta, npartitions=1)
    return dd.from_map(_moves_partition, chunks, options=options, with_comments=with_comments,
                       with_fen=with_fen, with_keys=with_keys, meta=meta, enforce_metadata=False,
                       label="pgntools-moves")


def partition_count(paths, chunk_bytes: int = DATAFRAME_CHUNK, max_game_size: int = MAX_GAME_SIZE) -> Optional[int]:
    """How many partitions read_games/read_moves would make (for planning)."""
    return len(_chunks(paths, chunk_bytes, max_game_size))
