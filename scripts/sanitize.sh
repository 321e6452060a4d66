#!/usr/bin/env bash
# The sanitizer build (docs/testing.md#the-sanitizer-build): configures
# build-asan with Clang and AMPI_SANITIZE=address,undefined, builds it, and
# runs the unit tests and the MPI test programs (in one process and across
# processes, the migration and checkpoint ones included) under
# AddressSanitizer and UndefinedBehaviorSanitizer.  Every report ends its
# program, so a test with one fails.  Arguments go to ctest (-R lb_, -j1...).
# AMPI_SANITIZE_DIR: another build directory.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
dir=${AMPI_SANITIZE_DIR:-build-asan}
CC=clang-19 CXX=clang++-19 cmake -S . -B "$dir" -G Ninja \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DAMPI_SANITIZE=address,undefined \
    -DAMPI_FORTRAN=OFF >/dev/null
cmake --build "$dir"

cd "$dir"
ctest --output-on-failure -j"$(nproc)" -L '^(unit|mpi)$' "$@"
