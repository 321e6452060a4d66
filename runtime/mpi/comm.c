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

int amp_comm_members_local(int size, const int *world)
{
    const int *proc = amp_proc.world.rank_proc;
    if (!proc)
        return 1;
    for (int i = 0; i < size; i++)
        if (proc[world ? world[i] : i] != amp_proc.world.proc)
            return 0;
    return 1;
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
    if (amp_comm_coll_attach(c) != AMP_OK) {
        amp_table_free(&rank->comms, c);
        free(world);
        return NULL;
    }
    return c;
}

amp_status_t amp_comm_coll_attach(amp_comm_t *c)
{
    if (amp_comm_members_local(c->size, c->world) &&
        amp_coll_shm_attach(&amp_proc.coll_shm, amp_proc.rank_pe,
                            amp_proc.sched.npes, c->ctx, c->size, c->world,
                            &c->shm) != AMP_OK)
        return AMP_ERR_NOMEM;
    if (amp_coll_hier_attach(c) != AMP_OK) {
        amp_coll_shm_detach(&amp_proc.coll_shm, c->shm);
        c->shm = NULL;
        return AMP_ERR_NOMEM;
    }
    return AMP_OK;
}

void amp_comm_coll_detach(amp_comm_t *c)
{
    amp_coll_shm_detach(&amp_proc.coll_shm, c->shm);
    c->shm = NULL;
    amp_coll_hier_detach(c);
}

void amp_comm_destroy(amp_rank_t *rank, amp_comm_t *comm)
{
    amp_attr_comm_clear(rank, comm);
    amp_info_destroy(comm->info);
    free(comm->owned_world);
    free(comm->owned_remote_world);
    amp_coll_shm_detach(&amp_proc.coll_shm, comm->shm);
    amp_coll_hier_detach(comm);
    amp_topology_free(comm->topo);
    if (comm->is_inter)
        amp_intercomm_cleanup(rank, comm);
    amp_table_free(&rank->comms, comm);
}

/* Registry ids count down from here; agreed ids count up from 4, and a
 * rank would need hundreds of millions of communicators to meet them. */
#define AMP_CTX_REGISTRY_TOP 0x7ffffff0

struct amp_ctx_entry {
    struct amp_ctx_entry *next;
    int parent_ctx;
    unsigned n;
    int ctx;
    int waiting; /* members that have not found it yet */
};

/* The context of the n-th MPI_Comm_idup of the communicator with context
 * parent_ctx and size members; every member gets the same one. */
static amp_status_t registry_ctx(amp_ctx_registry_t *reg, int parent_ctx,
                                 unsigned n, int size, int *ctx)
{
    pthread_mutex_lock(&reg->lock);
    struct amp_ctx_entry **link = &reg->entries, *e;
    while ((e = *link) && !(e->parent_ctx == parent_ctx && e->n == n))
        link = &e->next;
    if (!e && size > 1) {
        e = calloc(1, sizeof(*e));
        if (!e) {
            pthread_mutex_unlock(&reg->lock);
            return AMP_ERR_NOMEM;
        }
        reg->next += 2;
        *e = (struct amp_ctx_entry){reg->entries, parent_ctx, n,
                                    AMP_CTX_REGISTRY_TOP - reg->next, size};
        reg->entries = e;
        link = &reg->entries;
    }
    *ctx = e ? e->ctx : AMP_CTX_REGISTRY_TOP - (reg->next += 2);
    if (e && --e->waiting == 0) {
        *link = e->next;
        free(e);
    }
    pthread_mutex_unlock(&reg->lock);
    return AMP_OK;
}

/* MPI_Comm_dup of an intra-communicator: *out has the same group and a
 * new context. */
static int dup_intra(amp_rank_t *rank, MPI_Comm comm_h, amp_comm_t **out,
                     const char *call)
{
    int ctx;
    amp_comm_t *parent = amp_comm_lookup(rank, comm_h);
    amp_status_t st = call[8] == 'i' /* MPI_Comm_idup: no communication */
                          ? registry_ctx(&amp_proc.idup_ctxs, parent->ctx,
                                         parent->idups++, parent->size, &ctx)
                          : amp_comm_agree_ctx(rank, parent, &ctx);
    rank = amp_rank_self();
    amp_comm_t *comm = amp_comm_lookup(rank, comm_h);
    int *world = NULL;
    if (st == AMP_OK && comm->world) {
        world = malloc((size_t)comm->size * sizeof(int));
        if (world)
            memcpy(world, comm->world, (size_t)comm->size * sizeof(int));
        else
            st = AMP_ERR_NOMEM;
    }
    *out = st == AMP_OK ? amp_comm_new(rank, ctx, comm->rank, comm->size, world)
                        : NULL;
    if (!*out)
        return amp_mpi_error(rank, comm, MPI_ERR_NO_MEM, call, "out of memory");
    return MPI_SUCCESS;
}

/* MPI_Comm_dup (with_info 0: the hints of comm) and
 * MPI_Comm_dup_with_info (with_info 1: the hints of info instead). */
