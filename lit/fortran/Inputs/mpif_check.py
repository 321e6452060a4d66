"""Reads mpif.h and mpi.h and writes, on standard output, a C program that
checks every PARAMETER of mpif.h against the mpi.h macro of the same name.

Also reports, as lines starting with "error:", what needs no compiler to
see: a line of mpif.h longer than 72 columns or holding a tab (it must stay
valid fixed form), and a datatype, operation or error class of mpi.h that
mpif.h lacks (and every integer constant of mpi_more.h and mpi4.h).

usage: mpif_check.py <include dir> > check.c
"""
import os
import re
import sys

# Constants that only the Fortran binding has.
FORTRAN_ONLY = {
    "MPI_STATUS_SIZE", "MPI_SOURCE", "MPI_TAG", "MPI_ERROR",
    "MPI_ADDRESS_KIND", "MPI_OFFSET_KIND", "MPI_COUNT_KIND",
    "MPI_INTEGER_KIND",
}

incdir = sys.argv[1]
with open(os.path.join(incdir, "mpif.h")) as f:
    mpif = f.read()
with open(os.path.join(incdir, "mpi.h")) as f:
    mpih = f.read()
with open(os.path.join(incdir, "mpi_more.h")) as f:
    more = f.read()
with open(os.path.join(incdir, "mpi4.h")) as f:
    more += f.read()

for number, line in enumerate(mpif.splitlines(), 1):
    if len(line) > 72 or "\t" in line:
        print("#error mpif.h:%d: longer than 72 columns or has a tab" % number)

params = re.findall(r"^ +PARAMETER \((A?MPI_\w+)=(-?\d+)\)$", mpif, re.M)
fortran = {name for name, _ in params}
c_names = set(re.findall(r"X\((MPI_\w+), \d+\)", mpih))
c_names |= set(re.findall(r"^#define (MPI_(?:SUCCESS|ERR_\w+)) ", mpih, re.M))
# Every integer constant of mpi_more.h and mpi4.h, and their handles.
c_names |= set(re.findall(r"^#define (MPI_\w+) \(?-?\d+\)?$", more, re.M))
c_names |= {"MPI_FILE_NULL", "MPI_GROUP_EMPTY", "MPI_INFO_ENV",
            "MPI_SESSION_NULL",
            "MPI_DISPLACEMENT_CURRENT"}
for name in sorted(c_names - fortran):
    print("#error mpif.h lacks %s" % name)

print("#include <mpi.h>")
print("#include <stdio.h>")
print("int main(void)")
print("{")
print("    int bad = 0;")
for name, value in params:
    if name in FORTRAN_ONLY:
        continue
    print("    if ((long long)(%s) != %sLL) {" % (name, value))
    print('        printf("mismatch: %s is %%lld in mpi.h, %s in mpif.h\\n",'
          % (name, value))
    print("               (long long)(%s));" % name)
    print("        bad++;")
    print("    }")
print('    printf("%%d of %d constants differ\\n", bad);' % len(params))
print("    return bad != 0;")
print("}")
