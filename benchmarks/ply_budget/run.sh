#!/bin/sh
# Builds ply_budget.c against the C core with the extension's flags and runs it:
#   sh benchmarks/ply_budget/run.sh [FILE [RUNS]]      ns per ply of each stage (CPU time, best of RUNS)
#   sh benchmarks/ply_budget/run.sh --callgrind [FILE]  instructions per ply of each stage (callgrind, one run)
set -eu
cd "$(dirname "$0")/../.."
mkdir -p benchmarks/out
gcc -std=c99 -O3 -g -DNDEBUG ${CFLAGS:-} -Ipgntools/_c benchmarks/ply_budget/ply_budget.c pgntools/_c/*.c \
    -o benchmarks/out/ply_budget -lm
if [ "${1:-}" = "--callgrind" ]; then
    file=${2:-../shared/corpora/bench/master-games-30k.pgn}
    out=benchmarks/out/ply_budget.callgrind
    plies=$(valgrind --tool=callgrind --callgrind-out-file="$out" benchmarks/out/ply_budget "$file" 1 2>/dev/null |
            sed -n 's/.* games, \([0-9]*\) plies (reader).*/\1/p')
    echo "instructions per ply ($plies plies)"
    callgrind_annotate --threshold=100 --inclusive=yes "$out" 2>/dev/null |
        awk -v plies="$plies" '/ply_budget.c:(full|scan|stage_[a-z_]*) \[/ {
            n = $1; gsub(",", "", n); name = $0; sub(/.*ply_budget.c:/, "", name); sub(/ .*/, "", name);
            printf "%-20s %8.1f\n", name, n / plies }'
    exit 0
fi
exec benchmarks/out/ply_budget "${1:-../shared/corpora/bench/master-games-30k.pgn}" "${2:-7}"
