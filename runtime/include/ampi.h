/*
 * ampi.h: extensions beyond the MPI standard.  Included by mpi.h, which
 * also defines the macro AMPI so programs can test for them.
 */
#ifndef AMPI_AMPI_H
#define AMPI_AMPI_H

/* A program may include this header first: mpi.h has the types (and
 * includes this one, which its guard then skips). */
#include "mpi.h"

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

/* The entry of a program written for Charm++'s AMPI, instead of main: each
 * rank calls it (start/main_wrap.c).  A Fortran program has subroutine
 * MPI_Main instead of a main program.  With main also defined, MPI_Main
 * (then AMPI_Main) is the one that runs (docs/user-guide.md). */
int MPI_Main(int argc, char **argv);
int AMPI_Main(int argc, char **argv);

/* ---- split gets (Charm++'s AMPI; docs/rma.md) ---- */

/* Starts a get of targcnt elements of targtype at targdisp of rank's part
 * of win into memory the library allocates, laid out as orgcnt elements of
 * orgtype (orgdisp is not used: there is no origin buffer).  Inside any
 * access epoch the caller has to rank, or else under a shared lock of its
 * own.  AMPI_Iget_wait blocks until the data is there and names it in
 * *status (MPI_SOURCE: rank; MPI_LENGTH: its bytes; MPI_TAG: the get);
 * AMPI_Iget_data copies it into data, an origin buffer of orgcnt elements
 * of orgtype; AMPI_Iget_free frees the request and the memory (status and
 * win are not used). */
__attribute__((visibility("default"))) int
AMPI_Iget(MPI_Aint orgdisp, int orgcnt, MPI_Datatype orgtype, int rank,
          MPI_Aint targdisp, int targcnt, MPI_Datatype targtype, MPI_Win win,
          MPI_Request *request);
__attribute__((visibility("default"))) int
AMPI_Iget_wait(MPI_Request *request, MPI_Status *status, MPI_Win win);
__attribute__((visibility("default"))) int AMPI_Iget_data(void *data,
                                                          MPI_Status status);
__attribute__((visibility("default"))) int
AMPI_Iget_free(MPI_Request *request, MPI_Status *status, MPI_Win win);

/* Lets the other ranks of this worker thread run before the caller
 * continues. */
__attribute__((visibility("default"))) int AMPI_Yield(void);

/* Sets *rank to the rank of MPI_COMM_WORLD whose isomalloc slot holds addr
 * (its stack, heap, thread-local and program copies: docs/isomalloc.md), or
 * to MPI_UNDEFINED when addr lies in no slot. */
__attribute__((visibility("default"))) int AMPI_Isomalloc_rank(const void *addr,
                                                               int *rank);

/* Registers fn to run in every rank, on the rank's own copies of the
 * privatized globals, before its main.  The privatization plugin calls it
 * from constructors; it must be called before the ranks start. */
__attribute__((visibility("default"))) void
AMPI_Register_rank_init(void (*fn)(void));

/* An MPI request that completes when the work queued so far on a CUDA
 * stream (a cudaStream_t, which is a struct CUstream_st *; NULL: the
 * legacy default stream) of the device the calling rank's PE uses
 * (+gpumap) is complete; MPI_Wait on it lets the other ranks run meanwhile.
 * Without a CUDA device it fails with MPI_ERR_UNSUPPORTED_OPERATION
 * (docs/gpu.md). */
struct CUstream_st;
__attribute__((visibility("default"))) int
AMPI_GPU_Iinvoke(struct CUstream_st *stream, MPI_Request *request);

/* ---- migration and load balancing (docs/load-balancing.md) ---- */

/* Predefined info objects for AMPI_Migrate (read-only):
 *   AMPI_INFO_LB_SYNC          "ampi_load_balance" = "sync": rebalance now
 *   AMPI_INFO_LB_ASYNC         "ampi_load_balance" = "async": the same here
 *   AMPI_INFO_CHKPT_IN_MEMORY  "ampi_checkpoint" = "in_memory": a
 *                              checkpoint in the node's memory
 *                              (docs/checkpoint.md) */
#define AMPI_INFO_LB_SYNC ((MPI_Info)AMPI_HANDLE(AMPI_HANDLE_INFO, 1))
#define AMPI_INFO_LB_ASYNC ((MPI_Info)AMPI_HANDLE(AMPI_HANDLE_INFO, 2))
#define AMPI_INFO_CHKPT_IN_MEMORY ((MPI_Info)AMPI_HANDLE(AMPI_HANDLE_INFO, 3))

/* Collective over MPI_COMM_WORLD: with "ampi_load_balance" set to "sync"
 * or "async" in info, the balancer chosen with +balancer (none: no move)
 * moves ranks between the PEs of their process by their load since the
 * last call. */
__attribute__((visibility("default"))) int AMPI_Migrate(MPI_Info info);
/* The calling rank alone goes to PE pe of its process (-1: stays), as in
 * Charm++'s AMPI: it runs there from the call on, and pe becomes its home
 * at the next balancing step (docs/load-balancing.md).  Charm++'s
 * +ampiEnableMigrateToPe is accepted (no effect). */
__attribute__((visibility("default"))) int AMPI_Migrate_to_pe(int pe);
/* fn runs in the rank that registered it, before it leaves its PE (fn must
 * not communicate) and after it arrived on another (when every rank is in
 * place again). */
__attribute__((visibility("default"))) int
AMPI_Register_about_to_migrate(void (*fn)(void));
__attribute__((visibility("default"))) int
AMPI_Register_just_migrated(void (*fn)(void));
/* The load the next AMPI_Migrate sees for the calling rank (any unit, the
 * same on every rank); without it, the time the rank ran since the last
 * AMPI_Migrate, in seconds, over the stretches it measured (measurement is
 * on at start; stop/start leave out what runs between them). */
__attribute__((visibility("default"))) int AMPI_Load_set_value(double value);
__attribute__((visibility("default"))) int AMPI_Load_start_measure(void);
__attribute__((visibility("default"))) int AMPI_Load_stop_measure(void);

#ifdef __cplusplus
}
#endif

#endif
