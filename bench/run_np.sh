#!/usr/bin/env bash
# Runs the across-process benchmarks side by side and prints Markdown tables
# (docs/bench.md, "Across processes"): processes of one node, ours started
# by ampirun (node shared memory between the processes: rings between
# their PEs, windows, cross-memory copies; UCX for the rest) against Open
# MPI's mpirun (its shared-memory path: pml ob1, btl self,vader):
#
#   - ping-pong latency and bandwidth between 2 processes, one rank each
#     (ours also with AMPI_NODE_SHM=0: UCX alone, for context);
#   - put, get and accumulate (size / 8 doubles), each + MPI_Win_flush,
#     between 2 processes;
#   - MPI_Allreduce, MPI_Bcast and MPI_Alltoall with 2 and with 8
#     processes, one rank each (ours also 8 ranks in 2 processes, the way
#     this runtime runs best: many ranks per process).
#
#   bench/run_np.sh [BUILD_DIR] [PINGPONG_OPTIONS...]
#
# bench/run.sh runs it after its own tables; it also runs alone.  BUILD_DIR
# defaults to `build`; the programs come from BUILD_DIR/bench and ampirun
# from BUILD_DIR/bin (cmake --build BUILD_DIR --target bench ampirun).
# Further arguments go to every pingpong run (default
# `-s 8,64,512,4k,8k,64k,1m,4m`: 8 KiB is the first size past the 4 KiB
# eager limit, where the receiver copies from the sender's memory).
#
# Tables go to stdout, progress to stderr, raw outputs to
# BUILD_DIR/bench/results/<timestamp>/ (or BENCH_RAW_DIR).  Environment:
#   BENCH_ROUNDS    rounds (every program once each, interleaved); each
#                   cell is the median over the rounds (default 3)
#   BENCH_TIMEOUT   seconds allowed per program run (default 300)
#   MPIRUN          Open MPI's mpirun (default: mpirun.openmpi, else mpirun)
#   AMPIRUN         our launcher (default BUILD_DIR/bin/ampirun)
#   BENCH_NP_COLL_OPTIONS  options for every coll run (default
#                   "-o abt -m 65536": allreduce, bcast, alltoall, 8 B to
#                   64 KiB)
#   BENCH_RAW_DIR   where raw outputs go (run.sh passes its own); when it
#                   holds run.sh's single-process pingpong results, their
#                   two-PE column is shown for context
#
# Exit status: 0 when every program ran, 1 when one failed or was missing
# (its cells read n/a).  Targets missed are reported, never an error.
set -uo pipefail

build_dir=${1:-build}
shift || true
pingpong_args=("$@")
[ "${#pingpong_args[@]}" -gt 0 ] || pingpong_args=(-s '8,64,512,4k,8k,64k,1m,4m')
read -r -a coll_args <<<"${BENCH_NP_COLL_OPTIONS:--o abt -m 65536}"
bench_dir=$build_dir/bench
timeout_s=${BENCH_TIMEOUT:-300}
rounds=${BENCH_ROUNDS:-3}
ampirun=${AMPIRUN:-$build_dir/bin/ampirun}

case $rounds in
    '' | *[!0-9]* | 0) echo "run_np.sh: BENCH_ROUNDS must be a positive integer, got '$rounds'" >&2; exit 2 ;;
esac
if [ ! -d "$bench_dir" ]; then
    echo "run_np.sh: no $bench_dir; configure and build first" \
         "(cmake -S . -B $build_dir && cmake --build $build_dir --target bench ampirun)," \
         "or pass the build directory as the first argument" >&2
    exit 2
fi

raw_dir=${BENCH_RAW_DIR:-$bench_dir/results/$(date -u +%Y%m%d-%H%M%S)}
mkdir -p "$raw_dir" || exit 2
failed=0

note() { echo "run_np.sh: $*" >&2; }

# run NAME CMD...: bench/lib.sh
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

