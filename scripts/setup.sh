#!/usr/bin/env bash
# Installs the Debian packages this project builds, tests and benchmarks with.
# Idempotent: packages already present are left alone, and `apt-get update`
# runs at most once per invocation (only when something is missing).
set -euo pipefail

packages=(
    build-essential cmake ninja-build pkg-config python3 gfortran
    python3-psutil          # lit's time limit per test (lit/README.md)
    clang-19 clang-format-19 llvm-19-tools llvm-19-dev libclang-19-dev flang-19
    libomp-19-dev
    libclang-rt-19-dev      # the sanitizer build (scripts/sanitize.sh)
    libhwloc-dev hwloc
    iproute2                # the cluster of namespaces (scripts/cluster.sh, tests/cluster)
    slurmctld slurmd slurm-client   # Slurm on that cluster (tests/cluster/slurm.sh)
    libpmix-dev libucx-dev
    openmpi-bin libopenmpi-dev
    libopen-trace-format2-dev otf2-tools # +trace: OTF2 (headers, pkg-config), otf2-print
    python3-otf2 python3-matplotlib # ampitrace
    dpkg-dev xz-utils       # apt-get source (scripts/conformance.sh)
)

missing=()
for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed'; then
        missing+=("$p")
    fi
done

if [ "${#missing[@]}" -eq 0 ]; then
    exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
    echo "setup.sh: missing packages (${missing[*]}); run as root to install them" >&2
    exit 1
fi

echo "setup.sh: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
