#!/usr/bin/env bash
# Imbalanced programs of our own (bench/imbalance/README.md), plain MPI,
# under Open MPI and under this runtime with and without balancing.
#
#   bench/run_imbalance.sh [BUILD_DIR]
#
# Builds bench/imbalance/{pic,hotspot,refine,balanced}.c with Open MPI's
# mpicc and with BUILD_DIR/bin/ampicc (default BUILD_DIR: build), then
# runs, BENCH_ROUNDS times (default 3), every program in every
# configuration, interleaved (one round runs each once):
#   - Open MPI, 2 ranks on 2 cores: mpirun -n 2 --bind-to core (pml ob1,
#     btl self,vader, as bench/run_np.sh);
#   - ours, one rank per core: +vp 2 +p 2;
#   - ours, 8 and 32 ranks per core (+vp 16, +vp 64; +p 2), each without
#     balancing (+nosteal), with the default (idle PEs steal ranks) and
#     with stealing and periodic balancing (+balancer GreedyLB +lbperiod
#     0.2, BENCH_BALANCER and BENCH_LBPERIOD), in one process;
#   - the same across 2 processes of one PE each: BUILD_DIR/bin/ampirun
#     -n 2 prog +vp N +p 1 ... (N = 2, 16, 64).
# A configuration whose runtime options the build rejects (a short run
# with them fails first) is skipped, with the reason in its row.
#
# Prints a Markdown table per program: the median of the timed loop
# (time_s), Open MPI's median over it ("vs Open MPI": above 1 is faster
# than Open MPI) and the ideal time over it ("vs ideal": 1 is as fast as
# perfect balance); then the same two ratios of the best round of each
# ("best"): on a machine whose other work only ever adds time, the
# fastest of several rounds is the least disturbed one; and "paired: vs
# ideal", the median over the rounds of the ideal of the Open MPI run next
# to ours over ours: for the rows with a balancer, a run of Open MPI's
# made just before that row's own (the machine's speed may change within
# a round, which lasts minutes); for the others, the round's first.  The
# ideal is Open MPI's median times
# load_mean / load_max_steps of Open MPI's run: the programs synchronize
# every step (pic) or every few steps (the grids), so a step lasts as long
# as its busiest rank's work, and perfect balance would make each step last
# its mean work (README.md: the loads).  load_max / load_mean (whole run)
# is printed beside it.
#
# Every run must print "ok" (its own check passed) and the same `result`
# as Open MPI's; otherwise the script ends with status 1 (after the
# tables).  Timings are never pass/fail.  Environment:
#   BENCH_ROUNDS    rounds (default 3); each time is the median over them
#   BENCH_ARGS      arguments for every program (default none: the default
#                   sizes; "-s" runs the test size)
#   BENCH_PROGRAMS  programs to run (default "pic hotspot refine balanced")
#   BENCH_VPS       rank counts of the many-ranks rows (default "16 64")
#   BENCH_BALANCER  the strategy of the balanced rows (default GreedyLB);
#                   BENCH_LBPERIOD its period (default 0.2)
#   BENCH_LBPREDICT non-empty: also the balanced rows with +lbpredict
#   BENCH_TIMEOUT   seconds allowed per run (default 300)
#   BENCH_CC        the C compiler behind both wrappers (default: ampicc's;
#                   Open MPI's mpicc is given it as OMPI_CC: same_cc)
#   MPIRUN, MPICC   Open MPI's (default mpirun.openmpi / mpicc.openmpi,
#                   else mpirun / mpicc)
# Raw outputs: BUILD_DIR/bench/results/imbalance-<timestamp>/.
set -uo pipefail

build_dir=${1:-build}
rounds=${BENCH_ROUNDS:-3}
timeout_s=${BENCH_TIMEOUT:-300}
read -r -a args <<<"${BENCH_ARGS:-}"
read -r -a programs <<<"${BENCH_PROGRAMS:-pic hotspot refine balanced}"
read -r -a vps <<<"${BENCH_VPS:-16 64}"
src_dir=$(cd "$(dirname "$0")" && pwd)/imbalance
ampicc=$build_dir/bin/ampicc
ampirun=$build_dir/bin/ampirun
mpirun_cmd=${MPIRUN:-$(command -v mpirun.openmpi || command -v mpirun || true)}
mpicc_cmd=${MPICC:-$(command -v mpicc.openmpi || command -v mpicc || true)}

note() { echo "run_imbalance.sh: $*" >&2; }
# run NAME CMD...: bench/lib.sh
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

case $rounds in
    '' | *[!0-9]* | 0) note "BENCH_ROUNDS must be a positive integer, got '$rounds'"; exit 2 ;;
esac
for tool in "$ampicc" "$ampirun"; do
    [ -x "$tool" ] || { note "no $tool; build first (cmake --build $build_dir)"; exit 2; }
done
if [ -z "$mpirun_cmd" ] || [ -z "$mpicc_cmd" ] ||
    ! "$mpicc_cmd" --showme:version 2>&1 | grep -q "Open MPI"; then
    note "needs Open MPI's mpirun and mpicc (MPIRUN, MPICC)"
    exit 2
fi

