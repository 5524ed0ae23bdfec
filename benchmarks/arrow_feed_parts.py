#!/usr/bin/env python3
"""Issue 35 item 7: where the Arrow feed's extra CPU goes. In one process, over the same batches
(read once, export's reader options): reading, building the Arrow tables (tables/build.py), and
feeding the own encoders from the batch columns or from those tables, each timed apart (CPU s).

    python benchmarks/arrow_feed_parts.py INPUT [BATCH_GAMES [MAX_BATCH_BYTES]]

Batch sizes other than export's (512 games, 1 MB) show how much is per batch; export cannot use
them without changing its files' bytes (batch cuts are Parquet page cuts)."""
import gc
import io
import sys
import tempfile
import time

from pgntools.options import ReaderOptions
from pgntools.parquet.part_file import ParquetPartFile
from pgntools.reader import iter_batches
from pgntools.sinks.parquet import ParquetDatasetSink, arrow_table


def main() -> None:
    path = sys.argv[1]
    with tempfile.TemporaryDirectory() as out:
        sink = ParquetDatasetSink(out + "/d", writer_thread=False)
        sink.needs["batch_games"] = int(sys.argv[2]) if len(sys.argv) > 2 else 512
        sink.needs["max_batch_bytes"] = int(sys.argv[3]) if len(sys.argv) > 3 else 1 << 20
        options = ReaderOptions().for_sinks([sink.needs])
        clock = time.process_time
        start = clock()
        batches = list(iter_batches(path, options=options))
        read = clock() - start
        tables = [("games", sink.games.columns), ("moves", sink.moves.columns)]
        for _ in range(2):
            start = clock()
            built = [[arrow_table(b, name, columns) for name, columns in tables] for b in batches]
            build = clock() - start
            feeds = {}
            for feed in ("batch", "arrow"):
                files = [ParquetPartFile(io.BytesIO(), name, columns, "zstd") for name, columns in tables]
                start = clock()
                for batch, made in zip(batches, built):
                    for file, table in zip(files, made):
                        file.add_table(table) if feed == "arrow" else file.add(batch)
                        if file.group_rows >= 100_000:
                            file.end_row_group()
                feeds[feed] = clock() - start
            print(f"batches {len(batches)}  read {read:.3f}  build tables {build:.3f}  "
                  f"feed from batch {feeds['batch']:.3f}  feed from Arrow {feeds['arrow']:.3f}")
            del built
            gc.collect()


if __name__ == "__main__":
    main()
