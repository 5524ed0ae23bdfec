#!/usr/bin/env bash
# Builds the libFuzzer harnesses with AddressSanitizer and UndefinedBehaviorSanitizer into
# fuzz/build/ (clang needed: apt-get install -y clang). The C core is compiled once, then
# linked into each harness; any UB aborts (-fno-sanitize-recover) so libFuzzer keeps the input.
set -euo pipefail
cd "$(dirname "$0")"

CC=${CC:-clang}
OUT=build
CORE=../pgntools/_c
CFLAGS=(-std=c99 -g -O1 -fno-omit-frame-pointer -UNDEBUG -Wall -Wextra -Wno-unused-function
        -fsanitize=address,undefined -fno-sanitize-recover=all -I "$CORE")

mkdir -p "$OUT/obj"
for src in "$CORE"/*.c; do
    "$CC" "${CFLAGS[@]}" -fsanitize=fuzzer-no-link -c "$src" -o "$OUT/obj/$(basename "${src%.c}").o"
done
for harness in fuzz_*.c; do
    "$CC" "${CFLAGS[@]}" -fsanitize=fuzzer "$harness" "$OUT"/obj/*.o -o "$OUT/${harness%.c}"
done
echo "built: $(cd "$OUT" && ls fuzz_* | tr '\n' ' ')"
