#!/usr/bin/env bash
# Between nodes: the benchmarks on 2 nodes of scripts/cluster.sh (network
# namespaces of this machine, joined by veth links and a bridge), ours
# against Open MPI over the same links, both over TCP (docs/bench.md,
# "Between nodes"):
#
#   - ping-pong latency and bandwidth between 2 processes on 2 nodes, one
#     rank each;
#   - MPI_Allreduce and MPI_Alltoall with 2 processes (one a node) and 4
#     (two a node), one rank each, and with 16 ranks: ours in 2 processes,
#     Open MPI's 16 processes (8 a node, oversubscribed);
#   - the imbalanced programs of bench/imbalance on 2 nodes: Open MPI with
#     2 ranks (one a node), ours with 2 processes of one PE (+vp 2, and
#     +vp 16 without balancing, with stealing, and with GreedyLB every
#     0.2 s moving ranks between the nodes).
#
#   bench/run_cluster.sh [BUILD_DIR]
#
# Ours: ampirun with the cluster's host file (UCX_TLS=tcp,self,
# UCX_NET_DEVICES=eth0: TCP between processes; within a node the rings).
# Open MPI: mpirun with the same host file and launch agent, `--mca pml
# ob1 --mca btl self,vader,tcp --mca btl_tcp_if_include eth0` (TCP between
# nodes, shared memory within one).  Processes are dealt out to the nodes
# in turn (--map-by node), or two a node (ppr:2:node).  Root only; uses
# the cluster that is up, else brings up 2 nodes and takes them down at
# the end.  The programs come from BUILD_DIR/bench (cmake --build
# BUILD_DIR --target bench); the imbalanced ones are built here with
# BUILD_DIR/bin/ampicc and Open MPI's mpicc.  Environment: BENCH_ROUNDS
# (default 3; each cell is the median of the rounds), BENCH_TIMEOUT
# (seconds per run, default 300), BENCH_PP_ARGS (pingpong's, default
# "-s 8,64,512,4k,64k,1m,4m -i 1000"), BENCH_OMPI_YIELD (Open MPI's
# mpi_yield_when_idle; default 1 on fewer than 4 CPUs), BENCH_IMB_ARGS (arguments of the
# imbalanced programs, default "-s": their test size), MPIRUN, MPICC,
# AMPIRUN.  Raw outputs: BUILD_DIR/bench/results/cluster-<timestamp>/ (or
# BENCH_RAW_DIR).  Exit status 1 when a run failed or an imbalanced
# program's result differs from Open MPI's; timings never fail it.
set -uo pipefail

build_dir=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
bench_dir=$build_dir/bench
rounds=${BENCH_ROUNDS:-3}
timeout_s=${BENCH_TIMEOUT:-300}
read -r -a imb_args <<<"${BENCH_IMB_ARGS:--s}"
ampirun=${AMPIRUN:-$build_dir/bin/ampirun}
ampicc=$build_dir/bin/ampicc
mpirun_cmd=${MPIRUN:-$(command -v mpirun.openmpi || command -v mpirun || true)}
mpicc_cmd=${MPICC:-$(command -v mpicc.openmpi || command -v mpicc || true)}
cluster=$here/../scripts/cluster.sh

note() { echo "run_cluster.sh: $*" >&2; }
# shellcheck source=bench/lib.sh
. "$here/lib.sh"

case $rounds in
    '' | *[!0-9]* | 0) note "BENCH_ROUNDS must be a positive integer, got '$rounds'"; exit 2 ;;
esac
for f in "$ampirun" "$ampicc" "$bench_dir/pingpong-ampi" "$bench_dir/pingpong-ompi" \
    "$bench_dir/coll-ampi" "$bench_dir/coll-ompi"; do
    [ -x "$f" ] || { note "no $f; build first (cmake --build $build_dir --target bench)"; exit 2; }
done
[ -n "$mpirun_cmd" ] && [ -n "$mpicc_cmd" ] || { note "needs Open MPI's mpirun and mpicc"; exit 2; }
bash "$cluster" check || exit 2

