/* Environment calls: initialization, finalization, abort, timers. */
#include "mpi/comm/comm.h"
#include "mpi/attr/attr.h"
#include "mpi/file/fileio.h"

#include "mem/heap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define AMP_LIBRARY_VERSION                                                    \
    "libampi 0.1.0 (MPI 4.1 subset; ranks are user-level threads)"

static int init_common(int required, int *provided, const char *call)
{
    amp_rank_t *rank = amp_rank_self();
    if (!rank)
        amp_fatal("%s was called from a thread that is not an MPI rank", call);
    if (rank->state != AMP_MPI_NOT_INIT)
        return amp_mpi_error(
            rank, NULL, MPI_ERR_OTHER, call, "MPI is already %s on this rank",
            rank->state == AMP_MPI_ACTIVE ? "initialized" : "finalized");
    /* Any level up to MPI_THREAD_MULTIPLE: the calls of the rank's other
     * kernel threads run on its PE (threads.h). */
    rank->thread_level = required < MPI_THREAD_SINGLE     ? MPI_THREAD_SINGLE
                         : required > MPI_THREAD_MULTIPLE ? MPI_THREAD_MULTIPLE
                                                          : required;
    if (provided)
        *provided = rank->thread_level;
    rank->state = AMP_MPI_ACTIVE;
    /* The load AMPI_Migrate sees counts from here (lb/). */
    rank->lb.mark = amp_sched_self_busy();
    rank->lb.since = amp_sched_cycles();
    return MPI_SUCCESS;
}

int PMPI_Init(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return init_common(MPI_THREAD_SINGLE, NULL, "MPI_Init");
}
AMP_WEAK_ALIAS(Init)

int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    (void)argc;
    (void)argv;
    return init_common(required, provided, "MPI_Init_thread");
}
AMP_WEAK_ALIAS(Init_thread)

int PMPI_Initialized(int *flag)
{
    amp_rank_t *rank = amp_rank_self();
    if (!flag)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, "MPI_Initialized",
                             "NULL pointer (argument flag)");
    *flag = rank && rank->state != AMP_MPI_NOT_INIT;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Initialized)

int PMPI_Finalized(int *flag)
{
    amp_rank_t *rank = amp_rank_self();
    if (!flag)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, "MPI_Finalized",
                             "NULL pointer (argument flag)");
    *flag = rank && rank->state == AMP_MPI_FINALIZED;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Finalized)

int PMPI_Finalize(void)
{
    amp_rank_t *rank;
    int rc = amp_mpi_enter(&rank, "MPI_Finalize");
    if (rc != MPI_SUCCESS)
        return rc;
    /* First, as if MPI_COMM_SELF were freed: its attributes' delete
     * callbacks are the program's hook at finalize (MPI 3.1 section 8.7.1).
     * A failing callback is reported, and MPI ends all the same. */
    rc = amp_attr_comm_delete_all(rank, amp_comm_lookup(rank, MPI_COMM_SELF),
                                  "MPI_Finalize");
    amp_datarep_cleanup(rank);
    rank->state = AMP_MPI_FINALIZED;
    return rc;
}
AMP_WEAK_ALIAS(Finalize)

int PMPI_Abort(MPI_Comm comm_h, int errorcode)
{
    amp_rank_t *rank = amp_mt_rank(); /* runs on the calling thread */
    char label[MPI_MAX_OBJECT_NAME + 32] = "an invalid communicator";
    amp_comm_t *comm = rank ? amp_comm_lookup(rank, comm_h) : NULL;
    if (comm)
        amp_comm_label(comm, label, sizeof(label));
    amp_log_error("MPI_Abort called by rank %d on %s with error code %d",
                  rank ? rank->world_rank : -1, label, errorcode);
    amp_mpi_abort_job(errorcode);
}
AMP_WEAK_ALIAS(Abort)

int PMPI_Query_thread(int *provided)
{
    amp_rank_t *rank;
    int rc = amp_mpi_enter(&rank, "MPI_Query_thread");
    if (rc != MPI_SUCCESS)
        return rc;
    if (!provided)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, "MPI_Query_thread",
                             "NULL pointer (argument provided)");
    *provided = rank->thread_level;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Query_thread)

