#!/usr/bin/env bash
# Runs each fuzz harness for SECONDS (default: all four, one after another on one core):
#     fuzz/run.sh SECONDS [tokenizer|fen|san|game ...]
# Builds the harnesses and the seed corpora first. New inputs found are kept in
# fuzz/corpus/<harness>/ (reused by later runs); a crash, UB, leak or timeout is saved in
# fuzz/artifacts/ and makes the script exit 1 once every harness has run. Extra libFuzzer
# flags can be passed in FUZZ_FLAGS (e.g. FUZZ_FLAGS="-jobs=4 -workers=4"), make_seeds.py flags
# in SEED_FLAGS (e.g. SEED_FLAGS="--extra games.pgn").
set -uo pipefail
cd "$(dirname "$0")"

seconds=${1:?usage: fuzz/run.sh SECONDS [harness ...]}
shift
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=(tokenizer fen san game)

./build.sh || exit 1
python3 make_seeds.py ${SEED_FLAGS:-} || exit 1
mkdir -p artifacts

# Inputs are capped: a PGN game needs some room, a FEN or a few moves much less.
declare -A MAX_LEN=([tokenizer]=4096 [fen]=256 [san]=512 [game]=8192)
declare -A DICT=([tokenizer]=pgn [fen]=fen [san]=san [game]=pgn)

failed=()
for h in "${harnesses[@]}"; do
    mkdir -p "corpus/$h"
    echo "== fuzz_$h for ${seconds}s"
    # corpus/$h gets the new inputs; seeds/ and regressions/ are read only. -timeout catches
    # a hang (a per-input time far above the milliseconds an input takes).
    ./build/fuzz_"$h" -max_total_time="$seconds" -max_len="${MAX_LEN[$h]}" -timeout=20 \
        -dict="dict/${DICT[$h]}.dict" -artifact_prefix="artifacts/$h-" -print_final_stats=1 \
        ${FUZZ_FLAGS:-} "corpus/$h" "seeds/$h" $( [ -d "regressions/$h" ] && echo "regressions/$h" ) \
        > "artifacts/$h.log" 2>&1
    status=$?
    grep -E "^#[0-9]+ +DONE|^stat::number_of_executed_units|^stat::average_exec_per_sec" "artifacts/$h.log" | tr '\n' ' '
    echo
    if [ $status -ne 0 ]; then
        failed+=("$h")
        echo "fuzz_$h FAILED (exit $status); the end of artifacts/$h.log:"
        tail -n 40 "artifacts/$h.log"
        echo "reproduce: fuzz/build/fuzz_$h fuzz/artifacts/$h-<crash file>"
    fi
done

if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzzing found problems in: ${failed[*]}"
    exit 1
fi
echo "fuzzing: no problems found"
