"""The tables in process: ``to_arrow(source, table=...)`` returns a ``pyarrow.RecordBatchReader``
over the games of any source, for DuckDB, Polars, pandas and Spark to read without files.

Each table is the one export, to-fen and the positions dataset write (tables/schema.py declares
their columns): its schema is known before the first game is read, and each record batch is made
from one batch of the reader, its numeric and string columns over the reader's own buffers (no
copy: GameBatch.buffer). Memory stays that of a batch or two, however long the input.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Iterator, List, NamedTuple, Optional, Sequence

from pgntools.options import MAX_GAME_SIZE, ReaderOptions
from pgntools.selection import KEEP_ALL, Selection

if TYPE_CHECKING:
    import pyarrow as pa

    from pgntools.reader import GameBatch

TABLES = ("games", "moves", "positions", "fens")


class TableSpec(NamedTuple):
    """One table of a to_arrow reader: its columns, what the reader records for them, and the
    rows of a batch."""

    table: str
    columns: list                                  # tables.schema.Column, in the order asked for
    needs: dict                                    # as Sink.needs
    rows: Callable[["GameBatch"], "pa.Table"]      # the table of one batch (after the selection)


def _chosen(declared: Sequence, wanted: Optional[Sequence[str]], table: str) -> list:
    """The declared columns named in ``wanted`` (in its order; all when None); a ValueError names
    an unknown one and the columns the table has."""
    from pgntools.tables.schema import suggest

    if wanted is None:
        return list(declared)
    if isinstance(wanted, str):
        raise TypeError(f"columns: a list of names, not the string {wanted!r}")
    by_name = {c.name: c for c in declared}
    unknown = [name for name in wanted if name not in by_name]
    if unknown:
        named = ", ".join(suggest(name, list(by_name)) for name in unknown)
        raise ValueError(f"{table} has no column {named}; its columns: {', '.join(by_name)}")
    if not wanted:
        raise ValueError(f"columns: no column asked for; {table} has {', '.join(by_name)}")
    return [by_name[name] for name in dict.fromkeys(wanted)]


def _projected(make_table, columns) -> Callable:
    """rows(batch): the batch's table made with every column there is, keeping the ones asked for."""
    names = [c.name for c in columns]
    return lambda batch: make_table(batch).select(names)


def table_spec(table: str, columns: Optional[Sequence[str]] = None, *, with_fen: bool = False,
               with_comments: bool = False, with_keys: bool = False, en_passant: str = "legal",
               shredder: bool = False, sample_plies: Optional[int] = None, min_ply: int = 0,
               max_ply: Optional[int] = None, seed: int = 0, unique: bool = False, planes: bool = False,
               every_ply: bool = False, plies: Optional[Sequence[int]] = None,
               include_invalid: bool = False) -> TableSpec:
    """The spec of ``table`` (games, moves, positions or fens) with these table options."""
    from pgntools.tables import build, schema

    if table == "games":
        chosen = _chosen(schema.GAME_COLUMNS, columns, table)
        cols = tuple(chosen)
        return TableSpec(table, chosen, {**schema.table_needs("games", chosen), "en_passant": en_passant,
                                         "shredder": shredder},
                         lambda batch: build.table(batch, "games", cols))
    if table == "moves":
        chosen = _chosen(schema.move_columns(with_comments, with_fen, with_keys), columns, table)
        cols = tuple(chosen)
        return TableSpec(table, chosen, {**schema.table_needs("moves", chosen), "en_passant": en_passant,
                                         "shredder": shredder},
                         lambda batch: build.table(batch, "moves", cols))
    if table == "positions":
        from pgntools.positions_dataset import PositionRows, UniqueRows

        rows = PositionRows(sample_plies, min_ply, max_ply, seed, planes, unique).checked()
        chosen = _chosen(schema.position_row_columns(planes), columns, table)
        cols = tuple(chosen)
        first_rows = UniqueRows() if unique else None

        def position_rows(batch):
            if first_rows is not None:
                batch = first_rows.keep(batch)
            return build.table(batch, "position_rows", cols)
        return TableSpec(table, chosen, rows.needs(en_passant), position_rows)
    if table == "fens":
        from pgntools.tables import fen_rows

        chosen = _chosen(schema.POSITION_COLUMNS, columns, table)
        per_ply = every_ply or plies is not None
        return TableSpec(table, chosen, {**fen_rows.needs(per_ply), "en_passant": en_passant, "shredder": shredder},
                         _projected(lambda batch: fen_rows.positions_table(batch, every_ply, plies, include_invalid),
                                    chosen))
    raise ValueError(f"table must be one of {', '.join(TABLES)}, not {table!r}")


