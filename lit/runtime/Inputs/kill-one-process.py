"""kill-one-process.py [options] -- COMMAND...: runs COMMAND (ampirun
starting a job that checkpoints into DIR) and, once DIR holds a complete
checkpoint, kills one process of the job with SIGKILL: the process and the
moment are drawn from --seed.  With --during-checkpoint the moment is
instead the first one after that at which a checkpoint is being written
(DIR.next holds a file).  The processes of the job are those below
COMMAND whose program is --program.  With --stop-command, COMMAND itself
(ampirun) is sent SIGTERM at that moment instead.  With --memory (instead
of --dir) the job checkpoints in memory: DIR is a new name in /dev/shm,
given to the job as AMPI_CHECKPOINT_MEMORY, and after the job the script
says whether it is gone.  With --nodes NODES (own-node.sh's directory),
each process has a /dev/shm of its own, NODES/node-K: DIR is looked for
there, in every one of them.  Exits with COMMAND's status, 3 when
nothing was killed, 124 when COMMAND outlives --timeout (then killed with
all its processes).  What it did goes to stderr."""
import argparse
import glob
import os
import random
import signal
import subprocess
import sys
import time


def children_of():
    """Every process's parent, from /proc."""
    parent = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name) as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        parent[int(name)] = int(fields[1])
    return parent


def descendants(root):
    parent = children_of()
    found, todo = [], [root]
    while todo:
        p = todo.pop()
        kids = [c for c, pp in parent.items() if pp == p]
        found += kids
        todo += kids
    return found


def runs(pid, program):
    try:
        return os.path.realpath("/proc/%d/exe" % pid) == program
    except OSError:
        return False


def wait_for(cond, job, deadline, poll):
    while not cond():
        if job.poll() is not None or time.monotonic() > deadline:
            return False
        time.sleep(poll)
    return True


def staging_busy(stage):
    """Whether a rank's file is being written into stage (its "owner",
    made first, says only that a checkpoint began)."""
    try:
        return any(f.startswith("rank-") for f in os.listdir(stage))
    except OSError:
        return False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, required=True)
    where = ap.add_mutually_exclusive_group(required=True)
    where.add_argument("--dir")
    where.add_argument("--memory", action="store_true")
    ap.add_argument("--program", required=True)
    ap.add_argument("--max-delay", type=float, default=1.0)
    ap.add_argument("--during-checkpoint", action="store_true")
    ap.add_argument("--stop-command", action="store_true")
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--nodes")
    ap.add_argument("command", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.command[1:] if a.command[:1] == ["--"] else a.command
    if a.memory:
        a.dir = "/dev/shm/ampi-kill-%d-%08x" % (os.getpid(),
                                                random.getrandbits(32))
        os.environ["AMPI_CHECKPOINT_MEMORY"] = a.dir
    program = os.path.realpath(a.program)
    rng = random.Random(a.seed)
    deadline = time.monotonic() + a.timeout
    job = subprocess.Popen(cmd, start_new_session=True)
    def where(path):
        """path, or its places in the nodes' /dev/shm (--nodes)."""
        if not a.nodes:
            return [path]
        rel = os.path.relpath(path, "/dev/shm")
        return glob.glob(os.path.join(a.nodes, "node-*", rel))

    manifest = os.path.join(a.dir, "manifest")
    killed = None
    if wait_for(lambda: any(os.path.exists(m) for m in where(manifest)),
                job, deadline, 0.005):
        held = None
        if a.during_checkpoint:
            # The job's processes, listed first (reading /proc takes long
            # enough for a checkpoint to complete meanwhile); then the
            # first moment the staging directory holds a file, read just
            # before the kill.  A checkpoint that completed between the
            # two looks waits for the next one.
            procs = sorted(p for p in descendants(job.pid) if runs(p, program))
            stage = a.dir.rstrip("/") + ".next"
            ready = False
            while not ready and wait_for(
                    lambda: any(staging_busy(s) for s in where(stage)), job,
                    deadline, 0.0005):
                held = []
                for s in where(stage):
                    try:
                        held += os.listdir(s)
                    except OSError:
                        pass
                held = sorted(held)
                ready = bool(held)
        else:
            time.sleep(0.05 + rng.uniform(0, a.max_delay))
            ready = job.poll() is None
            procs = sorted(p for p in descendants(job.pid) if runs(p, program))
        if ready and procs and a.stop_command:
            os.kill(job.pid, signal.SIGTERM)
            killed = ("the command with SIGTERM",)
        elif ready and procs:
            victim = procs[rng.randrange(len(procs))]
            os.kill(victim, signal.SIGKILL)
            killed = (procs.index(victim), len(procs))
            if a.during_checkpoint:
                print("kill-one-process: killed while %s held %s" %
                      (os.path.basename(stage), held), file=sys.stderr)
    try:
        status = job.wait(timeout=max(1.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        os.killpg(job.pid, signal.SIGKILL)
        job.wait()
        print("kill-one-process: the job outlived %gs" % a.timeout,
              file=sys.stderr)
        return 124
    if a.memory:
        left = [p for d in (a.dir, a.dir + ".next") for p in where(d)
                if os.path.exists(p)]
        gone = "is still there: %s" % left if left else "is gone"
    if killed is None:
        print("kill-one-process: nothing was killed", file=sys.stderr)
        return 3
    if len(killed) == 1:
        print("kill-one-process: stopped %s" % killed, file=sys.stderr)
    else:
        print("kill-one-process: killed process %d of %d" % killed,
              file=sys.stderr)
    if a.memory:
        print("kill-one-process: the in-memory checkpoint %s" % gone,
              file=sys.stderr)
    return status


sys.exit(main())
