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
ctest --output-on-failure -j"$(nproc)"
