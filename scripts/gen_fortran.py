#!/usr/bin/env python3
"""Generates the Fortran binding's C wrappers (mpif.h and `use mpi`) from the
prototypes of the C binding, so that every function mpi.h and the headers
it includes (scripts/mpi_headers.py) declare has its mpi_xxx_ / pmpi_xxx_
entry point, and the `mpi` module with
explicit interfaces for those calls, from the same classification of each
parameter, so that the two cannot disagree.

    gen_fortran.py SRCDIR OUT.c          write the wrappers
    gen_fortran.py SRCDIR --module OUT.f90
                                         write the mpi module
    gen_fortran.py SRCDIR --list         print the Fortran names bound

The build runs it (runtime/CMakeLists.txt); the output is not checked in.
Functions that runtime/mpi/fortran/fortran.c and fortran_attr.c define by hand
(pmpi_xxx_ there) are
skipped, as are the C-only ones (handle and status conversions).

Conventions of the binding (see runtime/mpi/fortran/fortran.c): every argument by
reference, ierror last, a CHARACTER argument's length as a hidden size_t
after all arguments.  How each C parameter is converted is decided by
classify() from its type and name; the few that need more than that are
hand-written in fortran.c.
"""
import os
import re
import sys

import mpi_headers

# Functions without a Fortran binding: the C-only conversions (handles,
# statuses, Fortran 2008 statuses) and the tool interface (mpi_t.h).
C_ONLY = re.compile(r"^(\w+_c2f|\w+_f2c|Status_c2f08|Status_f082c|"
                    r"Status_f082f|Status_f2f08|T_\w+)$")
# The large-count "_c" forms: Fortran reaches them through use mpi_f08
# only (gen_fortran_f08.py), so they get wrappers (pmpi_xxx_c_) but no
# mpif.h / use mpi binding.
LARGE = re.compile(r"^\w+_c$")

# int parameters that are LOGICAL in Fortran: (function or None, name).
LOGICAL_IN = {
    ("Op_create", "commute"), (None, "reorder"), ("Intercomm_merge", "high"),
    ("File_set_atomicity", "flag"), ("Status_set_cancelled", "flag"),
    ("Cart_create", "periods"), ("Cart_map", "periods"),
    ("Cart_sub", "remain_dims"),
}
LOGICAL_OUT = {
    (None, "flag"), ("Op_commutative", "commute"),
    ("Dist_graph_neighbors_count", "weighted"), ("Cart_get", "periods"),
}

# Sizes of the C buffers for CHARACTER results (the C call writes at most
# this many characters and a NUL).
STRING_OUT_SIZE = {
    ("Get_processor_name", "name"): "MPI_MAX_PROCESSOR_NAME",
    ("Get_library_version", "version"): "MPI_MAX_LIBRARY_VERSION_STRING",
    ("Error_string", "string"): "MPI_MAX_ERROR_STRING",
    ("Comm_get_name", "name"): "MPI_MAX_OBJECT_NAME",
    ("Type_get_name", "type_name"): "MPI_MAX_OBJECT_NAME",
    ("Win_get_name", "win_name"): "MPI_MAX_OBJECT_NAME",
    ("Info_get_nthkey", "key"): "MPI_MAX_INFO_KEY",
    ("Open_port", "port_name"): "MPI_MAX_PORT_NAME",
    ("Lookup_name", "port_name"): "MPI_MAX_PORT_NAME",
    ("File_get_view", "datarep"): "MPI_MAX_DATAREP_STRING",
}

# CHARACTER arguments that lose their leading blanks too (info keys and
# values: MPI 3.1 section 17.2.5 strips both ends).
STR_TRIM_BOTH = {"Info_set", "Info_delete", "Info_get_valuelen"}

# Parameters that are addresses the call stores or uses as such, not
# buffers: passed through unchanged (MPI_BOTTOM means nothing there).
ADDRESS_PARAMS = {"baseptr", "buffer_addr"}
ADDRESS_FUNCS = {"Free_mem"}

# Weights of the distributed graph constructors (MPI_UNWEIGHTED,
# MPI_WEIGHTS_EMPTY).
WEIGHT_PARAMS = {"sourceweights", "destweights", "weights"}