if ! hosts=$(bash "$cluster" hostfile 2>/dev/null); then
    hosts=$(bash "$cluster" up 2 | tail -1) || { note "cannot bring up the cluster"; exit 2; }
    trap 'bash "$cluster" down' EXIT
fi
raw_dir=${BENCH_RAW_DIR:-$bench_dir/results/cluster-$(date -u +%Y%m%d-%H%M%S)}
mkdir -p "$raw_dir/bin" || exit 2
failed=0

agent=$(sed -n 's/^# *ampirun launch-agent: *//p' "$hosts")
# Every node sees all of the machine's cores, so 2 nodes of 2 processes
# each put 4 processes on them: Open MPI yields while it polls when the
# processes outnumber the cores (BENCH_OMPI_YIELD, 0 or 1), as ours do.
ncpu=$(nproc)
ompi_yield=${BENCH_OMPI_YIELD:-$([ "$ncpu" -ge 4 ] && echo 0 || echo 1)}
by_node=(--map-by node)
two_a_node=(--map-by ppr:2:node)
ours() { # NPROCS MAPPING...: ampirun's command line up to the program
    local n=$1 a cmd=("$ampirun" -n "$1" --hostfile "$hosts" --launcher "$mpirun_cmd" --allow-run-as-root)
    shift
    for a in "$@"; do cmd+=(--launcher-arg "$a"); done
    printf '%s\n' "${cmd[@]}"
}
theirs() { # NPROCS MAPPING...
    local n=$1
    shift
    printf '%s\n' "$mpirun_cmd" --allow-run-as-root -np "$n" --hostfile "$hosts" \
        --mca plm_rsh_agent "$agent" --bind-to none "$@" --mca pml ob1 \
        --mca btl self,vader,tcp --mca btl_tcp_if_include eth0 \
        --mca mpi_yield_when_idle "$ompi_yield"
}
mapfile -t ours2 < <(ours 2 "${by_node[@]}")
mapfile -t ours4 < <(ours 4 "${two_a_node[@]}")
mapfile -t theirs2 < <(theirs 2 "${by_node[@]}")
mapfile -t theirs4 < <(theirs 4 "${two_a_node[@]}")
# Open MPI's 16 ranks: a process each, 8 a node, on the 2 cores.
mapfile -t theirs16 < <(theirs 16 "${by_node[@]}" --oversubscribe)

progs=(pic hotspot refine balanced)
same_cc "$ampicc" || { note "$ampicc -showme:command failed"; exit 2; }
note "both sides compiled by $OMPI_CC"
for p in "${progs[@]}"; do
    "$mpicc_cmd" -std=c11 -O2 -o "$raw_dir/bin/$p-ompi" "$here/imbalance/$p.c" &&
        "$ampicc" -std=c11 -O2 -o "$raw_dir/bin/$p-ampi" "$here/imbalance/$p.c" ||
        { note "building $p failed"; exit 2; }
done
imb_confs=("ompi||Open MPI, 2 ranks, one a node"
    "vp2|+vp 2 +p 1|ours, 2 processes (one a node), +vp 2 +p 1"
    "vp16.nosteal|+vp 16 +p 1 +nosteal|ours, 2 processes, +vp 16 +p 1, no balancing (+nosteal)"
    "vp16.steal|+vp 16 +p 1|ours, 2 processes, +vp 16 +p 1, stealing (default)"
    "vp16.lb|+vp 16 +p 1 +balancer GreedyLB +lbperiod 0.2|ours, 2 processes, +vp 16 +p 1, GreedyLB every 0.2 s")

