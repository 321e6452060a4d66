#!/usr/bin/env bash
# The ctest fixture of the tests labelled `cluster`: `up` brings up a
# cluster of 2 nodes (scripts/cluster.sh) unless one is up already, and
# `down` takes down the one it brought up, leaving one it found alone.
# Where this machine cannot make nodes (not root, no namespaces), `up`
# says why and exits 77, which ctest counts as skipped.
set -euo pipefail
cluster=$(dirname "$0")/../../scripts/cluster.sh
state=${AMPI_CLUSTER_STATE:-/run/ampi-cluster}

case "${1:-}" in
up)
    if ! bash "$cluster" check; then
        echo "fixture: skipped: this machine cannot make the cluster's nodes"
        exit 77
    fi
    if hosts=$(bash "$cluster" hostfile 2>/dev/null); then
        echo "fixture: using the cluster that is up ($hosts)"
        exit 0
    fi
    bash "$cluster" up 2
    touch "$state/made-by-ctest"
    ;;
down)
    if [ -e "$state/made-by-ctest" ]; then
        bash "$cluster" down
        echo "fixture: the cluster is down"
    else
        echo "fixture: no cluster of this fixture's to take down"
    fi
    ;;
*)
    echo "usage: fixture.sh up|down" >&2
    exit 2
    ;;
esac
