"""The project's own Parquet encoding, the one Parquet writer: the files of export's games/moves
tables, the positions dataset and to-fen --format parquet (pyarrow's writer took 2.5 times the
CPU: benchmarks/RESULTS.md).

  part_file.py      one Parquet part file, encoded from a batch's Arrow table (or its batch columns)
  arrow_feed.py     the encoders fed from Arrow arrays' buffers (tables/build.py's tables, to_arrow's)
  fen_rows_file.py  to-fen --format parquet: the rows made in C (_c/fen_rows.c), as one file
  thrift.py         the Thrift compact protocol of the footers (the reference; _core.thrift_struct writes them)
  arrow_ipc.py      the Arrow schema as IPC bytes (the footers' ARROW:schema)
"""
