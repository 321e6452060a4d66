#!/usr/bin/env python3
"""Generates the large-count "_c" calls of MPI-4.0 that run their int form
with converted arguments (runtime/mpi/large/large.h), from the two prototypes.

    gen_large.py SRCDIR OUT.c

The build runs it (runtime/CMakeLists.txt); the output is not checked in.
The _c calls that runtime/mpi/large/large.c defines by hand (PMPI_xxx_c there)
are skipped.  Each parameter of a _c call is paired with the int form's
parameter of the same place and name, and converted by its pair of types:

    same type                       passed as it is
    MPI_Count before MPI_Datatype   a count with its type (amp_large_count_dt:
                                    beyond INT_MAX, one element of a bigger
                                    type)
    MPI_Count / MPI_Aint -> int     must fit an int (amp_large_int)
    MPI_Count -> MPI_Aint           passed as it is (the same width)
    array of MPI_Count / MPI_Aint   converted element by element; its length
      -> array of int or MPI_Aint   comes from ARRAY_LEN

Anything else stops the script: write that call in large.c.
"""
import os
import re
import sys

import mpi_headers

# The length of an array parameter, by the call's family (the int form's
# name without a leading I and a trailing _init) and the parameter's name:
# a C expression of the call's parameters and the helpers of large.h.
GROUP = "amp_large_len(&L, comm, AMP_LARGE_GROUP, 0)"
LOCAL = "amp_large_len(&L, comm, AMP_LARGE_LOCAL, 0)"
ROOT = "amp_large_len(&L, comm, AMP_LARGE_ROOT, root)"
INDEG = "amp_large_len(&L, comm, AMP_LARGE_INDEG, 0)"
OUTDEG = "amp_large_len(&L, comm, AMP_LARGE_OUTDEG, 0)"
ARRAY_LEN = {
    "Gatherv": {"recvcounts": ROOT, "displs": ROOT},
    "Scatterv": {"sendcounts": ROOT, "displs": ROOT},
    "Allgatherv": {"recvcounts": GROUP, "displs": GROUP},
    "Alltoallv": {"sendcounts": GROUP, "sdispls": GROUP,
                  "recvcounts": GROUP, "rdispls": GROUP},
    "Alltoallw": {"sendcounts": GROUP, "sdispls": GROUP,
                  "recvcounts": GROUP, "rdispls": GROUP},
    "Reduce_scatter": {"recvcounts": LOCAL},
    "Neighbor_allgatherv": {"recvcounts": INDEG, "displs": INDEG},
    "Neighbor_alltoallv": {"sendcounts": OUTDEG, "sdispls": OUTDEG,
                           "recvcounts": INDEG, "rdispls": INDEG},
    "Neighbor_alltoallw": {"sendcounts": OUTDEG, "sdispls": OUTDEG,
                           "recvcounts": INDEG, "rdispls": INDEG},
    # Datatype constructors: one entry per block or dimension.
    "Type_indexed": {"array_of_blocklengths": "count_i",
                     "array_of_displacements": "count_i"},
    "Type_create_hindexed": {"array_of_blocklengths": "count_i",
                             "array_of_displacements": "count_i"},
    "Type_create_indexed_block": {"array_of_displacements": "count_i"},
    "Type_create_hindexed_block": {"array_of_displacements": "count_i"},
    "Type_create_struct": {"array_of_blocklengths": "count_i",
                           "array_of_displacements": "count_i"},
    "Type_create_subarray": {"array_of_sizes": "ndims",
                             "array_of_subsizes": "ndims",
                             "array_of_starts": "ndims"},
    "Type_create_darray": {"array_of_gsizes": "ndims"},
}

WIDE = ("MPI_Count", "MPI_Aint")


def family(name):
    base = re.sub(r"_init$", "", name)
    if base.startswith("I") and base[1:2].islower():
        base = base[1:].capitalize()
    return base


def hand_written(src):
    text = open(os.path.join(src, "runtime", "mpi", "large", "large.c"),
                encoding="utf-8").read()
    return set(re.findall(r"^int PMPI_(\w+_c)\(", text, re.M))


def comm_of(params):
    """The communicator parameter whose handler reports, or None."""
    for p in params:
        if p.base == "MPI_Comm" and p.stars == 0:
            return p.name
    return None


