#include "boot/boot.h"

#include <pmix.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(PMIX_MAX_NSLEN < sizeof(((amp_boot_t *)0)->ns),
               "amp_boot_t.ns holds a PMIx namespace");

/* Logs a failed PMIx call once, where it failed. */
static amp_status_t pmix_error(const char *call, const char *what,
                               pmix_status_t rc)
{
    amp_log_error("%s%s failed: %s", call, what, PMIx_Error_string(rc));
    return AMP_ERR_SYS;
}

static void load_proc(const amp_boot_t *boot, pmix_proc_t *proc,
                      pmix_rank_t rank)
{
    PMIX_PROC_CONSTRUCT(proc);
    PMIX_LOAD_PROCID(proc, boot->ns, rank);
}

/* The job's process count: PMIX_JOB_SIZE of the job (wildcard rank). */
static amp_status_t read_job_size(amp_boot_t *boot)
{
    pmix_proc_t job;
    pmix_value_t *val = NULL;
    load_proc(boot, &job, PMIX_RANK_WILDCARD);
    pmix_status_t rc = PMIx_Get(&job, PMIX_JOB_SIZE, NULL, 0, &val);
    if (rc != PMIX_SUCCESS)
        return pmix_error("PMIx_Get", " of PMIX_JOB_SIZE", rc);
    amp_status_t status = AMP_OK;
    if (val->type == PMIX_UINT32 && val->data.uint32 >= 1 &&
        val->data.uint32 <= INT32_MAX) {
        boot->nprocs = (int)val->data.uint32;
    } else {
        amp_log_error("PMIx_Get of PMIX_JOB_SIZE gave no process count "
                      "(value type %d)",
                      (int)val->type);
        status = AMP_ERR_SYS;
    }
    PMIX_VALUE_RELEASE(val);
    return status;
}

/* This process's place among the job's processes on its node; a launcher
 * that does not say leaves it alone there. */
static void read_local(amp_boot_t *boot)
{
    pmix_proc_t proc;
    pmix_value_t *val = NULL;
    load_proc(boot, &proc, (pmix_rank_t)boot->index);
    if (PMIx_Get(&proc, PMIX_LOCAL_RANK, NULL, 0, &val) == PMIX_SUCCESS) {
        if (val->type == PMIX_UINT16)
            boot->local_index = val->data.uint16;
        PMIX_VALUE_RELEASE(val);
    }
    load_proc(boot, &proc, PMIX_RANK_WILDCARD);
    if (PMIx_Get(&proc, PMIX_LOCAL_SIZE, NULL, 0, &val) == PMIX_SUCCESS) {
        if (val->type == PMIX_UINT32 && val->data.uint32 >= 1 &&
            val->data.uint32 <= INT32_MAX)
            boot->local_size = (int)val->data.uint32;
        PMIX_VALUE_RELEASE(val);
    }
    if (boot->local_index >= boot->local_size)
        boot->local_index = 0;
}

/* A launcher that speaks only PMI (MPICH's hydra, srun --mpi=pmi2) starts
 * several processes that would each run a separate job: stop them. */
static void refuse_pmi_only(void)
{
    const char *size = getenv("PMI_SIZE");
    if (!size || atoi(size) <= 1)
        return;
    const char *rank = getenv("PMI_RANK");
    amp_fatal("process %s of %s was started by a launcher without PMIx "
              "(PMI_SIZE is set, PMIX_NAMESPACE is not), so every process "
              "would run a job of its own; start the job with ampirun, "
              "Open MPI's mpirun or srun --mpi=pmix",
              rank ? rank : "?", size);
}

/* How long a get may wait for the server: long enough for a slow start of
 * a large job, short enough that a process that never published is
 * reported rather than waited for forever. */
#define GET_TIMEOUT_S 60

amp_status_t amp_boot_modex_parse(const char *s, int *direct)
{
    if (!s || !*s || strcmp(s, "collect") == 0)
        *direct = 0;
    else if (strcmp(s, "direct") == 0)
        *direct = 1;
    else
        return AMP_ERR_ARG;
    return AMP_OK;
}

