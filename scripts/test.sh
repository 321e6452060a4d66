#!/usr/bin/env bash
# Installs what the project needs (Debian packages), builds it with warnings
# as errors, and runs the whole test suite (unit tests, MPI programs under
# several +vp/+p shapes, and lit), ending with ctest's summary.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DAMPI_WERROR=ON >/dev/null
cmake --build build
cd build
# ctest lists the tests that did not run (GPU tests without a device) after
# its summary: the summary line is repeated last.
set +e
ctest --output-on-failure -j"$(nproc)" 2>&1 | tee ctest-output.log
status=${PIPESTATUS[0]}
set -e
grep -E '^[0-9]+% tests passed' ctest-output.log | tail -1
exit "$status"