# field FILE KEY OP SIZE: value of KEY on the line of FILE with size=SIZE
# (and op=OP, unless OP is empty); lines are space-separated key=value pairs.
field() {
    [ -f "$1" ] || return 0
    awk -v key="$2" -v op="$3" -v sz="$4" '
        /^#/ { next }
        {
            delete kv
            for (i = 1; i <= NF; i++) {
                eq = index($i, "=")
                if (eq) kv[substr($i, 1, eq - 1)] = substr($i, eq + 1)
            }
            if ((op == "" || kv["op"] == op) && kv["size"] == sz && (key in kv)) {
                print kv[key]
                exit
            }
        }' "$1"
}

# value NAME KEY OP SIZE: median over the rounds of NAME.
value() {
    local f
    for f in "$raw_dir/$1".*.txt; do
        field "$f" "$2" "$3" "$4"
    done | sort -g | awk '{ v[NR] = $1 } END {
        if (NR == 0) exit
        if (NR % 2) print v[(NR + 1) / 2]
        else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# ratio A B [FORMAT]: A / B, or n/a when either is missing.
ratio() {
    awk -v a="$1" -v b="$2" -v f="${3:-%.2f}" 'BEGIN {
        if (a == "" || b == "" || b + 0 == 0) print "n/a"; else printf f "\n", a / b }'
}

# verdict VALUE OP LIMIT: yes/no/n/a for VALUE OP LIMIT (OP is <= or >=).
verdict() {
    awk -v v="$1" -v op="$2" -v l="$3" 'BEGIN {
        if (v == "" || v == "n/a" || l == "" || l == "n/a") { print "n/a"; exit }
        ok = (op == "<=") ? v + 0 <= l + 0 : v + 0 >= l + 0
        print ok ? "yes" : "no" }'
}

or_na() { if [ -n "$1" ]; then echo "$1"; else echo "n/a"; fi; }
with() { if [ -n "$1" ] && [ "$1" != "n/a" ]; then echo "$1$2"; else echo "n/a"; fi; }

human_size() {
    awk -v n="$1" 'BEGIN {
        if (n >= 1048576 && n % 1048576 == 0) printf "%d MiB\n", n / 1048576
        else if (n >= 1024 && n % 1024 == 0) printf "%d KiB\n", n / 1024
        else printf "%d B\n", n }'
}

# ------------------------------------------------------------------ setup
load_start=$(cut -d ' ' -f 1-3 /proc/loadavg 2>/dev/null)
ncpu=$(nproc)
ncores=$(lscpu -p=CORE,SOCKET 2>/dev/null | grep -v '^#' | sort -u | wc -l)
[ "$ncores" -gt 0 ] 2>/dev/null || ncores=$ncpu
root_flag=()
[ "$(id -u)" -eq 0 ] && root_flag=(--allow-run-as-root)

mpirun_cmd=${MPIRUN:-}
if [ -z "$mpirun_cmd" ]; then
    mpirun_cmd=$(command -v mpirun.openmpi || command -v mpirun || true)
fi
ompi_version=""
if [ -n "$mpirun_cmd" ]; then
    ompi_version=$("$mpirun_cmd" --version 2>/dev/null | head -n 1 | awk '{ print $NF }')
fi

# Ours: ampirun starts the processes through Open MPI's mpirun with
# --bind-to none; each process pins its PEs to its share of the cores.
# The launcher needs --oversubscribe only past one process per core.
ampi_launch() { # NPROCS: the ampirun command line up to the program
    local cmd=("$ampirun" -n "$1" --launcher "$mpirun_cmd")
    local f
    for f in "${root_flag[@]}"; do cmd+=(--launcher-arg "$f"); done
    [ "$1" -le "$ncores" ] || cmd+=(--launcher-arg --oversubscribe)
    printf '%s\n' "${cmd[@]}"
}
mapfile -t ampi2 < <(ampi_launch 2)
mapfile -t ampi8 < <(ampi_launch 8)

# Open MPI: the shared-memory path named explicitly (pml ob1, btl vader;
# single copy through CMA for large messages).  Two processes bound to two
# cores, not oversubscribed (see "Running Open MPI fairly"); eight
# processes on two cores must be oversubscribed, and then Open MPI yields
# while it polls.
ompi_sm=(--mca pml ob1 --mca btl 'self,vader')
ompi2=("$mpirun_cmd" "${root_flag[@]}" "${ompi_sm[@]}" -np 2)
if [ "$ncores" -ge 2 ]; then
    ompi2_binding="2 processes, --bind-to core"
    ompi2+=(--bind-to core)
