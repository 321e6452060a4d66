#!/usr/bin/env python3
"""Generates the entry points of the C binding that run a call of a kernel
thread bound to a rank on the rank's PE (runtime/mpi/threads/threads.h), from the
prototypes.

    gen_threads.py SRCDIR OUT.c OUT.h

OUT.h is forced into the runtime's sources (runtime/CMakeLists.txt): it
renames each such function's implementation PMPI_xxx to amp_impl_PMPI_xxx
and keeps AMP_WEAK_ALIAS from making MPI_xxx there.  OUT.c defines the
exported PMPI_xxx (and its weak alias MPI_xxx): on a rank's own thread it
calls the implementation at once; on a bound kernel thread it packs the
arguments and hands the implementation to amp_mt_forward (f_xxx).  In a
process that may lend ranks to idle PEs, the call goes through l_xxx,
which tells the scheduler around it (amp_sched_call_enter/leave: a rank
lent to another PE goes home first, and may be lent when it leaves; with
+trace, r_xxx instead, which also records its entry and exit); a
blocking collective over MPI_COMM_WORLD there first gives +lbperiod its
chance.  Both are out of line, so the common path (no binding, no lending)
is two tests and a tail call, with no frame of its own.  The build
runs it; the output is not checked in.

Left out (they run on the calling thread, with no rank state to guard, or
must see the calling thread): the functions that return something else
than an error code (MPI_Wtime, the handle conversions, MPI_Aint_add ...),
the status conversions, the variadic MPI_Pcontrol, MPI_Is_thread_main and
MPI_Abort.
"""
import os
import sys

import mpi_headers

DIRECT = {"Pcontrol", "Is_thread_main", "Abort",
          # statuses converted in place (runtime/mpi/fortran/fortran.c)
          "Status_c2f", "Status_f2c", "Status_c2f08", "Status_f082c",
          "Status_f082f", "Status_f2f08"}


# Calls that read only the calling rank's own objects: a rank lent to
# another PE (sched.h, "Lending") makes them there.  Every other call
# takes it home first (amp_sched_call_enter), and the end of the outermost
# one may lend it (amp_sched_call_leave).
AWAY_OK = {"Comm_rank", "Comm_size", "Initialized", "Finalized",
           "Query_thread", "Get_version", "Type_size", "Get_count"}


# The blocking collectives: over MPI_COMM_WORLD each may be where
# +lbperiod balances (runtime/rank/period.h), before it runs.
WORLD_COLLS = {"Barrier", "Bcast", "Reduce", "Allreduce", "Gather",
               "Gatherv", "Scatter", "Scatterv", "Allgather", "Allgatherv",
               "Alltoall", "Alltoallv", "Alltoallw", "Reduce_scatter",
               "Reduce_scatter_block", "Scan", "Exscan"}


def periodic(name, params):
    """The lines that give +lbperiod its chance before a blocking
    collective over MPI_COMM_WORLD (none for other calls)."""
    if not world_coll(name, params):
        return []
    return ["    if (__builtin_expect(amp_proc.lb_periodic != NULL, 0) && "
            "comm == MPI_COMM_WORLD)",
            "        amp_proc.lb_periodic();"]


def coll_trace(name, params):
    """The line that describes a blocking collective's arguments for its
    +trace records (runtime/mpi/coll/trace.h), or None."""
    base = name[:-2] if name.endswith("_c") else name
    if not world_coll(name, params):
        return None
    have = {p.name: p for p in params}
    fields = [".op = AMP_TRACE_COLL_%s" % base.upper(), ".comm = comm",
              ".root = %s" % ("root" if "root" in have else "-1")]
    for f in ("sendbuf", "recvbuf", "count", "sendcount", "recvcount",
              "datatype", "sendtype", "recvtype", "sendtypes", "recvtypes"):
        if f in have:
            fields.append(".%s = %s" % (f, f))
    for f in ("sendcounts", "recvcounts"):
        if f in have:
            large = have[f].base == "MPI_Count"
            fields.append(".%s%s = %s" % (f, "_c" if large else "", f))
    return "    amp_coll_trace_t ta = {%s};" % ", ".join(fields)


def world_coll(name, params):
    base = name[:-2] if name.endswith("_c") else name
    return base in WORLD_COLLS and any(
        p.name == "comm" and p.type == "MPI_Comm" for p in params)


def wrapped(src):
    """[(name, [Param])] of the functions that get an entry point."""
    out = []
    for ret, name, params, variadic in mpi_headers.declared(src):
        if ret != "int" or variadic or name in DIRECT:
            continue
        out.append((name, params))
    return out


def member(p):
    """p as a member of the argument struct (arrays become pointers)."""
    if p.dims == "[]":
        return "%s *%s" % (p.type, p.name)
    if p.dims == "[][3]":
        return "%s (*%s)[3]" % (p.type, p.name)
    if p.dims:
        raise SystemExit("gen_threads.py: %s%s: no member form" %
                         (p.name, p.dims))
    return p.c_decl()