def convert(name, base, pc, p, following, lines, args):
    """Adds the conversion of _c parameter pc (int form's p) of name."""
    n = pc.name
    if pc.type == p.type and pc.dims == p.dims:
        args.append(n)
        return
    scalar = pc.stars == 0 and p.stars == 0
    if scalar and pc.base in WIDE and p.base == "int":
        if following is not None and following.base == "MPI_Datatype" \
                and following.stars == 0:
            lines.append("    int %s_i;" % n)
            lines.append("    amp_large_count_dt(&L, %s, &%s_i, &%s, \"%s\");"
                         % (n, n, following.name, n))
        else:
            lines.append("    int %s_i;" % n)
            lines.append("    amp_large_int(&L, %s, &%s_i, \"%s\");"
                         % (n, n, n))
        args.append("%s_i" % n)
        return
    if scalar and pc.base == "MPI_Count" and p.base == "MPI_Aint":
        args.append("(MPI_Aint)%s" % n)
        return
    if pc.dims == "[]" and p.dims == "[]" and pc.base in WIDE:
        length = ARRAY_LEN.get(family(base), {}).get(n)
        if length is None:
            raise SystemExit("gen_large.py: %s(%s): no length; add it to "
                             "ARRAY_LEN or write the call in large.c"
                             % (name, n))
        helper = {("MPI_Count", "int"): "amp_large_counts_int",
                  ("MPI_Aint", "int"): "amp_large_aints_int",
                  ("MPI_Count", "MPI_Aint"): "amp_large_counts_aint"}
        h = helper.get((pc.base, p.base))
        if h is None:
            raise SystemExit("gen_large.py: %s(%s): %s -> %s" %
                             (name, n, pc.base, p.base))
        lines.append("    const %s *%s_i = %s(&L, %s, %s, \"%s\");"
                     % (p.base, n, h, n, length, n))
        args.append("%s_i" % n)
        return
    raise SystemExit("gen_large.py: %s(%s): %s -> %s; write the call in "
                     "large.c" % (name, n, pc.c_decl(), p.c_decl()))


def wrapper(name, params, base, bparams):
    if [p.name for p in params] != [p.name for p in bparams]:
        raise SystemExit("gen_large.py: %s and %s name their parameters "
                         "differently" % (name, base))
    comm = comm_of(params)
    lines = ["int PMPI_%s(%s)" % (name, ", ".join(p.c_decl() for p in params)),
             "{",
             "    amp_large_t L;",
             "    amp_large_begin(&L, \"MPI_%s\", %s);"
             % (name, comm or "MPI_COMM_NULL")]
    args = []
    # Counts first (a datatype they come with may change), then the rest.
    for i, (pc, p) in enumerate(zip(params, bparams)):
        following = params[i + 1] if i + 1 < len(params) else None
        convert(name, base, pc, p, following, lines, args)
    lines.append("    if (L.rc != MPI_SUCCESS)")
    lines.append("        return amp_large_end(&L, L.rc);")
    lines.append("    amp_large_run(&L);")
    lines.append("    return amp_large_end(&L, PMPI_%s(%s));"
                 % (base, ", ".join(args)))
    lines.append("}")
    lines.append("AMP_WEAK_ALIAS(%s)" % name)
    return "\n".join(lines) + "\n"


def generate(src):
    decls = {name: (ret, params) for ret, name, params, _ in
             mpi_headers.declared(src)}
    skip = hand_written(src)
    out = ["/* Generated by scripts/gen_large.py from the C prototypes; do "
           "not edit.", " * The large-count calls that run their int form "
           "(runtime/mpi/large/large.h). */",
           "#include \"mpi/large/large.h\"", ""]
    for name, (ret, params) in decls.items():
        if not name.endswith("_c") or name in skip:
            continue
        base = name[:-2]
        if base not in decls or ret != "int":
            raise SystemExit("gen_large.py: %s has no int form; write it in "
                             "large.c" % name)
        out.append(wrapper(name, params, base, decls[base][1]))
    return "\n".join(out)


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    text = generate(sys.argv[1])
    path = sys.argv[2]
    if os.path.exists(path) and open(path, encoding="utf-8").read() == text:
        return
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


if __name__ == "__main__":
    main()
