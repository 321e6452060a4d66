#!/usr/bin/env bash
# What a lost process costs a job that checkpoints (docs/bench.md,
# "Checkpoints and recovery"): lit/runtime/Inputs/ckpt-iterate.c in 3
# processes (6 ranks of 1 MiB, 60 steps of 10 ms, a checkpoint every 5
# steps) run undisturbed, then with one process killed (SIGKILL) at a
# moment drawn from each seed, checkpointing to files under ampirun
# --restart-on-failure and in memory under ampirun without options; as
# root also in memory with each process on a "node" of its own whose
# /dev/shm is lost with it (lit/runtime/Inputs/own-node.sh: the restart
# first gathers the lost files from the next node's copies).  Each run's
# output must be the undisturbed one's; a Markdown table of wall times on
# stdout.  Timings are not pass/fail.
#
#   bench/run_recovery.sh [BUILD_DIR]
#
# BENCH_ROUNDS (default 3) runs of each, seeds 1.. for the killed ones.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${1:-build}
rounds=${BENCH_ROUNDS:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prog=$work/ckpt-iterate
args=(60 5 131072 10 +vp 6 +p 1)
"$build_dir/bin/ampicc" -O2 "$root/lit/runtime/Inputs/ckpt-iterate.c" \
    -o "$prog" || exit 1
"$prog" none "${args[@]}" >"$work/ref" || exit 1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
ampirun=$build_dir/bin/ampirun

# seconds CMD...: CMD's wall time; its output must be the reference.
seconds() {
    local t0 t1
    t0=$(date +%s.%N)
    "$@" >"$work/out" 2>"$work/err"
    t1=$(date +%s.%N)
    if ! cmp -s "$work/ref" "$work/out"; then
        echo "run_recovery.sh: a run gave another output:" >&2
        tail -5 "$work/err" >&2
        exit 1
    fi
    echo "$t1 - $t0" | bc
}

kill_one() { # SEED WHERE-ARGS... -- AMPIRUN-ARGS...
    local seed=$1
    shift
    python3 "$root/lit/runtime/Inputs/kill-one-process.py" --seed "$seed" \
        --max-delay 0.5 --program "$prog" "$@"
}

echo "| checkpoints | undisturbed (s) | one process killed (s) | cost of the failure (s) |"
echo "| --- | --- | --- | --- |"
kinds="files memory"
[ "$(id -u)" = 0 ] && kinds="$kinds nodes"
own_node=("$root/lit/runtime/Inputs/own-node.sh" "$work/nodes")
for kind in $kinds; do
    plain=() killed=()
    for r in $(seq 1 "$rounds"); do
        rm -rf "$work/d" "$work/d.next" "$work/nodes"
        if [ "$kind" = nodes ]; then
            plain+=("$(seconds "$ampirun" -n 3 "${own_node[@]}" "$prog" memory \
                "${args[@]}")")
            killed+=("$(seconds kill_one "$r" --memory --nodes "$work/nodes" \
                -- "$ampirun" -n 3 "${own_node[@]}" "$prog" memory \
                "${args[@]}")")
        elif [ "$kind" = files ]; then
            plain+=("$(seconds "$ampirun" -n 3 "$prog" "$work/d" "${args[@]}")")
            rm -rf "$work/d" "$work/d.next"
            killed+=("$(seconds kill_one "$r" --dir "$work/d" -- "$ampirun" \
                -n 3 --restart-on-failure "$prog" "$work/d" "${args[@]}")")
        else
            plain+=("$(seconds "$ampirun" -n 3 "$prog" memory "${args[@]}")")
            killed+=("$(seconds kill_one "$r" --memory -- "$ampirun" -n 3 \
                "$prog" memory "${args[@]}")")
        fi
    done
    p=$(printf '%s\n' "${plain[@]}" | sort -n | sed -n "$(((rounds + 1) / 2))p")
    k=$(printf '%s\n' "${killed[@]}" | sort -n | sed -n "$(((rounds + 1) / 2))p")
    printf '| %s | %.2f (%s) | %.2f (%s) | %.2f |\n' "$kind" "$p" \
        "$(printf '%.2f ' "${plain[@]}")" "$k" "$(printf '%.2f ' "${killed[@]}")" \
        "$(echo "$k - $p" | bc)"
done
