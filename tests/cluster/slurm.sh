#!/usr/bin/env bash
# Slurm on the nodes of scripts/cluster.sh (docs/multi-node.md): writes a
# slurm.conf for them, starts slurmctld on the first node and one slurmd on
# each, then runs test programs with `srun --mpi=pmix -N 2 -n 4` and with an
# sbatch script that calls ampirun inside its allocation, and stops every
# daemon it started.  Needs a cluster of at least 2 nodes up, and Debian's
# slurmctld, slurmd and slurm-client (whose PMIx plugin is mpi_pmix);
# without them it says so and exits 77 (skipped).
#
#   slurm.sh [--iterate PROG] AMPIRUN PROGRAM...
#                                    each PROGRAM prints " No Errors"
#
# With --iterate (lit/runtime/Inputs/ckpt-iterate.c built), also an sbatch
# script whose ampirun runs it with in-memory checkpoints; its process 0
# dies after removing its node's copy, and ampirun (srun its launcher)
# restarts the job from the other node's copies (docs/checkpoint.md).
set -uo pipefail
iterate=
if [ "${1:-}" = --iterate ]; then
    iterate=$2
    shift 2
fi
here=$(cd "$(dirname "$0")" && pwd)
cluster=$here/../../scripts/cluster.sh
state=${AMPI_CLUSTER_STATE:-/run/ampi-cluster}
ampirun=$1
shift

skip() {
    echo "slurm.sh: skipped: $*"
    exit 77
}
for tool in slurmctld slurmd srun sbatch scontrol sinfo; do
    command -v "$tool" >/dev/null ||
        skip "no $tool (Debian's slurmctld, slurmd and slurm-client)"
done
plugins=$(dirname "$(dpkg -L slurm-wlm-basic-plugins 2>/dev/null |
                     grep '/mpi_pmix.so$' | head -1)")
[ -e "$plugins/mpi_pmix.so" ] || skip "no Slurm PMIx plugin (mpi_pmix.so)"
bash "$cluster" check || skip "this machine cannot make nodes"
bash "$cluster" hostfile >/dev/null 2>&1 || { echo "slurm.sh: no cluster is up" >&2; exit 1; }
mapfile -t nodes < <(awk '{ print $1 }' "$state/nodes")
mapfile -t addrs < <(awk '{ print $2 }' "$state/nodes")
[ "${#nodes[@]}" -ge 2 ] || { echo "slurm.sh: the cluster has fewer than 2 nodes" >&2; exit 1; }

dir=$state/slurm
rm -rf "$dir"
mkdir -p "$dir/ctld" "$dir/log"
conf=$dir/slurm.conf
cpus=$(nproc)
node_lines=""
for i in "${!nodes[@]}"; do
    node_lines+="NodeName=${nodes[$i]} NodeAddr=${addrs[$i]} CPUs=$cpus State=UNKNOWN"$'\n'
    mkdir -p "$dir/spool/${nodes[$i]}" "$dir/tmp/${nodes[$i]}"
done
cat > "$conf" <<CONF
# Written by tests/cluster/slurm.sh for the nodes of scripts/cluster.sh.
ClusterName=ampi
SlurmctldHost=${nodes[0]}(${addrs[0]})
SlurmUser=root
SlurmdUser=root
AuthType=auth/none
CredType=cred/none
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
ReturnToService=2
StateSaveLocation=$dir/ctld
SlurmdSpoolDir=$dir/spool/%n
TmpFS=$dir/tmp/%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd-%n.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
MinJobAge=2
KillWait=5
InactiveLimit=0
$node_lines
PartitionName=all Nodes=ALL Default=YES MaxTime=10 State=UP
CONF

