#!/bin/sh
# Device-buffer ping-pong (bench/gpu_pingpong.c) on 2 ranks, 1 and 2 PEs.
# Usage: bench/run_gpu.sh [BUILD_DIR]   (default: build)
# Skips (exit 0, with the reason) when the program was not built (no CUDA
# toolkit) or the machine has no CUDA device.
build=${1:-build}
prog=$build/bench/gpu_pingpong
if [ ! -x "$prog" ]; then
    echo "SKIP: $prog not built (no CUDA toolkit at configure time)"
    exit 0
fi
for p in 1 2; do
    echo "## +vp 2 +p $p"
    "$prog" +vp 2 +p "$p"
    rc=$?
    [ "$rc" = 77 ] && exit 0
    [ "$rc" = 0 ] || exit "$rc"
done