# Fortran indices count from 1.
INDEX_OUT = {("Waitany", "index"), ("Testany", "index"),
             ("Waitsome", "array_of_indices"),
             ("Testsome", "array_of_indices")}

SCALAR_TYPES = {"int", "MPI_Comm", "MPI_Datatype", "MPI_Request", "MPI_Op",
                "MPI_Errhandler", "MPI_Message", "MPI_Group", "MPI_Info",
                "MPI_Win", "MPI_File", "MPI_Aint", "MPI_Offset",
                "MPI_Count", "MPI_Fint", "MPI_Session"}


def declared(src):
    """[(return type, name, [Param])] in header order."""
    return [(ret, name, params)
            for ret, name, params, _ in mpi_headers.declared(src)]


HAND_WRITTEN = ("fortran.c", "fortran_attr.c")


def hand_written(src):
    names = set()
    for name in HAND_WRITTEN:
        text = open(os.path.join(src, "runtime", "mpi", "fortran", name),
                    encoding="utf-8").read()
        names |= set(re.findall(r"\bpmpi_(\w+)_\(", text))
        names |= set(re.findall(
            r"^F_(?:KEYVAL_CREATE|TYPE_BOUND|SET_ATTR)\((\w+),", text, re.M))
    return names


def flagged(table, func, name):
    return (func, name) in table or (None, name) in table


def classify(func, p):
    """The conversion of parameter p of func."""
    if p.base.endswith(("_function", "_function_c")):
        return "fn"
    if p.base == "MPI_Status":
        if p.dims:
            return "statuses"
        if p.const:
            return "status_in"
        if func.startswith("Status_set"):
            return "status_inout"
        return "status_out"
    if p.base == "char":
        if p.stars > 1:
            raise SystemExit("gen_fortran.py: %s(%s): hand-write it in "
                             "fortran.c" % (func, p.name))
        return "str_in" if p.const else "str_out"
    if p.base == "void":
        if p.name in ADDRESS_PARAMS or func in ADDRESS_FUNCS:
            return "address"
        if p.name == "attribute_val":
            return "attr_in"
        if p.name == "extra_state":
            raise SystemExit("gen_fortran.py: %s: hand-write it" % func)
        return "buf"
    if p.base not in SCALAR_TYPES:
        raise SystemExit("gen_fortran.py: %s(%s %s): unknown type"
                         % (func, p.type, p.name))
    if p.name == "array_of_errcodes":
        return "errcodes"
    if p.name in WEIGHT_PARAMS and p.const:
        return "weights"
    if (func, p.name) in INDEX_OUT:
        return "indices" if p.dims else "index"
    if p.stars == 0:
        if flagged(LOGICAL_IN, func, p.name):
            return "logical_in"
        return "value"
    if flagged(LOGICAL_OUT, func, p.name) and not p.dims:
        return "logical_out"
    return "pointer"


def statuses_count(func, params):
    names = [p.name for p in params]
    for n in ("count", "incount"):
        if n in names:
            return n
    raise SystemExit("gen_fortran.py: %s: no count for the statuses" % func)


