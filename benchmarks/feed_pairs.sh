#!/bin/sh
# Issue 35 item 7: export --parquet of INPUT with the column feed and the Arrow feed interleaved,
# 2 rounds, --jobs 1 and 2: CPU (user, sys s) and peak RSS KB of each whole process.
#   sh benchmarks/feed_pairs.sh INPUT   (PYTHON: the interpreter; OUT: a scratch directory)
for r in 1 2; do for j in 1 2; do for feed in False True; do
  nice -n 10 /usr/bin/time -f "round=$r jobs=$j arrow_feed=$feed %U %S %M" ${PYTHON:-python} -c "import pgntools.sinks.parquet as s; s.ARROW_FEED = $feed; from pgntools.cli import main; main()" export --no-progress --parquet ${OUT:-/tmp/feed-pairs}/p$feed --jobs $j "$1" 2>&1 | tail -1
  rm -rf ${OUT:-/tmp/feed-pairs}/p$feed
  uptime
done; done; done
