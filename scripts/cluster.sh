#!/usr/bin/env bash
# A cluster of "nodes" on one Linux machine, for running jobs between hosts
# without a second machine (docs/multi-node.md).
#
#   scripts/cluster.sh up N        make N nodes; the last line printed is the
#                                  path of their host file
#   scripts/cluster.sh down        remove every node, link, the bridge, and
#                                  every process still running in a node
#   scripts/cluster.sh with N CMD...
#                                  up N, run CMD with AMPIRUN_HOSTFILE set to
#                                  the host file and Open MPI's processes
#                                  spread over the nodes in turn
#                                  (OMPI_MCA_rmaps_base_mapping_policy=node),
#                                  then down; exits with CMD's status
#   scripts/cluster.sh status      list the nodes (exit 1 when there are none)
#   scripts/cluster.sh hostfile    print the host file's path (exit 1: none)
#   scripts/cluster.sh exec HOST CMD...
#                                  run CMD on node HOST (a name or an address
#                                  of the host file), as ssh would: this is
#                                  the launch agent ampirun gives mpirun
#   scripts/cluster.sh check       exit 0 when this machine can make nodes
#                                  (root, network and UTS namespaces, veth,
#                                  bridges), else say why on one line, exit 77
#
# Node i (1..N) is a network namespace `ampi-nodeI` with its own loopback and
# one veth link `eth0` (address 10.213.0.(10+i)/24), joined to the others by
# a bridge `ampi-br0` that this script makes (address 10.213.0.1: mpirun runs
# outside the nodes, as on a login node, and its daemons call it back there);
# a UTS namespace whose host name is `ampi-nodeI`; and a mount namespace
# whose /dev/shm is a tmpfs of its own.  Nothing else of the machine's
# networking is touched.  Every process started in a node (the launch agent
# enters the three namespaces) sees its own host name, addresses and
# /dev/shm, and shares the machine's other file systems (/tmp) and process
# ids.
# Root only.  `down` is idempotent.
set -euo pipefail

STATE=${AMPI_CLUSTER_STATE:-/run/ampi-cluster}
BRIDGE=ampi-br0
NET=10.213.0
PREFIX=24
HEAD_ADDR=$NET.1

die() {
    echo "cluster.sh: $*" >&2
    exit 1
}

node_name() { echo "ampi-node$1"; }
node_addr() { echo "$NET.$((10 + $1))"; }

# Why this machine cannot make nodes, or nothing.
why_not() {
    if [ "$(id -u)" -ne 0 ]; then
        echo "needs root (network namespaces, links, a bridge)"
        return
    fi
    for tool in ip unshare nsenter; do
        if ! command -v "$tool" >/dev/null; then
            echo "needs $tool (packages iproute2, util-linux)"
            return
        fi
    done
    if [ ! -e /proc/self/ns/net ] || [ ! -e /proc/self/ns/uts ]; then
        echo "the kernel has no network or UTS namespaces"
        return
    fi
    local probe=ampiprb$$
    if ! ip netns add "$probe" 2>/dev/null; then
        echo "cannot make a network namespace (ip netns add failed)"
        return
    fi
    ip netns del "$probe"
    if ! ip link add "$probe" type bridge 2>/dev/null; then
        echo "cannot make a bridge (ip link add type bridge failed)"
        return
    fi
    ip link del "$probe"
}

cmd_check() {
    local why
    why=$(why_not)
    if [ -n "$why" ]; then
        echo "cluster.sh: $why" >&2
        exit 77
    fi
}

# The subnet must be free on this machine: refuse rather than shadow a route.
check_subnet_free() {
    if ip -4 route show | grep -q "^$NET\.0/$PREFIX "; then
        if ! ip -4 route show dev "$BRIDGE" 2>/dev/null | grep -q "^$NET\.0/$PREFIX"; then
            die "up: this machine already routes $NET.0/$PREFIX, which the nodes would use"
        fi
    fi
}

cmd_up() {
    local n=${1:-}
    [[ "$n" =~ ^[0-9]+$ ]] && [ "$n" -ge 1 ] && [ "$n" -le 200 ] ||
        die "up: N must be a number of nodes from 1 to 200, not '${n}'"
    local why
    why=$(why_not)
    [ -z "$why" ] || die "$why"
    [ ! -e "$STATE/nodes" ] || die "up: a cluster is up already ($STATE/nodes); run 'cluster.sh down' first"
    check_subnet_free
    # A node that cannot be made takes the others down with it.
    trap 'echo "cluster.sh: up failed; taking down what was made" >&2; cmd_down' ERR
    mkdir -p "$STATE/uts" "$STATE/mnt"
    # Mount namespaces can be kept by bind mounts only on a private mount.
    mount --bind "$STATE/mnt" "$STATE/mnt"
    mount --make-private "$STATE/mnt"
    : > "$STATE/nodes"

    ip link add "$BRIDGE" type bridge
    ip addr add "$HEAD_ADDR/$PREFIX" dev "$BRIDGE"
    ip link set "$BRIDGE" up

    local i name addr
    for ((i = 1; i <= n; i++)); do
        name=$(node_name "$i")
        addr=$(node_addr "$i")
        ip netns add "$name"
        ip -n "$name" link set lo up
        ip link add "ampi-v$i" type veth peer name "ampi-p$i"
        ip link set "ampi-p$i" netns "$name"
        ip -n "$name" link set "ampi-p$i" name eth0
        ip -n "$name" addr add "$addr/$PREFIX" dev eth0
        ip -n "$name" link set eth0 up
        ip link set "ampi-v$i" master "$BRIDGE"
        ip link set "ampi-v$i" up
        # A UTS namespace kept by a bind mount, with the node's host name.
        touch "$STATE/uts/$name"
        unshare --uts="$STATE/uts/$name" hostname "$name"
        # A mount namespace, kept the same way, with a /dev/shm of the
        # node's own (as on a separate host: node shared memory and
        # in-memory checkpoints stay on their node).
        touch "$STATE/mnt/$name"
        unshare --mount="$STATE/mnt/$name" --propagation private \
            mount -t tmpfs -o mode=1777 "shm-$name" /dev/shm
        echo "$name $addr" >> "$STATE/nodes"
    done

    local slots
    slots=$(nproc)
    {
        echo "# The nodes of scripts/cluster.sh up $n, for ampirun --hostfile (or mpirun"
        echo "# --hostfile with --mca plm_rsh_agent and -x as these lines say)."
        echo "# ampirun launch-agent: $(realpath "$0") exec"
        # The nodes share one kernel, so UCX would take them for one host
        # and reach the others through shared memory and cross-memory
        # attach: only TCP over the nodes' links (never lo, whose address
        # is the same on every node) between processes, as between hosts.
        echo "# ampirun export: UCX_TLS=tcp,self"
        echo "# ampirun export: UCX_NET_DEVICES=eth0"
        for ((i = 1; i <= n; i++)); do
            echo "$(node_addr "$i") slots=$slots"
        done
    } > "$STATE/hosts"
    for ((i = 1; i <= n; i++)); do
        wait_link_up "$i" || { cmd_down; die "up: the link of node $i did not come up"; }
    done
    echo "$STATE/hosts"
}