def wrapper(ret, func, params):
    lower = func.lower()
    decls, args, hidden, pre, post = [], [], [], [], []
    strings = []
    call_name = "MPI_" + func
    for p in params:
        kind = classify(func, p)
        n = p.name
        if kind == "value" or kind == "logical_in":
            decls.append("const %s *%s" % (p.base, n))
            args.append(("*%s != 0" if kind == "logical_in" else "*%s") % n)
        elif kind == "pointer":
            if p.dims == "[][3]":
                decls.append("int (*%s)[3]" % n)
            else:
                decls.append("%s%s *%s" % ("const " if p.const else "",
                                           p.base, n))
            args.append(n)
        elif kind == "logical_out":
            decls.append("MPI_Fint *%s" % n)
            args.append(n)
            post.append("amp_f_logical_out(%s);" % n)
        elif kind == "index":
            decls.append("MPI_Fint *%s" % n)
            args.append(n)
            post.append("amp_f_index_out(%s, 1);" % n)
        elif kind == "indices":
            decls.append("MPI_Fint *%s" % n)
            args.append(n)
            post.append("amp_f_index_out(%s, *outcount);" % n)
        elif kind == "errcodes":
            decls.append("MPI_Fint *%s" % n)
            args.append("amp_f_errcodes(%s)" % n)
        elif kind == "weights":
            decls.append("const MPI_Fint *%s" % n)
            args.append("amp_f_weights(%s)" % n)
        elif kind == "fn":
            decls.append("%s *%s" % (p.base, n))
            args.append(n)
        elif kind == "buf":
            decls.append("%svoid *%s" % ("const " if p.const else "", n))
            args.append("amp_f_buf(%s)" % n)
        elif kind == "address":
            decls.append("void *%s" % n)
            args.append(n)
        elif kind == "attr_in":
            decls.append("const MPI_Aint *%s" % n)
            args.append("(void *)*%s" % n)
        elif kind == "status_out":
            decls.append("MPI_Fint *%s" % n)
            pre.append("MPI_Status c_%s;" % n)
            args.append("amp_f_status_in(%s, &c_%s, 0)" % (n, n))
            post.append("ALWAYS amp_f_status_out(&c_%s, %s);" % (n, n))
        elif kind == "status_in":
            decls.append("const MPI_Fint *%s" % n)
            pre.append("MPI_Status c_%s;" % n)
            args.append("amp_f_status_in(%s, &c_%s, 1)" % (n, n))
        elif kind == "status_inout":
            decls.append("MPI_Fint *%s" % n)
            pre.append("MPI_Status c_%s;" % n)
            args.append("amp_f_status_in(%s, &c_%s, 1)" % (n, n))
            post.append("amp_f_status_out(&c_%s, %s);" % (n, n))
        elif kind == "statuses":
            count = statuses_count(func, params)
            decls.append("MPI_Fint *%s" % n)
            pre.append("amp_f_statuses_t c_%s;" % n)
            pre.append("if (!amp_f_statuses_in(&c_%s, %s, *%s, \"%s\", "
                       "ierror))" % (n, n, count, call_name))
            pre.append("    return;")
            args.append("c_%s.c" % n)
            post.append("ALWAYS amp_f_statuses_out(&c_%s, %s);" % (n, n))
        elif kind == "str_in":
            decls.append("const char *%s" % n)
            hidden.append("size_t %s_len" % n)
            pre.append("char *c_%s = amp_f_cstring%s(%s, %s_len);"
                       % (n, "_trim" if func in STR_TRIM_BOTH else "", n, n))
            strings.append("c_" + n)
            args.append("c_%s" % n)
            post.append("ALWAYS free(c_%s);" % n)
        elif kind == "str_out":
            size = STRING_OUT_SIZE.get((func, n))
            if size is None:
                raise SystemExit("gen_fortran.py: %s(%s): no size"
                                 % (func, n))
            decls.append("char *%s" % n)
            hidden.append("size_t %s_len" % n)
            pre.append("char c_%s[%s + 1];" % (n, size))
            pre.append("c_%s[0] = 0;" % n)
            args.append("c_%s" % n)
            # RESULTLEN counts what VALUE holds: at most its length.
            keep = ("*resultlen = " if any(q.name == "resultlen"
                                          for q in params) else "")
            post.append("%samp_f_string_out(%s, %s_len, c_%s);"
                        % (keep, n, n, n))
        else:
            raise AssertionError(kind)
    call = "PMPI_%s(%s)" % (func, ", ".join(args))
    lines = []
    if ret == "int":
        decls.append("MPI_Fint *ierror")
        sig = "AMPI_API void pmpi_%s_(%s)" % (
            lower, ", ".join(decls + hidden))
        lines.append(sig)
        lines.append("{")
        lines += ["    " + s for s in pre]
        if strings:
            lines.append("    if (%s) {" % " || ".join("!" + s for s in strings))
            lines += ["        free(%s);" % s for s in strings]
            lines.append("        *ierror = amp_f_no_mem(\"%s\");" % call_name)
            lines.append("        return;")
            lines.append("    }")
        lines.append("    *ierror = %s;" % call)
        always = [s[7:] for s in post if s.startswith("ALWAYS ")]
        on_success = [s for s in post if not s.startswith("ALWAYS ")]
        if on_success:
            lines.append("    if (*ierror == MPI_SUCCESS) {")
            lines += ["        " + s for s in on_success]
            lines.append("    }")
        lines += ["    " + s for s in always]
    else:
        if pre or post:
            raise SystemExit("gen_fortran.py: %s: hand-write it" % func)
        sig = "AMPI_API %s pmpi_%s_(%s)" % (
            ret, lower, ", ".join(decls) if decls else "void")
        lines.append(sig)
        lines.append("{")
        lines.append("    return %s;" % call)
    lines.append("}")
    lines.append("AMP_FORTRAN_ALIAS(%s)" % lower)
    return "\n".join(lines) + "\n"