/* Runs on the calling thread (gen_threads.py): the rank's own, or the
 * master thread of an OpenMP region the rank started, is the main one. */
int PMPI_Is_thread_main(int *flag)
{
    const char *call = "MPI_Is_thread_main";
    amp_mt_bind_t *b = amp_mt_bound;
    amp_rank_t *rank = b ? b->rank : NULL;
    int rc = b ? MPI_SUCCESS : amp_mpi_enter(&rank, call);
    if (rc == MPI_SUCCESS && b && rank->state != AMP_MPI_ACTIVE)
        return MPI_ERR_OTHER; /* no handler to run on this thread */
    if (rc != MPI_SUCCESS)
        return rc;
    if (!flag)
        return b ? MPI_ERR_ARG
                 : amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                                 "NULL pointer (argument flag)");
    *flag = b ? b->main : 1;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Is_thread_main)

double PMPI_Wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9 - amp_proc.wtime_base;
}
AMP_WEAK_ALIAS(Wtime)

double PMPI_Wtick(void)
{
    struct timespec res;
    if (clock_getres(CLOCK_MONOTONIC, &res) != 0)
        return 1e-9;
    return (double)res.tv_sec + (double)res.tv_nsec * 1e-9;
}
AMP_WEAK_ALIAS(Wtick)

int PMPI_Get_processor_name(char *name, int *resultlen)
{
    amp_rank_t *rank = amp_rank_self();
    if (!name || !resultlen)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, "MPI_Get_processor_name",
                             "NULL pointer (argument %s)",
                             name ? "resultlen" : "name");
    if (gethostname(name, MPI_MAX_PROCESSOR_NAME) != 0)
        snprintf(name, MPI_MAX_PROCESSOR_NAME, "localhost");
    name[MPI_MAX_PROCESSOR_NAME - 1] = '\0';
    *resultlen = (int)strlen(name);
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Get_processor_name)

int PMPI_Get_version(int *version, int *subversion)
{
    if (!version || !subversion)
        return amp_mpi_error(amp_rank_self(), NULL, MPI_ERR_ARG,
                             "MPI_Get_version", "NULL pointer (argument %s)",
                             version ? "subversion" : "version");
    *version = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Get_version)

int PMPI_Get_library_version(char *version, int *resultlen)
{
    if (!version || !resultlen)
        return amp_mpi_error(
            amp_rank_self(), NULL, MPI_ERR_ARG, "MPI_Get_library_version",
            "NULL pointer (argument %s)", version ? "resultlen" : "version");
    *resultlen = snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING, "%s",
                          AMP_LIBRARY_VERSION);
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Get_library_version)

/* Memory from the rank's own heap in its isomalloc slot (so it moves with
 * the rank, like its malloc'ed memory), aligned for any use; the info hints
 * of MPI_Alloc_mem ask for nothing this runtime does differently. */
int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
    const char *call = "MPI_Alloc_mem";
    amp_rank_t *rank;
    int rc = amp_mpi_enter(&rank, call);
    if (rc == MPI_SUCCESS)
        rc = amp_check_info(rank, NULL, info, call);
    if (rc != MPI_SUCCESS)
        return rc;
    if (size < 0)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                             "negative size %td (argument size)", size);
    if (!baseptr)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                             "NULL pointer (argument baseptr)");
    /* size 0 still gets a distinct pointer that MPI_Free_mem accepts. */
    size_t bytes = size ? (size_t)size : 1;
    void *p = amp_heap_alloc(amp_rank_heap(rank), bytes, 64);
    if (!p)
        return amp_mpi_error(rank, NULL, MPI_ERR_NO_MEM, call,
                             "cannot allocate %td bytes", size);
    *(void **)baseptr = p;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Alloc_mem)

int PMPI_Free_mem(void *base)
{
    amp_rank_t *rank;
    int rc = amp_mpi_enter(&rank, "MPI_Free_mem");
    if (rc != MPI_SUCCESS)
        return rc;
    free(base);
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Free_mem)

int AMPI_Yield(void)
{
    amp_rank_t *rank;
    int rc = amp_mpi_enter(&rank, "AMPI_Yield");
    if (rc != MPI_SUCCESS)
        return rc;
    amp_sched_yield();
    return MPI_SUCCESS;
}
