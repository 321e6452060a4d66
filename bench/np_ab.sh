#!/usr/bin/env bash
# One-sided operations and small collectives between 2 processes of one
# node, two builds of libampi side by side, with Open MPI in the same
# invocation (docs/bench.md, "One-sided and collectives across processes
# before and after").
#
#   bench/np_ab.sh BEFORE_LIBDIR AFTER_LIBDIR [BUILD_DIR]
#
# BEFORE_LIBDIR and AFTER_LIBDIR hold a libampi.so.0 each; the programs
# BUILD_DIR/bench/rma-ampi and coll-ampi (BUILD_DIR defaults to `build`)
# run on each through LD_LIBRARY_PATH, as in bench/pingpong_ab.sh.  Each
# round runs, BEFORE and AFTER in turn first, `ampirun -n 2` with one rank
# per process (+vp 2 +p 1) of
#   - rma-ampi: put, get, accumulate (MPI_SUM of doubles) + MPI_Win_flush;
#   - coll-ampi -o ab: MPI_Allreduce and MPI_Bcast;
# then Open MPI's two processes (rma-ompi, coll-ompi; pml ob1, btl
# self,vader, bound to cores).  Each cell is the median over the rounds of
# each run's median, µs per call.  Markdown to stdout, progress to stderr,
# raw outputs in BUILD_DIR/bench/results/npab-<timestamp>/.  Environment:
#   BENCH_ROUNDS        rounds (default 7)
#   BENCH_SIZES         sizes in the table (default "8 64")
#   BENCH_TIMEOUT       seconds allowed per run (default 120)
#   MPIRUN              Open MPI's mpirun (default: mpirun.openmpi, mpirun)
# Exit status 1 when a run failed or a program is missing, else 0.
set -uo pipefail

note() { echo "np_ab.sh: $*" >&2; }
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
ab_begin "$0 BEFORE_LIBDIR AFTER_LIBDIR [BUILD_DIR]" npab 7 120 "$@"
before=$(cd "$1" && pwd) || exit 2
after=$(cd "$2" && pwd) || exit 2
read -r -a sizes <<<"${BENCH_SIZES:-8 64}"

bin=$build_dir/bench
mpirun_cmd=${MPIRUN:-$(command -v mpirun.openmpi || command -v mpirun || true)}
if [ -z "$mpirun_cmd" ]; then
    note "Open MPI's mpirun not found: ampirun cannot start processes"
    exit 1
fi
root_flag=()
[ "$(id -u)" -eq 0 ] && root_flag=(--allow-run-as-root)
ampi2=("$build_dir/bin/ampirun" -n 2 --launcher "$mpirun_cmd")
for f in "${root_flag[@]}"; do ampi2+=(--launcher-arg "$f"); done
ompi2=("$mpirun_cmd" "${root_flag[@]}" --mca pml ob1 --mca btl 'self,vader' -np 2)
if [ "$(nproc)" -ge 2 ]; then ompi2+=(--bind-to core); else ompi2+=(--oversubscribe --bind-to none); fi

echo "## One-sided and collectives across processes before and after, $(date -u '+%Y-%m-%d %H:%M UTC')"
echo
echo "- machine: $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1)," \
     "$(nproc) CPUs, kernel $(uname -sr)"
echo "- load average at start: $(cut -d ' ' -f 1-3 /proc/loadavg)"
echo "- before: \`$before\`; after: \`$after\`"
echo "- each cell: median over $rounds interleaved rounds, µs per call"
echo

# one VARIANT LIBDIR ROUND: the runs of one build.
one() {
    local v=$1 lib=$2 r=$3
    run "rma_$v.$r" "${ampi2[@]}" -x "LD_LIBRARY_PATH=$lib" \
        "$bin/rma-ampi" +vp 2 +p 1
    run "coll_$v.$r" "${ampi2[@]}" -x "LD_LIBRARY_PATH=$lib" \
        "$bin/coll-ampi" +vp 2 +p 1 -o ab -m 64
}

for round in $(seq 1 "$rounds"); do
    if [ $((round % 2)) -eq 1 ]; then
        one before "$before" "$round"
        one after "$after" "$round"
    else
        one after "$after" "$round"
        one before "$before" "$round"
    fi
    run "rma_ompi.$round" "${ompi2[@]}" "$bin/rma-ompi"
    run "coll_ompi.$round" "${ompi2[@]}" "$bin/coll-ompi" -o ab -m 64
done

# median NAME OP SIZE: the median over the rounds of NAME's lat_us.
median() {
    local f
    for f in "$raw_dir/$1".*.txt; do
        [ -f "$f" ] && awk -v op="op=$2" -v sz="size=$3" '
            $1 == op && $2 == sz {
                for (i = 3; i <= NF; i++)
                    if ($i ~ /^lat_us=/) { sub("lat_us=", "", $i); print $i }
            }' "$f"
    done | median_lines
}


echo "| operation | size | before | after | after / before | Open MPI | after / Open MPI |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
for s in "${sizes[@]}"; do
    for op in rma:put rma:get rma:acc coll:allreduce coll:bcast; do
        prog=${op%%:*} name=${op#*:}
        b=$(median "${prog}_before" "$name" "$s")
        a=$(median "${prog}_after" "$name" "$s")
        o=$(median "${prog}_ompi" "$name" "$s")
        echo "| $name | $s B | $b | $a | $(ratio "$a" "$b") | $o | $(ratio "$a" "$o") |"
    done
done
echo
echo "- load average at the end: $(cut -d ' ' -f 1-3 /proc/loadavg)"
exit "$failed"
