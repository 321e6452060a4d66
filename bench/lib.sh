# shellcheck shell=bash disable=SC2154,SC2034
# Shared by bench/run.sh, bench/run_np.sh and the *_ab.sh scripts (sourced).  Expects
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

# ab_begin USAGE TAG ROUNDS TIMEOUT "$@": the before/after scripts'
# common start.  Exits 2 with USAGE unless "$@" has BEFORE and AFTER;
# sets build_dir (the third argument, default build), rounds
# (BENCH_ROUNDS, default ROUNDS), timeout_s (BENCH_TIMEOUT, default
# TIMEOUT), raw_dir (BUILD_DIR/bench/results/TAG-<timestamp>, made) and
# failed=0.
ab_begin() {
    local usage=$1 tag=$2
    rounds=${BENCH_ROUNDS:-$3}
    timeout_s=${BENCH_TIMEOUT:-$4}
    shift 4
    if [ $# -lt 2 ]; then
        echo "usage: $usage" >&2
        exit 2
    fi
    build_dir=${3:-build}
    case $rounds in
        '' | *[!0-9]* | 0) echo "$0: BENCH_ROUNDS must be a positive integer" >&2; exit 2 ;;
    esac
    raw_dir=$build_dir/bench/results/$tag-$(date -u +%Y%m%d-%H%M%S)
    mkdir -p "$raw_dir" || exit 2
    failed=0
}

# median_lines: the median of the numbers on stdin, one a line (n/a when
# there are none).
median_lines() {
    sort -g | awk '{ v[NR] = $1 } END {
        if (NR == 0) print "n/a"
        else if (NR % 2) print v[(NR + 1) / 2]
        else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# min_lines: the smallest of the numbers on stdin, one a line (n/a when
# there are none).
min_lines() {
    sort -g | awk 'NR == 1 { v = $1 } END { print (NR ? v : "n/a") }'
}

# ratio A B: A / B with two decimals, or n/a.
ratio() {
    awk -v a="$1" -v b="$2" 'BEGIN {
        if (a == "n/a" || b == "n/a" || b + 0 == 0) print "n/a"; else printf "%.2f\n", a / b }'
}

# same_cc AMPICC: makes Open MPI's mpicc run the compiler AMPICC runs, so
# that both sides of a comparison are compiled alike (clang and gcc differ
# by 5 to 10% on the imbalanced programs, in either direction).  BENCH_CC,
# when set, is that compiler for both (AMPI_CC and OMPI_CC).  Exports
# OMPI_CC (call it outside a subshell); returns 1 when AMPICC cannot say.
same_cc() {
    [ -z "${BENCH_CC:-}" ] || export AMPI_CC=$BENCH_CC
    OMPI_CC=$("$1" -showme:command) && [ -n "$OMPI_CC" ] || return 1
    export OMPI_CC
}
