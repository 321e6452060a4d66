#!/bin/sh
# Device-buffer ping-pong (bench/gpu_pingpong.c), GPU-aware paths against
# forced staging and against the floor, in one invocation: each
# configuration runs once per AMPI_GPU_PATH, and a table per configuration
# gives every latency and bandwidth, each path's latency over the floor's
# (the same ping-pong in bare CUDA, bench/gpu_floor.c, measured here too:
# one cudaMemcpyAsync device to device per trip, in one process, or
# between two processes through CUDA IPC) and each other path's latency
# over auto's (above 1: auto is faster).  Configurations: 2 ranks in one
# process on 1 PE and on 2 PEs (+vp 2 +p 1, +vp 2 +p 2: auto, staged),
# and 2 processes of one rank each on this node (ampirun -n 2, when Open
# MPI's mpirun is there: auto, which is CUDA IPC here; pipelined; staged).
# Messages up to the eager limit stage (two copies a trip, through the
# host): their floor is about twice the one-copy floor.
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

# The floor, in one process and between two (a failed one leaves its
# column empty).
floor=$build/bench/gpu_floor
for how in one two; do
    : >"$tmp/floor.$how"
    [ -x "$floor" ] || continue
    "$floor" "$how" >"$tmp/floor.$how" 2>"$tmp/err"
    rc=$?
    if [ "$rc" = 77 ]; then
        head -n 1 "$tmp/floor.$how"
        exit 0
    fi
    if [ "$rc" != 0 ]; then
        echo "gpu_floor $how: failed (exit $rc)" >&2
        cat "$tmp/err" >&2
        : >"$tmp/floor.$how"
    fi
done

# one NAME FLOOR PATHS CMD...: runs CMD with AMPI_GPU_PATH set to each of
# PATHS (a space-separated list starting with auto) into $tmp/PATH, then
# prints a table: the floor's latency (from the file FLOOR) and each path's
# latency and bandwidth, each path's latency over the floor's, and each
# other path's latency over auto's.  Returns 77 when the program skipped
# (no device).
one() {
    name=$1
    floorf=$2
    paths=$3
    shift 3
    for path in $paths; do
        AMPI_GPU_PATH=$path "$@" >"$tmp/$path" 2>"$tmp/err"
        rc=$?
        if [ "$rc" = 77 ]; then
            head -n 1 "$tmp/$path"
            return 77
        fi
        if [ "$rc" != 0 ]; then
            echo "$name ($path): failed (exit $rc)" >&2
            cat "$tmp/err" >&2
            return "$rc"
        fi
    done
    echo "## $name"
    head -n 1 "$floorf" | sed 's/^# /floor: /'
    files=""
    for path in $paths; do
        files="$files $tmp/$path"
    done
    # shellcheck disable=SC2086
    awk -v paths="$paths" -v floorf="$floorf" '
        function val(line, key,   i, n, f, kv) {
            n = split(line, f, " ")
            for (i = 1; i <= n; i++) {
                split(f[i], kv, "=")
                if (kv[1] == key)
                    return kv[2]
            }
            return ""
        }
        BEGIN {
            np = split(paths, p, " ")
            while ((getline line < floorf) > 0)
                if (line ~ /^size=/)
                    fl[val(line, "size")] = val(line, "lat_us")
        }
        FNR == 1 { k++ }
        /^size=/ { s = val($0, "size"); if (k == 1) sizes[++ns] = s
                   lat[k, s] = val($0, "lat_us"); bw[k, s] = val($0, "bw_MBps") }
        END {
            h = "| bytes | floor lat_us |"; d = "| ---: | ---: |"
            for (i = 1; i <= np; i++) { h = h " " p[i] " lat_us |"; d = d " ---: |" }
            for (i = 1; i <= np; i++) { h = h " " p[i] " MB/s |"; d = d " ---: |" }
            for (i = 1; i <= np; i++) { h = h " " p[i] "/floor |"; d = d " ---: |" }
            for (i = 2; i <= np; i++) { h = h " " p[i] "/auto |"; d = d " ---: |" }
            print h; print d
            for (j = 1; j <= ns; j++) {
                s = sizes[j]; f = (s in fl) ? fl[s] : ""
                line = "| " s " | " (f == "" ? "-" : f) " |"
                for (i = 1; i <= np; i++) line = line " " lat[i, s] " |"
                for (i = 1; i <= np; i++) line = line " " bw[i, s] " |"
                for (i = 1; i <= np; i++)
                    line = line (f > 0 ? sprintf(" %.2f |", lat[i, s] / f) : " - |")
                for (i = 2; i <= np; i++)
                    line = line sprintf(" %.2f |", lat[i, s] / lat[1, s])
                print line
            }
        }
    ' $files
    echo
}

status=0
for p in 1 2; do
    one "one process, +vp 2 +p $p" "$tmp/floor.one" "auto staged" \
        "$prog" +vp 2 +p "$p"
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
    one "2 processes, ampirun -n 2, +vp 2 +p 1" "$tmp/floor.two" \
        "auto pipelined staged" \
        "$ampirun" -n 2 \
        -x AMPI_GPU_PATH --launcher "$mpirun_cmd" $root \
        --launcher-arg --oversubscribe "$prog" +vp 2 +p 1
    rc=$?
    [ "$rc" = 0 ] || [ "$rc" = 77 ] || status=$rc
else
    echo "## 2 processes: skipped (no Open MPI mpirun or no $ampirun)"
fi
exit "$status"
