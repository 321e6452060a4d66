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
#    of heap per rank: microseconds per rank moved;
#  - moves one rank with 1 to 100 MiB of heap to another process (lb.c
#    "cross": 2 processes started by BUILD_DIR/bin/ampirun, +vp 4 +p 1,
#    GreedyLB), BENCH_CROSS_REPS times (default 5) per size, against the
#    same AMPI_Migrate moving nobody, and times a one-way MPI_Send of the
#    same size between 2 processes under ampirun and under Open MPI
#    (lb.c built with mpicc; pml ob1, btl self,vader), the least that
#    moving those bytes can cost.  Sizes: BENCH_CROSS_MIB (default
#    "1 4 16 64 100"); BENCH_CROSS=0 skips this part.  Needs Open MPI's
#    mpirun (MPIRUN, default mpirun) and mpicc.
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
echo "## AMPI_Migrate_to_pe: each rank, on its own, to the next PE ($pes PEs)"
echo
echo "| ranks | heap per rank | call moving (us) | call moving none (us) | extra us per rank moved | whole call per rank (us) | an MPI call at home (us) | an MPI call away from home (us) |"
echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
migrate_row() {
    local n=$1 mode=$2 bytes=$3 label=$4 out
    out=$("$work/lb" +vp "$n" +p "$pes" "$mode" "${@:5}")
    local move
    move=$(echo "$out" | field move_us)
    printf '| %s | %s | %s | %s | %s | %.2f | %s | %s |\n' "$n" "$label" "$move" \
        "$(echo "$out" | field stay_us)" "$(echo "$out" | field us_per_rank)" \
        "$(echo "$move / $n" | bc -l)" "$(echo "$out" | field call_home_us)" \
        "$(echo "$out" | field call_lodged_us)"
    : "$bytes"
}
migrate_row 8 migrate 0 "-" 2000
migrate_row 64 migrate 0 "-" 500
migrate_row 8 migrate_heap $((1 << 20)) "1 MiB" 200 $((1 << 20))
migrate_row 8 migrate_heap $((16 << 20)) "16 MiB" 50 $((16 << 20))

[ "${BENCH_CROSS:-1}" != 0 ] || exit 0
cross_reps=${BENCH_CROSS_REPS:-5}
read -r -a cross_mib <<<"${BENCH_CROSS_MIB:-1 4 16 64 100}"
mpirun_cmd=${MPIRUN:-$(command -v mpirun || true)}
ampirun=$build_dir/bin/ampirun
if [ -z "$mpirun_cmd" ] || ! command -v mpicc >/dev/null || [ ! -x "$ampirun" ]; then
    echo "run_lb.sh: moves across processes skipped (needs mpirun, mpicc and $ampirun)" >&2
    exit 0
fi
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
same_cc "$ampicc" || exit 1
mpicc -O2 "$src" -o "$work/lb-ompi"
root=()
[ "$(id -u)" -ne 0 ] || root=(--allow-run-as-root)
ampi2=("$ampirun" -n 2 --launcher "$mpirun_cmd")
[ "${#root[@]}" -eq 0 ] || ampi2+=(--launcher-arg "${root[0]}")
ompi2=("$mpirun_cmd" "${root[@]}" --mca pml ob1 --mca btl 'self,vader' -np 2 --bind-to core)
list=$(echo "${cross_mib[*]}" | tr ' ' ',')
load=$(cut -d ' ' -f 1-3 /proc/loadavg)
# One run per size: the rank mallocs its heap once, before it moves (a
# rank that came from another process mallocs outside its slot: see
# docs/bench.md, "Load balancing").
for mib in "${cross_mib[@]}"; do
    timeout 300 "${ampi2[@]}" "$work/lb" +vp 4 +p 1 +balancer GreedyLB \
        cross "$cross_reps" "$mib" >"$work/cross-$mib.txt"
done
timeout 300 "${ampi2[@]}" "$work/lb" +vp 2 +p 1 send "$cross_reps" "$list" \
    >"$work/send-ampi.txt"
timeout 300 "${ompi2[@]}" "$work/lb-ompi" send "$cross_reps" "$list" \
    >"$work/send-ompi.txt"

kv() { # FILE KIND KEY BYTES: the value of KEY on FILE's KIND line for BYTES
    awk -v kind="$2" -v key="$3" -v b="bytes=$4" '$1 == kind && $2 == b {
        for (i = 3; i <= NF; i++) if (index($i, key "=") == 1) print substr($i, length(key) + 2) }' "$1"
}
echo
echo "## One rank moved to another process: 2 processes, +vp 4 +p 1, GreedyLB"
echo
echo "Medians of $cross_reps steps; ms.  move − baseline: the step that ships rank 1"
echo "to process 1 less the same AMPI_Migrate moving nobody.  Send: one-way"
echo "MPI_Send of the same bytes between 2 processes (ours: ampirun; Open MPI:"
echo "pml ob1, btl self,vader, --bind-to core).  Load average before: $load."
echo
echo "| heap | step moving it out | baseline | move − baseline | GB/s | step moving it back | next step (old slot given back) | our MPI_Send | Open MPI MPI_Send | (move − baseline) / Open MPI send |"
echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for mib in "${cross_mib[@]}"; do
    b=$((mib << 20))
    f=$work/cross-$mib.txt
    awk -v mib="$mib" -v b="$b" -v out="$(kv "$f" cross out_us "$b")" \
        -v stay="$(kv "$f" cross stay_us "$b")" -v back="$(kv "$f" cross back_us "$b")" \
        -v rel="$(kv "$f" cross release_out_us "$b")" \
        -v sa="$(kv "$work/send-ampi.txt" send us "$b")" \
        -v so="$(kv "$work/send-ompi.txt" send us "$b")" 'BEGIN {
        d = out - stay
        printf "| %d MiB | %.2f | %.3f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.1f |\n",
            mib, out / 1e3, stay / 1e3, d / 1e3, (d > 0 ? b / d / 1e3 : 0),
            back / 1e3, rel / 1e3, sa / 1e3, so / 1e3, (so > 0 ? d / so : 0) }'
done
