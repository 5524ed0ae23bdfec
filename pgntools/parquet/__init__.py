"""The project's own Parquet encoding (no pyarrow on the write path): the files of export's
games/moves tables, the positions dataset and to-fen --format parquet.

  part_file.py      one Parquet part file, encoded from batch columns (the C encoders' pages)
  fen_rows_file.py  to-fen --format parquet: the rows made in C (_c/fen_rows.c), as one file
  thrift.py         the Thrift compact protocol of the footers (the reference; _core.thrift_struct writes them)
  arrow_ipc.py      the Arrow schema as IPC bytes (the footers' ARROW:schema)
"""