amp_status_t amp_boot_init(amp_boot_t *boot)
{
    *boot = (amp_boot_t){
        .index = 0, .nprocs = 1, .local_size = 1, .timeout = GET_TIMEOUT_S};
    const char *modex = getenv("AMPI_PMIX_MODEX");
    if (amp_boot_modex_parse(modex, &boot->direct) != AMP_OK)
        amp_fatal("AMPI_PMIX_MODEX: expected collect or direct, got '%s'",
                  modex);
    /* Every PMIx launcher sets PMIX_NAMESPACE (and the server's URI); a
     * program started alone has none and makes no PMIx call. */
    if (!getenv("PMIX_NAMESPACE")) {
        refuse_pmi_only();
        return AMP_OK;
    }
    pmix_proc_t self;
    PMIX_PROC_CONSTRUCT(&self);
    pmix_status_t rc = PMIx_Init(&self, NULL, 0);
    if (rc != PMIX_SUCCESS)
        return pmix_error("PMIx_Init", "", rc);
    boot->pmix = 1;
    memcpy(boot->ns, self.nspace, sizeof(self.nspace));
    boot->index = (int)self.rank;
    amp_status_t status = read_job_size(boot);
    if (status != AMP_OK)
        goto err_finalize;
    if (boot->index < 0 || boot->index >= boot->nprocs) {
        amp_log_error("PMIx_Init gave rank %d in a job of %d processes",
                      boot->index, boot->nprocs);
        status = AMP_ERR_SYS;
        goto err_finalize;
    }
    read_local(boot);
    return AMP_OK;

err_finalize:
    amp_boot_cleanup(boot);
    return status;
}

void amp_boot_cleanup(amp_boot_t *boot)
{
    if (boot->pmix) {
        pmix_status_t rc = PMIx_Finalize(NULL, 0);
        if (rc != PMIX_SUCCESS) /* logged; nothing is left to undo */
            amp_status_ignore(pmix_error("PMIx_Finalize", "", rc));
    }
    *boot = (amp_boot_t){
        .index = 0, .nprocs = 1, .local_size = 1, .timeout = GET_TIMEOUT_S};
}

/* put, commit and get exist only between processes a launcher started. */
static amp_status_t need_pmix(const amp_boot_t *boot, const char *what)
{
    if (boot->pmix)
        return AMP_OK;
    amp_log_error("%s needs a PMIx launcher (mpirun, srun --mpi=pmix); this "
                  "process was started alone",
                  what);
    return AMP_ERR_UNSUPPORTED;
}

amp_status_t amp_boot_put(amp_boot_t *boot, const char *key, const void *data,
                          size_t size)
{
    amp_status_t status = need_pmix(boot, "publishing an address");
    if (status != AMP_OK)
        return status;
    if (strlen(key) > 500) {
        amp_log_error("PMIx_Put: key %.40s... is longer than 500 characters",
                      key);
        return AMP_ERR_ARG;
    }
    pmix_value_t val;
    PMIX_VALUE_CONSTRUCT(&val);
    val.type = PMIX_BYTE_OBJECT;
    val.data.bo.bytes = (char *)data; /* PMIx_Put copies it */
    val.data.bo.size = size;
    pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key, &val);
    if (rc != PMIX_SUCCESS)
        return pmix_error("PMIx_Put", " of key", rc);
    return AMP_OK;
}

amp_status_t amp_boot_commit(amp_boot_t *boot)
{
    amp_status_t status = need_pmix(boot, "publishing an address");
    if (status != AMP_OK)
        return status;
    pmix_status_t rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS)
        return pmix_error("PMIx_Commit", "", rc);
    return AMP_OK;
}