static int dup_common(MPI_Comm comm_h, int with_info, MPI_Info info,
                      MPI_Comm *newcomm, const char *call)
{
    amp_rank_t *rank;
    amp_comm_t *comm;
    int rc = amp_mpi_enter(&rank, call);
    if (rc == MPI_SUCCESS)
        rc = amp_check_comm(rank, comm_h, call, &comm);
    if (rc == MPI_SUCCESS && with_info)
        rc = amp_check_info(rank, comm, info, call);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!newcomm)
        return amp_mpi_error(rank, comm, MPI_ERR_ARG, call,
                             "NULL pointer (argument newcomm)");
    amp_comm_t *c;
    rank->call = call;
    rc = comm->is_inter ? amp_intercomm_dup(rank, comm_h, &c, call)
                        : dup_intra(rank, comm_h, &c, call);
    rank = amp_rank_self();
    comm = amp_comm_lookup(rank, comm_h);
    if (rc != MPI_SUCCESS)
        return rc;
    c->errh = comm->errh;
    if (amp_topology_dup(comm->topo, &c->topo) != AMP_OK ||
        amp_comm_info_apply(rank, c,
                            with_info ? amp_info_lookup(rank, info)
                                      : comm->info) != AMP_OK) {
        amp_comm_destroy(rank, c);
        return amp_mpi_error(rank, comm, MPI_ERR_NO_MEM, call, "out of memory");
    }
    rc = amp_attr_comm_copy(rank, comm, c, call);
    if (rc != MPI_SUCCESS) {
        amp_comm_destroy(rank, c);
        return rc;
    }
    *newcomm = AMPI_HANDLE(AMPI_HANDLE_COMM, c->obj.idx);
    return MPI_SUCCESS;
}

int PMPI_Comm_dup(MPI_Comm comm_h, MPI_Comm *newcomm)
{
    return dup_common(comm_h, 0, MPI_INFO_NULL, newcomm, "MPI_Comm_dup");
}
AMP_WEAK_ALIAS(Comm_dup)

/* The new communicator exists when the call returns, so the request is
 * complete at once: MPI allows that, and no member waits for another.
 * MPI_Comm_idup, and MPI_Comm_idup_with_info (with_info 1: the hints of
 * info instead of comm's). */
static int idup_common(MPI_Comm comm_h, int with_info, MPI_Info info,
                       MPI_Comm *newcomm, MPI_Request *request,
                       const char *call)
{
    amp_rank_t *rank;
    amp_comm_t *comm;
    int rc = amp_mpi_enter(&rank, call);
    if (rc == MPI_SUCCESS)
        rc = amp_check_comm(rank, comm_h, call, &comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!request)
        return amp_mpi_error(rank, comm, MPI_ERR_ARG, call,
                             "NULL pointer (argument request)");
    if (comm->is_inter)
        return amp_mpi_error(rank, comm, MPI_ERR_COMM, call,
                             "not supported on inter-communicators (argument "
                             "comm); use MPI_Comm_dup");
    /* A collective request whose schedule (nbc) has already finished. */
    amp_req_t *req = amp_req_new(rank, AMP_REQ_COLL);
    if (!req)
        return amp_mpi_error(rank, comm, MPI_ERR_NO_MEM, call, "out of memory");
    rc = dup_common(comm_h, with_info, info, newcomm, call);
    if (rc != MPI_SUCCESS) {
        amp_req_release(rank, req);
        return rc;
    }
    req->comm = comm_h;
    req->active = 1;
    amp_p2p_req_init_done(&rank->ep, &req->p2p, MPI_ANY_SOURCE, MPI_ANY_TAG);
    *request = AMPI_HANDLE(AMPI_HANDLE_REQUEST, req->obj.idx);
    return MPI_SUCCESS;
}

int PMPI_Comm_idup(MPI_Comm comm_h, MPI_Comm *newcomm, MPI_Request *request)
{
    return idup_common(comm_h, 0, MPI_INFO_NULL, newcomm, request,
                       "MPI_Comm_idup");
}
AMP_WEAK_ALIAS(Comm_idup)

int PMPI_Comm_idup_with_info(MPI_Comm comm_h, MPI_Info info, MPI_Comm *newcomm,
                             MPI_Request *request)
{
    return idup_common(comm_h, 1, info, newcomm, request,
                       "MPI_Comm_idup_with_info");
}
AMP_WEAK_ALIAS(Comm_idup_with_info)

int PMPI_Comm_dup_with_info(MPI_Comm comm_h, MPI_Info info, MPI_Comm *newcomm)
{
    return dup_common(comm_h, 1, info, newcomm, "MPI_Comm_dup_with_info");
}
AMP_WEAK_ALIAS(Comm_dup_with_info)

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
    rc = amp_attr_comm_delete_all(rank, comm, "MPI_Comm_free");
    if (rc != MPI_SUCCESS)
        return rc;
    amp_comm_destroy(rank, comm);
    *comm_h = MPI_COMM_NULL;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Comm_free)

/* MPI_CONGRUENT if the groups a and b (na and nb ranks, comm rank -> world
 * rank, NULL: the identity) have the same members in the same order,
 * MPI_SIMILAR if in another order, MPI_UNEQUAL otherwise. */
static int compare_groups(int na, const int *a, int nb, const int *b)
{
    if (na != nb)
        return MPI_UNEQUAL;
    int ordered = 1;
    for (int i = 0; i < na && ordered; i++)
        ordered = (a ? a[i] : i) == (b ? b[i] : i);
    if (ordered)
        return MPI_CONGRUENT;
    for (int i = 0; i < na; i++) {
        int w = a ? a[i] : i, found = 0;
        for (int j = 0; j < nb && !found; j++)
            found = w == (b ? b[j] : j);
        if (!found)
            return MPI_UNEQUAL;
    }
    return MPI_SIMILAR;
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
    /* Inter-communicators: the weaker of the local and remote results. */
    *result = MPI_UNEQUAL;
    if (a == b) {
        *result = MPI_IDENT;
    } else if (a->is_inter == b->is_inter) {
        int local = compare_groups(a->size, a->world, b->size, b->world);
        int remote = a->is_inter
                         ? compare_groups(a->remote_size, a->remote_world,
                                          b->remote_size, b->remote_world)
                         : MPI_CONGRUENT;
        *result = local > remote ? local : remote;
    }
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
