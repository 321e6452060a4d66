#!/usr/bin/env bash
# Runs a job on the nodes of scripts/cluster.sh and checks what it did:
#
#   run.sh [--status S] [--expect TEXT]... [--clean PATH]... [--repeat N]
#          -- COMMAND...
#
# COMMAND (ampirun ...) runs with AMPIRUN_HOSTFILE set to the cluster's host
# file.  It passes when its exit status is S (default 0) and its output
# (stdout and stderr) holds every TEXT, each as a fixed string; with
# --repeat, when each of N runs does.  --clean removes PATH first.  Exit 77 (skipped) where this machine cannot make
# nodes; with none up where it could, a failure.
set -uo pipefail
here=$(dirname "$0")
cluster=$here/../../scripts/cluster.sh
want_status=0
repeat=1
expects=()
while [ $# -gt 0 ]; do
    case "$1" in
    --status) want_status=$2; shift 2 ;;
    --expect) expects+=("$2"); shift 2 ;;
    --clean) rm -rf "$2"; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "run.sh: unknown option '$1'" >&2; exit 2 ;;
    esac
done
if ! bash "$cluster" check; then
    echo "run.sh: skipped: this machine cannot make the cluster's nodes"
    exit 77
fi
if ! hosts=$(bash "$cluster" hostfile 2>/dev/null); then
    echo "run.sh: no cluster is up (the fixture test cluster.up makes one)" >&2
    exit 1
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
fail=0
for ((i = 1; i <= repeat && fail == 0; i++)); do
    AMPIRUN_HOSTFILE=$hosts "$@" > "$out" 2>&1
    status=$?
    cat "$out"
    [ "$repeat" -eq 1 ] || echo "run.sh: run $i of $repeat: exit status $status"
    if [ "$status" -ne "$want_status" ]; then
        echo "run.sh: exit status $status, expected $want_status"
        fail=1
    fi
    for e in "${expects[@]}"; do
        if ! grep -qF -- "$e" "$out"; then
            echo "run.sh: the output lacks: $e"
            fail=1
        fi
    done
done
exit $fail
