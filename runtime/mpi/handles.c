/*
 * Handles (handles.h): the argument checks every call shares, the
 * collective views of communicators, and the references that keep derived
 * datatypes alive.
 */
#include "mpi/handles.h"

#include <stdio.h>
#include <string.h>

int amp_comm_world_rank(const amp_comm_t *comm, int r)
{
    return comm->world ? comm->world[r] : r;
}

void amp_coll_comm_of(amp_rank_t *rank, amp_comm_t *comm, amp_coll_comm_t *c)
{
    c->ep = &rank->ep;
    c->ctx = comm->ctx + 1;
    c->rank = comm->rank;
    c->size = comm->size;
    c->world = comm->world;
    /* A persistent collective's starts all take the one it reserved. */
    const amp_call_ctx_t *ctx = amp_call_ctx();
    c->seq = ctx->pcoll ? ctx->pcoll_seq : comm->coll_seq++;
    c->nbc_pes = amp_proc.nbc_pes;
}

void amp_intercoll_view(amp_rank_t *rank, amp_comm_t *ic, amp_coll_inter_t *v)
{
    amp_coll_comm_of(rank, ic, &v->local);
    v->remote_size = ic->remote_size;
    v->remote_world = ic->remote_world;
}

const char *amp_comm_label(const amp_comm_t *comm, char *buf, size_t len)
{
    if (comm->name[0])
        snprintf(buf, len, "%s", comm->name);
    else
        snprintf(buf, len, "communicator with context %d", comm->ctx);
    return buf;
}

void amp_rank_ctx_label(amp_rank_t *rank, int ctx, char *buf, size_t len)
{
    int base = ctx & ~1;
    for (int i = 0; i < amp_table_capacity(&rank->comms); i++) {
        amp_comm_t *c = amp_table_lookup(&rank->comms, i);
        if (c && c->ctx == base) {
            char name[MPI_MAX_OBJECT_NAME + 32];
            snprintf(buf, len, "%s%s", amp_comm_label(c, name, sizeof(name)),
                     ctx & 1 ? ", inside a collective" : "");
            return;
        }
    }
    snprintf(buf, len, "context %d", ctx);
}

/* Shared-memory collectives (coll/shm.c) wait without requests. */
void amp_rank_report_coll_waits(amp_rank_t *rank)
{
    for (int i = 0; i < amp_table_capacity(&rank->comms); i++) {
        amp_comm_t *c = amp_table_lookup(&rank->comms, i);
        if (c && amp_coll_shm_waiting(c->shm, c->rank)) {
            char comm[MPI_MAX_OBJECT_NAME + 64];
            amp_rank_ctx_label(rank, c->ctx + 1, comm, sizeof(comm));
            amp_log_error("    waiting for the other members (%s)", comm);
        }
    }
}

/* ---- checks ---- */

int amp_check_comm_fail(amp_rank_t *rank, MPI_Comm h, const char *call)
{
    if (h == MPI_COMM_NULL)
        return amp_mpi_error(rank, NULL, MPI_ERR_COMM, call,
                             "MPI_COMM_NULL is not a valid communicator "
                             "(argument comm)");
    return amp_mpi_error(rank, NULL, MPI_ERR_COMM, call,
                         "invalid communicator handle %#x (argument comm)",
                         (unsigned)h);
}

int amp_check_dt_fail(amp_rank_t *rank, amp_comm_t *comm, MPI_Datatype h,
                      const amp_dt_t *dt, const char *call, const char *arg)
{
    if (dt)
        return amp_mpi_error(rank, comm, MPI_ERR_TYPE, call,
                             "datatype not committed (argument %s); call "
                             "MPI_Type_commit first",
                             arg);
    if (h == MPI_DATATYPE_NULL)
        return amp_mpi_error(rank, comm, MPI_ERR_TYPE, call,
                             "MPI_DATATYPE_NULL is not a valid datatype "
                             "(argument %s)",
                             arg);
    return amp_mpi_error(rank, comm, MPI_ERR_TYPE, call,
                         "invalid datatype handle %#x (argument %s)",
                         (unsigned)h, arg);
}

int amp_check_count_fail(amp_rank_t *rank, amp_comm_t *comm, int count,
                         const char *call, const char *arg)
{
    return amp_mpi_error(rank, comm, MPI_ERR_COUNT, call,
                         "negative count %d (argument %s)", count, arg);
}

int amp_check_buf_fail(amp_rank_t *rank, amp_comm_t *comm, int count,
                       const char *call, const char *arg)
{
    return amp_mpi_error(rank, comm, MPI_ERR_BUFFER, call,
                         "NULL buffer with count %d (argument %s)", count, arg);
}

int amp_check_win(amp_rank_t *rank, MPI_Win h, const char *call,
                  amp_win_t **win)
{
    *win = amp_win_lookup(rank, h);
    if (*win)
        return MPI_SUCCESS;
    if (h == MPI_WIN_NULL)
        return amp_mpi_error(rank, NULL, MPI_ERR_WIN, call,
                             "MPI_WIN_NULL is not a valid window (argument "
                             "win)");
    return amp_mpi_error(rank, NULL, MPI_ERR_WIN, call,
                         "invalid window handle %#x (argument win)",
                         (unsigned)h);
}

/* ---- references to derived datatypes ---- */

/* Drops one reference to dt; the last one frees it and its references. */
static void type_release(amp_rank_t *rank, amp_dt_t *dt)
{
    if (--dt->refs > 0)
        return;
    for (int i = 0; i < dt->ntypes; i++) {
        amp_dt_t *in = amp_dt_derived(rank, dt->types[i]);
        if (in)
            type_release(rank, in);
    }
    amp_dt_destroy(dt);
    amp_table_free(&rank->dts, dt);
}

void amp_type_hold(const amp_dt_t *dt)
{
    if (!dt->predefined)
        ((amp_dt_t *)dt)->refs++;
}

void amp_type_drop(amp_rank_t *rank, const amp_dt_t *dt)
{
    if (!dt->predefined)
        type_release(rank, (amp_dt_t *)dt);
}
