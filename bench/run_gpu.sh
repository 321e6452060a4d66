#!/bin/sh
# Device-buffer ping-pong (bench/gpu_pingpong.c), GPU-aware path against
# forced staging in one invocation: each configuration runs twice, with
# AMPI_GPU_PATH=auto and AMPI_GPU_PATH=staged, and a table per
# configuration gives both latencies and staged/auto (above 1: the
# GPU-aware path is faster).  Configurations: 2 ranks in one process on 1
# PE and on 2 PEs (+vp 2 +p 1, +vp 2 +p 2), and 2 processes of one rank
# each (ampirun -n 2, when Open MPI's mpirun is there; between processes
# both are staged today, so the ratio should be near 1).
# Usage: bench/run_gpu.sh [BUILD_DIR]   (default: build)
# Skips (exit 0, with the reason) when the program was not built (no CUDA
# toolkit) or the machine has no CUDA device.  Environment: MPIRUN (Open
# MPI's mpirun), AMPIRUN (default BUILD_DIR/bin/ampirun).
build=${1:-build}
prog=$build/bench/gpu_pingpong
if [ ! -x "$prog" ]; then
    echo "SKIP: $prog not built (no CUDA toolkit at configure time)"
    exit 0
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# one NAME CMD...: runs CMD with each path into $tmp/NAME.{auto,staged}.
# Returns 77 when the program skipped (no device).
one() {
    name=$1
    shift
    for path in auto staged; do
        AMPI_GPU_PATH=$path "$@" >"$tmp/$name.$path" 2>"$tmp/$name.err"
        rc=$?
        if [ "$rc" = 77 ]; then
            head -n 1 "$tmp/$name.$path"
            return 77
        fi
        if [ "$rc" != 0 ]; then
            echo "$name ($path): failed (exit $rc)" >&2
            cat "$tmp/$name.err" >&2
            return "$rc"
        fi
    done
    echo "## $name"
    echo "| bytes | auto lat_us | staged lat_us | auto MB/s | staged MB/s | staged/auto |"
    echo "| ---: | ---: | ---: | ---: | ---: | ---: |"
    awk '
        function val(line, key,   i, n, f, kv) {
            n = split(line, f, " ")
            for (i = 1; i <= n; i++) {
                split(f[i], kv, "=")
                if (kv[1] == key)
                    return kv[2]
            }
            return ""
        }
        FNR == NR && /^size=/ { la[val($0, "size")] = val($0, "lat_us");
                                ba[val($0, "size")] = val($0, "bw_MBps"); next }
        /^size=/ { s = val($0, "size"); l = val($0, "lat_us")
                   printf "| %s | %s | %s | %s | %s | %.2f |\n", s, la[s], l,
                          ba[s], val($0, "bw_MBps"), l / la[s] }
    ' "$tmp/$name.auto" "$tmp/$name.staged"
    echo
}

status=0
for p in 1 2; do
    one "one process, +vp 2 +p $p" "$prog" +vp 2 +p "$p"
    rc=$?
    [ "$rc" = 77 ] && exit 0
    [ "$rc" = 0 ] || status=$rc
done

mpirun_cmd=${MPIRUN:-$(command -v mpirun.openmpi || command -v mpirun)}
ampirun=${AMPIRUN:-$build/bin/ampirun}
if [ -n "$mpirun_cmd" ] && [ -x "$ampirun" ]; then
    root=""
    [ "$(id -u)" = 0 ] && root="--launcher-arg --allow-run-as-root"
    # shellcheck disable=SC2086
    one "2 processes, ampirun -n 2, +vp 2 +p 1" "$ampirun" -n 2 \
        -x AMPI_GPU_PATH --launcher "$mpirun_cmd" $root \
        --launcher-arg --oversubscribe "$prog" +vp 2 +p 1
    rc=$?
    [ "$rc" = 0 ] || [ "$rc" = 77 ] || status=$rc
else
    echo "## 2 processes: skipped (no Open MPI mpirun or no $ampirun)"
fi
exit "$status"
