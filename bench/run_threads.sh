#!/usr/bin/env bash
# MPI calls from threads of a rank (MPI_THREAD_MULTIPLE), ours against Open
# MPI's in one invocation; a Markdown table on stdout (docs/bench.md).
#
#   bench/run_threads.sh [BUILD_DIR]
#
# Ours: the two ranks in one process on two PEs (+vp 2 +p 2), and in two
# processes (ampirun -n 2); Open MPI: two processes (mpirun -n 2).
# BENCH_ROUNDS rounds (default 3), each cell the median; BENCH_THREADS_ITERS
# ping-pongs per measurement (default 20000; ten times as many calls).
# Timings are not pass/fail.
set -uo pipefail

build_dir=${1:-build}
bench_dir=$build_dir/bench
rounds=${BENCH_ROUNDS:-3}
iters=${BENCH_THREADS_ITERS:-20000}
mpirun=${MPIRUN:-$(command -v mpirun.openmpi || command -v mpirun)}
ampirun=${AMPIRUN:-$build_dir/bin/ampirun}
for prog in threads-ampi threads-ompi; do
    if [ ! -x "$bench_dir/$prog" ]; then
        echo "run_threads.sh: no $bench_dir/$prog; build with" \
             "cmake --build $build_dir --target bench" >&2
        exit 2
    fi
done
root=()
ampi_root=()
if [ "$(id -u)" -eq 0 ]; then
    root=(--allow-run-as-root)
    ampi_root=(--launcher-arg --allow-run-as-root)
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for r in $(seq "$rounds"); do
    "$bench_dir/threads-ampi" -i "$iters" +vp 2 +p 2 >"$out/one.$r" || exit 1
    "$ampirun" -n 2 --launcher "$mpirun" "${ampi_root[@]}" \
        "$bench_dir/threads-ampi" -i "$iters" +vp 2 +p 1 >"$out/two.$r" ||
        exit 1
    "$mpirun" -n 2 "${root[@]}" --mca pml ob1 --mca btl self,vader \
        "$bench_dir/threads-ompi" -i "$iters" >"$out/ompi.$r" || exit 1
done

# median NAME CASE: the median over the rounds of ns for CASE.
median() {
    for r in $(seq "$rounds"); do
        sed -n "s/^case=$2 ns=//p" "$out/$1.$r"
    done | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'
}

echo "| case | ours, 1 process, 2 PEs (ns) | ours, 2 processes (ns) | Open MPI, 2 processes (ns) | ours 1 process / Open MPI |"
echo "| --- | --- | --- | --- | --- |"
for c in call_main call_thread pp_main pp_thread; do
    one=$(median one "$c")
    two=$(median two "$c")
    ompi=$(median ompi "$c")
    awk -v c="$c" -v a="$one" -v b="$two" -v o="$ompi" 'BEGIN {
        printf "| %s | %.1f | %.1f | %.1f | %.2fx |\n", c, a, b, o, a / o }'
done