else
    ompi2_binding="2 processes on 1 core (--oversubscribe --bind-to none)"
    ompi2+=(--oversubscribe --bind-to none)
fi
ompi8=("$mpirun_cmd" "${root_flag[@]}" "${ompi_sm[@]}" -np 8 --oversubscribe --bind-to none)

have_ompi=1
if [ -z "$mpirun_cmd" ]; then
    note "Open MPI's mpirun not found: ampirun cannot start processes and the peer is missing"
    have_ompi=0
    failed=1
fi

# Which UCX transports our processes open and use: one short run with UCX's
# debug log (on stdout): "created interface" names every transport a worker
# opened, the ep_cfg lines the one of each lane of the endpoint.
ucx_log() { # SED_EXPRESSION: its matches in the log, unique, on one line
    cat "$raw_dir"/ucx_log.txt "$raw_dir"/ucx_log.err 2>/dev/null |
        sed -n "$1" | awk '!seen[$0]++' | paste -sd ' ' -
}
if [ "$have_ompi" -eq 1 ]; then
    run ucx_log "${ampi2[@]}" -x UCX_LOG_LEVEL=debug \
        "$bench_dir/pingpong-ampi" +vp 2 +p 1 -s 8,64k -i 100 -r 1
fi
ucx_version=$(ucx_log 's/.*UCX  INFO  Version \([^ ]*\).*/\1/p')
ucx_opened=$(ucx_log 's/.*created interface\[[0-9]*\]=[^ ]* using \([^ ]*\) on worker.*/\1/p')
ucx_lanes=$(ucx_log 's/.*ep_cfg\[[0-9]*\]: *//p')

# --------------------------------------------------------------------- runs
for round in $(seq 1 "$rounds"); do
    if [ "$have_ompi" -eq 1 ]; then
        run "np_pp_ampi.$round" "${ampi2[@]}" \
            "$bench_dir/pingpong-ampi" +vp 2 +p 1 "${pingpong_args[@]}"
        run "np_pp_ompi.$round" "${ompi2[@]}" \
            "$bench_dir/pingpong-ompi" "${pingpong_args[@]}"
        run "np_pp_ucx.$round" "${ampi2[@]}" -x AMPI_NODE_SHM=0 \
            "$bench_dir/pingpong-ampi" +vp 2 +p 1 "${pingpong_args[@]}"
        run "np_rma_ampi.$round" "${ampi2[@]}" \
            "$bench_dir/rma-ampi" +vp 2 +p 1
        run "np_rma_ompi.$round" "${ompi2[@]}" "$bench_dir/rma-ompi"
        run "np_coll_ampi_2.$round" "${ampi2[@]}" \
            "$bench_dir/coll-ampi" +vp 2 +p 1 "${coll_args[@]}"
        run "np_coll_ompi_2.$round" "${ompi2[@]}" \
            "$bench_dir/coll-ompi" "${coll_args[@]}"
        run "np_coll_ampi_8.$round" "${ampi8[@]}" \
            "$bench_dir/coll-ampi" +vp 8 +p 1 "${coll_args[@]}"
        run "np_coll_ompi_8.$round" "${ompi8[@]}" \
            "$bench_dir/coll-ompi" "${coll_args[@]}"
        run "np_coll_ampi_8in2.$round" "${ampi2[@]}" \
            "$bench_dir/coll-ampi" +vp 8 +p 1 "${coll_args[@]}"
    fi
done

# ------------------------------------------------------------------- tables
sizes=$(cat "$raw_dir"/np_pp_ampi.1.txt "$raw_dir"/np_pp_ompi.1.txt 2>/dev/null |
        sed -n 's/^size=\([0-9]*\) .*/\1/p' | awk '!seen[$0]++' | sort -n)
bw_size=$(echo "$sizes" | tail -n 1)
context=0
ls "$raw_dir"/ampi_p2.*.txt >/dev/null 2>&1 && context=1