def generate(src):
    skip = hand_written(src)
    out = [
        "/* Generated by scripts/gen_fortran.py from the C prototypes;",
        " * do not edit.  The Fortran binding's wrappers that fortran.c does",
        " * not write by hand. */",
        '#include "mpi/fortran/fortran.h"',
        "",
        "#include <stdlib.h>",
        "",
    ]
    bound = []
    for ret, func, params in declared(src):
        lower = func.lower()
        if C_ONLY.match(func):
            continue
        if not LARGE.match(func):
            bound.append(lower)
        if lower in skip:
            continue
        out.append(wrapper(ret, func, params))
    return "\n".join(out), bound


# ---- the mpi module (use mpi) ----
#
# runtime/include/mpi.f90 is the module's template: the line !@MPIF_H@
# becomes mpif.h less its declarations of the calls that get an interface
# (a name may not be both EXTERNAL and have an interface), the line
# !@INTERFACES@ the interface block.  A call gets an explicit interface
# when all its Fortran arguments have one type: not the calls with
# callbacks or addresses, nor the hand-written ones except those
# FORTRAN_ARGS or HAND_WRITTEN_GENERIC describe.  A choice buffer is
# TYPE(*), DIMENSION(*) under the ignore-TKR directives of gfortran and
# flang (CHOICE_DIRECTIVES), so that it takes any type, kind and rank, as
# MPI-3.1 17.1.3 allows for `use mpi`.

NO_INTERFACE_KINDS = {"fn", "address"}
CHOICE = "type(*)"
CHOICE_DIRECTIVES = ["!GCC$ ATTRIBUTES NO_ARG_CHECK :: %s",
                     "!DIR$ IGNORE_TKR %s"]

# Hand-written wrappers whose Fortran arguments the C prototype describes.
HAND_WRITTEN_GENERIC = {"Comm_get_attr", "Type_get_attr", "Win_get_attr",
                        "Comm_set_attr", "Type_set_attr", "Win_set_attr"}

# Hand-written wrappers whose Fortran arguments differ from the C
# prototype: (name, type, dimensions), as the wrapper in fortran.c or
# fortran_attr.c takes them; IERROR is added unless NO_IERROR names it.
FORTRAN_ARGS = {
    "Init": [],
    "Init_thread": [("required", "integer", ""),
                    ("provided", "integer", "")],
    "Pcontrol": [("level", "integer", "")],
    "Info_create_env": [("info", "integer", "")],
    "Info_get": [("info", "integer", ""), ("key", "character(len=*)", ""),
                 ("valuelen", "integer", ""),
                 ("value", "character(len=*)", ""),
                 ("flag", "logical", "")],
    "Info_get_string": [("info", "integer", ""),
                        ("key", "character(len=*)", ""),
                        ("buflen", "integer", ""),
                        ("value", "character(len=*)", ""),
                        ("flag", "logical", "")],
    "Attr_get": [("comm", "integer", ""), ("keyval", "integer", ""),
                 ("attribute_val", "integer", ""), ("flag", "logical", "")],
    "Attr_put": [("comm", "integer", ""), ("keyval", "integer", ""),
                 ("attribute_val", "integer", "")],
    # The MPI-1 calls with INTEGER addresses (fortran.c).
    "Type_extent": [("datatype", "integer", ""), ("extent", "integer", "")],
    "Type_lb": [("datatype", "integer", ""),
                ("displacement", "integer", "")],
    "Type_ub": [("datatype", "integer", ""),
                ("displacement", "integer", "")],
    "Type_hvector": [("count", "integer", ""),
                     ("blocklength", "integer", ""),
                     ("stride", "integer", ""), ("oldtype", "integer", ""),
                     ("newtype", "integer", "")],
    "Type_hindexed": [("count", "integer", ""),
                      ("array_of_blocklengths", "integer", "(*)"),
                      ("array_of_displacements", "integer", "(*)"),
                      ("oldtype", "integer", ""), ("newtype", "integer", "")],
    "Type_struct": [("count", "integer", ""),
                    ("array_of_blocklengths", "integer", "(*)"),
                    ("array_of_displacements", "integer", "(*)"),
                    ("array_of_types", "integer", "(*)"),
                    ("newtype", "integer", "")],
    "Session_get_nth_pset": [("session", "integer", ""),
                             ("info", "integer", ""), ("n", "integer", ""),
                             ("pset_len", "integer", ""),
                             ("pset_name", "character(len=*)", "")],
}
NO_IERROR = {"Pcontrol"}

