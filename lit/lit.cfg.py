# -*- Python -*-
# lit configuration for AMPI.  Run lit on the build's lit directory (ctest
# does: `ctest -R lit`); lit.site.cfg.py there says where the build is and
# loads this file.

import os
import shutil
import subprocess
import sys

import lit.formats

if not hasattr(config, "ampi_obj_root"):
    lit_config.fatal(
        "run lit on the build's lit directory (build/lit), which holds "
        "lit.site.cfg.py, not on the source directory"
    )

config.name = "ampi"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".test", ".c", ".cpp", ".f", ".f90"]
# Inputs/ hold the sources that tests build; they are not tests.
config.excludes = ["Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = config.ampi_lit_exec_root

# A time limit per test (AMPI_LIT_TIMEOUT seconds, CMake's cache): a test
# still running then is ended with every process it started and reported
# as TIMEOUT, and the others go on.  lit's --timeout (or LIT_OPTS) wins.
# lit needs Python's psutil for it.
if config.ampi_test_timeout > 0 and lit_config.maxIndividualTestTime == 0:
    supported, why = lit_config.maxIndividualTestTimeIsSupported
    if supported:
        lit_config.maxIndividualTestTime = config.ampi_test_timeout
    else:
        lit_config.warning(
            "no time limit per test (AMPI_LIT_TIMEOUT): %s; install "
            "python3-psutil (scripts/setup.sh)" % why
        )

# Our tools first, then FileCheck, not and split-file.  Nothing from the
# caller's environment chooses the compiler under test.
config.environment["PATH"] = os.pathsep.join(
    [config.ampi_bin_dir, config.llvm_tools_dir, config.environment["PATH"]]
)
for var in ["AMPI_CC", "AMPI_CXX", "AMPI_FC", "AMPI_F77", "AMPI_PRIVATIZE",
            "CC", "CXX", "FC", "CFLAGS", "FFLAGS", "LDFLAGS"]:
    config.environment.pop(var, None)


def tool(name):
    return os.path.join(config.ampi_bin_dir, name)


# Projects that tests configure use this build's generator, single-config so
# that programs land at the top of their build directory.
generator = config.cmake_generator.replace(" Multi-Config", "")


# %ampicc is the full path of the wrapper, so it also serves where a path is
# wanted (-DMPI_C_COMPILER=%ampicc); %ampicc_path says so explicitly.
# Longer names first: lit substitutes in list order.
config.substitutions.extend(
    [
        ("%ampicc_path", tool("ampicc")),
        ("%ampicxx", tool("ampicxx")),
        ("%ampicc", tool("ampicc")),
        ("%ampif90", tool("ampif90")),
        ("%ampif77", tool("ampif77")),
        # The flang pass plugin, as ampif90 -privatize=tls loads it.
        ("%ampi_pass", os.path.join(config.ampi_obj_root, "lib", "ampi",
                                    "AmpiPrivatizePass.so")),
        ("%ampirun", tool("ampirun")),
        # The prefix the wrappers report: the build tree, symlinks resolved.
        ("%ampi_prefix", os.path.realpath(config.ampi_obj_root)),
        ("%clangxx", config.ampi_default_cxx),
        ("%clang", config.ampi_default_cc),
        ("%flang", config.ampi_default_fc),
        ("%cmake_generator", '-G "%s"' % generator),
        ("%cmake", config.cmake_command),
        ("%make", config.make_program),
        ("%python", sys.executable),
        ("%term_after", sys.executable + " " +
         os.path.join(config.test_source_root, "Inputs", "term_after.py")),
        ("%status", sys.executable + " " +
         os.path.join(config.test_source_root, "Inputs", "status.py")),
    ]
)

if config.ampi_have_runtime:
    config.available_features.add("ampi-runtime")
if config.ampi_have_fortran:
    config.available_features.add("flang")
    # ampif90/ampif77 drive gfortran with AMPI_FC/AMPI_F77=gfortran (pie
    # privatization); the tests name it through %gfortran_env.
    if shutil.which("gfortran", path=config.environment["PATH"]):
        config.available_features.add("gfortran")
        config.substitutions.append(
            ("%gfortran_env", "env AMPI_FC=gfortran AMPI_F77=gfortran"))
# The privatization plugin, as ampicc -privatize=tls loads it, and the
# source rewriter built with it.
if config.ampi_clang_plugin:
    config.available_features.add("clang-plugin")
    config.substitutions.append(("%ampi_plugin", config.ampi_clang_plugin))
    config.substitutions.append(("%ampi_privatize", tool("ampi-privatize")))
if os.path.isfile(config.make_program):
    config.available_features.add("make")


def cpu_list(text):
    """The CPUs of a Linux CPU list such as "0-3,8"."""
    cpus = set()
    for part in text.strip().split(","):
        if part:
            first, _, last = part.partition("-")
            cpus.update(range(int(first), int(last or first) + 1))
    return cpus


def cpus_0_1_usable():
    """CPUs 0 and 1 can each be bound to (taskset -c) and are different
    cores (not hyperthreads of one), so tests can give a program one core,
    or two, of their choice."""
    taskset = shutil.which("taskset", path=config.environment["PATH"])
    if not taskset:
        return False
    for cpu in ["0", "1"]:
        try:
            if subprocess.run([taskset, "-c", cpu, "true"],
                              capture_output=True, timeout=30).returncode:
                return False
        except (OSError, subprocess.SubprocessError):
            return False
    siblings = "/sys/devices/system/cpu/cpu0/topology/thread_siblings_list"
    try:
        with open(siblings) as f:
            return 1 not in cpu_list(f.read())
    except (OSError, ValueError):
        return False


# Tests of what differs for root (Open MPI's launcher refuses root).
if os.geteuid() == 0:
    config.available_features.add("root")

if cpus_0_1_usable():
    config.available_features.add("taskset-cpus-0-1")


def max_map_count():
    try:
        with open("/proc/sys/vm/max_map_count") as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 0


# The kernel's limit on a process's mappings at most twice Linux's default
# (65530): a test can pass it with ranks in a few seconds.
if 0 < max_map_count() <= 131072:
    config.available_features.add("max-map-count-small")


def is_open_mpi(mpicc):
    try:
        out = subprocess.run(
            [mpicc, "-showme:version"],
            capture_output=True,
            text=True,
            timeout=30,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return False
    return "Open MPI" in out


# +trace's readers: otf2-print (Debian's otf2-tools) and ampitrace, which
# needs python3-otf2 and python3-matplotlib for the system's python3.
config.substitutions.append(("%ampitrace", tool("ampitrace")))
otf2_print = shutil.which("otf2-print", path=config.environment["PATH"])
if otf2_print:
    config.available_features.add("otf2-print")
    config.substitutions.append(("%otf2_print", otf2_print))
if subprocess.call(["/usr/bin/python3", "-c", "import otf2, matplotlib"],
                   stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL) == 0:
    config.available_features.add("ampitrace")


# Open MPI's mpicc, for tests that compare our wrapper with it.
mpicc = shutil.which("mpicc", path=config.environment["PATH"])
if mpicc and is_open_mpi(mpicc):
    config.available_features.add("openmpi")
    config.substitutions.append(("%openmpi_mpicc", mpicc))
    # Its mpirun, a PMIx launcher, for tests of programs it starts; allowed
    # to run as root and to start more processes than there are cores.
    mpirun = os.path.join(os.path.dirname(mpicc), "mpirun")
    if os.access(mpirun, os.X_OK):
        config.available_features.add("openmpi-mpirun")
        config.substitutions.append(
            ("%mpirun", mpirun + " --allow-run-as-root --oversubscribe"))
    # Its mpif90, for Fortran programs built both ways (and run by mpirun).
    mpif90 = os.path.join(os.path.dirname(mpicc), "mpif90")
    if os.access(mpif90, os.X_OK) and os.access(mpirun, os.X_OK):
        config.available_features.add("openmpi-fortran")
        config.substitutions.append(("%openmpi_mpif90", mpif90))
