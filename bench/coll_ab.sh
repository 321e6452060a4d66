#!/usr/bin/env bash
# Collective latency of two builds of the runtime side by side, with Open MPI
# in the same invocation (docs/bench.md, "Collectives before and after").
#
#   bench/coll_ab.sh BEFORE AFTER [BUILD_DIR]
#
# BEFORE and AFTER are bench/coll.c built by each build's ampicc (each binary
# runs on the libampi its ampicc linked, e.g. an installed copy of the
# earlier revision: `cmake --install build --prefix /tmp/before`, then
# `/tmp/before/bin/ampicc -O2 -g -o coll-before bench/coll.c`).  Open MPI's
# program is BUILD_DIR/bench/coll-ompi (BUILD_DIR defaults to `build`).
# Each round runs, for every N, BEFORE and AFTER (in turn first) with
# +vp N +p 2, then Open MPI with N processes; each cell is the median over
# the rounds.  Markdown to stdout, progress to stderr, raw outputs in
# BUILD_DIR/bench/results/ab-<timestamp>/.  Environment:
#   BENCH_ROUNDS        rounds (default 5)
#   BENCH_COLL_RANKS    rank counts (default "8 64")
#   BENCH_COLL_OPTIONS  options for every run (default "-o a": allreduce)
#   BENCH_TIMEOUT       seconds allowed per run (default 300)
#   MPIRUN              Open MPI's mpirun (default: mpirun.openmpi, mpirun)
# Exit status 1 when a run failed or a program is missing, else 0.
set -uo pipefail

note() { echo "coll_ab.sh: $*" >&2; }
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
ab_begin "$0 BEFORE AFTER [BUILD_DIR]" ab 5 300 "$@"
before=$1
after=$2
read -r -a ranks <<<"${BENCH_COLL_RANKS:-8 64}"
read -r -a opts <<<"${BENCH_COLL_OPTIONS:--o a}"

mpirun_cmd=${MPIRUN:-$(command -v mpirun.openmpi || command -v mpirun || true)}
ompi=$build_dir/bench/coll-ompi
ompi_flags=(--oversubscribe --bind-to none)
[ "$(id -u)" -eq 0 ] && ompi_flags+=(--allow-run-as-root)

echo "## Collectives before and after, $(date -u '+%Y-%m-%d %H:%M UTC')"
echo
echo "- machine: $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1)," \
     "$(nproc) CPUs, kernel $(uname -sr)"
echo "- load average at start: $(cut -d ' ' -f 1-3 /proc/loadavg)"
echo "- before: \`$before\`; after: \`$after\`; options \`${opts[*]}\`"
echo "- each cell: median over $rounds interleaved rounds, µs per call"
echo

for round in $(seq 1 "$rounds"); do
    for n in "${ranks[@]}"; do
        if [ $((round % 2)) -eq 1 ]; then
            run "before_$n.$round" "$before" +vp "$n" +p 2 "${opts[@]}"
            run "after_$n.$round" "$after" +vp "$n" +p 2 "${opts[@]}"
        else
            run "after_$n.$round" "$after" +vp "$n" +p 2 "${opts[@]}"
            run "before_$n.$round" "$before" +vp "$n" +p 2 "${opts[@]}"
        fi
        if [ -n "$mpirun_cmd" ] && [ -x "$ompi" ]; then
            run "ompi_$n.$round" "$mpirun_cmd" "${ompi_flags[@]}" -np "$n" \
                "$ompi" "${opts[@]}"
        fi
    done
done

# median NAME OP SIZE: the median over the rounds of NAME's lat_us.
median() {
    local f
    for f in "$raw_dir/$1".*.txt; do
        [ -f "$f" ] && awk -v op="$2" -v sz="$3" '
            $1 == "op=" op && $2 == "size=" sz { sub("lat_us=", "", $3); print $3 }' "$f"
    done | median_lines
}

human() {
    awk -v n="$1" 'BEGIN {
        if (n >= 1048576 && n % 1048576 == 0) printf "%d MiB\n", n / 1048576
        else if (n >= 1024 && n % 1024 == 0) printf "%d KiB\n", n / 1024
        else printf "%d B\n", n }'
}


header="| op | size |"
rule="| --- | ---: |"
for n in "${ranks[@]}"; do
    header="$header before $n | after $n | after / before | Open MPI $n | Open MPI / after |"
    rule="$rule ---: | ---: | ---: | ---: | ---: |"
done
echo "$header"
echo "$rule"
ops=$(cat "$raw_dir"/before_"${ranks[0]}".*.txt 2>/dev/null |
      awk '$1 ~ /^op=/ { sub("op=", "", $1); print $1 }' | awk '!seen[$0]++')
for op in $ops; do
    sizes=$(cat "$raw_dir"/before_"${ranks[0]}".1.txt 2>/dev/null |
            awk -v op="$op" '$1 == "op=" op { sub("size=", "", $2); print $2 }')
    for s in $sizes; do
        row="| $op | $(human "$s") |"
        for n in "${ranks[@]}"; do
            b=$(median "before_$n" "$op" "$s")
            a=$(median "after_$n" "$op" "$s")
            o=$(median "ompi_$n" "$op" "$s")
            row="$row $b | $a | $(ratio "$a" "$b") | $o | $(ratio "$o" "$a") |"
        done
        echo "$row"
    done
done
echo
echo "- load average at the end: $(cut -d ' ' -f 1-3 /proc/loadavg)"
exit "$failed"
