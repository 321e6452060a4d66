#!/usr/bin/env bash
# Collective MPI-IO bandwidth (bench/io3d.c; results: docs/bench.md,
# "MPI-IO" and docs/mpi-io.md).
#
#   bench/run_io.sh [BUILD_DIR]
#
# A 3-D array of doubles distributed in blocks, written with
# MPI_File_write_at_all through a subarray view and read back with
# MPI_File_read_at_all, on the same file system, side by side:
#  - ours, one process: BUILD_DIR/bench/io3d-ampi +vp R +p BENCH_P
#    (default 2 PEs);
#  - ours, two processes (R >= 2): ampirun -n 2, +vp R +p 1 each;
#  - Open MPI: mpirun -np R io3d-ompi (R processes, its default I/O
#    component: OMPIO), oversubscribed when R exceeds the cores;
#  - dd, the floor: one sequential stream of the same size, bs=4M, written
#    (dd if=/dev/zero) and read (of=/dev/null) through the page cache.
# R in BENCH_IO_RANKS (default "1 8 64"), array sizes BENCH_IO_MIB in MiB
# (default "64 256"); each program reports the best of BENCH_IO_REPS
# repetitions (default 3, each a write then a read), and each cell is the
# median over BENCH_ROUNDS rounds (default 3, the programs interleaved).
# BENCH_IO_SYNC=1 ends every write with MPI_File_sync (dd: conv=fsync), so
# the data reaches the device; by default writes end in the page cache.
# Files go to BENCH_IO_DIR (default BUILD_DIR/bench/io-tmp) and are
# removed; raw outputs to BUILD_DIR/bench/results/io-<timestamp>/.
# Timings are not pass/fail.  Exit status 1 when a program failed.
set -uo pipefail

build_dir=${1:-build}
bench_dir=$build_dir/bench
ranks=${BENCH_IO_RANKS:-1 8 64}
sizes=${BENCH_IO_MIB:-64 256}
reps=${BENCH_IO_REPS:-3}
rounds=${BENCH_ROUNDS:-3}
pes=${BENCH_P:-2}
timeout_s=${BENCH_TIMEOUT:-600}
io_dir=${BENCH_IO_DIR:-$bench_dir/io-tmp}
mpirun=${MPIRUN:-mpirun}
ampirun=${AMPIRUN:-$build_dir/bin/ampirun}
sync_flag=()
dd_sync=()
if [ "${BENCH_IO_SYNC:-0}" = 1 ]; then
    sync_flag=(-s)
    dd_sync=(conv=fsync)
fi
[ -x "$bench_dir/io3d-ampi" ] || {
    echo "run_io.sh: no $bench_dir/io3d-ampi; build first (cmake --build $build_dir --target bench)" >&2
    exit 2
}
raw_dir=$bench_dir/results/io-$(date -u +%Y%m%d-%H%M%S)
mkdir -p "$raw_dir" "$io_dir" || exit 2
failed=0
note() { echo "run_io.sh: $*" >&2; }
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

ompi_run=("$mpirun" --allow-run-as-root --oversubscribe)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

dd_run() { # NAME MIB: MiB/s written and read by dd
    local name=$1 mib=$2 file=$io_dir/dd.dat w r
    rm -f "$file"
    w=$(dd if=/dev/zero of="$file" bs=4M count=$((mib / 4)) "${dd_sync[@]}" 2>&1 |
        awk '/copied/ {print $(NF-1), $NF}')
    r=$(dd if="$file" of=/dev/null bs=4M 2>&1 | awk '/copied/ {print $(NF-1), $NF}')
    rm -f "$file"
    to_mib() { awk '{v=$1; if ($2 ~ /^GB/) v*=1000; else if ($2 ~ /^kB/) v/=1000; printf "%.1f", v*1e6/1048576}'; }
    printf 'best_write_MiBps %s\nbest_read_MiBps %s\n' "$(echo "$w" | to_mib)" \
        "$(echo "$r" | to_mib)" >"$raw_dir/$name.txt"
}

for ((k = 0; k < rounds; k++)); do
    for mib in $sizes; do
        for r in $ranks; do
            run "ampi-$r-$mib-$k" "$bench_dir/io3d-ampi" -m "$mib" -r "$reps" \
                "${sync_flag[@]}" +vp "$r" +p "$pes" "$io_dir/ampi.dat"
            if [ "$r" -ge 2 ]; then
                run "ampi2-$r-$mib-$k" "$ampirun" --launcher "$mpirun" \
                    --launcher-arg --allow-run-as-root --launcher-arg --oversubscribe \
                    -n 2 "$bench_dir/io3d-ampi" -m "$mib" -r "$reps" \
                    "${sync_flag[@]}" +vp "$r" +p 1 "$io_dir/ampi2.dat"
            fi
            run "ompi-$r-$mib-$k" "${ompi_run[@]}" -np "$r" "$bench_dir/io3d-ompi" \
                -m "$mib" -r "$reps" "${sync_flag[@]}" "$io_dir/ompi.dat"
        done
        dd_run "dd-$mib-$k" "$mib"
    done
done
rm -f "$io_dir"/*.dat
rmdir "$io_dir" 2>/dev/null

median() { sort -g | awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]; else print "n/a"}'; }
cell() { # PREFIX KEY: the median of KEY over the rounds
    cat "$raw_dir/$1"-*.txt 2>/dev/null | awk -v k="$2" '$1 == k {print $2}' | median
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (a+0 > 0 && b+0 > 0) printf "%.1fx", a/b; else print "n/a"}'; }

echo "## MPI-IO: collective write and read of a 3-D array (MiB/s)"
echo
echo "$(nproc) cores; ours with +p $pes in one process and with 2 processes (+p 1 each);"
echo "Open MPI with one process per rank; best of $reps per run, median of $rounds runs."
echo
echo "| ranks | MiB | write: ours | ours, 2 procs | Open MPI | ours / Open MPI | dd | read: ours | ours, 2 procs | Open MPI | ours / Open MPI | dd |"
echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for mib in $sizes; do
    ddw=$(cell "dd-$mib" best_write_MiBps)
    ddr=$(cell "dd-$mib" best_read_MiBps)
    for r in $ranks; do
        aw=$(cell "ampi-$r-$mib" best_write_MiBps)
        ar=$(cell "ampi-$r-$mib" best_read_MiBps)
        a2w=$(cell "ampi2-$r-$mib" best_write_MiBps)
        a2r=$(cell "ampi2-$r-$mib" best_read_MiBps)
        ow=$(cell "ompi-$r-$mib" best_write_MiBps)
        orr=$(cell "ompi-$r-$mib" best_read_MiBps)
        echo "| $r | $mib | $aw | $a2w | $ow | $(ratio "$aw" "$ow") | $ddw | $ar | $a2r | $orr | $(ratio "$ar" "$orr") | $ddr |"
    done
done
exit "$failed"
