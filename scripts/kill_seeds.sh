#!/usr/bin/env bash
# The kill test of lit/runtime/checkpoint-kill-np.test over many seeds
# (docs/testing.md, "Longer runs"): lit/runtime/Inputs/ckpt-iterate.c in 3
# processes (6 ranks, a checkpoint to files every 5 steps) under ampirun
# --restart-on-failure, one process killed with SIGKILL at a moment drawn
# from each seed (every fourth seed: while a checkpoint is written); the
# output must be that of a run that was not disturbed.  KIND "memory":
# in-memory checkpoints under ampirun without options, as
# lit/runtime/checkpoint-memory-kill-np.test (default "files").  KIND
# "nodes" (root): the same with each process on a node of its own whose
# /dev/shm is lost with it (lit/runtime/Inputs/own-node.sh), as
# lit/runtime/checkpoint-memory-nodes.test.
#
#   scripts/kill_seeds.sh [BUILD_DIR] [FIRST_SEED] [LAST_SEED] [KIND]
#
# Prints one line per seed and a summary; exit status 1 if any run differed
# or failed.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${1:-build}
first=${2:-1}
last=${3:-20}
kind=${4:-files}
case $kind in
files | memory | nodes) ;;
*) echo "kill_seeds.sh: KIND '$kind': use files, memory or nodes" >&2; exit 2 ;;
esac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prog=$work/ckpt-iterate
args=(60 5 131072 10 +vp 6 +p 1)
"$build_dir/bin/ampicc" -O2 "$root/lit/runtime/Inputs/ckpt-iterate.c" \
    -o "$prog" || exit 1
"$prog" none "${args[@]}" >"$work/ref" || exit 1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
bad=0
for seed in $(seq "$first" "$last"); do
    rm -rf "$work/d" "$work/d.next"
    during=()
    [ $((seed % 4)) -eq 0 ] && during=(--during-checkpoint)
    wrap=()
    if [ "$kind" = nodes ]; then
        rm -rf "$work/nodes"
        where=(--memory --nodes "$work/nodes") how=() arg=memory
        wrap=("$root/lit/runtime/Inputs/own-node.sh" "$work/nodes")
    elif [ "$kind" = memory ]; then
        where=(--memory) how=() arg=memory
    else
        where=(--dir "$work/d") how=(--restart-on-failure) arg=$work/d
    fi
    python3 "$root/lit/runtime/Inputs/kill-one-process.py" --seed "$seed" \
        "${where[@]}" --max-delay 0.5 "${during[@]}" --program "$prog" -- \
        "$build_dir/bin/ampirun" -n 3 "${how[@]}" "${wrap[@]}" "$prog" \
        "$arg" "${args[@]}" >"$work/out" 2>"$work/err"
    rc=$?
    what=$(grep '^kill-one-process:' "$work/err" | tr '\n' ' ')
    if [ "$kind" != files ] && ! grep -q 'in-memory checkpoint is gone' \
        "$work/err"; then
        rc=99 # the checkpoint outlived the job
    fi
    if [ "$rc" -eq 0 ] && cmp -s "$work/ref" "$work/out"; then
        echo "seed $seed: same output ($what)"
    else
        echo "seed $seed: FAILED (status $rc; $what)"
        tail -5 "$work/err"
        bad=$((bad + 1))
    fi
done
echo "$bad of $((last - first + 1)) seeds failed"
[ "$bad" -eq 0 ]
