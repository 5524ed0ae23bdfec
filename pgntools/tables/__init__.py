"""The table model: the columns of every table (export's games and moves, to-fen's rows, the
positions dataset), declared once, and the Arrow tables and arrays built from a batch's columns.

  schema.py     the tables' columns, each declared once (name, type, source in the batch, meaning)
  build.py      Arrow tables from batches (the Dask DataFrames' partitions, --where's columns)
  arrays.py     Arrow arrays from batch buffers without pyarrow's Python-object conversion
  fen_rows.py   to-fen's rows (game_id, ply, san, fen) of a batch as an Arrow table
  fix_rows.py   the games table's fixes column from the batch's fix rows

The sinks, --where and the Dask API read this package; it imports none of them.
"""