echo "### Across processes: processes of one node"
echo
echo "- load average at start: $load_start ($ncpu CPUs); at the end: $(cut -d ' ' -f 1-3 /proc/loadavg 2>/dev/null)"
echo "- ours: \`ampirun -n N\` through $(basename "${mpirun_cmd:-mpirun}");" \
     "between processes of the node: shared-memory rings and cross-memory copies;" \
     "UCX ${ucx_version:-(version unknown)} for the rest (transports opened: ${ucx_opened:-unknown})"
echo "- Open MPI ${ompi_version:-(not found)}: \`${ompi_sm[*]}\`; 2 processes:" \
     "$ompi2_binding; 8 processes: --oversubscribe --bind-to none"
echo "- each cell: median over $rounds interleaved rounds of each program's own median"
echo "- pingpong options: \`${pingpong_args[*]}\`; coll options: \`${coll_args[*]}\`"
echo
echo "#### Ping-pong between 2 processes, one rank each (median)"
echo
echo "AMPI: \`ampirun -n 2 pingpong-ampi +vp 2 +p 1\`; UCX alone: the same with"
echo "\`-x AMPI_NODE_SHM=0\`.  Latency: one way, µs; ratio = AMPI / Open MPI"
echo "(above 1: we are slower).  Bandwidth: MB/s (10^6 B/s); ratio = AMPI /"
echo "Open MPI (below 1: we are slower)."
if [ "$context" -eq 1 ]; then
    echo "Last column, for context: one process, two PEs (+vp 2 +p 2), from the"
    echo "ping-pong table above."
fi
echo
hdr="| size | AMPI µs | Open MPI µs | latency AMPI / OMPI | AMPI MB/s | Open MPI MB/s | bandwidth AMPI / OMPI | UCX alone µs | UCX alone MB/s |"
rule="| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
if [ "$context" -eq 1 ]; then
    hdr="$hdr AMPI one process, two PEs, µs |"
    rule="$rule ---: |"
fi
echo "$hdr"
echo "$rule"
for s in $sizes; do
    la=$(value np_pp_ampi lat_us "" "$s")
    lo=$(value np_pp_ompi lat_us "" "$s")
    ba=$(value np_pp_ampi bw_MBps "" "$s")
    bo=$(value np_pp_ompi bw_MBps "" "$s")
    row="| $(human_size "$s") | $(or_na "$la") | $(or_na "$lo") | $(ratio "$la" "$lo") |"
    row="$row $(or_na "$ba") | $(or_na "$bo") | $(ratio "$ba" "$bo") |"
    row="$row $(or_na "$(value np_pp_ucx lat_us "" "$s")") | $(or_na "$(value np_pp_ucx bw_MBps "" "$s")") |"
    [ "$context" -eq 1 ] && row="$row $(or_na "$(value ampi_p2 lat_us "" "$s")") |"
    echo "$row"
done
echo

echo "#### One-sided operations between 2 processes (µs per operation + flush, median)"
echo
echo "Rank 0 puts to, gets from and accumulates to (MPI_SUM, size / 8 doubles)"
echo "rank 1's MPI_Win_allocate window under MPI_Win_lock, each operation"
echo "followed by MPI_Win_flush, while rank 1 waits in MPI_Barrier.  Both map"
echo "the window in memory the two processes share, so the origin loads and"
echo "stores the target's memory itself.  Ratio = AMPI / Open MPI (above 1: we"
echo "are slower)."
echo
echo "| size | AMPI put | Open MPI put | ratio put | AMPI get | Open MPI get | ratio get | AMPI acc | Open MPI acc | ratio acc |"
echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
rsizes=$(cat "$raw_dir"/np_rma_*.1.txt 2>/dev/null |
         awk '$1 == "op=put" { sub("size=", "", $2); print $2 }' | sort -n | uniq)
for s in $rsizes; do
    row="| $(human_size "$s") |"
    for op in put get acc; do
        a=$(value np_rma_ampi lat_us "$op" "$s")
        o=$(value np_rma_ompi lat_us "$op" "$s")
        row="$row $(or_na "$a") | $(or_na "$o") | $(ratio "$a" "$o") |"
    done
    echo "$row"
