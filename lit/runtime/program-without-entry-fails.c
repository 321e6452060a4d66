// A program with no main, MPI_Main or AMPI_Main links, and says at run
// time that it has no entry.
// REQUIRES: ampi-runtime
// RUN: %ampicc %s -o %t
// RUN: not %t +vp 2 2>&1 | FileCheck %s -DPROG=%t

int not_an_entry(void)
{
    return 0;
}

// CHECK: ampi: [[PROG]] has no entry: define main, MPI_Main or AMPI_Main (C, C++), or a Fortran main program or subroutine MPI_Main