export SLURM_CONF=$conf
# Every daemon started here is stopped on the way out, whatever happens.
slurm_pids() { # the Slurm daemons (slurmctld, slurmd, slurmstepd) in the nodes
    local n p
    for n in "${nodes[@]}"; do
        for p in $(ip netns pids "$n" 2>/dev/null); do
            case "$(cat "/proc/$p/comm" 2>/dev/null)" in
            slurm*) echo "$p" ;;
            esac
        done
    done
}
stop() {
    scontrol shutdown >/dev/null 2>&1
    for ((t = 0; t < 100; t++)); do
        [ -z "$(slurm_pids)" ] && break
        sleep 0.1
    done
    pids=$(slurm_pids)
    [ -z "$pids" ] || kill -9 $pids 2>/dev/null
    if [ "${failed:-0}" -ne 0 ]; then
        echo "--- slurm logs"
        tail -n 30 "$dir"/log/*.log
    fi
    rm -rf "$dir"
}
trap stop EXIT

on() { # on NODE COMMAND: a command on a node, with the Slurm configuration
    local node=$1
    shift
    bash "$cluster" exec "$node" "export SLURM_CONF=$conf; $*"
}

on "${nodes[0]}" slurmctld -f "$conf" || { failed=1; echo "slurm.sh: slurmctld did not start"; exit 1; }
for n in "${nodes[@]}"; do
    on "$n" slurmd -f "$conf" -N "$n" || { failed=1; echo "slurm.sh: slurmd did not start on $n"; exit 1; }
done
idle=0
for ((t = 0; t < 300; t++)); do
    idle=$(on "${nodes[0]}" sinfo -h -t idle -o %D 2>/dev/null | awk '{ s += $1 } END { print s + 0 }')
    [ "$idle" -ge 2 ] && break
    sleep 0.1
done
if [ "$idle" -lt 2 ]; then
    failed=1
    echo "slurm.sh: the nodes did not become idle"
    on "${nodes[0]}" sinfo
    exit 1
fi
echo "slurm.sh: slurmctld on ${nodes[0]}, slurmd on ${nodes[*]}: $idle nodes idle"

# UCX between the nodes over their links only, as ampirun sets from the
# cluster's host file.
# Each program checks that it ran in 4 processes on 2 nodes.
ucx="UCX_TLS=tcp,self UCX_NET_DEVICES=eth0 MT_EXPECT_PROCESSES=4 MT_EXPECT_NODES=2"
failed=0
check() { # check WHAT OUTPUT: the output must say " No Errors"
    echo "$2"
    if grep -q "^ No Errors" <<<"$2"; then
        echo "slurm.sh: $1: passed"
    else
        echo "slurm.sh: $1: FAILED"
        failed=1
    fi
}
for prog in "$@"; do
    out=$(on "${nodes[0]}" "export $ucx; timeout 120 srun --mpi=pmix -N 2 -n 4 $prog +vp 16 +p 1" 2>&1)
    check "srun --mpi=pmix -N 2 -n 4 $(basename "$prog") +vp 16" "$out"
    script=$dir/job-$(basename "$prog").sh
    cat > "$script" <<JOB
#!/bin/sh
export $ucx
exec $ampirun -n 4 $prog +vp 16 +p 1
JOB
    chmod +x "$script"
    on "${nodes[0]}" "cd $dir && timeout 120 sbatch --wait -N 2 -n 4 -o $script.out $script" 2>&1 | sed "s/^/sbatch: /"
    check "sbatch -N 2 -n 4 (ampirun -n 4 $(basename "$prog") +vp 16)" "$(cat "$script.out" 2>&1)"
done
if [ -n "$iterate" ]; then
    script=$dir/job-memory-lost-node.sh
    rm -f "$dir/died"
    cat > "$script" <<JOB
#!/bin/sh
export $ucx CKPT_ITERATE_DIE_ONCE=$dir/died CKPT_ITERATE_LOSE_NODE=1
exec $ampirun -n 4 $iterate memory 30 5 4096 0 +vp 8 +p 1 7
JOB
    chmod +x "$script"
    on "${nodes[0]}" "cd $dir && timeout 120 sbatch --wait -N 2 -n 4 -o $script.out $script" 2>&1 | sed "s/^/sbatch: /"
    out=$(cat "$script.out" 2>&1)
    echo "$out"
    what="sbatch -N 2 -n 4 (ampirun -n 4 ckpt-iterate memory, a node's copy lost)"
    if grep -q "restarting it from the in-memory checkpoint" <<<"$out" &&
        grep -q "^checksum 7c6ee55d8a94d480" <<<"$out"; then
        echo "slurm.sh: $what: passed"
    else
        echo "slurm.sh: $what: FAILED"
        failed=1
    fi
fi
exit $failed
