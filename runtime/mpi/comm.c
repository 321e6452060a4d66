/* Communicator calls. */
#include "mpi/impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int PMPI_Comm_rank(MPI_Comm comm_h, int *rank_out)
{
    amp_rank_t *rank;
    amp_comm_t *comm;
    int rc = amp_mpi_enter(&rank, "MPI_Comm_rank");
    if (rc == MPI_SUCCESS)
        rc = amp_check_comm(rank, comm_h, "MPI_Comm_rank", &comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!rank_out)
        return amp_mpi_error(rank, comm, MPI_ERR_ARG, "MPI_Comm_rank",
                             "NULL pointer (argument rank)");
    *rank_out = comm->rank;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Comm_rank)

int PMPI_Comm_size(MPI_Comm comm_h, int *size)
{
    amp_rank_t *rank;
    amp_comm_t *comm;
    int rc = amp_mpi_enter(&rank, "MPI_Comm_size");
    if (rc == MPI_SUCCESS)
        rc = amp_check_comm(rank, comm_h, "MPI_Comm_size", &comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!size)
        return amp_mpi_error(rank, comm, MPI_ERR_ARG, "MPI_Comm_size",
                             "NULL pointer (argument size)");
    *size = comm->size;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Comm_size)

/* Agrees on a context id no member has used: the largest of the members'
 * next free ids. */
amp_status_t amp_comm_agree_ctx(amp_rank_t *rank, amp_comm_t *comm, int *ctx)
{
    amp_coll_comm_t c;
    amp_coll_op_t max = {.op_id = 1};
    int mine = rank->next_ctx, agreed;
    amp_coll_comm_of(rank, comm, &c);
    amp_status_t st = amp_coll_allreduce(
        &c, &mine, &agreed, 1, amp_dt_predefined(AMPI_DTID_MPI_INT), &max);
    if (st != AMP_OK)
        return st;
    rank = amp_rank_self();
    rank->next_ctx = agreed + 2;
    *ctx = agreed;
    return AMP_OK;
}

amp_comm_t *amp_comm_new(amp_rank_t *rank, int ctx, int myrank, int size,
                         int *world)
{
    amp_comm_t *c = amp_table_alloc(&rank->comms);
    if (!c) {
        free(world);
        return NULL;
    }
    c->ctx = ctx;
    c->rank = myrank;
    c->size = size;
    c->world = world;
    c->owned_world = world;
    c->errh = MPI_ERRORS_ARE_FATAL;
    return c;
}

void amp_comm_destroy(amp_rank_t *rank, amp_comm_t *comm)
{
    free(comm->owned_world);
    free(comm->owned_remote_world);
    amp_table_free(&rank->comms, comm);
}

int PMPI_Comm_dup(MPI_Comm comm_h, MPI_Comm *newcomm)
{
    amp_rank_t *rank;
    amp_comm_t *comm;
    int rc = amp_mpi_enter(&rank, "MPI_Comm_dup");
    if (rc == MPI_SUCCESS)
        rc = amp_check_comm(rank, comm_h, "MPI_Comm_dup", &comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!newcomm)
        return amp_mpi_error(rank, comm, MPI_ERR_ARG, "MPI_Comm_dup",
                             "NULL pointer (argument newcomm)");
    int ctx;
    rank->call = "MPI_Comm_dup";
    amp_status_t st = amp_comm_agree_ctx(rank, comm, &ctx);
    rank = amp_rank_self();
    comm = amp_comm_lookup(rank, comm_h);
    int *world = NULL;
    if (st == AMP_OK && comm->world) {
        world = malloc((size_t)comm->size * sizeof(int));
        if (world)
            memcpy(world, comm->world, (size_t)comm->size * sizeof(int));
        else
            st = AMP_ERR_NOMEM;
    }
    amp_comm_t *c = st == AMP_OK
                        ? amp_comm_new(rank, ctx, comm->rank, comm->size, world)
                        : NULL;
    if (!c)
        return amp_mpi_error(rank, comm, MPI_ERR_NO_MEM, "MPI_Comm_dup",
                             "out of memory");
    c->errh = comm->errh;
    *newcomm = AMPI_HANDLE(AMPI_HANDLE_COMM, c->obj.idx);
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Comm_dup)