done
echo

csizes=$(cat "$raw_dir"/np_coll_*.1.txt 2>/dev/null |
         awk '$1 ~ /^op=/ { sub("size=", "", $2); print $2 }' | sort -n | uniq)
for op in allreduce bcast alltoall; do
    echo "#### MPI_$(echo "${op:0:1}" | tr a-z A-Z)${op:1} across processes (µs per call, median)"
    echo
    echo "MPI_COMM_WORLD; one rank per process (AMPI: \`ampirun -n N coll-ampi +vp N"
    echo "+p 1\`, Open MPI: \`mpirun -np N\`), and AMPI with 8 ranks in 2 processes"
    echo "(\`ampirun -n 2 coll-ampi +vp 8 +p 1\`, compared with Open MPI's 8"
    echo "processes).  Ratio = Open MPI / AMPI: above 1 means we are faster."
    echo
    echo "| size | AMPI 2 | Open MPI 2 | ratio 2 | AMPI 8 | Open MPI 8 | ratio 8 | AMPI 8 ranks in 2 processes | ratio |"
    echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    for s in $csizes; do
        o8=$(value np_coll_ompi_8 lat_us "$op" "$s")
        row="| $(human_size "$s") |"
        for n in 2 8; do
            a=$(value "np_coll_ampi_$n" lat_us "$op" "$s")
            o=$(value "np_coll_ompi_$n" lat_us "$op" "$s")
            row="$row $(or_na "$a") | $(or_na "$o") | $(ratio "$o" "$a") |"
        done
        a=$(value np_coll_ampi_8in2 lat_us "$op" "$s")
        row="$row $(or_na "$a") | $(ratio "$o8" "$a") |"
        [ -n "$(value np_coll_ampi_2 lat_us "$op" "$s")$(value np_coll_ompi_2 lat_us "$op" "$s")" ] &&
            echo "$row"
    done
    echo
done

lat8=$(value np_pp_ampi lat_us "" 8)
lat8_o=$(value np_pp_ompi lat_us "" 8)
lat8_r=$(ratio "$lat8" "$lat8_o")
bw=$(value np_pp_ampi bw_MBps "" "$bw_size")
bw_o=$(value np_pp_ompi bw_MBps "" "$bw_size")
bw_r=$(ratio "$bw" "$bw_o")
put8=$(value np_rma_ampi lat_us put 8)
put8_o=$(value np_rma_ompi lat_us put 8)
put8_r=$(ratio "$put8" "$put8_o")
ar2=$(value np_coll_ampi_2 lat_us allreduce 8)
ar2_o=$(value np_coll_ompi_2 lat_us allreduce 8)
ar2_r=$(ratio "$ar2" "$ar2_o")
hs=$(human_size "${bw_size:-0}")
echo "#### Against the targets (across processes)"
echo
echo "| metric | target | measured | met |"
echo "| --- | --- | ---: | :---: |"
echo "| 8-byte ping-pong latency, 2 processes | ≤ Open MPI's ($(with "$lat8_o" " µs")) |" \
     "$(with "$lat8" " µs") ($(with "$lat8_r" ×)) | $(verdict "$lat8_r" '<=' 1) |"
echo "| 8-byte put + flush, 2 processes | ≤ 2× Open MPI's ($(with "$put8_o" " µs")) |" \
     "$(with "$put8" " µs") ($(with "$put8_r" ×)) | $(verdict "$put8_r" '<=' 2) |"
echo "| $hs ping-pong bandwidth, 2 processes | ≥ Open MPI's ($(with "$bw_o" " MB/s")) |" \
     "$(with "$bw" " MB/s") ($(with "$bw_r" ×)) | $(verdict "$bw_r" '>=' 1) |"
echo "| 8-byte MPI_Allreduce, 2 processes | ≤ Open MPI's ($(with "$ar2_o" " µs")) |" \
     "$(with "$ar2" " µs") ($(with "$ar2_r" ×)) | $(verdict "$ar2_r" '<=' 1) |"
echo

note "raw output in $raw_dir"
exit "$failed"
