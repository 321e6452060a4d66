/*
 * iotest.h - helpers of the MPI-IO test programs (io_*.c).
 *
 * Every file a test makes is named by rank 0 of the communicator, from
 * the test's tag, the process id and a counter, in the working directory
 * (ctest runs each test in the build tree), so that tests and shapes that
 * run at the same time never share a file; the test deletes it.
 */
#ifndef IOTEST_H
#define IOTEST_H

#include "mpitest.h"

#include <stdio.h>
#include <unistd.h>

/* A fresh file name for tag, the same on every rank of comm. */
static inline void io_name(MPI_Comm comm, const char *tag, char *name, int len)
{
    static atomic_int serial;
    int rank;
    MPI_Comm_rank(comm, &rank);
    if (rank == 0)
        snprintf(name, (size_t)len, "%s.%ld.%d.tmp", tag, (long)getpid(),
                 atomic_fetch_add(&serial, 1));
    MPI_Bcast(name, len, MPI_CHAR, 0, comm);
}

/* The int at position i of a test file's contents. */
static inline int io_value(long long i, int seed)
{
    return (int)(i * 7 + seed * 1000003 + 11);
}

#endif /* IOTEST_H */