coll_args=(-o at -m 65536)
read -r -a pp_args <<<"${BENCH_PP_ARGS:--s 8,64,512,4k,64k,1m,4m -i 1000}"
load_start=$(cut -d ' ' -f 1-3 /proc/loadavg)
for r in $(seq 1 "$rounds"); do
    run "pp_ampi.$r" "${ours2[@]}" "$bench_dir/pingpong-ampi" +vp 2 +p 1 "${pp_args[@]}"
    run "pp_ompi.$r" "${theirs2[@]}" "$bench_dir/pingpong-ompi" "${pp_args[@]}"
    run "coll_ampi_2.$r" "${ours2[@]}" "$bench_dir/coll-ampi" +vp 2 +p 1 "${coll_args[@]}"
    run "coll_ompi_2.$r" "${theirs2[@]}" "$bench_dir/coll-ompi" "${coll_args[@]}"
    run "coll_ampi_4.$r" "${ours4[@]}" "$bench_dir/coll-ampi" +vp 4 +p 1 "${coll_args[@]}"
    run "coll_ompi_4.$r" "${theirs4[@]}" "$bench_dir/coll-ompi" "${coll_args[@]}"
    run "coll_ampi_16in2.$r" "${ours2[@]}" "$bench_dir/coll-ampi" +vp 16 +p 1 "${coll_args[@]}"
    run "coll_ompi_16.$r" "${theirs16[@]}" "$bench_dir/coll-ompi" "${coll_args[@]}"
    for p in "${progs[@]}"; do
        for c in "${imb_confs[@]}"; do
            IFS='|' read -r tag opts _ <<<"$c"
            read -r -a oa <<<"$opts"
            if [ "$tag" = ompi ]; then
                run "$p.$tag.$r" "${theirs2[@]}" "$raw_dir/bin/$p-ompi" "${imb_args[@]}"
            else
                run "$p.$tag.$r" "${ours2[@]}" "$raw_dir/bin/$p-ampi" "${oa[@]}" "${imb_args[@]}"
            fi
        done
    done
done
load_end=$(cut -d ' ' -f 1-3 /proc/loadavg)

# field FILE KEY OP SIZE: KEY's value on FILE's line of size SIZE (and op OP).
field() {
    [ -f "$1" ] || return 0
    awk -v key="$2" -v op="$3" -v sz="$4" '/^#/ { next } {
        delete kv
        for (i = 1; i <= NF; i++) { eq = index($i, "="); if (eq) kv[substr($i, 1, eq - 1)] = substr($i, eq + 1) }
        if ((op == "" || kv["op"] == op) && kv["size"] == sz && (key in kv)) { print kv[key]; exit }
    }' "$1"
}
value() { # NAME KEY OP SIZE: the median over the rounds
    local f
    for f in "$raw_dir/$1".*.txt; do field "$f" "$2" "$3" "$4"; done | grep . | median_lines
}
key() { [ -f "$1" ] && awk -v k="$2" '$1 == k { print $2; exit }' "$1"; }
human_size() {
    awk -v n="$1" 'BEGIN { if (n >= 1048576 && n % 1048576 == 0) printf "%d MiB\n", n / 1048576
        else if (n >= 1024 && n % 1024 == 0) printf "%d KiB\n", n / 1024; else printf "%d B\n", n }'
}

echo "### Between nodes: 2 nodes of scripts/cluster.sh, TCP over veth links"
echo
echo "- load average at start: $load_start; at the end: $load_end ($(nproc) CPUs, shared by both nodes)"
echo "- ours: \`ampirun --hostfile\` (UCX_TLS=tcp,self, UCX_NET_DEVICES=eth0); Open MPI $("$mpirun_cmd" --version 2>/dev/null | head -1 | awk '{ print $NF }'):" \
    "\`--mca pml ob1 --mca btl self,vader,tcp --mca btl_tcp_if_include eth0 --mca mpi_yield_when_idle $ompi_yield\`"
