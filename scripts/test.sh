#!/usr/bin/env bash
# Installs what the project needs (Debian packages), builds it with warnings
# as errors, and runs the whole test suite (unit tests, MPI programs under
# several +vp/+p shapes, and lit), ending with ctest's summary; then MPICH's
# test suite (docs/conformance.md) on the directories that fit CI's time,
# ending with its own summary line. Fails when either finds a failure.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DAMPI_WERROR=ON >/dev/null
cmake --build build

# ctest lists the tests that did not run (GPU tests without a device) after
# its summary: the summary line is repeated last.
set +e
(cd build && ctest --output-on-failure -j"$(nproc)" 2>&1) |
    tee build/ctest-output.log
status=${PIPESTATUS[0]}

# MPICH's suite (docs/conformance.md): these directories in one process,
# and point-to-point, collectives and one-sided across 2 processes too,
# without the datatype-pool lists (the full run has them).
bash scripts/conformance.sh --no-dtp --also-np2 pt2pt,coll,rma pt2pt coll \
    rma datatype comm group topo attr info errhan init io f77 f90
conformance=$?
set -e

grep -E '^[0-9]+% tests passed' build/ctest-output.log | tail -1
[ "$status" -eq 0 ] && [ "$conformance" -eq 0 ]