int PMPI_Comm_free(MPI_Comm *comm_h)
{
    amp_rank_t *rank;
    amp_comm_t *comm;
    int rc = amp_mpi_enter(&rank, "MPI_Comm_free");
    if (rc == MPI_SUCCESS && !comm_h)
        rc = amp_mpi_error(rank, NULL, MPI_ERR_ARG, "MPI_Comm_free",
                           "NULL pointer (argument comm)");
    if (rc == MPI_SUCCESS)
        rc = amp_check_comm(rank, *comm_h, "MPI_Comm_free", &comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (*comm_h == MPI_COMM_WORLD || *comm_h == MPI_COMM_SELF)
        return amp_mpi_error(rank, comm, MPI_ERR_COMM, "MPI_Comm_free",
                             "%s cannot be freed (argument comm)", comm->name);
    amp_comm_destroy(rank, comm);
    *comm_h = MPI_COMM_NULL;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Comm_free)

static int same_members(const amp_comm_t *a, const amp_comm_t *b, int ordered)
{
    if (a->size != b->size)
        return 0;
    for (int i = 0; i < a->size; i++) {
        int w = amp_comm_world_rank(a, i), found = 0;
        if (ordered) {
            found = w == amp_comm_world_rank(b, i);
        } else {
            for (int j = 0; j < b->size && !found; j++)
                found = w == amp_comm_world_rank(b, j);
        }
        if (!found)
            return 0;
    }
    return 1;
}

int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result)
{
    amp_rank_t *rank;
    amp_comm_t *a, *b;
    int rc = amp_mpi_enter(&rank, "MPI_Comm_compare");
    if (rc == MPI_SUCCESS)
        rc = amp_check_comm(rank, comm1, "MPI_Comm_compare", &a);
    if (rc == MPI_SUCCESS)
        rc = amp_check_comm(rank, comm2, "MPI_Comm_compare", &b);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!result)
        return amp_mpi_error(rank, a, MPI_ERR_ARG, "MPI_Comm_compare",
                             "NULL pointer (argument result)");
    if (a == b)
        *result = MPI_IDENT;
    else if (same_members(a, b, 1))
        *result = MPI_CONGRUENT;
    else if (same_members(a, b, 0))
        *result = MPI_SIMILAR;
    else
        *result = MPI_UNEQUAL;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Comm_compare)

int PMPI_Comm_set_name(MPI_Comm comm_h, const char *name)
{
    amp_rank_t *rank;
    amp_comm_t *comm;
    int rc = amp_mpi_enter(&rank, "MPI_Comm_set_name");
    if (rc == MPI_SUCCESS)
        rc = amp_check_comm(rank, comm_h, "MPI_Comm_set_name", &comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!name)
        return amp_mpi_error(rank, comm, MPI_ERR_ARG, "MPI_Comm_set_name",
                             "NULL pointer (argument comm_name)");
    snprintf(comm->name, sizeof(comm->name), "%s", name);
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Comm_set_name)

int PMPI_Comm_get_name(MPI_Comm comm_h, char *name, int *resultlen)
{
    amp_rank_t *rank;
    amp_comm_t *comm;
    int rc = amp_mpi_enter(&rank, "MPI_Comm_get_name");
    if (rc == MPI_SUCCESS)
        rc = amp_check_comm(rank, comm_h, "MPI_Comm_get_name", &comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!name || !resultlen)
        return amp_mpi_error(rank, comm, MPI_ERR_ARG, "MPI_Comm_get_name",
                             "NULL pointer (argument %s)",
                             name ? "resultlen" : "comm_name");
    *resultlen = snprintf(name, MPI_MAX_OBJECT_NAME, "%s", comm->name);
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Comm_get_name)