def entry(name, params):
    decls = ", ".join(p.c_decl() for p in params) or "void"
    names = ", ".join(p.name for p in params)
    lines = ["int amp_impl_PMPI_%s(%s);" % (name, decls), ""]
    lines.append("struct a_%s {" % name)
    for p in params:
        lines.append("    %s;" % member(p))
    lines.append("    int ret;")
    lines.append("};")
    lines.append("")
    lines.append("static void t_%s(void *p)" % name)
    lines.append("{")
    lines.append("    struct a_%s *a = p;" % name)
    if world_coll(name, params):
        # Counted as on the rank's own thread: every rank must agree on
        # the collectives (runtime/rank/period.h).
        lines.append("    if (amp_proc.lb_periodic != NULL && "
                     "a->comm == MPI_COMM_WORLD)")
        lines.append("        amp_proc.lb_periodic();")
    lines.append("    a->ret = amp_impl_PMPI_%s(%s);" % (
        name, ", ".join("a->" + p.name for p in params)))
    lines.append("}")
    lines.append("")
    # The forwarding from a bound kernel thread, out of line: the entry
    # point itself then needs no frame before its tail call.
    lines.append("static __attribute__((noinline, cold)) int f_%s(%s)" % (
        name, decls))
    lines.append("{")
    lines.append("    struct a_%s a = {%s};" % (
        name, ", ".join([p.name for p in params] + ["0"])))
    lines.append("    amp_mt_forward(t_%s, &a);" % name)
    lines.append("    return a.ret;")
    lines.append("}")
    lines.append("")
    if name not in AWAY_OK:
        # With +trace, the call goes through r_NAME, which records its
        # entry and exit on the rank's location (sched.h); l_NAME pays one
        # test for it.
        lines.append("static __attribute__((noinline, cold)) int r_%s(%s)"
                     % (name, decls))
        lines.append("{")
        lines.append("    amp_thread_t *self = amp_sched_call_enter();")
        lines.append("    amp_sched_trace_call(self, \"MPI_%s\", 0);" % name)
        lines.extend(periodic(name, params))
        ta = coll_trace(name, params)
        if ta:
            lines.append(ta)
            lines.append("    amp_coll_trace_begin(&ta);")
        lines.append("    int ret = amp_impl_PMPI_%s(%s);" % (name, names))
        if ta:
            lines.append("    amp_coll_trace_end(&ta, ret);")
        lines.append("    amp_sched_trace_call(self, \"MPI_%s\", 1);" % name)
        lines.append("    amp_sched_call_leave(self);")
        lines.append("    return ret;")
        lines.append("}")
        lines.append("")
        lines.append("static __attribute__((noinline)) int l_%s(%s)" % (
            name, decls))
        lines.append("{")
        lines.append("    if (__builtin_expect(amp_sched_lending & "
                     "AMP_SCHED_TRACED, 0))")
        lines.append("        return r_%s(%s);" % (name, names))
        lines.append("    amp_thread_t *self = amp_sched_call_enter();")
        lines.extend(periodic(name, params))
        lines.append("    int ret = amp_impl_PMPI_%s(%s);" % (name, names))
        lines.append("    amp_sched_call_leave(self);")
        lines.append("    return ret;")
        lines.append("}")
        lines.append("")
    lines.append("int PMPI_%s(%s)" % (name, decls))
    lines.append("{")
    lines.append("    if (__builtin_expect(amp_mt_bound != NULL, 0))")
    lines.append("        return f_%s(%s);" % (name, names))
    if name in AWAY_OK:
        lines.append("    return amp_impl_PMPI_%s(%s);" % (name, names))
    else:
        # In a process that may lend, the call is made where the rank is
        # at home (l_NAME); otherwise straight on, a tail call.
        lines.append("    if (__builtin_expect(amp_sched_lending, 0)%s)" % (
            " || __builtin_expect(amp_proc.lb_periodic != NULL, 0)"
            if world_coll(name, params) else ""))
        lines.append("        return l_%s(%s);" % (name, names))
        lines.append("    return amp_impl_PMPI_%s(%s);" % (name, names))
    lines.append("}")
    lines.append("AMP_MT_ALIAS(%s)" % name)
    return "\n".join(lines) + "\n"


def generate(src):
    fns = wrapped(src)
    c = ["/* Generated by scripts/gen_threads.py from the C prototypes; do "
         "not edit.", " * The entry points that run a bound thread's call on "
         "its rank's PE", " * (runtime/mpi/threads/threads.h). */",
         "#include \"mpi/threads/threads.h\"",
         "#include \"mpi/coll/trace.h\"", "",
         "#define AMP_MT_ALIAS(name) AMP_ALIAS_DEF(name)", ""]
    h = ["/* Generated by scripts/gen_threads.py from the C prototypes; do "
         "not edit.", " * Forced into the runtime's sources: the "
         "implementations of the calls", " * that scripts/gen_threads.py "
         "makes entry points for, renamed. */",
         "#define AMP_MT_RENAMED 1"]
    for name, params in fns:
        c.append(entry(name, params))
        h.append("#define PMPI_%s amp_impl_PMPI_%s" % (name, name))
        h.append("#define AMP_MT_WRAPPED_%s ~, 0," % name)
    return "\n".join(c), "\n".join(h) + "\n"


def write_if_changed(path, text):
    if os.path.exists(path) and open(path, encoding="utf-8").read() == text:
        return
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def main():
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    c, h = generate(sys.argv[1])
    write_if_changed(sys.argv[2], c)
    write_if_changed(sys.argv[3], h)


if __name__ == "__main__":
    main()
