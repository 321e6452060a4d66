#!/usr/bin/env bash
# Point-to-point latency of two builds of libampi side by side, with Open
# MPI in the same invocation (docs/bench.md, "Point-to-point before and
# after").
#
#   bench/pingpong_ab.sh BEFORE_LIBDIR AFTER_LIBDIR [BUILD_DIR]
#
# BEFORE_LIBDIR and AFTER_LIBDIR hold a libampi.so.0 each (e.g. the lib/ of
# a build of the earlier revision: `ninja -C /tmp/before/build ampi`).  The
# one program BUILD_DIR/bench/pingpong-ampi (BUILD_DIR defaults to `build`)
# runs on each through LD_LIBRARY_PATH, which comes before its RUNPATH; the
# part of the runtime linked into the program (libampi_main.a) must be the
# same in both.  Each round runs, BEFORE and AFTER in turn first:
#   - +vp 2 +p 1: two ranks on one PE (the same-PE path);
#   - +vp 2 +p 2: two PEs of one process (the rings between PEs);
#   - ampirun -n 2, +vp 2 +p 1: two processes of one node (node shared
#     memory), and the same with AMPI_NODE_SHM=0 (UCX alone);
# then Open MPI's two processes (pingpong-ompi, if built).  Each cell is
# the median over the rounds of the one-way latency in µs; the floor under
# any of them, one cache line between two cores (line_pingpong), is
# printed at the start and the end.  Markdown to
# stdout, progress to stderr, raw outputs in
# BUILD_DIR/bench/results/ppab-<timestamp>/.  Environment:
#   BENCH_ROUNDS        rounds (default 7)
#   BENCH_PP_OPTIONS    pingpong options (default "-s 8")
#   BENCH_TIMEOUT       seconds allowed per run (default 120)
#   MPIRUN              Open MPI's mpirun (default: mpirun.openmpi, mpirun)
# Exit status 1 when a run failed or a program is missing, else 0.
set -uo pipefail

note() { echo "pingpong_ab.sh: $*" >&2; }
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
ab_begin "$0 BEFORE_LIBDIR AFTER_LIBDIR [BUILD_DIR]" ppab 7 120 "$@"
before=$(cd "$1" && pwd) || exit 2
after=$(cd "$2" && pwd) || exit 2
read -r -a opts <<<"${BENCH_PP_OPTIONS:--s 8}"

pp=$build_dir/bench/pingpong-ampi
ompi=$build_dir/bench/pingpong-ompi
mpirun_cmd=${MPIRUN:-$(command -v mpirun.openmpi || command -v mpirun || true)}
root_flag=()
[ "$(id -u)" -eq 0 ] && root_flag=(--allow-run-as-root)
ampi2=("$build_dir/bin/ampirun" -n 2 --launcher "$mpirun_cmd")
for f in "${root_flag[@]}"; do ampi2+=(--launcher-arg "$f"); done
ompi2=("$mpirun_cmd" "${root_flag[@]}" --mca pml ob1 --mca btl 'self,vader' -np 2)
if [ "$(nproc)" -ge 2 ]; then ompi2+=(--bind-to core); else ompi2+=(--oversubscribe --bind-to none); fi

echo "## Point-to-point before and after, $(date -u '+%Y-%m-%d %H:%M UTC')"
echo
echo "- machine: $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1)," \
     "$(nproc) CPUs, kernel $(uname -sr)"
echo "- load average at start: $(cut -d ' ' -f 1-3 /proc/loadavg)"
echo "- before: \`$before\`; after: \`$after\`; options \`${opts[*]}\`"
echo "- each cell: median over $rounds interleaved rounds, one-way µs"
# The hardware's floor under a message between two cores (line_pingpong.c):
# it moves with where the host puts this machine's CPUs.
floor() {
    [ -x "$build_dir/bench/line_pingpong" ] &&
        "$build_dir/bench/line_pingpong" | sed 's/^/- cache line between two cores, '"$1"': /'
}
floor "at start"
echo

# one VARIANT LIBDIR ROUND: the four runs of one build.
one() {
    local v=$1 lib=$2 r=$3
    LD_LIBRARY_PATH=$lib run "samepe_$v.$r" "$pp" +vp 2 +p 1 "${opts[@]}"
    LD_LIBRARY_PATH=$lib run "crosspe_$v.$r" "$pp" +vp 2 +p 2 "${opts[@]}"
    run "np2shm_$v.$r" "${ampi2[@]}" -x "LD_LIBRARY_PATH=$lib" \
        "$pp" +vp 2 +p 1 "${opts[@]}"
    run "np2ucx_$v.$r" "${ampi2[@]}" -x "LD_LIBRARY_PATH=$lib" \
        -x AMPI_NODE_SHM=0 "$pp" +vp 2 +p 1 "${opts[@]}"
}

for round in $(seq 1 "$rounds"); do
    if [ $((round % 2)) -eq 1 ]; then
        one before "$before" "$round"
        one after "$after" "$round"
    else
        one after "$after" "$round"
        one before "$before" "$round"
    fi
    if [ -n "$mpirun_cmd" ] && [ -x "$ompi" ]; then
        run "ompi.$round" "${ompi2[@]}" "$ompi" "${opts[@]}"
    fi
done

# median NAME SIZE: the median over the rounds of NAME's lat_us.
median() {
    local f
    for f in "$raw_dir/$1".*.txt; do
        [ -f "$f" ] && awk -v sz="$2" '
            $1 == "size=" sz { sub("lat_us=", "", $2); print $2 }' "$f"
    done | median_lines
}


echo "| path | size | before | after | after / before | Open MPI 2 processes | Open MPI / after |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
sizes=$(awk '$1 ~ /^size=/ { sub("size=", "", $1); print $1 }' \
        "$raw_dir"/samepe_before.1.txt 2>/dev/null)
for s in $sizes; do
    o=$(median ompi "$s")
    for path in samepe crosspe np2shm np2ucx; do
        b=$(median "${path}_before" "$s")
        a=$(median "${path}_after" "$s")
        echo "| $path | $s B | $b | $a | $(ratio "$a" "$b") | $o | $(ratio "$o" "$a") |"
    done
done
echo
echo "- load average at the end: $(cut -d ' ' -f 1-3 /proc/loadavg)"
floor "at the end"
exit "$failed"
