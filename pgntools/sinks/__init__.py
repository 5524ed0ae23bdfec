"""Where batches of games go: PGN (pgn.py), FEN/EPD/CSV/JSONL (fen.py), Parquet (parquet.py).
The Arrow schema of the exported tables lives in schema.py; tables.py builds them from batches."""

#: Output formats of `pgntools to-fen`.
FORMATS = ("fen", "epd", "csv", "jsonl", "parquet")
