#!/bin/sh
# own-node.sh NODES PROG ARGS...: runs PROG as a process of an Open MPI job
# on a "node" of its own: a host name (node-K, K the process's index) and a
# /dev/shm of its own (a mount and a UTS namespace), backed by the
# directory NODES/node-K, which outlives the process and is used again by
# the job's next run.  When PROG is killed (SIGKILL), its node is lost with
# it: what the node held in /dev/shm is gone (checkpoint-memory-nodes*.test).
nodes=$1
shift
k=${OMPI_COMM_WORLD_RANK:?not started by Open MPI}
mkdir -p "$nodes/node-$k"
exec unshare --mount --uts sh -c '
    mount --bind "$1" /dev/shm && hostname "$2" || exit 125
    shift 2
    "$@"
    status=$?
    if [ "$status" = 137 ]; then
        rm -rf /dev/shm/* /dev/shm/.[!.]*
    fi
    exit "$status"' sh "$nodes/node-$k" "node-$k" "$@"
