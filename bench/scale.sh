#!/usr/bin/env bash
# Very large jobs (bench/scale.c): start-up, resident memory per rank,
# barrier, allreduce, ring exchange, comm_split, comm_dup, a balancing
# step (GreedyLB in one process, RefineLB across processes), a checkpoint
# of every rank to files (ours; into a directory under TMPDIR) and exit,
# for each rank count, in one process and in several, and
# Open MPI beside it with one process per rank where it can run that many
# on this machine.  A Markdown table on stdout (docs/bench.md) and a
# log-log picture of time and memory against ranks.
#
#   bench/scale.sh [BUILD_DIR]
#
# BENCH_SCALE_RANKS  rank counts (default 16 64 1000 10000 100000; add 1000000
#                    where the memory allows it: 14 KiB a rank and the
#                    kernel's page tables; counts from 1,000,000 run
#                    "basic", without split, dup and balancing, whose
#                    member lists add about 12 KiB a rank)
# BENCH_SCALE_PROCS  process counts for ours (default 1 4)
# BENCH_OMPI_RANKS   rank counts for Open MPI, a process per rank on the
#                    machine's cores (default 16 64: it goes no further on
#                    2 cores in reasonable time)
# BENCH_SCALE_PNG    where the picture goes (default BUILD_DIR/scale.png;
#                    needs python3-matplotlib)
# Timings are not pass/fail; a wrong answer ends the script with status 1.
set -uo pipefail

