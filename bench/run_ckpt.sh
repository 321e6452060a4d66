#!/usr/bin/env bash
# Checkpoints to files and in memory (bench/ckpt.c): the time of one
# AMPI_Migrate that writes a checkpoint, against the memory each rank
# holds, and the time of a run restarted from it (+restart DIR: start,
# read, end), in one process and in 3 (mpirun); a Markdown table on stdout
# (docs/bench.md).  As root, also in memory with each of the 3 processes
# on a "node" of its own (a /dev/shm and host name of its own:
# lit/runtime/Inputs/own-node.sh), where each file is also copied to the
# next node (docs/checkpoint.md, "Copies on another node"); such a job
# removes its copies at its end, so no restart is timed there.
#
#   bench/run_ckpt.sh [BUILD_DIR] [CKPT_DIR]
#
# CKPT_DIR (default a fresh directory in TMPDIR) is where the checkpoints
# to files go: its file system is what is measured; the in-memory ones go
# to a fresh directory of /dev/shm (AMPI_CHECKPOINT_MEMORY), removed at
# the end.  BENCH_CKPT_SIZES the bytes per
# rank (default 65536 1048576 8388608 67108864), BENCH_CKPT_RANKS (default
# 4), 5 checkpoints per size.  Timings are not pass/fail.
set -uo pipefail

build_dir=${1:-build}
work=$(mktemp -d)
mem=$(mktemp -u /dev/shm/ampi-bench-ckpt-XXXXXX)
trap 'rm -rf "$work" "$mem" "$mem.next"' EXIT
files=${2:-$work/ckpt.d}
sizes=${BENCH_CKPT_SIZES:-65536 1048576 8388608 67108864}
ranks=${BENCH_CKPT_RANKS:-4}
prog=$work/ckpt
"$build_dir/bin/ampicc" -O2 "$(dirname "$0")/ckpt.c" -o "$prog" || exit 1
mpirun=(env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
        "$build_dir/bin/ampirun" --no-restart-on-failure -n 3)

# seconds CMD...: the wall time of CMD, its output in $work/out.
seconds() {
    local t0 t1
    t0=$(date +%s.%N)
    "$@" >"$work/out" 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
    t1=$(date +%s.%N)
    echo "$t1 - $t0" | bc
}

# With a note (as under ampirun's supervision) the runtime leaves an
# in-memory checkpoint at the job's end, for the restart to read it.
export AMPI_CHECKPOINT_MEMORY=$mem AMPI_CHECKPOINT_NOTE=$work/note
echo "| where | processes | bytes per rank | ranks | checkpoint (median ms) | fastest ms | restart run (s) |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
wheres="files memory"
[ "$(id -u)" = 0 ] && wheres="$wheres nodes"
own_node=$(cd "$(dirname "$0")/.." && pwd)/lit/runtime/Inputs/own-node.sh
for where in $wheres; do
    arg=$files dir=$files nps="1 3"
    [ "$where" != files ] && arg=memory dir=$mem
    [ "$where" = nodes ] && nps=3
    for np in $nps; do
        for b in $sizes; do
            rm -rf "$dir" "$dir.next"
            if [ "$where" = nodes ]; then
                rm -rf "$work/nodes"
                seconds "${mpirun[@]}" -x AMPI_CHECKPOINT_MEMORY "$own_node" \
                    "$work/nodes" "$prog" memory "$b" 5 +vp "$ranks" \
                    +p 1 >/dev/null
                line=$(cat "$work/out")
                r=nan
            elif [ "$np" = 1 ]; then
                seconds "$prog" "$arg" "$b" 5 +vp "$ranks" +p 2 >/dev/null
                line=$(cat "$work/out")
                r=$(seconds "$prog" +restart "$dir" +p 2)
            else
                seconds "${mpirun[@]}" "$prog" "$arg" "$b" 5 +vp "$ranks" \
                    +p 1 >/dev/null
                line=$(cat "$work/out")
                r=$(seconds "${mpirun[@]}" "$prog" +restart "$dir" +p 1)
            fi
            med=$(sed -n 's/.*median_ms \([0-9.]*\).*/\1/p' <<<"$line")
            min=$(sed -n 's/.*min_ms \([0-9.]*\).*/\1/p' <<<"$line")
            printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$where" "$np" \
                "$b" "$ranks" "$med" "$min" \
                "$([ "$r" = nan ] && echo - || printf %.2f "$r")"
        done
    done
done
