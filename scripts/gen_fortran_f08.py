#!/usr/bin/env python3
"""Generates the source of the mpi_f08 module (use mpi_f08) from the C
prototypes, with the classification of their parameters that generates
the Fortran binding's wrappers (gen_fortran.py), so that each mpi_f08
procedure and the wrapper it calls cannot disagree.

    gen_fortran_f08.py SRCDIR OUT.f90 [flang|gnu]

The build runs it (runtime/CMakeLists.txt) once per compiler; the output
is not checked in.
runtime/include/mpi_f08.f90 is the template (see there).  For each call
MPI_Xxx of the C binding with a Fortran binding: a procedure MPI_Xxx_f08
(and MPI_Xxx_c_f08 for its large-count form) under the generic name
MPI_Xxx (the large-count form gets its own generic name MPI_Xxx_c where
the two cannot be told apart, as MPI_Op_create_c).  IERROR is optional.
A handle is TYPE(MPI_Comm) ... (the MPI_VAL component is the C handle), a
status TYPE(MPI_Status), a choice buffer ASYNCHRONOUS and TYPE(*),
DIMENSION(..) for gfortran (its descriptor goes to amp_f08_buf,
runtime/mpi/fortran/fortran_f08.c), TYPE(*), DIMENSION(*) under ignore-TKR
directives for flang, which cannot compile an assumed-rank dummy of a
procedure written in Fortran yet (flang 19): the compiler then copies a
non-contiguous section in and out, as for use mpi.  Left out, with a line in docs/fortran.md: the calls
NO_F08 names.
"""
import os
import re
import sys

import gen_fortran as gf
import mpi_headers

HANDLES = ["Comm", "Datatype", "Errhandler", "File", "Group", "Info",
           "Message", "Op", "Request", "Session", "Win"]
HANDLE_TYPES = {"MPI_" + h: "type(MPI_%s)" % h for h in HANDLES}

# Hand-written wrappers (fortran.c, fortran_attr.c) whose Fortran arguments
# differ from their C prototype: the mpi_f08 dummies, in the wrapper's
# order, as (name, type, dimensions).
F08_ARGS = {
    "Init": [],
    "Init_thread": [("required", "integer", ""),
                    ("provided", "integer", "")],
    "Info_create_env": [("info", "type(MPI_Info)", "")],
    "Info_get": [("info", "type(MPI_Info)", ""),
                 ("key", "character(len=*)", ""),
                 ("valuelen", "integer", ""),
                 ("value", "character(len=*)", ""),
                 ("flag", "logical", "")],
    "Info_get_string": [("info", "type(MPI_Info)", ""),
                        ("key", "character(len=*)", ""),
                        ("buflen", "integer", ""),
                        ("value", "character(len=*)", ""),
                        ("flag", "logical", "")],
    "Session_get_nth_pset": [("session", "type(MPI_Session)", ""),
                             ("info", "type(MPI_Info)", ""),
                             ("n", "integer", ""),
                             ("pset_len", "integer", ""),
                             ("pset_name", "character(len=*)", "")],
}

# Calls without an mpi_f08 procedure: the deprecated and removed ones the
# standard's mpi_f08 lacks, those written in the template, and those whose
# Fortran arguments are not those of the C prototype and no table here
# describes (they fail as in C, see docs/fortran.md).
NO_F08 = {"Attr_get", "Attr_put", "Attr_delete", "Keyval_create",
          "Keyval_free", "Address", "Type_extent", "Type_lb", "Type_ub",
          "Type_hvector", "Type_hindexed", "Type_struct",
          "Errhandler_create", "Errhandler_set", "Errhandler_get",
          "Buffer_detach", "Buffer_detach_c", "Comm_spawn",
          "Comm_spawn_multiple", "Grequest_start", "Register_datarep",
          "Pcontrol"}

# Calls that keep a choice buffer after they return (a non-contiguous
# section cannot be copied for them): those with a request, and these.
KEEPS_BUFFER = re.compile(r"^(R?(Put|Get|Accumulate|Get_accumulate)"
                          r"|Fetch_and_op|Compare_and_swap|Win_create|"
                          r"Win_attach|Buffer_attach)(_c)?$")


