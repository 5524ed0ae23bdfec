"""Where batches of games go: PGN (pgn.py), FEN/EPD/CSV/JSONL (fen.py), Parquet (parquet.py).
The columns of every table are declared once, in schema.py; tables.py builds Arrow tables of them."""

#: Output formats of `pgntools to-fen`.
FORMATS = ("fen", "epd", "csv", "jsonl", "parquet")
