#!/bin/sh
# Builds output_budget.c against the C core with the extension's flags and runs it:
#   sh benchmarks/output_budget/run.sh [FILE [RUNS]]   ms of validate's, -o's and to-fen's reader
#   OUT=FILE sh benchmarks/output_budget/run.sh        the PGN column written to FILE
set -eu
cd "$(dirname "$0")/../.."
mkdir -p benchmarks/out
gcc -std=c99 -O3 -g -DNDEBUG -fvisibility=hidden ${CFLAGS:-} -Ipgntools/_c benchmarks/output_budget/output_budget.c \
    pgntools/_c/*.c -o benchmarks/out/output_budget -lm
exec benchmarks/out/output_budget "${1:-../shared/corpora/bench/master-games-30k.pgn}" "${2:-11}"