raw_dir=$build_dir/bench/results/imbalance-$(date -u +%Y%m%d-%H%M%S)
bin=$raw_dir/bin
mkdir -p "$bin" || exit 2
failed=0
same_cc "$ampicc" || { note "$ampicc -showme:command failed"; exit 2; }
for prog in "${programs[@]}"; do
    [ -f "$src_dir/$prog.c" ] || { note "no program $prog in $src_dir"; exit 2; }
    if ! "$mpicc_cmd" -std=c11 -O2 -o "$bin/$prog-ompi" "$src_dir/$prog.c" ||
        ! "$ampicc" -std=c11 -O2 -o "$bin/$prog-ampi" "$src_dir/$prog.c"; then
        note "building $prog failed"
        exit 2
    fi
done

root=()
[ "$(id -u)" -ne 0 ] || root=(--allow-run-as-root)
ompi=("$mpirun_cmd" "${root[@]}" --mca pml ob1 --mca btl 'self,vader' -n 2
    --bind-to core)
ampi2=("$ampirun" -n 2 --launcher "$mpirun_cmd" "${root[@]}")

# The configurations: name, how many processes (0: Open MPI), +vp, +p,
# the runtime options, the row's label.
names=() nps=() cvps=() cps=() flags=() labels=() pairs=()
add() {
    names+=("$1") nps+=("$2") cvps+=("$3") cps+=("$4") flags+=("$5")
    labels+=("$6")
    case $5 in *+balancer*) pairs+=(1) ;; *) pairs+=(0) ;; esac
}
balancer=${BENCH_BALANCER:-GreedyLB}
period=${BENCH_LBPERIOD:-0.2}
balance_modes=("nosteal|+nosteal|no balancing (+nosteal)"
    "steal||default (stealing)"
    "lb|+balancer $balancer +lbperiod $period|stealing, $balancer every $period s")
[ -z "${BENCH_LBPREDICT:-}" ] || balance_modes+=(
    "lbp|+balancer $balancer +lbperiod $period +lbpredict|stealing, $balancer every $period s, +lbpredict")
add ompi 0 2 2 "" "Open MPI, 2 ranks (mpirun -n 2 --bind-to core)"
add vp2 1 2 2 "" "ours, +vp 2 +p 2"
for np in 1 2; do
    p=$((3 - np))
    where=$([ "$np" -eq 1 ] && echo "1 process" || echo "2 processes")
    [ "$np" -eq 1 ] || add np2.vp2 2 2 1 "" "ours, $where, +vp 2 +p 1"
    for vp in "${vps[@]}"; do
        for mode in "${balance_modes[@]}"; do
            IFS='|' read -r tag opts text <<<"$mode"
            pre=$([ "$np" -eq 1 ] && echo "" || echo "np2.")
            add "${pre}vp$vp.$tag" "$np" "$vp" "$p" "$opts" \
                "ours, $where, +vp $vp +p $p, $text"
        done
    done
done

