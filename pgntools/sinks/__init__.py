"""Where batches of games go: one Sink (base.py's protocol) a module: PGN (pgn.py), FEN/EPD/CSV/
JSONL/Parquet (fen.py), export's Parquet dataset (parquet.py), ... The columns of the tables they
write are pgntools.tables'; the Parquet encoding is pgntools.parquet's."""

#: Output formats of `pgntools to-fen`.
FORMATS = ("fen", "epd", "csv", "jsonl", "parquet")