FORTRAN_KIND = {"MPI_Aint": "integer(kind=MPI_ADDRESS_KIND)",
                "MPI_Offset": "integer(kind=MPI_OFFSET_KIND)",
                "MPI_Count": "integer(kind=MPI_COUNT_KIND)"}

# Fortran results of the calls that are functions.
FORTRAN_RESULT = {"double": "double precision",
                  "MPI_Aint": "integer(kind=MPI_ADDRESS_KIND)"}


def fortran_arg(func, p):
    """(name, type, dimensions) of parameter p of func in Fortran, or None
    when it has no single Fortran type."""
    kind = classify(func, p)
    if kind in NO_INTERFACE_KINDS:
        return None
    if kind == "buf":
        return (p.name, CHOICE, "(*)")
    if kind in ("status_out", "status_in", "status_inout"):
        return (p.name, "integer", "(MPI_STATUS_SIZE)")
    if kind == "statuses":
        return (p.name, "integer", "(MPI_STATUS_SIZE, *)")
    if kind in ("str_in", "str_out"):
        return (p.name, "character(len=*)", "")
    if kind == "attr_in":
        return (p.name, "integer(kind=MPI_ADDRESS_KIND)", "")
    if (flagged(LOGICAL_IN, func, p.name)
            or flagged(LOGICAL_OUT, func, p.name)):
        ftype = "logical"
    else:
        ftype = FORTRAN_KIND.get(p.base, "integer")
    dims = {"": "", "[]": "(*)", "[][3]": "(3, *)"}.get(p.dims)
    if dims is None:
        raise SystemExit("gen_fortran.py: %s(%s%s): no Fortran dimensions"
                         % (func, p.name, p.dims))
    return (p.name, ftype, dims)


def fortran_args(func, params, hand):
    """The Fortran arguments of func without IERROR, or None for a call
    left without an interface."""
    if func in FORTRAN_ARGS:
        return FORTRAN_ARGS[func]
    if func.lower() in hand and func not in HAND_WRITTEN_GENERIC:
        return None
    args = [fortran_arg(func, p) for p in params]
    return None if None in args else args


def fortran_line(text, indent):
    """text as free-form lines of at most 80 columns."""
    out, line = [], " " * indent
    for word in text.split(" "):
        if len(line) + len(word) + 2 > 80 and line.strip():
            out.append(line + " &")
            line = " " * (indent + 4)
        line += ("" if line.endswith(" ") else " ") + word
    return out + [line]


def interface(ret, func, args):
    """The interface body of MPI_<func> with Fortran arguments args."""
    name = "MPI_" + func.upper()
    names = [a[0] for a in args]
    if ret == "int" and func not in NO_IERROR:
        args = args + [("ierror", "integer", "")]
        names.append("ierror")
    if ret == "int":
        head = "subroutine %s(%s)" % (name, ", ".join(names))
        end = "end subroutine %s" % name
    else:
        head = "function %s(%s)" % (name, ", ".join(names))
        end = "end function %s" % name
    decls = ["%s :: %s%s" % (t, n, d) for n, t, d in args]
    if ret != "int":
        decls.append("%s :: %s" % (FORTRAN_RESULT[ret], name))
    body = "\n".join(decls)
    imports = [k for k in ("MPI_ADDRESS_KIND", "MPI_OFFSET_KIND",
                           "MPI_COUNT_KIND", "MPI_STATUS_SIZE")
               if k in body]
    lines = fortran_line(head, 4)
    if imports:
        lines += fortran_line("import :: " + ", ".join(imports), 6)
    lines.append("      implicit none")
    for (n, t, _), d in zip(args, decls):
        if t == CHOICE:
            lines += [x % n for x in CHOICE_DIRECTIVES]
        lines += fortran_line(d, 6)
    for d in decls[len(args):]:
        lines += fortran_line(d, 6)
    lines.append("    " + end)
    return lines


