#!/usr/bin/env bash
# The C library's generators in a rank (per-rank state, runtime/libc)
# against glibc's own in a process, in one invocation; a Markdown table on
# stdout (docs/bench.md).
#
#   bench/run_libc.sh [BUILD_DIR]
#
# BENCH_ROUNDS rounds (default 3), each cell the median; BENCH_LIBC_CALLS
# calls per measurement (default 10000000).  Timings are not pass/fail.
set -uo pipefail

build_dir=${1:-build}
bench_dir=$build_dir/bench
rounds=${BENCH_ROUNDS:-3}
calls=${BENCH_LIBC_CALLS:-10000000}
for prog in libc-ampi libc-plain; do
    if [ ! -x "$bench_dir/$prog" ]; then
        echo "run_libc.sh: no $bench_dir/$prog; build with" \
             "cmake --build $build_dir --target bench" >&2
        exit 2
    fi
done
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for r in $(seq "$rounds"); do
    "$bench_dir/libc-plain" -n "$calls" >"$out/plain.$r" || exit 1
    "$bench_dir/libc-ampi" -n "$calls" +vp 1 +p 1 >"$out/one.$r" || exit 1
    "$bench_dir/libc-ampi" -n "$calls" +vp 8 +p 2 >"$out/eight.$r" || exit 1
done

# median NAME CALL: the median over the rounds of ns for CALL.
median() {
    for r in $(seq "$rounds"); do
        sed -n "s/^call=$2 ns=//p" "$out/$1.$r"
    done | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'
}

echo "| call | glibc, a process (ns) | a rank, +vp 1 (ns) | ratio | rank 0 of +vp 8 +p 2 (ns) | ratio |"
echo "| --- | --- | --- | --- | --- | --- |"
for call in rand drand48 random; do
    p=$(median plain "$call")
    o=$(median one "$call")
    e=$(median eight "$call")
    awk -v c="$call" -v p="$p" -v o="$o" -v e="$e" 'BEGIN {
        printf "| %s | %.2f | %.2f | %.2fx | %.2f | %.2fx |\n", c, p, o, o / p, e, e / p }'
done
