# shellcheck shell=bash disable=SC2154,SC2034
# Shared by bench/run.sh and bench/run_np.sh (sourced).  Expects
# $timeout_s, $raw_dir, $failed and a note() function in the caller.

# run NAME CMD...: runs CMD with the timeout, output in $raw_dir/NAME.txt.
run() {
    local name=$1
    shift
    if [ ! -x "$1" ] && ! command -v "$1" >/dev/null 2>&1; then
        note "$name: $1 not found, skipped"
        echo "skipped: $1 not found" >"$raw_dir/$name.txt"
        failed=1
        return 1
    fi
    note "$name: $*"
    local rc=0
    timeout "$timeout_s" "$@" >"$raw_dir/$name.txt" 2>"$raw_dir/$name.err" || rc=$?
    if [ "$rc" -eq 124 ]; then
        note "$name: timed out after ${timeout_s}s (BENCH_TIMEOUT)"
    elif [ "$rc" -ne 0 ]; then
        note "$name: failed (exit $rc); see $raw_dir/$name.err"
    fi
    [ "$rc" -eq 0 ] || failed=1
    return "$rc"
}
