/*
 * Handle lookup and the argument checks every call shares.
 */
#include "mpi/comm/comm.h"
#include "mpi/pt2pt/request.h"
#include "mpi/attr/attr.h"
#include "mpi/file/fileio.h"

#include <stdio.h>
#include <string.h>

amp_comm_t *amp_comm_lookup(amp_rank_t *rank, MPI_Comm h)
{
    if (AMP_HANDLE_KIND(h) != AMPI_HANDLE_COMM)
        return NULL;
    return amp_table_lookup(&rank->comms, AMP_HANDLE_INDEX(h));
}

const amp_dt_t *amp_dt_lookup(amp_rank_t *rank, MPI_Datatype h)
{
    unsigned kind = AMP_HANDLE_KIND(h);
    if (kind == AMPI_HANDLE_DATATYPE)
        return amp_dt_predefined(AMP_HANDLE_INDEX(h));
    if (kind == AMPI_HANDLE_DATATYPE_DERIVED)
        return amp_table_lookup(&rank->dts, AMP_HANDLE_INDEX(h));
    return NULL;
}

amp_req_t *amp_req_lookup(amp_rank_t *rank, MPI_Request h)
{
    if (AMP_HANDLE_KIND(h) != AMPI_HANDLE_REQUEST)
        return NULL;
    return amp_table_lookup(&rank->reqs, AMP_HANDLE_INDEX(h));
}

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
    amp_pcoll_t *pc = amp_call_ctx()->pcoll;
    c->seq = pc ? amp_pcoll_seq(pc) : comm->coll_seq++;
    c->nbc_pes = amp_proc.nbc_pes;
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
    for (int i = 0; i < rank->comms.nchunks * AMP_TABLE_CHUNK; i++) {
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
    for (int i = 0; i < rank->comms.nchunks * AMP_TABLE_CHUNK; i++) {
        amp_comm_t *c = amp_table_lookup(&rank->comms, i);
        if (c && amp_coll_shm_waiting(c->shm, c->rank)) {
            char comm[MPI_MAX_OBJECT_NAME + 64];
            amp_rank_ctx_label(rank, c->ctx + 1, comm, sizeof(comm));
            amp_log_error("    waiting for the other members (%s)", comm);
        }
    }
}

static void comm_setup(amp_comm_t *c, int ctx, int rank, int size,
                       const int *world, const char *name)
{
    c->ctx = ctx;
    c->rank = rank;
    c->size = size;
    c->world = world;
    c->errh = MPI_ERRORS_ARE_FATAL;
    snprintf(c->name, sizeof(c->name), "%s", name);
}

amp_status_t amp_rank_objects_init(amp_rank_t *rank)
{
    amp_table_init(&rank->comms, sizeof(amp_comm_t), 2);
    amp_table_init(&rank->dts, sizeof(amp_dt_t), 0);
    amp_table_init(&rank->reqs, sizeof(amp_req_t), 1);
    amp_table_init(&rank->msgs, sizeof(amp_msg_handle_t), 1);
    amp_table_init(&rank->errhs, sizeof(amp_errh_t), 4);
    amp_table_init(&rank->ops, sizeof(amp_op_obj_t), 1);
    if (amp_group_init(rank) != AMP_OK)
        return AMP_ERR_NOMEM;
    if (amp_attr_rank_init(rank) != AMP_OK ||
        amp_info_rank_init(rank) != AMP_OK ||
        amp_win_rank_init(rank) != AMP_OK ||
        amp_file_rank_init(rank) != AMP_OK ||
        amp_session_rank_init(rank) != AMP_OK)
        return AMP_ERR_NOMEM;
    rank->file_errh = MPI_ERRORS_RETURN; /* the default for files */
    amp_comm_t *world = amp_table_put(&rank->comms, 0);
    amp_comm_t *self = amp_table_put(&rank->comms, 1);
    if (!world || !self)
        return AMP_ERR_NOMEM;
    /* Context ids: MPI_COMM_WORLD uses 0 and 1, MPI_COMM_SELF 2 and 3. */
    comm_setup(world, 0, rank->world_rank, amp_proc.nranks, NULL,
               "MPI_COMM_WORLD");
    comm_setup(self, 2, 0, 1, &rank->world_rank, "MPI_COMM_SELF");
    /* MPI_COMM_SELF has nobody to share with: its shm stays NULL. */
    if (amp_comm_members_local(amp_proc.nranks, NULL) &&
        amp_coll_shm_attach(&amp_proc.coll_shm, amp_proc.rank_pe,
                            amp_proc.sched.npes,
                            &(amp_coll_shm_members_t){0, amp_proc.nranks, NULL,
                                                      0, amp_proc.nranks},
                            &world->shm) != AMP_OK)
        return AMP_ERR_NOMEM;
    if (amp_comm_hier_attach(world) != AMP_OK)
        return AMP_ERR_NOMEM;
    rank->next_ctx = 4;
    rank->idup_blocks = 0;
    return AMP_OK;
}

/* ---- checks ---- */

int amp_check_comm(amp_rank_t *rank, MPI_Comm h, const char *call,
                   amp_comm_t **comm)
{
    *comm = amp_comm_lookup(rank, h);
    if (*comm && !(*comm)->freed)
        return MPI_SUCCESS;
    *comm = NULL;
    if (h == MPI_COMM_NULL)
        return amp_mpi_error(rank, NULL, MPI_ERR_COMM, call,
                             "MPI_COMM_NULL is not a valid communicator "
                             "(argument comm)");
    return amp_mpi_error(rank, NULL, MPI_ERR_COMM, call,
                         "invalid communicator handle %#x (argument comm)",
                         (unsigned)h);
}

int amp_check_dt(amp_rank_t *rank, amp_comm_t *comm, MPI_Datatype h,
                 const char *call, const char *arg, const amp_dt_t **dt)
{
    *dt = amp_dt_lookup(rank, h);
    if (*dt && (*dt)->committed)
        return MPI_SUCCESS;
    if (*dt)
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

int amp_check_count(amp_rank_t *rank, amp_comm_t *comm, int count,
                    const char *call, const char *arg)
{
    if (count >= 0)
        return MPI_SUCCESS;
    return amp_mpi_error(rank, comm, MPI_ERR_COUNT, call,
                         "negative count %d (argument %s)", count, arg);
}

int amp_check_buf(amp_rank_t *rank, amp_comm_t *comm, const void *buf,
                  int count, const amp_dt_t *dt, const char *call,
                  const char *arg)
{
    if (buf || count == 0 || dt->size == 0 || dt->true_lb != 0)
        return MPI_SUCCESS;
    return amp_mpi_error(rank, comm, MPI_ERR_BUFFER, call,
                         "NULL buffer with count %d (argument %s)", count, arg);
}