def to_arrow(source, table: str = "games", columns: Optional[Sequence[str]] = None, where: Optional[str] = None, *,
             dedup: Optional[str] = None, limit: Optional[int] = None, sample: Optional[float] = None, seed: int = 0,
             with_fen: bool = False, with_comments: bool = False, with_keys: bool = False,
             sample_plies: Optional[int] = None, min_ply: int = 0, max_ply: Optional[int] = None,
             unique: bool = False, planes: bool = False, every_ply: bool = False,
             plies: Optional[Sequence[int]] = None, include_invalid: bool = False, strict: bool = False,
             fix_results: bool = True, automatic_ends: Optional[str] = None, allow_null_moves: bool = False,
             repair: str = "none", en_passant: str = "legal", shredder: bool = False,
             max_game_size: int = MAX_GAME_SIZE, batch_games: int = 1024) -> "pa.RecordBatchReader":
    """The games of ``source`` as one of export's tables, a ``pyarrow.RecordBatchReader`` whose
    schema is known before any game is read; read as it is consumed, in constant memory.

    ``source``: a path, '-' (stdin), an fsspec URL, PGN ``bytes``, a binary or text file object, an
    iterable of byte chunks, or a list of these (README: Python API). ``table``: "games" (one row a
    game), "moves" (one a mainline ply), "positions" (the positions dataset: ``sample_plies``,
    ``min_ply``, ``max_ply``, ``seed``, ``unique``, ``planes``) or "fens" (to-fen's rows: the final
    position, or ``every_ply`` / ``plies``). ``columns``: only these (and only what they need is
    recorded: a games table of tags alone replays no move). ``where``, ``dedup``, ``limit``,
    ``sample``: --where, --dedup, --limit, --sample. The other options are the command line's.

        import duckdb, pgntools
        games = pgntools.to_arrow("games.pgn.zst", columns=["white", "black", "result"])
        duckdb.sql("select result, count(*) from games group by 1").show()

    Raises at once: ValueError for an unknown table or column or a setting that cannot hold,
    WhereError for a bad condition, TypeError for a source of an unknown kind, InputError for an
    input that cannot be opened; while reading, InputError when a stream breaks.
    """
    import pyarrow as pa

    from pgntools.inputs.sources import as_source_list
    from pgntools.inputs.streams import check_inputs

    spec = table_spec(table, columns, with_fen=with_fen, with_comments=with_comments, with_keys=with_keys,
                      en_passant=en_passant, shredder=shredder, sample_plies=sample_plies, min_ply=min_ply,
                      max_ply=max_ply, seed=seed, unique=unique, planes=planes, every_ply=every_ply, plies=plies,
                      include_invalid=include_invalid)
    selection: Selection = KEEP_ALL
    if where is not None or dedup is not None or limit is not None or sample is not None:
        from pgntools.where import Choose

        selection = Choose(where, sample, seed, limit, dedup)
        if selection.dedup is not None or (selection.where is not None and not selection.where.tag_only):
            spec.needs.pop("replay", None)  # (the selection reads what the replay fills)
    options = ReaderOptions(strict=strict, fix_results=fix_results, max_game_size=max_game_size,
                            automatic_ends=automatic_ends, allow_null_moves=allow_null_moves, repair=repair,
                            batch_games=batch_games).for_sinks([spec.needs, dict(selection.needs), {"detach": True}])
    _check_options(options)
    sources = as_source_list(source)
    check_inputs(sources)
    from pgntools.tables.schema import arrow_schema

    schema = arrow_schema(spec.columns)
    return pa.RecordBatchReader.from_batches(schema, _record_batches(sources, options, selection, spec, schema))


def _check_options(options: ReaderOptions) -> None:
    """The option values the compiled reader would refuse at the first batch, refused now."""
    from pgntools.reader import AUTOMATIC_ENDS

    if options.automatic_ends not in (None, *AUTOMATIC_ENDS):
        raise ValueError(f"automatic_ends must be one of {', '.join(AUTOMATIC_ENDS)}, not {options.automatic_ends!r}")
    if options.repair not in ("none", "truncate"):
        raise ValueError(f"repair must be 'none' or 'truncate', not {options.repair!r}")
    if options.en_passant not in ("legal", "fen"):
        raise ValueError(f"en_passant must be 'legal' or 'fen', not {options.en_passant!r}")


def _record_batches(sources: List, options: ReaderOptions, selection: Selection, spec: TableSpec,
                    schema: "pa.Schema") -> Iterator["pa.RecordBatch"]:
    """The tables' record batches; one empty batch when there is no row at all (readers that
    make a table of the batches alone, as polars.from_arrow does, need one to know the schema)."""
    import pyarrow as pa

    from pgntools.reader import iter_batches

    empty = True
    for batch in iter_batches(sources, options=options):
        batch = selection.select(batch)
        if batch.n_games:
            for rows in spec.rows(batch).to_batches():
                empty = False
                yield rows
        if getattr(selection, "done", False):  # --limit reached: read no further
            break
    if empty:
        yield pa.RecordBatch.from_arrays([pa.array([], field.type) for field in schema], schema=schema)


def positions(source, *, sample_plies: Optional[int] = None, min_ply: int = 0,
              max_ply: Optional[int] = None, seed: int = 0, unique: bool = False, planes: bool = False,
              where: Optional[str] = None, strict: bool = False, fix_results: bool = True,
              en_passant: str = "legal", max_game_size: int = MAX_GAME_SIZE) -> "pa.RecordBatchReader":  # noqa: F821
    """The rows of the positions dataset (``export --positions``'s, the same columns and values)
    as a pyarrow RecordBatchReader (its schema known before any game is read; a batch of rows per
    batch of games read): for training loops that read without writing files; to_arrow's
    ``table="positions"``. ``where`` is --where's condition over the games table (README: Selecting
    games). A ValueError names a setting that cannot hold, a WhereError a bad condition.

        for batch in pgntools.positions("games.pgn.zst", sample_plies=8, seed=1, planes=True):
            x = batch.column("white_pawns")  # ... and the other planes; y = batch.column("result")
    """
    return to_arrow(source, "positions", where=where, sample_plies=sample_plies, min_ply=min_ply, max_ply=max_ply,
                    seed=seed, unique=unique, planes=planes, strict=strict, fix_results=fix_results,
                    en_passant=en_passant, max_game_size=max_game_size)