echo "- pingpong options: \`${pp_args[*]}\`; coll options: \`${coll_args[*]}\`"
echo "- each cell: median over $rounds interleaved rounds of each program's own median"
echo
echo "#### Ping-pong between 2 nodes, one rank each"
echo
echo "Latency: one way, µs; bandwidth: MB/s.  Ratio = AMPI / Open MPI."
echo
echo "| size | AMPI µs | Open MPI µs | latency ratio | AMPI MB/s | Open MPI MB/s | bandwidth ratio |"
echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
sizes=$(sed -n 's/^size=\([0-9]*\) .*/\1/p' "$raw_dir"/pp_ampi.1.txt "$raw_dir"/pp_ompi.1.txt 2>/dev/null | sort -nu)
for s in $sizes; do
    la=$(value pp_ampi lat_us "" "$s") lo=$(value pp_ompi lat_us "" "$s")
    ba=$(value pp_ampi bw_MBps "" "$s") bo=$(value pp_ompi bw_MBps "" "$s")
    echo "| $(human_size "$s") | $la | $lo | $(ratio "$la" "$lo") | $ba | $bo | $(ratio "$ba" "$bo") |"
done
echo
csizes=$(awk '$1 ~ /^op=/ { sub("size=", "", $2); print $2 }' "$raw_dir"/coll_*.1.txt 2>/dev/null | sort -nu)
for op in allreduce alltoall; do
    echo "#### MPI_$(echo "${op:0:1}" | tr a-z A-Z)${op:1} on 2 nodes (µs per call)"
    echo
    echo "One rank per process: 2 processes (one a node) and 4 (two a node); then"
    echo "16 ranks: ours in 2 processes (one a node), Open MPI's 16 processes (8 a"
    echo "node).  Ratio = Open MPI / AMPI: above 1, we are faster."
    echo
    echo "| size | AMPI 2 | Open MPI 2 | ratio 2 | AMPI 4 | Open MPI 4 | ratio 4 | AMPI 16 ranks in 2 processes | Open MPI 16 | ratio 16 |"
    echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    for s in $csizes; do
        a2=$(value coll_ampi_2 lat_us "$op" "$s") o2=$(value coll_ompi_2 lat_us "$op" "$s")
        a4=$(value coll_ampi_4 lat_us "$op" "$s") o4=$(value coll_ompi_4 lat_us "$op" "$s")
        a16=$(value coll_ampi_16in2 lat_us "$op" "$s")
        o16=$(value coll_ompi_16 lat_us "$op" "$s")
        echo "| $(human_size "$s") | $a2 | $o2 | $(ratio "$o2" "$a2") | $a4 | $o4 | $(ratio "$o4" "$a4") |" \
            "$a16 | $o16 | $(ratio "$o16" "$a16") |"
    done
    echo
done
echo "#### Imbalanced programs on 2 nodes (time of the timed loop, s)"
echo
echo "Arguments: \`${imb_args[*]}\`.  vs Open MPI: Open MPI's time over ours (above 1: faster)."
echo
for p in "${progs[@]}"; do
    want=$(key "$raw_dir/$p.ompi.1.txt" result)
    t_ompi=$(for r in $(seq 1 "$rounds"); do key "$raw_dir/$p.ompi.$r.txt" time_s; done | grep . | median_lines)
    echo "##### $p"
    echo
    echo "| configuration | median (s) | vs Open MPI |"
    echo "| --- | ---: | ---: |"
    for c in "${imb_confs[@]}"; do
        IFS='|' read -r tag _ label <<<"$c"
        bad=0
        for r in $(seq 1 "$rounds"); do
            out=$raw_dir/$p.$tag.$r.txt
            if ! grep -qx ok "$out" 2>/dev/null || [ -z "$want" ] ||
                [ "$(key "$out" result)" != "$want" ]; then
                note "$p, $label, round $r: no 'ok' or another result than Open MPI's (see $out)"
                bad=1 failed=1
            fi
        done
        t=$(for r in $(seq 1 "$rounds"); do key "$raw_dir/$p.$tag.$r.txt" time_s; done | grep . | median_lines)
        if [ "$bad" -ne 0 ]; then
            echo "| $label | failed | |"
        else
            echo "| $label | $t | $(ratio "$t_ompi" "$t") |"
        fi
    done
    echo
done
note "raw outputs in $raw_dir"
exit "$failed"
