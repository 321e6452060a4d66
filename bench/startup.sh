#!/usr/bin/env bash
# Startup time and resident memory of one process running many ranks, with
# each privatization mode (results: docs/privatization-pie.md).
#
#   bench/startup.sh [BUILD_DIR]
#
# Builds bench/startup.c with BUILD_DIR/bin/ampicc (default build) as
# -privatize=none, tls and pie, then runs each with +vp 1, 64 and 1000 on
# +p 2 (BENCH_P), BENCH_ROUNDS times (default 7), interleaved.  Startup is
# the process's wall time, start to exit: the median over the rounds and
# the best (a busy machine only ever adds time).  Memory is the median of
# the resident memory once every rank has started (the program prints it:
# all of it, and the anonymous part, which excludes the program and library
# pages mapped from files, shared with the page cache).  Prints a Markdown
# table; timings are not pass/fail.
set -euo pipefail

build_dir=${1:-build}
rounds=${BENCH_ROUNDS:-7}
pes=${BENCH_P:-2}
src=$(cd "$(dirname "$0")" && pwd)/startup.c
ampicc=$build_dir/bin/ampicc
[ -x "$ampicc" ] || { echo "startup.sh: no $ampicc; build first" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

modes=(none tls pie)
vps=(1 64 1000)
for mode in "${modes[@]}"; do
    "$ampicc" -O2 -privatize="$mode" "$src" -o "$work/startup-$mode"
done

# One run: "<milliseconds> <RSS KiB> <anonymous RSS KiB>".  The time is
# taken by Python around the child, so the shell's own start-up is not in it.
measure() {
    python3 - "$@" <<'PY'
import subprocess, sys, time
t = time.perf_counter()
out = subprocess.run(sys.argv[1:], check=True, capture_output=True,
                     text=True).stdout
ms = (time.perf_counter() - t) * 1e3
words = out.split()
print("%.1f %s %s" % (ms, words[words.index("rss") + 1],
                      words[words.index("anon") + 1]))
PY
}

median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
best() { sort -n | head -n 1; }

for ((i = 0; i < rounds; i++)); do
    for mode in "${modes[@]}"; do
        for vp in "${vps[@]}"; do
            measure "$work/startup-$mode" +vp "$vp" +p "$pes" \
                >>"$work/$mode-$vp"
        done
    done
done

echo "| mode | +vp | startup, median (best) (ms) | RSS (MiB) | anonymous RSS (MiB) | per extra rank (KiB, RSS / anonymous) |"
echo "| --- | ---: | ---: | ---: | ---: | ---: |"
for mode in "${modes[@]}"; do
    for vp in "${vps[@]}"; do
        f=$work/$mode-$vp
        ms="$(awk '{print $1}' "$f" | median) ($(awk '{print $1}' "$f" | best))"
        rss=$(awk '{print $2}' "$f" | median)
        anon=$(awk '{print $3}' "$f" | median)
        if [ "$vp" = 1 ]; then
            rss1=$rss anon1=$anon per="-"
        else
            per="$(((rss - rss1) / (vp - 1))) / $(((anon - anon1) / (vp - 1)))"
        fi
        printf "| %s | %d | %s | %.1f | %.1f | %s |\n" "$mode" "$vp" "$ms" \
            "$(echo "$rss / 1024" | bc -l)" "$(echo "$anon / 1024" | bc -l)" \
            "$per"
    done
done