amp_status_t amp_boot_fence(amp_boot_t *boot)
{
    if (!boot->pmix)
        return AMP_OK; /* the only process is here */
    pmix_proc_t job;
    load_proc(boot, &job, PMIX_RANK_WILDCARD);
    pmix_info_t info;
    bool collect = !boot->direct;
    PMIX_INFO_CONSTRUCT(&info);
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    pmix_status_t rc = PMIx_Fence(&job, 1, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    if (rc != PMIX_SUCCESS)
        return pmix_error("PMIx_Fence", "", rc);
    return AMP_OK;
}

/* What the fence's callback tells the waiting thread. */
typedef struct {
    atomic_int done;
    pmix_status_t status;
} fence_wait_t;

static void fence_done(pmix_status_t status, void *cbdata)
{
    fence_wait_t *fw = cbdata;
    fw->status = status;
    atomic_store_explicit(&fw->done, 1, memory_order_release);
}

amp_status_t amp_boot_fence_progress(amp_boot_t *boot, void (*progress)(void *),
                                     void *arg)
{
    if (!boot->pmix)
        return AMP_OK;
    pmix_proc_t job;
    load_proc(boot, &job, PMIX_RANK_WILDCARD);
    fence_wait_t fw = {.status = PMIX_SUCCESS};
    atomic_init(&fw.done, 0);
    pmix_status_t rc = PMIx_Fence_nb(&job, 1, NULL, 0, fence_done, &fw);
    if (rc == PMIX_OPERATION_SUCCEEDED)
        return AMP_OK; /* done at once: no callback comes */
    if (rc != PMIX_SUCCESS)
        return pmix_error("PMIx_Fence_nb", "", rc);
    while (!atomic_load_explicit(&fw.done, memory_order_acquire))
        progress(arg);
    if (fw.status != PMIX_SUCCESS)
        return pmix_error("PMIx_Fence_nb", "", fw.status);
    return AMP_OK;
}

/* Where a get looks for a published key. */
enum get_where {
    GET_LOCAL,  /* this process's store only (PMIX_OPTIONAL) */
    GET_SERVER, /* also the local server's, without waiting (PMIX_IMMEDIATE):
                   after a collecting fence the server holds everything */
    GET_FETCH,  /* the server, which fetches it from the publishing
                   process's server if it must (direct modex), waiting for
                   it at most boot->timeout seconds (PMIX_TIMEOUT) */
};

static pmix_status_t get_value(const amp_boot_t *boot, const pmix_proc_t *from,
                               const char *key, int where, pmix_value_t **val)
{
    pmix_info_t info;
    PMIX_INFO_CONSTRUCT(&info);
    bool yes = true;
    int timeout = boot->timeout;
    if (where == GET_LOCAL)
        PMIX_INFO_LOAD(&info, PMIX_OPTIONAL, &yes, PMIX_BOOL);
    else if (where == GET_SERVER)
        PMIX_INFO_LOAD(&info, PMIX_IMMEDIATE, &yes, PMIX_BOOL);
    else
        PMIX_INFO_LOAD(&info, PMIX_TIMEOUT, &timeout, PMIX_INT);
    pmix_status_t rc = PMIx_Get(from, key, &info, 1, val);
    PMIX_INFO_DESTRUCT(&info);
    return rc;
}

/* The first of the look-ups from `where` on that finds key: after the
 * collecting fence the key is normally in this process's store; some
 * servers keep the data with themselves (PMIx 5 under Open MPI 4.1.6), and
 * a server that did not collect it fetches it.  A key nobody published is
 * so answered after boot->timeout seconds (a server waits for a key to be
 * published). */
static pmix_status_t get_first(const amp_boot_t *boot, const pmix_proc_t *from,
                               const char *key, int where, pmix_value_t **val)
{
    pmix_status_t rc = PMIX_ERR_NOT_FOUND;
    for (; where <= GET_FETCH; where++) {
        rc = get_value(boot, from, key, where, val);
        if (rc != PMIX_ERR_NOT_FOUND)
            break;
    }
    return rc;
}

/* Into *data and *size: a malloc'd copy of the bytes of val. */
static amp_status_t take_bytes(const pmix_value_t *val, int proc,
                               const char *key, void **data, size_t *size)
{
    if (val->type != PMIX_BYTE_OBJECT) {
        amp_log_error("PMIx_Get of key %s of process %d gave value type %d, "
                      "not bytes",
                      key, proc, (int)val->type);
        return AMP_ERR_SYS;
    }
    *size = val->data.bo.size;
    *data = malloc(*size > 0 ? *size : 1);
    if (!*data)
        return AMP_ERR_NOMEM;
    memcpy(*data, val->data.bo.bytes, *size);
    return AMP_OK;
}

amp_status_t amp_boot_get(amp_boot_t *boot, int proc, const char *key,
                          void **data, size_t *size)
{
    amp_status_t status = need_pmix(boot, "reading an address");
    if (status != AMP_OK)
        return status;
    if (proc < 0 || proc >= boot->nprocs)
        return AMP_ERR_ARG;
    pmix_proc_t from;
    load_proc(boot, &from, (pmix_rank_t)proc);
    pmix_value_t *val = NULL;
    pmix_status_t rc = get_first(boot, &from, key, GET_LOCAL, &val);
    if (rc == PMIX_ERR_NOT_FOUND)
        return AMP_ERR_ARG;
    if (rc == PMIX_ERR_TIMEOUT) {
        amp_log_error("PMIx_Get of key %s of process %d: the PMIx server did "
                      "not answer within %d s",
                      key, proc, boot->timeout);
        return AMP_ERR_SYS;
    }
    if (rc != PMIX_SUCCESS)
        return pmix_error("PMIx_Get", " of a published key", rc);
    status = take_bytes(val, proc, key, data, size);
    PMIX_VALUE_RELEASE(val);
    return status;
}