def f08_type(func, p, kind):
    """The mpi_f08 dummy of parameter p (kind: gf.classify's) as
    (type, dimensions, inner type): inner is what the wrapper gets."""
    dims = {"": "", "[]": "(*)", "[][3]": "(3, *)"}.get(p.dims)
    if kind == "buf":
        return ("type(*)", "(..)", "type(c_ptr), value")
    if kind == "fn":  # the abstract interface of the template
        t = "procedure(%s)" % p.base
        return (t, "", t)
    if kind == "address":
        if p.name == "baseptr":
            return ("type(c_ptr)", "", "type(c_ptr)")
        return ("type(*)", "(..)", "type(c_ptr), value")
    if kind in ("status_out", "status_in", "status_inout"):
        return ("type(MPI_Status)", "", "type(MPI_Status)")
    if kind == "statuses":
        return ("type(MPI_Status)", "(*)", "type(MPI_Status)")
    if kind in ("str_in", "str_out"):
        return ("character(len=*)", "", "character(len=*)")
    if kind == "attr_in":
        t = "integer(kind=MPI_ADDRESS_KIND)"
        return (t, "", t)
    if kind in ("logical_in", "logical_out"):
        return ("logical", dims, "logical")
    if (gf.flagged(gf.LOGICAL_IN, func, p.name)
            or gf.flagged(gf.LOGICAL_OUT, func, p.name)):
        return ("logical", dims, "logical")
    if p.base in HANDLE_TYPES:
        t = HANDLE_TYPES[p.base]
        return (t, dims, t)
    t = gf.FORTRAN_KIND.get(p.base, "integer")
    return (t, dims, t)


def params_of(func, params, hand):
    """[(name, f08 type, dims, inner type, kind)] of func, or None."""
    if func in F08_ARGS:
        return [(n, t, d, t, "hand") for n, t, d in F08_ARGS[func]]
    out = []
    for p in params:
        if p.name == "extra_state":  # the keyval constructors
            t = "integer(kind=MPI_ADDRESS_KIND)"
            out.append((p.name, t, "", t, "value"))
            continue
        try:
            kind = gf.classify(func, p)
        except SystemExit:
            return None
        t, d, inner = f08_type(func, p, kind)
        out.append((p.name, t, d, inner, kind))
    if func.lower() in hand and func not in gf.HAND_WRITTEN_GENERIC \
            and not func.startswith(("Comm_create_keyval",
                                     "Type_create_keyval",
                                     "Win_create_keyval")):
        return None
    return out


def decl(t, n, d, extra=""):
    if t.startswith("procedure("):
        return "%s :: %s" % (t, n)
    return "%s%s :: %s%s" % (t, extra, n, d)


