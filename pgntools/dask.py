"""The games as Dask DataFrames (the commands on a cluster, ``--scheduler``: pgntools.runner.cluster).
Needs the dask extra: ``pip install 'pgntools-chess[dask]'``.

    import pgntools.dask
    games = pgntools.dask.read_games(["2024-01.pgn", "2024-02.pgn"])       # one partition per chunk
    moves = pgntools.dask.read_moves("2024-01.pgn", with_fen=True)
    games.groupby("eco").size().compute()  # export's column names (lower-case)

Both use the numbered chunks of pgntools.runner.chunks: this process reads the inputs once with
the scanner to find game-aligned chunks (and number the games); the workers replay them. A
partition reads its chunk from the path itself, so the path must be readable at the same place on
every worker (a shared filesystem).
"""
from __future__ import annotations

import os
from typing import List, Optional, Sequence, Union

from pgntools.options import MAX_GAME_SIZE, ReaderOptions
from pgntools.runner.chunks import Chunk, chunk_batches, iter_chunks
from pgntools.runner.cluster import ClusterExecutor  # (in __all__: public here before runner/ held it)
from pgntools.runner.tasks import TASK_BYTES

__all__ = ["ClusterExecutor", "read_games", "read_moves"]

DATAFRAME_CHUNK = TASK_BYTES  # (a partition's PGN bytes: a cluster task's, 64 MiB)


def _sources(paths) -> List[str]:
    """The inputs; a directory or a glob pattern stands for its PGN files (pgntools.inputs.expand)."""
    from pgntools.inputs.expand import expand_inputs

    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    return expand_inputs([os.fspath(p) for p in paths])


def _chunks(paths, chunk_bytes: int, max_game_size: int) -> List[Chunk]:
    chunks = list(iter_chunks(_sources(paths), chunk_bytes, max_game_size))
    return chunks


def _arrow_to_pandas(table):
    """pyarrow-backed pandas columns, except the dictionary ones (speed, status, the pieces):
    pandas Categoricals, which Dask's shuffle between workers can move and group (an ArrowDtype
    of a dictionary it cannot: "data type ... not understood")."""
    import pandas as pd
    import pyarrow as pa

    return table.to_pandas(types_mapper=lambda t: None if pa.types.is_dictionary(t) else pd.ArrowDtype(t))


def _empty(columns):
    """A table of no rows with ``columns``, whose dictionary columns hold their declared values (as
    every partition's do): the meta's Categoricals then have the partitions' categories."""
    import pyarrow as pa

    from pgntools.tables import schema
    from pgntools.tables.build import text

    arrow = schema.arrow_schema(columns)
    arrays = [pa.DictionaryArray.from_arrays(pa.array([], f.type.index_type), text(column.source.names))
              if pa.types.is_dictionary(f.type) and isinstance(column.source, schema.Codes) else pa.array([], f.type)
              for column, f in zip(columns, arrow)]
    return pa.Table.from_arrays(arrays, schema=arrow)


def _games_partition(chunk: Chunk, options: ReaderOptions):
    import pyarrow as pa

    from pgntools.tables import schema
    from pgntools.tables.build import games_table

    tables = [games_table(batch) for batch in chunk_batches(chunk, chunk.read(), options)]
    return _arrow_to_pandas(pa.concat_tables(tables) if tables else _empty(schema.GAME_COLUMNS))


def _moves_partition(chunk: Chunk, options: ReaderOptions, with_comments: bool, with_fen: bool,
                     with_keys: bool = False):
    import pyarrow as pa

    from pgntools.tables import schema
    from pgntools.tables.build import moves_table

    tables = [moves_table(batch, with_comments, with_fen, with_keys)
              for batch in chunk_batches(chunk, chunk.read(), options)]
    empty = _empty(schema.move_columns(with_comments, with_fen, with_keys))
    return _arrow_to_pandas(pa.concat_tables(tables) if tables else empty)


def _options(strict: bool, fix_results: bool, max_game_size: int, **extra) -> ReaderOptions:
    return ReaderOptions(strict=strict, fix_results=fix_results, max_game_size=max_game_size, **extra)


def read_games(paths: Union[str, os.PathLike, Sequence[Union[str, os.PathLike]]], *, strict: bool = False,
               fix_results: bool = True, max_game_size: int = MAX_GAME_SIZE, en_passant: str = "legal",
               chunk_bytes: int = DATAFRAME_CHUNK):
    """A Dask DataFrame with one row per game: the columns and types of the ``games`` table of
    ``pgntools export`` (pyarrow-backed pandas dtypes; the dictionary columns as Categoricals), one
    partition per chunk of the inputs."""
    import dask.dataframe as dd

    from pgntools.tables import schema

    options = _options(strict, fix_results, max_game_size, moves=True, final_fen=True, tag_columns=True,
                       en_passant=en_passant, openings=True)
    chunks = _chunks(paths, chunk_bytes, max_game_size)
    meta = _arrow_to_pandas(_empty(schema.GAME_COLUMNS))
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

    from pgntools.tables import schema

    options = _options(strict, fix_results, max_game_size, moves=True, comments=with_comments,
                       fen_every_ply=with_fen, keys_every_ply=with_keys, en_passant=en_passant)
    chunks = _chunks(paths, chunk_bytes, max_game_size)
    meta = _arrow_to_pandas(_empty(schema.move_columns(with_comments, with_fen, with_keys)))
    if not chunks:
        return dd.from_pandas(meta, npartitions=1)
    return dd.from_map(_moves_partition, chunks, options=options, with_comments=with_comments,
                       with_fen=with_fen, with_keys=with_keys, meta=meta, enforce_metadata=False,
                       label="pgntools-moves")


def partition_count(paths, chunk_bytes: int = DATAFRAME_CHUNK, max_game_size: int = MAX_GAME_SIZE) -> Optional[int]:
    """How many partitions read_games/read_moves would make (for planning)."""
    return len(_chunks(paths, chunk_bytes, max_game_size))
