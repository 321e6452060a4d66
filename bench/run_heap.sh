#!/usr/bin/env bash
# A buffer freed and allocated again every step (bench/heap.c): a rank's
# heap against glibc's malloc in a process, in one invocation; a Markdown
# table on stdout (docs/bench.md).
#
#   bench/run_heap.sh [BUILD_DIR]
#
# BENCH_ROUNDS rounds (default 3), each cell the median; BENCH_HEAP_SIZES
# the buffer sizes (default 262144 1048576 4194304 16777216 67108864).
# Timings are not pass/fail.
set -uo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

build_dir=${1:-build}
bench_dir=$build_dir/bench
rounds=${BENCH_ROUNDS:-3}
sizes=${BENCH_HEAP_SIZES:-262144 1048576 4194304 16777216 67108864}
for prog in heap-ampi heap-plain; do
    if [ ! -x "$bench_dir/$prog" ]; then
        echo "run_heap.sh: no $bench_dir/$prog; build with" \
             "cmake --build $build_dir --target bench" >&2
        exit 2
    fi
done
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for r in $(seq "$rounds"); do
    for b in $sizes; do
        n=$((b >= 16777216 ? 50 : 200))
        "$bench_dir/heap-plain" -b "$b" -n "$n" >"$out/plain.$b.$r" || exit 1
        "$bench_dir/heap-ampi" -b "$b" -n "$n" +vp 1 +p 1 >"$out/one.$b.$r" ||
            exit 1
        "$bench_dir/heap-ampi" -b "$b" -n "$n" +vp 16 +p 1 \
            >"$out/sixteen.$b.$r" || exit 1
    done
done

# median NAME BYTES KEY: the median over the rounds of KEY's value.
median() {
    for r in $(seq "$rounds"); do
        sed -n "s/.* $3=\([0-9.]*\).*/\1/p" "$out/$1.$2.$r"
    done | median_lines
}

echo "| buffer | glibc, a process (µs/step, faults) | a rank, +vp 1 | ratio | rank 0 of +vp 16 +p 1 | ratio |"
echo "| --- | --- | --- | --- | --- | --- |"
for b in $sizes; do
    p=$(median plain "$b" us_per_step) pf=$(median plain "$b" faults_per_step)
    o=$(median one "$b" us_per_step) of=$(median one "$b" faults_per_step)
    s=$(median sixteen "$b" us_per_step)
    sf=$(median sixteen "$b" faults_per_step)
    awk -v b="$b" -v p="$p" -v pf="$pf" -v o="$o" -v of="$of" -v s="$s" \
        -v sf="$sf" 'BEGIN {
        printf "| %d KiB | %.1f, %.0f | %.1f, %.0f | %.2fx | %.1f, %.0f | %.2fx |\n",
            b / 1024, p, pf, o, of, o / p, s, sf, s / p }'
done
