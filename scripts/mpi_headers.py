"""The C binding's function list, as the headers declare it: shared by the
scripts that generate code or documentation from the prototypes
(gen_fortran.py, gen_large.py, gen_threads.py, mpi_table.py).

Each header declares its functions as AMPI_DECLARE(ret, name, (params)),
one per line; mpi.h first, then the headers it includes, in HEADERS order.
"""
import os
import re

HEADERS = ("mpi.h", "mpi_more.h", "mpi4.h", "mpi_t.h")

DECL = re.compile(r"^AMPI_DECLARE\(\s*([^,]+?)\s*,\s*(\w+)\s*,\s*\((.*)\)\)\s*$")


class Param:
    """One parameter of a prototype: type, name, array dimensions."""

    def __init__(self, text):
        text = text.strip()
        m = re.match(r"^(.*?)(\w+)\s*((?:\[\w*\])*)$", text)
        self.type = " ".join(m.group(1).split())
        self.name = m.group(2)
        self.dims = m.group(3)
        self.const = self.type.startswith("const ")
        self.base = self.type.replace("const ", "").replace("*", "").strip()
        self.stars = self.type.count("*") + self.dims.count("[")

    def c_decl(self):
        """The parameter as C source."""
        sep = "" if self.type.endswith("*") else " "
        return "%s%s%s%s" % (self.type, sep, self.name, self.dims)


def header_path(src, header):
    return os.path.join(src, "runtime", "include", header)


def declared(src, headers=HEADERS):
    """[(return type, name, [Param], variadic)] in header order."""
    out = []
    for header in headers:
        for line in open(header_path(src, header), encoding="utf-8"):
            m = DECL.match(line.strip())
            if not m:
                continue
            ret, name, params = m.groups()
            parts = [p for p in params.split(",")]
            variadic = any(p.strip() == "..." for p in parts)
            plist = [] if params.strip() == "void" else [
                Param(p) for p in parts if p.strip() != "..."]
            out.append((ret, name, plist, variadic))
    return out