# Waits (5 s at most) for node $1's link to be up at both ends.
wait_link_up() {
    local t
    for ((t = 0; t < 50; t++)); do
        ip -n "$(node_name "$1")" -o link show eth0 | grep -q 'LOWER_UP' && return 0
        sleep 0.1
    done
    return 1
}

# The namespace of HOST (a node's name or address).
node_of() {
    [ -e "$STATE/nodes" ] || die "exec: no cluster is up"
    awk -v h="$1" '$1 == h || $2 == h { print $1; exit }' "$STATE/nodes"
}

# As ssh HOST CMD...: the words of CMD joined by spaces, run by a shell on the
# node, in the home directory, with a fresh environment.
cmd_exec() {
    while [ $# -gt 0 ] && [[ "$1" == -* ]]; do
        shift # ssh's options (mpirun may add -x): nothing to do
    done
    [ $# -ge 2 ] || die "exec: usage: cluster.sh exec HOST COMMAND..."
    local host=$1 name
    shift
    name=$(node_of "$host")
    [ -n "$name" ] || die "exec: no node named or addressed '$host'"
    local home=${HOME:-/root}
    exec nsenter --net="/run/netns/$name" --uts="$STATE/uts/$name" \
        --mount="$STATE/mnt/$name" -- \
        env -i PATH="$PATH" HOME="$home" USER="$(id -un)" LANG=C.UTF-8 \
        sh -c "cd \"\$HOME\" 2>/dev/null; $*"
}

# Ends every process in namespace $1: TERM, then KILL after 2 s.
kill_node_processes() {
    local pids t
    for sig in TERM KILL; do
        pids=$(ip netns pids "$1" 2>/dev/null || true)
        [ -n "$pids" ] || return 0
        kill -s "$sig" $pids 2>/dev/null || true
        for ((t = 0; t < 20; t++)); do
            [ -z "$(ip netns pids "$1" 2>/dev/null || true)" ] && return 0
            sleep 0.1
        done
    done
}

cmd_down() {
    local name
    for name in $(ip netns list 2>/dev/null | awk '$1 ~ /^ampi-node[0-9]+$/ { print $1 }'); do
        kill_node_processes "$name"
        ip netns del "$name" 2>/dev/null || true
    done
    for d in uts mnt; do
        [ -d "$STATE/$d" ] || continue
        for f in "$STATE/$d"/*; do
            [ -e "$f" ] || continue
            umount "$f" 2>/dev/null || true
            rm -f "$f"
        done
    done
    umount "$STATE/mnt" 2>/dev/null || true
    # veth ends left on this side (a half-made node), then the bridge.
    for link in $(ip -o link show 2>/dev/null | awk -F': ' '{ sub(/@.*/, "", $2); print $2 }' |
                  grep -E '^ampi-(v[0-9]+|br0)$' || true); do
        ip link del "$link" 2>/dev/null || true
    done
    rm -rf "$STATE"
}

cmd_with() {
    local n=${1:-} hosts status
    shift || true
    [ "${1:-}" != "--" ] || shift
    [ $# -ge 1 ] || die "with: usage: cluster.sh with N COMMAND..."
    hosts=$(bash "$0" up "$n" | tail -1) || exit 1
    trap cmd_down EXIT
    AMPIRUN_HOSTFILE=$hosts OMPI_MCA_rmaps_base_mapping_policy=node "$@"
    status=$?
    return $status
}

cmd_hostfile() {
    [ -e "$STATE/hosts" ] || { echo "cluster.sh: no cluster is up" >&2; exit 1; }
    echo "$STATE/hosts"
}

cmd_status() {
    [ -e "$STATE/nodes" ] || { echo "cluster.sh: no cluster is up"; exit 1; }
    cat "$STATE/nodes"
    echo "host file: $STATE/hosts"
}

case "${1:-}" in
up) shift; cmd_up "$@" ;;
down) cmd_down ;;
exec) shift; cmd_exec "$@" ;;
status) cmd_status ;;
hostfile) cmd_hostfile ;;
with) shift; set +e; cmd_with "$@"; exit $? ;;
check) cmd_check ;;
*) die "usage: cluster.sh up N | down | with N CMD... | status | hostfile | exec HOST CMD... | check" ;;
esac
