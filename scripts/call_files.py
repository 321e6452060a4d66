#!/usr/bin/env python3
"""Which source files of the runtime an MPI call's implementation spans.

Reads the runtime's object files of a build (objdump -dr): every direct
call and tail jump of every function, then follows them from the call's
implementation (amp_impl_PMPI_Send for MPI_Send; AMPI_Migrate as it is),
leaving out error reporting (amp_mpi_error..., amp_fatal, amp_log_...,
the error handlers).  Calls through function pointers are not followed.
Prints, per call, the files reached with the number of their functions
reached, and with --mpi only those under runtime/mpi/, rank/ and start/
(the API layers) plus the lower folders entered.

Usage: call_files.py [--mpi] BUILD_DIR SOURCE_ROOT NAME...
"""
import collections
import glob
import os
import re
import subprocess
import sys

STOP = re.compile(r"^(amp_mpi_error\w*|amp_fatal\w*|amp_log_\w+|"
                  r"amp_assert_fail|amp_errh_\w+|amp_mpi_class_of\w*|__\w+|"
                  r"amp_report\w*)$")
FUNC = re.compile(r"^[0-9a-f]+ <([^>]+)>:$")
CALL = re.compile(r"\s(call|jmp)\s+[0-9a-f]+ <([^>+]+)(\+0x[0-9a-f]+)?>")
RELOC = re.compile(r"R_X86_64_(PLT32|PC32)\s+([A-Za-z_][\w.]*)")
API = ("mpi/", "rank/", "start/")


def objects(build, src):
    """(file under runtime/, object) for each object of the runtime."""
    out = []
    for lib in ("amp_objs", "amp_core"):
        pattern = os.path.join(build, "runtime/CMakeFiles", lib + ".dir",
                               "**", "*.o")
        for o in glob.glob(pattern, recursive=True):
            name = o.split(".dir/")[1].replace("__/", "")[:-2]
            generated = name.endswith("_gen.c")
            if generated or os.path.exists(os.path.join(src, "runtime", name)):
                out.append((name, o))
    return out


def parse(build, src):
    """Global definitions, each file's functions, and the calls of each."""
    defs, local = {}, collections.defaultdict(set)
    calls = collections.defaultdict(set)
    for f, o in objects(build, src):
        nm = subprocess.run(["nm", "--defined-only", o], capture_output=True,
                            text=True).stdout
        for line in nm.splitlines():
            p = line.split()
            if len(p) == 3 and p[1] in "Tt":
                local[f].add(p[2])
                if p[1] == "T":
                    defs.setdefault(p[2], f)
        cur = last = None
        dump = subprocess.run(["objdump", "-dr", "--no-show-raw-insn", o],
                              capture_output=True, text=True).stdout
        for line in dump.splitlines():
            m = FUNC.match(line)
            if m:
                cur, last = m.group(1), None
                continue
            m = CALL.search(line) if cur else None
            if m:
                # An unresolved call names the caller itself: the
                # relocation on the next line says whom it calls.
                if m.group(2) != cur:
                    calls[(f, cur)].add(m.group(2))
                last = (f, cur)
                continue
            m = RELOC.search(line) if last else None
            if m:
                calls[last].add(m.group(2))
                last = None
    return defs, local, calls


def reach(defs, local, calls, entry):
    if entry not in defs:
        return None
    start = (defs[entry], entry)
    seen, todo = {start}, [start]
    while todo:
        f, fn = todo.pop()
        for tgt in calls.get((f, fn), ()):
            if STOP.match(tgt):
                continue
            node = (f, tgt) if tgt in local[f] else (defs.get(tgt), tgt)
            if node[0] and node not in seen:
                seen.add(node)
                todo.append(node)
    return seen


def main(argv):
    api_only = argv[:1] == ["--mpi"]
    argv = argv[1:] if api_only else argv
    if len(argv) < 3:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    defs, local, calls = parse(argv[0], argv[1])
    for entry in argv[2:]:
        seen = reach(defs, local, calls, entry)
        if seen is None:
            print(f"{entry}: not defined in the runtime's objects")
            continue
        files = collections.Counter(f for f, _ in seen)
        if api_only:
            api = sorted(f for f in files if f.startswith(API))
            lower = sorted({f.split("/")[0] + "/" for f in files
                            if not f.startswith(API)})
            print(f"{entry}: {len(api)} files of the API layers: "
                  + ", ".join(api) + "; then " + ", ".join(lower))
            continue
        print(f"{entry}: {len(files)} files, {len(seen)} functions")
        for f in sorted(files):
            print(f"  {f} ({files[f]})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