def mpif_without(src, names):
    """mpif.h less its declarations (EXTERNAL, type) of names."""
    path = os.path.join(src, "runtime", "include", "mpif.h")
    decl = re.compile(r"^(\s+)(EXTERNAL|DOUBLE PRECISION|"
                      r"INTEGER\(KIND=MPI_ADDRESS_KIND\))\s+([\w\s,]+)$")
    out = []
    for line in open(path, encoding="utf-8").read().splitlines():
        m = decl.match(line)
        if m:
            entities = [e.strip() for e in m.group(3).split(",")]
            kept = [e for e in entities if e.upper() not in names]
            if not kept:
                continue
            line = "%s%s %s" % (m.group(1), m.group(2), ", ".join(kept))
        code = line.split("!")[0]
        for word in re.findall(r"\w+", code):
            if word.upper() in names:
                raise SystemExit("gen_fortran.py: mpif.h declares %s, which "
                                 "the mpi module has an interface for: "
                                 "%s" % (word, line.strip()))
        out.append(line)
    return out


# MPI_SIZEOF(X, SIZE, IERROR): a generic over the numeric intrinsic types
# of each kind both Fortran compilers have, scalar and array, and (as other
# implementations offer) LOGICAL and CHARACTER; each specific is a C
# function of fortran.c (F_SIZEOF) that stores the size.
SIZEOF_KINDS = [("integer", k) for k in (1, 2, 4, 8, 16)] + \
    [("real", k) for k in (4, 8, 16)] + [("complex", k) for k in (4, 8, 16)] + \
    [("logical", k) for k in (1, 2, 4, 8)] + [("character", 1)]
# The letter of each type in the specifics' names (fortran.c).
SIZEOF_LETTER = {"integer": "i", "real": "r", "complex": "c", "logical": "l",
                 "character": "h"}


def sizeof_interface():
    lines = ["  interface MPI_SIZEOF"]
    for ftype, kind in SIZEOF_KINDS:
        for rank, dims in (("s", ""), ("a", "(*)")):
            name = "ampi_sizeof_%s%d%s" % (SIZEOF_LETTER[ftype], kind, rank)
            lines += ["    subroutine %s(x, size, ierror)" % name,
                      "      implicit none",
                      "      %s(kind=%d) :: x%s" % (ftype, kind, dims),
                      "      integer :: size, ierror",
                      "    end subroutine %s" % name]
    lines.append("  end interface MPI_SIZEOF")
    return lines


def generate_module(src):
    hand = hand_written(src)
    bodies, names = [], set()
    for ret, func, params in declared(src):
        if C_ONLY.match(func) or LARGE.match(func):
            continue
        args = fortran_args(func, params, hand)
        if args is None:
            continue
        if ret != "int" and ret not in FORTRAN_RESULT:
            raise SystemExit("gen_fortran.py: %s returns %s" % (func, ret))
        bodies += interface(ret, func, args)
        names.add("MPI_" + func.upper())
    path = os.path.join(src, "runtime", "include", "mpi.f90")
    out = ["! Generated by scripts/gen_fortran.py from runtime/include/mpi.f90,",
           "! mpif.h and the C prototypes; do not edit."]
    for line in open(path, encoding="utf-8").read().splitlines():
        if line.strip() == "!@MPIF_H@":
            out += mpif_without(src, names)
        elif line.strip() == "!@INTERFACES@":
            out.append("  interface")
            out += bodies
            out.append("  end interface")
            out += sizeof_interface()
        else:
            out.append(line)
    return "\n".join(out) + "\n", sorted(names)


def write_if_changed(path, text):
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            if f.read() == text:
                return
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def main():
    if len(sys.argv) == 4 and sys.argv[2] == "--module":
        write_if_changed(sys.argv[3], generate_module(sys.argv[1])[0])
        return
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    src = sys.argv[1]
    text, bound = generate(src)
    if sys.argv[2] == "--list":
        print("\n".join(bound))
        return
    write_if_changed(sys.argv[2], text)


if __name__ == "__main__":
    main()
