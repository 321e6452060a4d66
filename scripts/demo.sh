#!/usr/bin/env bash
# Installs what the project needs (Debian packages), builds it, and runs the
# demo: a legacy-style MPI program compiled with ampicc and run as 8 ranks
# on 2 worker threads in one process.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build

run() {
    echo "+ $*"
    "$@"
}
run build/bin/ampicc -O2 -o build/jacobi1d examples/jacobi1d.c -lm
run build/bin/ampirun -n 1 build/jacobi1d +vp 8 +p 2