build_dir=${1:-build}
ranks=${BENCH_SCALE_RANKS:-16 64 1000 10000 100000}
procs=${BENCH_SCALE_PROCS:-1 4}
ompi_ranks=${BENCH_OMPI_RANKS:-16 64}
png=${BENCH_SCALE_PNG:-$build_dir/scale.png}
src=$(cd "$(dirname "$0")" && pwd)/scale.c
ampicc=$build_dir/bin/ampicc
ampirun=$build_dir/bin/ampirun
[ -x "$ampicc" ] || { echo "scale.sh: no $ampicc; build first" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$ampicc" -O2 "$src" -o "$work/scale-ampi" || exit 1
have_ompi=0
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
if command -v mpicc >/dev/null && command -v mpirun >/dev/null &&
    same_cc "$ampicc"; then
    mpicc -O2 "$src" -o "$work/scale-ompi" && have_ompi=1
fi
root=()
[ "$(id -u)" -eq 0 ] && root=(--allow-run-as-root)
# Debian's Python, which has Debian's matplotlib, ahead of any other.
py=/usr/bin/python3
[ -x "$py" ] || py=python3

# run IMPL RANKS PROCS CMD...: one line "IMPL RANKS PROCS WALL MAXRSS_KIB
# key=value..." into $work/results (the program's line, the wall time and
# exit time taken by Python around the job).
run() {
    local impl=$1 n=$2 p=$3
    shift 3
    "$py" - "$impl" "$n" "$p" "$@" >>"$work/results" <<'PY' || failed=1
import os, resource, subprocess, sys, time
impl, n, p, cmd = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
env = dict(os.environ, SCALE_T0="%.6f" % time.time())
t = time.time()
r = subprocess.run(cmd, env=env, capture_output=True, text=True)
wall = time.time() - t
line = [l for l in r.stdout.splitlines() if l.startswith("scale ")]
if r.returncode != 0 or not line:
    sys.stderr.write("scale.sh: %s failed (%d):\n%s%s" %
                     (" ".join(cmd), r.returncode, r.stdout[-2000:],
                      r.stderr[-2000:]))
    print(impl, n, p, "%.3f" % wall, "failed=%d" % r.returncode)
    sys.exit(1)
kv = dict(x.split("=") for x in line[0].split()[1:])
exit_s = t + wall - float(kv["end"])
print(impl, n, p, "%.3f" % wall, "exit=%.3f" % exit_s, *line[0].split()[1:])
PY
}

failed=0
for n in $ranks; do
    for p in $procs; do
        [ "$n" -ge "$p" ] || continue
        basic=()
        [ "$n" -ge 1000000 ] && basic=(basic)
        if [ "$p" -eq 1 ]; then
            SCALE_CKPT_DIR=$work/ckpt \
                run ours "$n" 1 "$work/scale-ampi" "${basic[@]}" +vp "$n" +p 2 \
                +stacksize 64K +balancer GreedyLB
        else
            SCALE_CKPT_DIR=$work/ckpt \
                run ours "$n" "$p" "$ampirun" "${root[@]}" -n "$p" \
                "$work/scale-ampi" "${basic[@]}" \
                +vp "$n" +p 1 +stacksize 64K +balancer RefineLB
        fi
    done
done
if [ "$have_ompi" -eq 1 ]; then
    for n in $ompi_ranks; do
        run openmpi "$n" "$n" mpirun "${root[@]}" --oversubscribe \
            -n "$n" "$work/scale-ompi"
    done
fi

"$py" - "$work/results" "$png" <<'PY'
import sys
rows = []
for line in open(sys.argv[1]):
    f = line.split()
    kv = dict(x.split("=") for x in f[4:])
    rows.append((f[0], int(f[1]), int(f[2]), float(f[3]), kv))
rows.sort(key=lambda r: (r[0], r[2], r[1]))
print("| MPI | ranks | processes | wall (s) | start-up (s) | start-up per rank (µs) "
      "| resident per rank (KiB) | barrier (µs) | allreduce 8 B (µs) "
      "| ring (µs) | comm_split (ms) | comm_dup (ms) "
      "| resident per rank after them (KiB) | balancing step (ms) "
      "| checkpoint (ms) | exit (s) |")
print("|" + " --- |" * 16)
for impl, n, p, wall, kv in rows:
    ranks_in_proc0 = n // p
    if "failed" in kv:
        print("| %s | %d | %d | %.2f | failed (status %s) |" % (impl, n, p, wall, kv["failed"])
              + " |" * 11)
        continue
    start = float(kv["start"])
    rss_comms = int(kv.get("rss_comms_kib", "0"))
    print("| %s | %d | %d | %.2f | %.2f | %.1f | %.1f | %.1f | %.1f | %.1f "
          "| %.1f | %.1f | %s | %s | %s | %.2f |" %
          (impl, n, p, wall, start, 1e6 * start / n,
           int(kv["rss_kib"]) / ranks_in_proc0, 1e6 * float(kv["barrier"]),
           1e6 * float(kv["allreduce"]), 1e6 * float(kv["ring"]),
           1e3 * float(kv["split"]), 1e3 * float(kv["dup"]),
           "%.1f" % (rss_comms / ranks_in_proc0) if rss_comms > 0 else "-",
           "%.1f" % (1e3 * float(kv["lb"])) if impl == "ours" else "-",
           "%.1f" % (1e3 * float(kv["ckpt"]))
           if impl == "ours" and float(kv.get("ckpt", "0")) > 0 else "-",
           float(kv["exit"])))
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    sys.stderr.write("scale.sh: no matplotlib (python3-matplotlib): no picture\n")
    sys.exit(0)
fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4))
for impl, p in sorted({(r[0], r[2] if r[0] == "ours" else 0) for r in rows}):
    sel = [r for r in rows if r[0] == impl and (impl != "ours" or r[2] == p)
           and "failed" not in r[4]]
    label = "ours, %d process%s" % (p, "es" if p > 1 else "") \
        if impl == "ours" else "Open MPI (a process per rank)"
    xs = [r[1] for r in sel]
    a.plot(xs, [float(r[4]["start"]) for r in sel], "o-", label=label + ": start-up")
    a.plot(xs, [r[3] for r in sel], "x--", label=label + ": whole run")
    b.plot(xs, [int(r[4]["rss_kib"]) / (r[1] // r[2]) for r in sel], "o-", label=label)
for ax, t, y in ((a, "time", "seconds"), (b, "resident memory per rank", "KiB")):
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("MPI ranks")
    ax.set_ylabel(y)
    ax.set_title(t)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=80)
sys.stderr.write("scale.sh: picture in %s\n" % sys.argv[2])
PY
exit "$failed"