def procedure(ret, func, specific, params, plist, nonblocking, flang):
    """The module procedure specific of call func (for flang, or for
    gfortran)."""
    lower = func.lower()
    names = [a[0] for a in params]
    is_fn = ret != "int"
    result = gf.FORTRAN_RESULT.get(ret) if is_fn else None
    if is_fn and result is None:
        return None
    lines = []
    args = ", ".join(names + ([] if is_fn else ["ierror"]))
    head = ("function %s(%s) result(res)" if is_fn
            else "subroutine %s(%s)") % (specific, args)
    lines += gf.fortran_line(head, 2)
    bufs = []
    for (n, t, d, inner, kind), p in zip(params, plist or [None] * len(params)):
        if t == "type(*)" and flang:
            lines += [x % n for x in gf.CHOICE_DIRECTIVES]
            lines += gf.fortran_line(decl(t, n, "(*)", ", asynchronous"), 4)
        elif t == "type(*)":
            lines += gf.fortran_line(decl(t, n, d, ", asynchronous"), 4)
            bufs.append((n, p))
        else:
            lines += gf.fortran_line(decl(t, n, d), 4)
    if is_fn:
        lines.append("    %s :: res" % result)
    else:
        lines.append("    integer, optional, intent(out) :: ierror")
    # The wrapper's interface.
    lines.append("    interface")
    inner_args = ", ".join(names + ([] if is_fn else ["ierror"]))
    ihead = ("function pmpi_%s(%s)" if is_fn else "subroutine pmpi_%s(%s)") \
        % (lower, inner_args)
    lines += gf.fortran_line(ihead, 6)
    imports = sorted({m for _, _, _, inner, _ in params
                      for m in re.findall(r"MPI_\w+|c_ptr", inner)}
                     | ({"MPI_ADDRESS_KIND"} if any(
                         "MPI_ADDRESS_KIND" in x[3] for x in params) else set())
                     | ({"MPI_OFFSET_KIND"} if any(
                         "MPI_OFFSET_KIND" in x[3] for x in params) else set())
                     | ({"MPI_COUNT_KIND"} if any(
                         "MPI_COUNT_KIND" in x[3] for x in params) else set()))
    imports = [i for i in imports if i not in ("MPI_ADDRESS", "MPI_OFFSET",
                                                "MPI_COUNT")]
    if flang:
        imports = [i for i in imports if i != "c_ptr" or any(
            x[1] == "type(c_ptr)" for x in params)]
    if imports:
        lines += gf.fortran_line("import :: " + ", ".join(imports), 8)
    for n, t, d, inner, kind in params:
        if t == "type(*)" and flang:
            lines += [x % n for x in gf.CHOICE_DIRECTIVES]
            lines += gf.fortran_line(decl(t, n, "(*)"), 8)
            continue
        idims = "" if inner.startswith("type(c_ptr), value") else d
        lines += gf.fortran_line(decl(inner, n, idims), 8)
    if is_fn:
        lines.append("        %s :: pmpi_%s" % (result, lower))
        lines.append("      end function pmpi_%s" % lower)
    else:
        lines.append("        integer :: ierror")
        lines.append("      end subroutine pmpi_%s" % lower)
    lines.append("    end interface")
    if is_fn:
        lines += gf.fortran_line("res = pmpi_%s(%s)" % (
            lower, ", ".join(names)), 4)
        lines.append("  end function %s" % specific)
        return lines
    lines.append("    integer :: ierr")
    for n, p in bufs:
        lines.append("    type(c_ptr) :: p_%s, t_%s" % (n, n))
    lines.append("    ierr = MPI_SUCCESS")
    for n, p in bufs:
        mode = (1 if (p is None or p.const) else 3) | \
            (4 if nonblocking else 0)
        lines.append("    if (ierr == MPI_SUCCESS) p_%s = amp_f08_buf(%s, "
                     "%d, t_%s, ierr)" % (n, n, mode, n))
    call = "call pmpi_%s(%s)" % (lower, ", ".join(
        ["p_" + n if n in [b[0] for b in bufs] else n for n in names]
        + ["ierr"]))
    if bufs:
        lines.append("    if (ierr == MPI_SUCCESS) then")
        lines += gf.fortran_line(call, 6)
        for n, p in bufs:
            mode = (1 if (p is None or p.const) else 3) | \
                (4 if nonblocking else 0)
            lines.append("      call amp_f08_buf_end(%s, %d, t_%s)"
                         % (n, mode, n))
        lines.append("    end if")
    else:
        lines += gf.fortran_line(call, 4)
    lines.append("    if (present(ierror)) ierror = ierr")
    lines.append("  end subroutine %s" % specific)
    return lines


def signature(params):
    """What generic resolution sees of the dummies (the address, offset and
    count kinds are one kind here)."""
    return [(re.sub(r"MPI_(ADDRESS|OFFSET|COUNT)_KIND", "8",
                    "procedure" if t.startswith("procedure(") else t), d)
            for _, t, d, _, _ in params]


def generate(src, flang):
    hand = gf.hand_written(src)
    decls = {name: (ret, params)
             for ret, name, params in gf.declared(src)}
    generics, procs = [], []
    for name, (ret, plist) in decls.items():
        if gf.C_ONLY.match(name) or name in NO_F08 or gf.LARGE.match(name):
            continue
        forms = [(name, "MPI_%s_f08" % name)]
        large = name + "_c"
        if large in decls and large not in NO_F08:
            forms.append((large, "MPI_%s_c_f08" % name))
        specifics = []
        sigs = []
        for func, specific in forms:
            fret, fplist = decls[func]
            params = params_of(func, fplist, hand)
            if params is None:
                continue
            nonblocking = (any(p.base == "MPI_Request" and p.stars
                               for p in fplist)
                           or bool(KEEPS_BUFFER.match(func)))
            use_plist = fplist if func not in F08_ARGS else None
            body = procedure(fret, func, specific, params, use_plist,
                             nonblocking, flang)
            if body is None:
                continue
            procs += body + [""]
            specifics.append(specific)
            sigs.append(signature(params))
        if not specifics:
            continue
        if len(specifics) == 2 and sigs[0] == sigs[1]:
            generics += generic(name, specifics[:1], flang)
            generics += generic(name + "_c", specifics[1:], flang)
        else:
            generics += generic(name, specifics, flang)
    return generics, procs


