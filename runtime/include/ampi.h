/*
 * ampi.h: extensions beyond the MPI standard.  Included by mpi.h, which
 * also defines the macro AMPI so programs can test for them.
 */
#ifndef AMPI_AMPI_H
#define AMPI_AMPI_H

#ifdef __cplusplus
extern "C" {
#endif

/* Split types of MPI_Comm_split_type beside MPI_COMM_TYPE_SHARED (the
 * values AMPI has always used): the ranks of one host, of one operating
 * system process, and of one worker thread (PE).  A rank's PE is the one
 * it runs on at the time of the call: ranks may migrate later. */
#define AMPI_COMM_TYPE_HOST 2
#define AMPI_COMM_TYPE_PROCESS 3
#define AMPI_COMM_TYPE_WTH 4

/* Predefined attribute keys beyond the standard's, read with
 * MPI_Comm_get_attr on any communicator; each value is an int *.  The names
 * are those of Charm++'s AMPI (docs/attributes-info.md).
 *   AMPI_MY_WTH         the PE (worker thread) the calling rank runs on now
 *   AMPI_NUM_WTHS       the number of PEs in the job (the +p count)
 *   AMPI_MY_PROCESS     the OS process the rank runs in (0: one process)
 *   AMPI_NUM_PROCESSES  the number of OS processes (1) */
#define AMPI_MY_WTH 13
#define AMPI_NUM_WTHS 14
#define AMPI_MY_PROCESS 15
#define AMPI_NUM_PROCESSES 16

/* Lets the other ranks of this worker thread run before the caller
 * continues. */
__attribute__((visibility("default"))) int AMPI_Yield(void);

/* Registers fn to run in every rank, on the rank's own copies of the
 * privatized globals, before its main.  The privatization plugin calls it
 * from constructors; it must be called before the ranks start. */
__attribute__((visibility("default"))) void
AMPI_Register_rank_init(void (*fn)(void));

#ifdef __cplusplus
}
#endif

#endif