# Runtime options this build rejects: a short run of the first program
# with them must pass, else their configurations are skipped.
declare -A rejected=()
for f in "${flags[@]}"; do
    if [ -z "$f" ] || [ -n "${rejected[$f]+set}" ]; then
        continue
    fi
    read -r -a fa <<<"$f"
    if timeout 60 "$bin/${programs[0]}-ampi" -s +vp 2 +p 2 "${fa[@]}" \
        >"$raw_dir/probe.txt" 2>&1; then
        rejected[$f]=""
    else
        why=$(sed -n "s/.*unknown runtime option '\([^']*\)'.*/\1/p" \
            "$raw_dir/probe.txt" | head -n 1)
        if [ -n "$why" ]; then
            rejected[$f]="skipped: this build rejects $why"
        else
            rejected[$f]="skipped: $(grep -m1 . "$raw_dir/probe.txt" | cut -c1-60)"
        fi
        kept=$raw_dir/probe-rejected-${#rejected[@]}.txt
        cp "$raw_dir/probe.txt" "$kept"
        note "$f: ${rejected[$f]} (see $kept)"
    fi
done

load_before=$(cut -d ' ' -f 1-3 /proc/loadavg)
for ((r = 1; r <= rounds; r++)); do
    for prog in "${programs[@]}"; do
        for i in "${!names[@]}"; do
            f=${flags[$i]}
            [ -z "$f" ] || [ -z "${rejected[$f]}" ] || continue
            read -r -a fa <<<"$f"
            if [ "${nps[$i]}" -eq 0 ]; then
                cmd=("${ompi[@]}" "$bin/$prog-ompi")
            elif [ "${nps[$i]}" -eq 1 ]; then
                cmd=("$bin/$prog-ampi")
            else
                cmd=("${ampi2[@]}" "$bin/$prog-ampi")
            fi
            [ "${nps[$i]}" -eq 0 ] ||
                cmd+=(+vp "${cvps[$i]}" +p "${cps[$i]}" "${fa[@]}")
            # A balanced row's Open MPI run beside it (paired, below).
            [ "${pairs[$i]}" -eq 0 ] ||
                run "$prog.ompi.${names[$i]}.$r" "${ompi[@]}" \
                    "$bin/$prog-ompi" "${args[@]}"
            run "$prog.${names[$i]}.$r" "${cmd[@]}" "${args[@]}"
        done
    done
done
load_after=$(cut -d ' ' -f 1-3 /proc/loadavg)

key() { [ -f "$1" ] && awk -v k="$2" '$1 == k { print $2; exit }' "$1"; }
seconds() { awk -v t="$1" 'BEGIN { if (t == "n/a") print t; else printf "%.3f\n", t }'; }
echo "# Imbalanced programs: $rounds round(s), BENCH_ARGS='${args[*]}'"
echo
echo "Median of the timed loop (time_s).  vs Open MPI: Open MPI's time over"
echo "ours (above 1: faster).  vs ideal: ideal time over ours, the ideal being"
echo "Open MPI's time x load_mean / load_max_steps of its run.  best: the same"
echo "of the fastest round of each (Open MPI's fastest for its ratios).  paired:"
echo "the median over the rounds of the ideal of an Open MPI run next to ours"
echo "over ours (for a row with a balancer, Open MPI ran just before it; for the"
echo "others, first in the round: a machine that slows down for a while slows"
echo "both).  Load average"
echo "before: $load_before; after: $load_after.  $(nproc) CPUs.  Both sides compiled"
echo "by $OMPI_CC -O2 (BENCH_CC)."
if [ -n "${rejected[+nosteal]:-}" ]; then
    echo
    echo "This build rejects +nosteal: its \"default (stealing)\" rows run with"
    echo "whatever it does by default."
fi
for prog in "${programs[@]}"; do
    ref=$raw_dir/$prog.ompi.1.txt
    want=$(key "$ref" result)
    t_ompi=$(for f in "$raw_dir/$prog".ompi.[0-9]*.txt; do key "$f" time_s; done | median_lines)
    b_ompi=$(for f in "$raw_dir/$prog".ompi.[0-9]*.txt; do key "$f" time_s; done | min_lines)
    mean=$(key "$ref" load_mean) max=$(key "$ref" load_max)
    max_steps=$(key "$ref" load_max_steps)
    ideal_of() {
        awk -v t="$1" -v m="$mean" -v x="$max_steps" 'BEGIN {
            if (t == "n/a" || t == "" || m == "" || x == "" || x + 0 == 0) print "n/a"
            else print t * m / x }'
    }
    ideal=$(ideal_of "$t_ompi") ideal_best=$(ideal_of "$b_ompi")
    echo
    echo "## $prog"
    echo
    echo "Open MPI, 2 ranks: load_max / load_mean $(ratio "$max" "$mean") (whole run),"
    echo "load_max_steps / load_mean $(ratio "$max_steps" "$mean") (step by step);"
    echo "ideal time $(seconds "$ideal") s."
    echo
    echo "| configuration | median (s) | vs Open MPI | vs ideal | best (s) | best: vs Open MPI | best: vs ideal | paired: vs ideal |"
    echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    for i in "${!names[@]}"; do
        f=${flags[$i]}
        if [ -n "$f" ] && [ -n "${rejected[$f]}" ]; then
            echo "| ${labels[$i]} | ${rejected[$f]} | | | | | | |"
            continue
        fi
        times=() paired=() bad=0
        for ((r = 1; r <= rounds; r++)); do
            out=$raw_dir/$prog.${names[$i]}.$r.txt
            next_to=$raw_dir/$prog.ompi.$r.txt
            [ "${pairs[$i]}" -eq 0 ] ||
                next_to=$raw_dir/$prog.ompi.${names[$i]}.$r.txt
            grep -qx ok "$next_to" 2>/dev/null ||
                note "$prog, Open MPI before ${labels[$i]}, round $r: no 'ok' (see $next_to)"
            paired+=("$(ratio "$(ideal_of "$(key "$next_to" time_s)")" "$(key "$out" time_s)")")
            got=$(key "$out" result)
            if ! grep -qx ok "$out" 2>/dev/null; then
                note "$prog, ${labels[$i]}, round $r: no 'ok' (see $out and .err)"
                failed=1 bad=1
            elif [ -z "$want" ] || [ "$got" != "$want" ]; then
                note "$prog, ${labels[$i]}, round $r: result $got, Open MPI's ${want:-missing}"
                failed=1 bad=1
            fi
            times+=("$(key "$out" time_s)")
        done
        t=$(printf '%s\n' "${times[@]}" | grep . | median_lines)
        b=$(printf '%s\n' "${times[@]}" | grep . | min_lines)
        if [ "$bad" -ne 0 ]; then
            echo "| ${labels[$i]} | failed (stderr says how) | | | | | | |"
            continue
        fi
        echo "| ${labels[$i]} | $(seconds "$t") | $(ratio "$t_ompi" "$t") |" \
            "$(ratio "$ideal" "$t") | $(seconds "$b") |" \
            "$(ratio "$b_ompi" "$b") | $(ratio "$ideal_best" "$b") |" \
            "$(printf '%s\n' "${paired[@]}" | grep -v n/a | median_lines) |"
    done
done
echo
echo "Raw outputs: $raw_dir"
exit "$failed"