def generic(name, specifics, flang):
    """The generic interface MPI_name over specifics, and PMPI_name (the
    profiling name, which the standard's mpi_f08 has too) for gfortran:
    flang 19 takes a specific's own interface body for pmpi_name as the
    module's generic of that name, and the call recurses."""
    prefixes = ("MPI",) if flang else ("MPI", "PMPI")
    return ["  interface %s_%s\n    module procedure %s\n"
            "  end interface %s_%s" % (p, name, ", ".join(specifics), p, name)
            for p in prefixes]


def types_text():
    out = []
    for h in HANDLES:
        out += ["  type, bind(C) :: MPI_%s" % h, "    integer :: MPI_VAL",
                "  end type MPI_%s" % h]
    return out


def operators():
    procs, eq, ne = [], [], []
    for h in HANDLES:
        for op, sym in (("eq", "=="), ("ne", "/=")):
            pname = "amp_%s_%s" % (op, h.lower())
            (eq if op == "eq" else ne).append(pname)
            procs += ["  elemental logical function %s(a, b)" % pname,
                      "    type(MPI_%s), intent(in) :: a, b" % h,
                      "    %s = a%%MPI_VAL %s b%%MPI_VAL" % (pname, sym),
                      "  end function %s" % pname, ""]
    generics = ["  interface operator(==)"]
    generics += gf.fortran_line("module procedure " + ", ".join(eq), 4)
    generics += ["  end interface", "  interface operator(/=)"]
    generics += gf.fortran_line("module procedure " + ", ".join(ne), 4)
    generics += ["  end interface"]
    generics += gf.fortran_line("private :: " + ", ".join(eq + ne), 2)
    return generics, procs


# Handles among mpif.h's constants: the type of each, by name.
def handle_type(name):
    if name in ("MPI_COMM_WORLD", "MPI_COMM_SELF", "MPI_COMM_NULL"):
        return "Comm"
    if name.startswith("MPI_ERRORS_") or name == "MPI_ERRHANDLER_NULL":
        return "Errhandler"
    if name in ("MPI_REQUEST_NULL",):
        return "Request"
    if name in ("MPI_MESSAGE_NULL", "MPI_MESSAGE_NO_PROC"):
        return "Message"
    if name in ("MPI_GROUP_NULL", "MPI_GROUP_EMPTY"):
        return "Group"
    if name in ("MPI_INFO_NULL", "MPI_INFO_ENV") or \
            name.startswith("AMPI_INFO_"):
        return "Info"
    if name == "MPI_WIN_NULL":
        return "Win"
    if name == "MPI_FILE_NULL":
        return "File"
    if name == "MPI_SESSION_NULL":
        return "Session"
    if name == "MPI_OP_NULL":
        return "Op"
    if name == "MPI_DATATYPE_NULL":
        return "Datatype"
    return None


def constants(src):
    """mpif.h's PARAMETERs, the handles as values of their types."""
    text = open(os.path.join(src, "runtime", "include", "mpif.h"),
                encoding="utf-8").read()
    mpih = open(os.path.join(src, "runtime", "include", "mpi.h"),
                encoding="utf-8").read()
    dlist = mpih[mpih.index("AMPI_DATATYPE_LIST"):mpih.index("enum {")]
    olist = mpih[mpih.index("AMPI_OP_LIST"):mpih.index("AMPI_OP_COUNT")]
    dtypes = set(re.findall(r"X\((MPI_\w+), \d+\)", dlist)) | {
        "MPI_LONG_LONG", "MPI_C_COMPLEX"}
    ops = set(re.findall(r"X\((MPI_\w+), \d+\)", olist))
    kinds = {v: k for k, v in re.findall(
        r"^\s+(INTEGER\(KIND=MPI_\w+_KIND\))\s+(\w+)$", text, re.M)}
    out = []
    for name, value in re.findall(r"^ +PARAMETER \((A?MPI_\w+)=(-?\d+)\)$",
                                  text, re.M):
        h = handle_type(name)
        if name in dtypes and name.startswith("MPI_"):
            h = "Datatype"
        elif name in ops:
            h = "Op"
        if h:
            out.append("  type(MPI_%s), parameter :: %s = MPI_%s(%s)"
                       % (h, name, h, value))
        else:
            t = kinds.get(name, "integer").lower()
            out.append("  %s, parameter :: %s = %s" % (t, name, value))
    return out


