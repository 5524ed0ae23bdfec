"""The runner: how a command's inputs go through its sinks, in-process or in parallel.

  run.py        Run: inputs checked, outputs opened, sinks built, fed, committed (or aborted); Progress
  feed.py       the one loop of every run: batches -> selection -> sinks
  chunks.py     game-aligned chunks of the inputs for a parallel run
  parallel.py   the parent side of a parallel run: chunks out to workers, parts merged back in order
  worker.py     the worker side: one chunk through the run's sinks
  in_order.py   a parallel run whose selection is decided in input order (--dedup, --limit)
  cluster.py    the Dask cluster executor (--scheduler)

The sinks (pgntools.sinks) know nothing of this package: the runner knows them by their protocol.
The threads of --jobs are pgntools.threads' Pool, which export's Parquet writer uses too.
"""
