#!/usr/bin/env bash
# Checkpoints to files (bench/ckpt.c): the time of one AMPI_Migrate that
# writes a checkpoint, against the memory each rank holds, and the time of
# a run restarted from it (+restart DIR: start, read, end), in one process
# and in 3 (mpirun); a Markdown table on stdout (docs/bench.md).
#
#   bench/run_ckpt.sh [BUILD_DIR] [CKPT_DIR]
#
# CKPT_DIR (default a fresh directory in TMPDIR) is where the checkpoints
# go: its file system is what is measured.  BENCH_CKPT_SIZES the bytes per
# rank (default 65536 1048576 8388608 67108864), BENCH_CKPT_RANKS (default
# 4), 5 checkpoints per size.  Timings are not pass/fail.
set -uo pipefail

build_dir=${1:-build}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
dir=${2:-$work/ckpt.d}
sizes=${BENCH_CKPT_SIZES:-65536 1048576 8388608 67108864}
ranks=${BENCH_CKPT_RANKS:-4}
prog=$work/ckpt
"$build_dir/bin/ampicc" -O2 "$(dirname "$0")/ckpt.c" -o "$prog" || exit 1
mpirun=(env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
        "$build_dir/bin/ampirun" -n 3)

# seconds CMD...: the wall time of CMD, its output in $work/out.
seconds() {
    local t0 t1
    t0=$(date +%s.%N)
    "$@" >"$work/out" 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
    t1=$(date +%s.%N)
    echo "$t1 - $t0" | bc
}

echo "| processes | bytes per rank | ranks | checkpoint (median ms) | fastest ms | restart run (s) |"
echo "| --- | --- | --- | --- | --- | --- |"
for np in 1 3; do
    for b in $sizes; do
        rm -rf "$dir" "$dir.next"
        if [ "$np" = 1 ]; then
            seconds "$prog" "$dir" "$b" 5 +vp "$ranks" +p 2 >/dev/null
            line=$(cat "$work/out")
            r=$(seconds "$prog" +restart "$dir" +p 2)
        else
            seconds "${mpirun[@]}" "$prog" "$dir" "$b" 5 +vp "$ranks" \
                +p 1 >/dev/null
            line=$(cat "$work/out")
            r=$(seconds "${mpirun[@]}" "$prog" +restart "$dir" +p 1)
        fi
        med=$(sed -n 's/.*median_ms \([0-9.]*\).*/\1/p' <<<"$line")
        min=$(sed -n 's/.*min_ms \([0-9.]*\).*/\1/p' <<<"$line")
        printf '| %s | %s | %s | %s | %s | %.2f |\n' "$np" "$b" "$ranks" \
            "$med" "$min" "$r"
    done
done