# The objects with attribute callbacks, and those with error handlers:
# (name in the callbacks' names, handle type, dummy name).
ATTR_OBJECTS = [("Comm", "Comm", "comm"), ("Type", "Datatype", "datatype"),
                ("Win", "Win", "win")]
ERRH_OBJECTS = [("Comm", "comm"), ("Win", "win"), ("File", "file"),
                ("Session", "session")]


def callbacks_text():
    """The abstract interfaces of the attribute copy and delete callbacks
    and of the error handlers, one per kind of object (MPI-4.0 19.1.2)."""
    out = []
    for what, h, n in ATTR_OBJECTS:
        k = what.lower() + "_keyval"
        out += gf.fortran_line(
            "subroutine MPI_%s_copy_attr_function(old%s, %s, extra_state, "
            "attribute_val_in, attribute_val_out, flag, ierror)"
            % (what, n, k), 4)
        out += ["      import :: MPI_%s, MPI_ADDRESS_KIND" % h,
                "      type(MPI_%s) :: old%s" % (h, n),
                "      integer :: %s, ierror" % k,
                "      integer(kind=MPI_ADDRESS_KIND) :: extra_state, "
                "attribute_val_in, &",
                "                                        attribute_val_out",
                "      logical :: flag",
                "    end subroutine MPI_%s_copy_attr_function" % what]
        out += gf.fortran_line(
            "subroutine MPI_%s_delete_attr_function(%s, %s, attribute_val, "
            "extra_state, ierror)" % (what, n, k), 4)
        out += ["      import :: MPI_%s, MPI_ADDRESS_KIND" % h,
                "      type(MPI_%s) :: %s" % (h, n),
                "      integer :: %s, ierror" % k,
                "      integer(kind=MPI_ADDRESS_KIND) :: attribute_val, "
                "extra_state",
                "    end subroutine MPI_%s_delete_attr_function" % what]
    for h, n in ERRH_OBJECTS:
        out += ["    subroutine MPI_%s_errhandler_function(%s, error_code)"
                % (h, n),
                "      import :: MPI_%s" % h,
                "      type(MPI_%s) :: %s" % (h, n),
                "      integer :: error_code",
                "    end subroutine MPI_%s_errhandler_function" % h]
    return out


def generate_module(src, flang):
    generics, procs = generate(src, flang)
    op_generics, op_procs = operators()
    path = os.path.join(src, "runtime", "include", "mpi_f08.f90")
    out = ["! Generated by scripts/gen_fortran_f08.py from "
           "runtime/include/mpi_f08.f90,",
           "! mpif.h and the C prototypes; do not edit."]
    for line in open(path, encoding="utf-8").read().splitlines():
        s = line.strip()
        if s == "!@TYPES@":
            out += types_text()
        elif s == "!@CONSTANTS@":
            out += constants(src)
        elif s == "!@CALLBACKS@":
            out += callbacks_text()
        elif s == "!@GENERICS@":
            out += op_generics + generics
        elif s == "!@OPERATORS@":
            out += op_procs
        elif s == "!@PROCEDURES@":
            out += procs
        else:
            out.append(line)
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) not in (3, 4) or sys.argv[3:] not in ([], ["flang"],
                                                          ["gnu"]):
        raise SystemExit(__doc__)
    flang = sys.argv[3:] != ["gnu"]
    gf.write_if_changed(sys.argv[2], generate_module(sys.argv[1], flang))


if __name__ == "__main__":
    main()
