/*
 * boot: how many processes the job has and which one this is, from the
 * process manager that started it (PMIx: mpirun, srun --mpi=pmix, prterun),
 * and an exchange of small blobs by key between the processes, for the
 * transports to publish their addresses.
 *
 * A program started alone (no PMIX_NAMESPACE in the environment) is a job
 * of one process and makes no PMIx call at all.
 *
 * The exchange works with PMIx 4 and 5 servers alike (Open MPI 4.1 and 5,
 * PRRTE's prterun, Slurm): the fence asks for the published data to be
 * collected, and a get looks in the process's own store first; where the
 * fence left the data with the server instead (seen with PMIx 5 under
 * Open MPI 4.1.6, and with PMIx's plain hash store, PMIX_MCA_gds=hash),
 * the get asks the server, which fetches what it does not hold from the
 * publisher's server (PMIx's direct modex), within a time limit.
 * AMPI_PMIX_MODEX=direct makes the fence collect nothing (every get then
 * fetches: for launchers whose collecting fence misbehaves, and tests).
 */
#ifndef AMP_BOOT_H
#define AMP_BOOT_H

#include "base/base.h"

#include <stddef.h>

typedef struct amp_boot {
    int pmix;   /* PMIx_Init succeeded; cleanup calls PMIx_Finalize */
    int index;  /* this process's rank in the job, 0 .. nprocs - 1 */
    int nprocs; /* processes in the job (PMIX_JOB_SIZE) */
    int local_index, local_size; /* among the job's processes on this node
                                    (PMIX_LOCAL_RANK, PMIX_LOCAL_SIZE) */
    int direct;   /* AMPI_PMIX_MODEX=direct: the fence collects nothing */
    int timeout;  /* seconds a get may wait for the server (PMIX_TIMEOUT) */
    char ns[256]; /* the job's PMIx namespace ("" without PMIx) */
} amp_boot_t;

/* Connects to the PMIx server named in the environment and reads this
 * process's rank and the job's size; without PMIX_NAMESPACE, fills in a
 * one-process job.  On failure logs one line naming the PMIx call.  An
 * AMPI_PMIX_MODEX other than collect or direct stops the process with one
 * line (checked in every process, launched or alone). */
AMP_MUST_USE amp_status_t amp_boot_init(amp_boot_t *boot);

/* AMPI_PMIX_MODEX (NULL or empty: "collect") into *direct: 0 for
 * "collect", 1 for "direct"; AMP_ERR_ARG for any other word. */
AMP_MUST_USE amp_status_t amp_boot_modex_parse(const char *s, int *direct);

/* PMIx_Finalize, once; nothing without PMIx.  Safe to call again. */
void amp_boot_cleanup(amp_boot_t *boot);

/* Publishes size bytes under key (at most 500 characters) for every
 * process of the job, visible to them after amp_boot_commit and an
 * amp_boot_fence that all processes enter.  Needs a PMIx launch:
 * AMP_ERR_UNSUPPORTED in a one-process job started alone. */
AMP_MUST_USE amp_status_t amp_boot_put(amp_boot_t *boot, const char *key,
                                       const void *data, size_t size);
AMP_MUST_USE amp_status_t amp_boot_commit(amp_boot_t *boot);

/* Waits until every process of the job has entered it, collecting what
 * each committed (not with AMPI_PMIX_MODEX=direct).  Returns at once in a
 * one-process job started alone. */
AMP_MUST_USE amp_status_t amp_boot_fence(amp_boot_t *boot);

/* The same fence, collecting nothing, during which this thread keeps
 * calling progress(arg) until every process has entered it: for a
 * transport whose pending operations complete only while the other
 * processes progress it (UCX over TCP between nodes, at the job's end). */
AMP_MUST_USE amp_status_t amp_boot_fence_progress(amp_boot_t *boot,
                                                  void (*progress)(void *),
                                                  void *arg);

/* Reads what process proc published under key after the fence: a malloc'd
 * copy in *data (free it) of *size bytes, from this process's store or
 * else from the server.  AMP_ERR_ARG for a proc outside the job or a key
 * it did not publish; AMP_ERR_SYS when the server does not answer within
 * boot->timeout seconds; AMP_ERR_UNSUPPORTED without PMIx. */
AMP_MUST_USE amp_status_t amp_boot_get(amp_boot_t *boot, int proc,
                                       const char *key, void **data,
                                       size_t *size);

#endif
