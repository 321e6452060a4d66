#!/usr/bin/env bash
# Load balancing (bench/lb.c; results: docs/bench.md, "Load balancing").
#
#   bench/run_lb.sh [BUILD_DIR]
#
# Builds bench/lb.c with BUILD_DIR/bin/ampicc (default: build), then
#  - runs the imbalanced loop (half the ranks 4x the work) with 8 ranks on
#    2 PEs (BENCH_VP, BENCH_P) without a balancer and with each of
#    GreedyLB, RefineLB and DistributedLB, BENCH_ROUNDS times (default 5),
#    interleaved; prints the median loop time and the speedup over no
#    balancer, and checks that every run computed the same result;
#  - times AMPI_Migrate_to_pe moving every rank to the next PE, against the
#    same call moving nobody, with 8 and 64 ranks and with 1 MiB and 16 MiB
#    of heap per rank: microseconds per rank moved.
# Timings are not pass/fail; a busy machine only ever adds time.
set -euo pipefail

build_dir=${1:-build}
rounds=${BENCH_ROUNDS:-5}
vp=${BENCH_VP:-8}
pes=${BENCH_P:-2}
iters=${BENCH_ITERS:-40}
unit=${BENCH_UNIT_STEPS:-250000}
src=$(cd "$(dirname "$0")" && pwd)/lb.c
ampicc=$build_dir/bin/ampicc
[ -x "$ampicc" ] || { echo "run_lb.sh: no $ampicc; build first" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$ampicc" -O2 "$src" -o "$work/lb"

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
best() { sort -g | head -1; }
field() { awk -v k="$1" '$1 == k {print $2}'; }

balancers=(none GreedyLB RefineLB DistributedLB)
for ((r = 0; r < rounds; r++)); do
    for b in "${balancers[@]}"; do
        "$work/lb" +vp "$vp" +p "$pes" +balancer "$b" loop "$iters" "$unit" \
            >"$work/loop-$b-$r.txt"
    done
done

results=$(cat "$work"/loop-*.txt | field result | sort -u | wc -l)
[ "$results" -eq 1 ] || { echo "run_lb.sh: the runs disagree on the result" >&2; exit 1; }
base=$(cat "$work"/loop-none-*.txt | field loop_s | median)
base_best=$(cat "$work"/loop-none-*.txt | field loop_s | best)
echo "## Imbalanced loop: $vp ranks on $pes PEs, $iters iterations, $rounds runs"
echo
echo "| balancer | median (s) | speedup | best (s) | speedup |"
echo "| --- | ---: | ---: | ---: | ---: |"
for b in "${balancers[@]}"; do
    t=$(cat "$work"/loop-"$b"-*.txt | field loop_s | median)
    tb=$(cat "$work"/loop-"$b"-*.txt | field loop_s | best)
    printf '| %s | %.3f | %.2fx | %.3f | %.2fx |\n' "$b" "$t" \
        "$(echo "$base / $t" | bc -l)" "$tb" "$(echo "$base_best / $tb" | bc -l)"
done
echo
echo "## AMPI_Migrate_to_pe: every rank to the next PE ($pes PEs)"
echo
echo "| ranks | heap per rank | call moving all (us) | call moving none (us) | extra us per rank moved | whole call per rank (us) |"
echo "| ---: | ---: | ---: | ---: | ---: | ---: |"
migrate_row() {
    local n=$1 mode=$2 bytes=$3 label=$4 out
    out=$("$work/lb" +vp "$n" +p "$pes" "$mode" "${@:5}")
    local move
    move=$(echo "$out" | field move_us)
    printf '| %s | %s | %s | %s | %s | %.2f |\n' "$n" "$label" "$move" \
        "$(echo "$out" | field stay_us)" "$(echo "$out" | field us_per_rank)" \
        "$(echo "$move / $n" | bc -l)"
    : "$bytes"
}
migrate_row 8 migrate 0 "-" 2000
migrate_row 64 migrate 0 "-" 500
migrate_row 8 migrate_heap $((1 << 20)) "1 MiB" 200 $((1 << 20))
migrate_row 8 migrate_heap $((16 << 20)) "16 MiB" 50 $((16 << 20))
