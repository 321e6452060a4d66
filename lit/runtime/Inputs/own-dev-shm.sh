#!/bin/sh
# own-dev-shm.sh PROG ARGS...: runs PROG as a process of an Open MPI job;
# the job's process 1 gets a /dev/shm and a host name of its own (a mount
# and a UTS namespace), as on a second node (checkpoint-memory-nodes.test).
if [ "$OMPI_COMM_WORLD_RANK" = 1 ]; then
    exec unshare --mount --uts sh -c \
        'mount -t tmpfs none /dev/shm && hostname other-node && exec "$@"' \
        sh "$@"
fi
exec "$@"
