/*
 * The large-count "_c" calls (large.h): the helpers the generated ones
 * (large_gen.c) use, and the calls whose results differ in type from their
 * int forms', written here.
 */
#include "mpi/large/large.h"
#include "mpi/pt2pt/request.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/comm/topology.h"

void amp_large_begin(amp_large_t *L, const char *call, MPI_Comm comm_h)
{
    memset(L, 0, sizeof(*L));
    L->call = call;
    L->rc = amp_mpi_enter(&L->rank, call);
    if (L->rc == MPI_SUCCESS && comm_h != MPI_COMM_NULL)
        L->comm = amp_comm_lookup(L->rank, comm_h);
}

static void fail(amp_large_t *L, const char *arg, long long v)
{
    L->rc =
        amp_mpi_error(L->rank, L->comm, MPI_ERR_UNSUPPORTED_OPERATION, L->call,
                      "%lld is beyond what this runtime takes (at most "
                      "%d; argument %s)",
                      v, INT_MAX, arg);
}

static int keep(amp_large_t *L, void *mem)
{
    if (!mem) {
        L->rc = amp_mpi_error(L->rank, L->comm, MPI_ERR_NO_MEM, L->call,
                              "out of memory converting the arguments");
        return 0;
    }
    amp_assert(L->nmem < AMP_LARGE_MAX_MEM);
    L->mem[L->nmem++] = mem;
    return 1;
}

/* Elements of a large count go in chunks of this many. */
#define CHUNK (1LL << 30)

/* A committed type of count (> INT_MAX) elements of dt, marked for the
 * reductions (coll/coll.h): count / CHUNK chunks of CHUNK elements, then
 * the rest. */
static int big_type(amp_large_t *L, MPI_Count count, MPI_Datatype dt,
                    MPI_Datatype *out)
{
    MPI_Aint lb, extent;
    long long nchunks = count / CHUNK, rest = count % CHUNK;
    MPI_Datatype chunk = MPI_DATATYPE_NULL, chunks = MPI_DATATYPE_NULL;
    MPI_Datatype tail = MPI_DATATYPE_NULL;
    int rc = PMPI_Type_get_extent(dt, &lb, &extent);
    if (rc == MPI_SUCCESS && nchunks > INT_MAX)
        rc = amp_mpi_error(L->rank, L->comm, MPI_ERR_COUNT, L->call,
                           "count %lld is too large", (long long)count);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Type_contiguous((int)CHUNK, dt, &chunk);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Type_contiguous((int)nchunks, chunk, &chunks);
    if (rc == MPI_SUCCESS && rest)
        rc = PMPI_Type_contiguous((int)rest, dt, &tail);
    if (rc == MPI_SUCCESS && rest) {
        int lens[2] = {1, 1};
        MPI_Aint disps[2] = {0, (MPI_Aint)(nchunks * CHUNK) * extent};
        MPI_Datatype types[2] = {chunks, tail};
        rc = PMPI_Type_create_struct(2, lens, disps, types, out);
    } else if (rc == MPI_SUCCESS) {
        rc = PMPI_Type_dup(chunks, out);
    }
    if (rc == MPI_SUCCESS)
        rc = PMPI_Type_commit(out);
    MPI_Datatype *made[3] = {&chunk, &chunks, &tail};
    for (int i = 0; i < 3; i++)
        if (*made[i] != MPI_DATATYPE_NULL)
            PMPI_Type_free(made[i]);
    if (rc != MPI_SUCCESS)
        return rc;
    amp_dt_t *d = (amp_dt_t *)amp_dt_lookup(L->rank, *out);
    d->large_of = dt;
    d->large_count = count;
    d->large_extent = extent;
    return MPI_SUCCESS;
}

void amp_large_count_dt(amp_large_t *L, MPI_Count count, int *c,
                        MPI_Datatype *dt, const char *arg)
{
    *c = count < 0 ? -1 : (int)(count > INT_MAX ? 1 : count);
    if (L->rc != MPI_SUCCESS || count <= INT_MAX)
        return;
    const amp_dt_t *t;
    L->rc = amp_check_dt(L->rank, L->comm, *dt, L->call, arg, &t);
    if (L->rc != MPI_SUCCESS)
        return;
    amp_assert(L->nbig < AMP_LARGE_MAX_BIG);
    L->rc = big_type(L, count, *dt, &L->big[L->nbig]);
    if (L->rc == MPI_SUCCESS)
        *dt = L->big[L->nbig++];
}

void amp_large_int(amp_large_t *L, long long v, int *c, const char *arg)
{
    *c = v < INT_MIN ? INT_MIN : v > INT_MAX ? INT_MAX : (int)v;
    if (L->rc == MPI_SUCCESS && (v < INT_MIN || v > INT_MAX))
        fail(L, arg, v);
}

/* n ints for the values at a (long long: MPI_Count, else MPI_Aint). */
static const int *to_ints(amp_large_t *L, const void *a, int n, int long_long,
                          const char *arg)
{
    if (!a)
        return NULL;
    if (n <= 0 || L->rc != MPI_SUCCESS)
        return &L->empty;
    int *c = malloc((size_t)n * sizeof(*c));
    if (!keep(L, c))
        return &L->empty;
    for (int i = 0; i < n && L->rc == MPI_SUCCESS; i++) {
        char name[64];
        long long v = long_long ? ((const MPI_Count *)a)[i]
                                : (long long)((const MPI_Aint *)a)[i];
        snprintf(name, sizeof(name), "%s[%d]", arg, i);
        amp_large_int(L, v, &c[i], name);
    }
    return c;
}

const int *amp_large_counts_int(amp_large_t *L, const MPI_Count *a, int n,
                                const char *arg)
{
    return to_ints(L, a, n, 1, arg);
}

const int *amp_large_aints_int(amp_large_t *L, const MPI_Aint *a, int n,
                               const char *arg)
{
    return to_ints(L, a, n, 0, arg);
}

const MPI_Aint *amp_large_counts_aint(amp_large_t *L, const MPI_Count *a, int n,
                                      const char *arg)
{
    (void)arg; /* every MPI_Count fits an MPI_Aint here */
    if (!a)
        return NULL;
    if (n <= 0 || L->rc != MPI_SUCCESS)
        return (const MPI_Aint *)a;
    MPI_Aint *c = malloc((size_t)n * sizeof(*c));
    if (!keep(L, c))
        return (const MPI_Aint *)a;
    for (int i = 0; i < n; i++)
        c[i] = (MPI_Aint)a[i];
    return c;
}

int amp_large_len(amp_large_t *L, MPI_Comm comm_h, int kind, int root)
{
    amp_comm_t *comm =
        L->rc == MPI_SUCCESS ? amp_comm_lookup(L->rank, comm_h) : NULL;
    if (!comm)
        return 0;
    int group = comm->is_inter ? comm->remote_size : comm->size;
    switch (kind) {
    case AMP_LARGE_GROUP: return group;
    case AMP_LARGE_LOCAL: return comm->size;
    case AMP_LARGE_ROOT:
        if (comm->is_inter)
            return root == MPI_ROOT ? group : 0;
        return root == comm->rank ? group : 0;
    case AMP_LARGE_INDEG: return comm->topo ? comm->topo->nin : 0;
    case AMP_LARGE_OUTDEG: return comm->topo ? comm->topo->nout : 0;
    }
    return 0;
}

/* The errors of call of are reported as L's call's. */
static void run_as(amp_large_t *L, const char *of)
{
    amp_call_ctx_t *ctx = amp_call_ctx();
    L->saved_of = ctx->alias_of;
    L->saved_alias = ctx->alias;
    L->ran = 1;
    snprintf(L->base, sizeof(L->base), "%s", of);
    ctx->alias_of = L->base;
    ctx->alias = L->call;
}

void amp_large_run(amp_large_t *L)
{
    /* "MPI_Send_c" reports the errors of "MPI_Send" */
    char of[sizeof(L->base)];
    size_t n = strlen(L->call) - 2;
    n = n < sizeof(of) ? n : sizeof(of) - 1;
    memcpy(of, L->call, n);
    of[n] = 0;
    run_as(L, of);
}

int amp_large_end(amp_large_t *L, int rc)
{
    if (L->ran) {
        amp_call_ctx_t *ctx = amp_call_ctx();
        ctx->alias_of = L->saved_of;
        ctx->alias = L->saved_alias;
    }
    for (int i = 0; i < L->nbig; i++)
        PMPI_Type_free(&L->big[i]);
    for (int i = 0; i < L->nmem; i++)
        free(L->mem[i]);
    return L->rc != MPI_SUCCESS ? L->rc : rc;
}

/* ---- the calls whose results differ in type from their int forms' ---- */

int PMPI_Get_count_c(const MPI_Status *status, MPI_Datatype datatype,
                     MPI_Count *count)
{
    long long n = 0;
    int rc = amp_status_count(status, datatype, &n, 0, "MPI_Get_count_c");
    if (rc == MPI_SUCCESS && count)
        *count = n < 0 ? MPI_UNDEFINED : n;
    return rc;
}
AMP_WEAK_ALIAS(Get_count_c)

int PMPI_Get_elements_c(const MPI_Status *status, MPI_Datatype datatype,
                        MPI_Count *count)
{
    long long n = 0;
    int rc = amp_status_count(status, datatype, &n, 1, "MPI_Get_elements_c");
    if (rc == MPI_SUCCESS && count)
        *count = n < 0 ? MPI_UNDEFINED : n;
    return rc;
}
AMP_WEAK_ALIAS(Get_elements_c)

/* The _c calls that are their _x forms under another name. */
int PMPI_Status_set_elements_c(MPI_Status *status, MPI_Datatype datatype,
                               MPI_Count count)
{
    amp_large_t L;
    amp_large_begin(&L, "MPI_Status_set_elements_c", MPI_COMM_NULL);
    if (L.rc != MPI_SUCCESS)
        return L.rc;
    run_as(&L, "MPI_Status_set_elements_x");
    return amp_large_end(&L,
                         PMPI_Status_set_elements_x(status, datatype, count));
}
AMP_WEAK_ALIAS(Status_set_elements_c)

int PMPI_Type_size_c(MPI_Datatype datatype, MPI_Count *size)
{
    amp_large_t L;
    amp_large_begin(&L, "MPI_Type_size_c", MPI_COMM_NULL);
    if (L.rc != MPI_SUCCESS)
        return L.rc;
    run_as(&L, "MPI_Type_size_x");
    return amp_large_end(&L, PMPI_Type_size_x(datatype, size));
}
AMP_WEAK_ALIAS(Type_size_c)

int PMPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count *lb,
                           MPI_Count *extent)
{
    amp_large_t L;
    amp_large_begin(&L, "MPI_Type_get_extent_c", MPI_COMM_NULL);
    if (L.rc != MPI_SUCCESS)
        return L.rc;
    run_as(&L, "MPI_Type_get_extent_x");
    return amp_large_end(&L, PMPI_Type_get_extent_x(datatype, lb, extent));
}
AMP_WEAK_ALIAS(Type_get_extent_c)

int PMPI_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count *true_lb,
                                MPI_Count *true_extent)
{
    amp_large_t L;
    amp_large_begin(&L, "MPI_Type_get_true_extent_c", MPI_COMM_NULL);
    if (L.rc != MPI_SUCCESS)
        return L.rc;
    run_as(&L, "MPI_Type_get_true_extent_x");
    return amp_large_end(
        &L, PMPI_Type_get_true_extent_x(datatype, true_lb, true_extent));
}
AMP_WEAK_ALIAS(Type_get_true_extent_c)

/* Types keep their constructor's arguments as ints and MPI_Aints: there
 * are never large counts among them. */
int PMPI_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count *num_integers,
                             MPI_Count *num_addresses,
                             MPI_Count *num_large_counts,
                             MPI_Count *num_datatypes, int *combiner)
{
    amp_large_t L;
    int ni = 0, na = 0, nd = 0;
    amp_large_begin(&L, "MPI_Type_get_envelope_c", MPI_COMM_NULL);
    if (L.rc != MPI_SUCCESS)
        return L.rc;
    if (!num_integers || !num_addresses || !num_large_counts || !num_datatypes)
        return amp_mpi_error(L.rank, NULL, MPI_ERR_ARG, L.call,
                             "NULL pointer (an argument num_...)");
    amp_large_run(&L);
    int rc = PMPI_Type_get_envelope(datatype, &ni, &na, &nd, combiner);
    if (rc == MPI_SUCCESS) {
        *num_integers = ni;
        *num_addresses = na;
        *num_large_counts = 0;
        *num_datatypes = nd;
    }
    return amp_large_end(&L, rc);
}
AMP_WEAK_ALIAS(Type_get_envelope_c)

int PMPI_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers,
                             MPI_Count max_addresses,
                             MPI_Count max_large_counts,
                             MPI_Count max_datatypes, int array_of_integers[],
                             MPI_Aint array_of_addresses[],
                             MPI_Count array_of_large_counts[],
                             MPI_Datatype array_of_datatypes[])
{
    amp_large_t L;
    int mi, ma, md;
    (void)max_large_counts; /* none to return (see above) */
    (void)array_of_large_counts;
    amp_large_begin(&L, "MPI_Type_get_contents_c", MPI_COMM_NULL);
    amp_large_int(&L, max_integers, &mi, "max_integers");
    amp_large_int(&L, max_addresses, &ma, "max_addresses");
    amp_large_int(&L, max_datatypes, &md, "max_datatypes");
    if (L.rc != MPI_SUCCESS)
        return amp_large_end(&L, L.rc);
    amp_large_run(&L);
    return amp_large_end(
        &L, PMPI_Type_get_contents(datatype, mi, ma, md, array_of_integers,
                                   array_of_addresses, array_of_datatypes));
}
AMP_WEAK_ALIAS(Type_get_contents_c)

int PMPI_Buffer_detach_c(void *buffer_addr, MPI_Count *size)
{
    amp_large_t L;
    int n = 0;
    amp_large_begin(&L, "MPI_Buffer_detach_c", MPI_COMM_NULL);
    if (L.rc != MPI_SUCCESS)
        return L.rc;
    if (!size)
        return amp_mpi_error(L.rank, NULL, MPI_ERR_ARG, L.call,
                             "NULL pointer (argument size)");
    amp_large_run(&L);
    int rc = PMPI_Buffer_detach(buffer_addr, &n);
    if (rc == MPI_SUCCESS)
        *size = n;
    return amp_large_end(&L, rc);
}
AMP_WEAK_ALIAS(Buffer_detach_c)

int PMPI_Comm_detach_buffer_c(MPI_Comm comm, void *buffer_addr, MPI_Count *size)
{
    amp_large_t L;
    int n = 0;
    amp_large_begin(&L, "MPI_Comm_detach_buffer_c", comm);
    if (L.rc != MPI_SUCCESS)
        return L.rc;
    if (!size)
        return amp_mpi_error(L.rank, NULL, MPI_ERR_ARG, L.call,
                             "NULL pointer (argument size)");
    amp_large_run(&L);
    int rc = PMPI_Comm_detach_buffer(comm, buffer_addr, &n);
    if (rc == MPI_SUCCESS)
        *size = n;
    return amp_large_end(&L, rc);
}
AMP_WEAK_ALIAS(Comm_detach_buffer_c)

int PMPI_Session_detach_buffer_c(MPI_Session session, void *buffer_addr,
                                 MPI_Count *size)
{
    amp_large_t L;
    int n = 0;
    amp_large_begin(&L, "MPI_Session_detach_buffer_c", MPI_COMM_NULL);
    if (L.rc != MPI_SUCCESS)
        return L.rc;
    if (!size)
        return amp_mpi_error(L.rank, NULL, MPI_ERR_ARG, L.call,
                             "NULL pointer (argument size)");
    amp_large_run(&L);
    int rc = PMPI_Session_detach_buffer(session, buffer_addr, &n);
    if (rc == MPI_SUCCESS)
        *size = n;
    return amp_large_end(&L, rc);
}
AMP_WEAK_ALIAS(Session_detach_buffer_c)

/* ---- vectors whose blocks or strides an int does not hold ---- */

/* MPI_Type_vector_c (in_bytes 0: stride in extents of oldtype) and
 * MPI_Type_create_hvector_c (in_bytes 1: stride in bytes).  The int form
 * when every value fits; otherwise a block of more than INT_MAX elements is
 * one element of a type holding them (amp_large_count_dt: still one data
 * block, however long), and the stride goes in bytes, through
 * MPI_Type_create_hvector. */
static int vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                    int in_bytes, MPI_Datatype oldtype, MPI_Datatype *newtype,
                    const char *call)
{
    amp_large_t L;
    int count_i, len_i;
    const amp_dt_t *old = NULL;
    amp_large_begin(&L, call, MPI_COMM_NULL);
    amp_large_int(&L, count, &count_i, "count");
    if (L.rc == MPI_SUCCESS && !in_bytes && blocklength <= INT_MAX &&
        stride >= INT_MIN && stride <= INT_MAX) {
        amp_large_run(&L);
        return amp_large_end(&L,
                             PMPI_Type_vector(count_i, (int)blocklength,
                                              (int)stride, oldtype, newtype));
    }
    MPI_Aint bytes = (MPI_Aint)stride;
    if (L.rc == MPI_SUCCESS && !in_bytes)
        L.rc = amp_check_dt(L.rank, NULL, oldtype, call, "oldtype", &old);
    if (L.rc == MPI_SUCCESS && !in_bytes &&
        __builtin_mul_overflow(stride, old->extent, &bytes))
        L.rc = amp_mpi_error(L.rank, NULL, MPI_ERR_ARG, call,
                             "stride %lld times the extent %td of oldtype "
                             "is beyond an address (argument stride)",
                             (long long)stride, old->extent);
    amp_large_count_dt(&L, blocklength, &len_i, &oldtype, "blocklength");
    if (L.rc != MPI_SUCCESS)
        return amp_large_end(&L, L.rc);
    run_as(&L, "MPI_Type_create_hvector");
    return amp_large_end(
        &L, PMPI_Type_create_hvector(count_i, len_i, bytes, oldtype, newtype));
}

int PMPI_Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                       MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return vector_c(count, blocklength, stride, 0, oldtype, newtype,
                    "MPI_Type_vector_c");
}
AMP_WEAK_ALIAS(Type_vector_c)

int PMPI_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength,
                               MPI_Count stride, MPI_Datatype oldtype,
                               MPI_Datatype *newtype)
{
    return vector_c(count, blocklength, stride, 1, oldtype, newtype,
                    "MPI_Type_create_hvector_c");
}
AMP_WEAK_ALIAS(Type_create_hvector_c)

/* Whether one of the n values at a is outside an int. */
static int beyond_int(const MPI_Count *a, long long n)
{
    for (long long i = 0; a && i < n; i++)
        if (a[i] < INT_MIN || a[i] > INT_MAX)
            return 1;
    return 0;
}

/* MPI_Type_create_indexed_block_c (in_bytes 0: displacements in extents
 * of oldtype) and MPI_Type_create_hindexed_block_c (in bytes).  The int
 * form when the values fit; otherwise a block of more than INT_MAX
 * elements is one element of a type holding them, and the displacements
 * go in bytes, through MPI_Type_create_hindexed_block. */
static int block_c(MPI_Count count, MPI_Count blocklength,
                   const MPI_Count *disps, int in_bytes, MPI_Datatype oldtype,
                   MPI_Datatype *newtype, const char *call)
{
    amp_large_t L;
    int count_i, len_i;
    const amp_dt_t *old = NULL;
    amp_large_begin(&L, call, MPI_COMM_NULL);
    amp_large_int(&L, count, &count_i, "count");
    if (L.rc == MPI_SUCCESS && !in_bytes && blocklength <= INT_MAX &&
        !beyond_int(disps, count_i)) {
        const int *d =
            amp_large_counts_int(&L, disps, count_i, "array_of_displacements");
        amp_large_int(&L, blocklength, &len_i, "blocklength");
        amp_large_run(&L);
        return amp_large_end(
            &L, L.rc != MPI_SUCCESS ? L.rc
                                    : PMPI_Type_create_indexed_block(
                                          count_i, len_i, d, oldtype, newtype));
    }
    MPI_Aint *bytes = NULL;
    if (L.rc == MPI_SUCCESS && !in_bytes)
        L.rc = amp_check_dt(L.rank, NULL, oldtype, call, "oldtype", &old);
    if (L.rc == MPI_SUCCESS && count_i > 0 && disps) {
        bytes = malloc((size_t)count_i * sizeof(*bytes));
        if (!keep(&L, bytes))
            return amp_large_end(&L, L.rc);
    }
    for (int i = 0; bytes && i < count_i && L.rc == MPI_SUCCESS; i++) {
        bytes[i] = (MPI_Aint)disps[i];
        if (!in_bytes &&
            __builtin_mul_overflow(disps[i], old->extent, &bytes[i]))
            L.rc = amp_mpi_error(L.rank, NULL, MPI_ERR_ARG, call,
                                 "displacement %lld times the extent %td of "
                                 "oldtype is beyond an address (argument "
                                 "array_of_displacements[%d])",
                                 (long long)disps[i], old->extent, i);
    }
    amp_large_count_dt(&L, blocklength, &len_i, &oldtype, "blocklength");
    if (L.rc != MPI_SUCCESS)
        return amp_large_end(&L, L.rc);
    run_as(&L, "MPI_Type_create_hindexed_block");
    return amp_large_end(&L, PMPI_Type_create_hindexed_block(
                                 count_i, len_i,
                                 bytes ? bytes : (const MPI_Aint *)disps,
                                 oldtype, newtype));
}

int PMPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength,
                                     const MPI_Count array_of_displacements[],
                                     MPI_Datatype oldtype,
                                     MPI_Datatype *newtype)
{
    return block_c(count, blocklength, array_of_displacements, 0, oldtype,
                   newtype, "MPI_Type_create_indexed_block_c");
}
AMP_WEAK_ALIAS(Type_create_indexed_block_c)

int PMPI_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength,
                                      const MPI_Count array_of_displacements[],
                                      MPI_Datatype oldtype,
                                      MPI_Datatype *newtype)
{
    return block_c(count, blocklength, array_of_displacements, 1, oldtype,
                   newtype, "MPI_Type_create_hindexed_block_c");
}
AMP_WEAK_ALIAS(Type_create_hindexed_block_c)

/* The type h a constructor builds on, into *dt: predefined or a live
 * handle, committed or not (MPI_ERR_TYPE names arg otherwise). */
static int ctor_dt(amp_large_t *L, MPI_Datatype h, const char *arg,
                   const amp_dt_t **dt)
{
    *dt = amp_dt_lookup(L->rank, h);
    if (*dt && ((*dt)->predefined || (*dt)->user_refs > 0))
        return MPI_SUCCESS;
    *dt = NULL;
    return amp_mpi_error(L->rank, NULL, MPI_ERR_TYPE, L->call,
                         "invalid datatype handle %#x (argument %s)",
                         (unsigned)h, arg);
}

/* The types of the entries of MPI_Type_create_struct_c: an entry of more
 * than INT_MAX elements becomes one element of a type holding them (into
 * made[i], which the caller frees); lens[i] is then 1. */
static void struct_entries(amp_large_t *L, int n, const MPI_Count *lens_c,
                           const MPI_Datatype *types_c, int *lens,
                           MPI_Datatype *types, MPI_Datatype *made)
{
    for (int i = 0; i < n && L->rc == MPI_SUCCESS; i++) {
        char arg[64];
        snprintf(arg, sizeof(arg), "array_of_blocklengths[%d]", i);
        types[i] = types_c[i];
        if (lens_c[i] <= INT_MAX) {
            amp_large_int(L, lens_c[i], &lens[i], arg);
            continue;
        }
        const amp_dt_t *t;
        snprintf(arg, sizeof(arg), "array_of_types[%d]", i);
        L->rc = ctor_dt(L, types_c[i], arg, &t);
        if (L->rc == MPI_SUCCESS)
            L->rc = big_type(L, lens_c[i], types_c[i], &made[i]);
        types[i] = made[i];
        lens[i] = 1;
    }
}

int PMPI_Type_create_struct_c(MPI_Count count,
                              const MPI_Count array_of_blocklengths[],
                              const MPI_Count array_of_displacements[],
                              const MPI_Datatype array_of_types[],
                              MPI_Datatype *newtype)
{
    amp_large_t L;
    int n;
    amp_large_begin(&L, "MPI_Type_create_struct_c", MPI_COMM_NULL);
    amp_large_int(&L, count, &n, "count");
    const MPI_Aint *disps = amp_large_counts_aint(&L, array_of_displacements, n,
                                                  "array_of_displacements");
    const int *lens_i = NULL;
    MPI_Datatype *types = NULL, *made = NULL; /* made: MPI_DATATYPE_NULL */
    if (L.rc == MPI_SUCCESS && n > 0 && array_of_blocklengths &&
        array_of_types) {
        int *lens = malloc((size_t)n * sizeof(*lens));
        types = malloc((size_t)n * sizeof(*types));
        made = calloc((size_t)n, sizeof(*made));
        int ok = keep(&L, lens);
        ok = keep(&L, types) && ok;
        ok = keep(&L, made) && ok;
        if (ok)
            struct_entries(&L, n, array_of_blocklengths, array_of_types, lens,
                           types, made);
        lens_i = lens;
    } else { /* nothing to convert but what the int form refuses */
        lens_i = amp_large_counts_int(&L, array_of_blocklengths, n,
                                      "array_of_blocklengths");
    }
    int rc = L.rc;
    if (rc == MPI_SUCCESS) {
        amp_large_run(&L);
        rc = PMPI_Type_create_struct(n, lens_i, disps,
                                     types ? types : array_of_types, newtype);
    }
    for (int i = 0; made && i < n; i++)
        if (made[i] != MPI_DATATYPE_NULL)
            PMPI_Type_free(&made[i]);
    return amp_large_end(&L, rc);
}
AMP_WEAK_ALIAS(Type_create_struct_c)

/* ---- indexed types whose blocks an int does not hold ---- */

/* The bounds the hindexed type of the n blocks (lens, bytes) of old
 * would have: its lb into *lb and its extent into *extent; 0 if they are
 * beyond an address. */
static int hindexed_bounds(int n, const MPI_Count *lens, const MPI_Aint *bytes,
                           const amp_dt_t *old, MPI_Aint *lb, MPI_Aint *extent)
{
    MPI_Aint lo = 0, hi = 0, reach;
    int any = 0;
    for (int i = 0; i < n; i++) {
        if (lens[i] <= 0)
            continue;
        if (__builtin_mul_overflow(lens[i] - 1, old->extent, &reach))
            return 0;
        MPI_Aint first = bytes[i] + old->lb + (reach < 0 ? reach : 0);
        MPI_Aint last =
            bytes[i] + old->lb + old->extent + (reach > 0 ? reach : 0);
        lo = any && lo < first ? lo : first;
        hi = any && hi > last ? hi : last;
        any = 1;
    }
    *lb = lo;
    *extent = hi - lo;
    return 1;
}

/* The struct of the n blocks (lens, bytes) of old: a block of more than
 * INT_MAX elements is one element of a type holding them, and the extent
 * is the hindexed type's (a struct's would be padded to old's alignment;
 * MPI_Type_create_resized undoes that). */
static int indexed_struct(amp_large_t *L, int n, const MPI_Count *lens_c,
                          const MPI_Aint *bytes, MPI_Datatype oldtype,
                          const amp_dt_t *old, MPI_Datatype *newtype)
{
    int *lens = malloc((size_t)n * sizeof(*lens));
    MPI_Datatype *olds = malloc((size_t)n * sizeof(*olds));
    MPI_Datatype *types = malloc((size_t)n * sizeof(*types));
    MPI_Datatype *made = calloc((size_t)n, sizeof(*made));
    int ok = keep(L, lens);
    ok = keep(L, olds) && ok;
    ok = keep(L, types) && ok;
    ok = keep(L, made) && ok;
    MPI_Aint lb = 0, extent = 0, slb, sextent;
    if (ok && !hindexed_bounds(n, lens_c, bytes, old, &lb, &extent))
        L->rc = amp_mpi_error(L->rank, NULL, MPI_ERR_ARG, L->call,
                              "the blocks reach beyond an address "
                              "(argument array_of_blocklengths)");
    for (int i = 0; ok && i < n; i++)
        olds[i] = oldtype;
    if (ok)
        struct_entries(L, n, lens_c, olds, lens, types, made);
    MPI_Datatype s = MPI_DATATYPE_NULL;
    int rc = L->rc;
    if (rc == MPI_SUCCESS) {
        run_as(L, "MPI_Type_create_struct");
        rc = PMPI_Type_create_struct(n, lens, bytes, types, &s);
    }
    if (rc == MPI_SUCCESS)
        rc = PMPI_Type_get_extent(s, &slb, &sextent);
    if (rc == MPI_SUCCESS && (slb != lb || sextent != extent)) {
        rc = PMPI_Type_create_resized(s, lb, extent, newtype);
        PMPI_Type_free(&s);
    } else if (rc == MPI_SUCCESS) {
        *newtype = s;
    }
    for (int i = 0; ok && i < n; i++)
        if (made[i] != MPI_DATATYPE_NULL)
            PMPI_Type_free(&made[i]);
    return rc;
}

/* MPI_Type_indexed_c (in_bytes 0: displacements in extents of oldtype)
 * and MPI_Type_create_hindexed_c (in bytes).  The int form when every
 * value fits; else the displacements go in bytes, through
 * MPI_Type_create_hindexed when the block lengths fit an int, and through
 * a struct of one type per block when one does not (indexed_struct). */
static int indexed_c(MPI_Count count, const MPI_Count *lens,
                     const MPI_Count *disps, int in_bytes, MPI_Datatype oldtype,
                     MPI_Datatype *newtype, const char *call)
{
    amp_large_t L;
    int n;
    const amp_dt_t *old = NULL;
    amp_large_begin(&L, call, MPI_COMM_NULL);
    amp_large_int(&L, count, &n, "count");
    int big_lens = L.rc == MPI_SUCCESS && beyond_int(lens, n);
    if (L.rc == MPI_SUCCESS && !big_lens &&
        (in_bytes || !beyond_int(disps, n))) {
        const int *l =
            amp_large_counts_int(&L, lens, n, "array_of_blocklengths");
        const int *di =
            in_bytes
                ? NULL
                : amp_large_counts_int(&L, disps, n, "array_of_displacements");
        const MPI_Aint *da =
            in_bytes
                ? amp_large_counts_aint(&L, disps, n, "array_of_displacements")
                : NULL;
        if (L.rc != MPI_SUCCESS)
            return amp_large_end(&L, L.rc);
        amp_large_run(&L);
        return amp_large_end(
            &L, in_bytes ? PMPI_Type_create_hindexed(n, l, da, oldtype, newtype)
                         : PMPI_Type_indexed(n, l, di, oldtype, newtype));
    }
    if (L.rc == MPI_SUCCESS)
        L.rc = ctor_dt(&L, oldtype, "oldtype", &old);
    if (L.rc == MPI_SUCCESS && n > 0 && (!lens || !disps))
        L.rc = amp_mpi_error(
            L.rank, NULL, MPI_ERR_ARG, call, "NULL pointer (argument %s)",
            lens ? "array_of_displacements" : "array_of_blocklengths");
    MPI_Aint *bytes = NULL;
    if (L.rc == MPI_SUCCESS && n > 0) {
        bytes = malloc((size_t)n * sizeof(*bytes));
        if (!keep(&L, bytes))
            return amp_large_end(&L, L.rc);
    }
    for (int i = 0; bytes && i < n && L.rc == MPI_SUCCESS; i++) {
        bytes[i] = (MPI_Aint)disps[i];
        if (!in_bytes &&
            __builtin_mul_overflow(disps[i], old->extent, &bytes[i]))
            L.rc = amp_mpi_error(L.rank, NULL, MPI_ERR_ARG, call,
                                 "displacement %lld times the extent %td of "
                                 "oldtype is beyond an address (argument "
                                 "array_of_displacements[%d])",
                                 (long long)disps[i], old->extent, i);
    }
    if (L.rc != MPI_SUCCESS)
        return amp_large_end(&L, L.rc);
    if (big_lens)
        return amp_large_end(
            &L, indexed_struct(&L, n, lens, bytes, oldtype, old, newtype));
    const int *l = amp_large_counts_int(&L, lens, n, "array_of_blocklengths");
    run_as(&L, "MPI_Type_create_hindexed");
    return amp_large_end(
        &L, PMPI_Type_create_hindexed(n, l, bytes, oldtype, newtype));
}

int PMPI_Type_indexed_c(MPI_Count count,
                        const MPI_Count array_of_blocklengths[],
                        const MPI_Count array_of_displacements[],
                        MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return indexed_c(count, array_of_blocklengths, array_of_displacements, 0,
                     oldtype, newtype, "MPI_Type_indexed_c");
}
AMP_WEAK_ALIAS(Type_indexed_c)

int PMPI_Type_create_hindexed_c(MPI_Count count,
                                const MPI_Count array_of_blocklengths[],
                                const MPI_Count array_of_displacements[],
                                MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return indexed_c(count, array_of_blocklengths, array_of_displacements, 1,
                     oldtype, newtype, "MPI_Type_create_hindexed_c");
}
AMP_WEAK_ALIAS(Type_create_hindexed_c)

/* ---- packing: positions in and out ---- */

/* An output argument (arg) must not be NULL: L fails otherwise. */
static void need_out(amp_large_t *L, const void *out, const char *arg)
{
    if (L->rc == MPI_SUCCESS && !out)
        L->rc = amp_mpi_error(L->rank, L->comm, MPI_ERR_ARG, L->call,
                              "NULL pointer (argument %s)", arg);
}

/* *position as an int in pos (position checked). */
static void position_in(amp_large_t *L, const MPI_Count *position, int *pos)
{
    need_out(L, position, "position");
    if (L->rc == MPI_SUCCESS)
        amp_large_int(L, *position, pos, "position");
}

int PMPI_Pack_c(const void *inbuf, MPI_Count incount, MPI_Datatype datatype,
                void *outbuf, MPI_Count outsize, MPI_Count *position,
                MPI_Comm comm)
{
    amp_large_t L;
    int n, size, pos = 0;
    amp_large_begin(&L, "MPI_Pack_c", comm);
    amp_large_count_dt(&L, incount, &n, &datatype, "incount");
    amp_large_int(&L, outsize, &size, "outsize");
    position_in(&L, position, &pos);
    if (L.rc != MPI_SUCCESS)
        return amp_large_end(&L, L.rc);
    amp_large_run(&L);
    int rc = PMPI_Pack(inbuf, n, datatype, outbuf, size, &pos, comm);
    if (rc == MPI_SUCCESS)
        *position = pos;
    return amp_large_end(&L, rc);
}
AMP_WEAK_ALIAS(Pack_c)

int PMPI_Unpack_c(const void *inbuf, MPI_Count insize, MPI_Count *position,
                  void *outbuf, MPI_Count outcount, MPI_Datatype datatype,
                  MPI_Comm comm)
{
    amp_large_t L;
    int n, size, pos = 0;
    amp_large_begin(&L, "MPI_Unpack_c", comm);
    amp_large_count_dt(&L, outcount, &n, &datatype, "outcount");
    amp_large_int(&L, insize, &size, "insize");
    position_in(&L, position, &pos);
    if (L.rc != MPI_SUCCESS)
        return amp_large_end(&L, L.rc);
    amp_large_run(&L);
    int rc = PMPI_Unpack(inbuf, size, &pos, outbuf, n, datatype, comm);
    if (rc == MPI_SUCCESS)
        *position = pos;
    return amp_large_end(&L, rc);
}
AMP_WEAK_ALIAS(Unpack_c)

int PMPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm,
                     MPI_Count *size)
{
    amp_large_t L;
    int n, s = 0;
    amp_large_begin(&L, "MPI_Pack_size_c", comm);
    amp_large_count_dt(&L, incount, &n, &datatype, "incount");
    need_out(&L, size, "size");
    if (L.rc != MPI_SUCCESS)
        return amp_large_end(&L, L.rc);
    amp_large_run(&L);
    int rc = PMPI_Pack_size(n, datatype, comm, &s);
    if (rc == MPI_SUCCESS)
        *size = s;
    return amp_large_end(&L, rc);
}
AMP_WEAK_ALIAS(Pack_size_c)

_Static_assert(sizeof(MPI_Count) == sizeof(MPI_Aint),
               "external32 positions and sizes are MPI_Aints");

int PMPI_Pack_external_c(const char datarep[], const void *inbuf,
                         MPI_Count incount, MPI_Datatype datatype, void *outbuf,
                         MPI_Count outsize, MPI_Count *position)
{
    amp_large_t L;
    int n;
    MPI_Aint pos = 0;
    amp_large_begin(&L, "MPI_Pack_external_c", MPI_COMM_NULL);
    amp_large_count_dt(&L, incount, &n, &datatype, "incount");
    need_out(&L, position, "position");
    if (L.rc != MPI_SUCCESS)
        return amp_large_end(&L, L.rc);
    pos = (MPI_Aint)*position;
    amp_large_run(&L);
    int rc = PMPI_Pack_external(datarep, inbuf, n, datatype, outbuf,
                                (MPI_Aint)outsize, &pos);
    if (rc == MPI_SUCCESS)
        *position = pos;
    return amp_large_end(&L, rc);
}
AMP_WEAK_ALIAS(Pack_external_c)

int PMPI_Unpack_external_c(const char datarep[], const void *inbuf,
                           MPI_Count insize, MPI_Count *position, void *outbuf,
                           MPI_Count outcount, MPI_Datatype datatype)
{
    amp_large_t L;
    int n;
    MPI_Aint pos = 0;
    amp_large_begin(&L, "MPI_Unpack_external_c", MPI_COMM_NULL);
    amp_large_count_dt(&L, outcount, &n, &datatype, "outcount");
    need_out(&L, position, "position");
    if (L.rc != MPI_SUCCESS)
        return amp_large_end(&L, L.rc);
    pos = (MPI_Aint)*position;
    amp_large_run(&L);
    int rc = PMPI_Unpack_external(datarep, inbuf, (MPI_Aint)insize, &pos,
                                  outbuf, n, datatype);
    if (rc == MPI_SUCCESS)
        *position = pos;
    return amp_large_end(&L, rc);
}
AMP_WEAK_ALIAS(Unpack_external_c)

int PMPI_Pack_external_size_c(const char datarep[], MPI_Count incount,
                              MPI_Datatype datatype, MPI_Count *size)
{
    amp_large_t L;
    int n;
    MPI_Aint s = 0;
    amp_large_begin(&L, "MPI_Pack_external_size_c", MPI_COMM_NULL);
    amp_large_count_dt(&L, incount, &n, &datatype, "incount");
    need_out(&L, size, "size");
    if (L.rc != MPI_SUCCESS)
        return amp_large_end(&L, L.rc);
    amp_large_run(&L);
    int rc = PMPI_Pack_external_size(datarep, n, datatype, &s);
    if (rc == MPI_SUCCESS)
        *size = s;
    return amp_large_end(&L, rc);
}
AMP_WEAK_ALIAS(Pack_external_size_c)

/* ---- operations and windows ---- */

int PMPI_Op_create_c(MPI_User_function_c *user_fn, int commute, MPI_Op *op)
{
    amp_large_t L;
    amp_large_begin(&L, "MPI_Op_create_c", MPI_COMM_NULL);
    if (L.rc != MPI_SUCCESS)
        return L.rc;
    amp_large_run(&L);
    int rc = PMPI_Op_create((MPI_User_function *)user_fn, commute, op);
    if (rc == MPI_SUCCESS) {
        amp_op_obj_t *o = amp_table_lookup(&L.rank->ops, AMP_HANDLE_INDEX(*op));
        o->large = 1; /* its len is an MPI_Count (coll/coll.h) */
    }
    return amp_large_end(&L, rc);
}
AMP_WEAK_ALIAS(Op_create_c)

int PMPI_Win_shared_query_c(MPI_Win win, int rank, MPI_Aint *size,
                            MPI_Aint *disp_unit, void *baseptr)
{
    amp_large_t L;
    int unit = 0;
    amp_large_begin(&L, "MPI_Win_shared_query_c", MPI_COMM_NULL);
    if (L.rc != MPI_SUCCESS)
        return L.rc;
    if (!disp_unit)
        return amp_mpi_error(L.rank, NULL, MPI_ERR_ARG, L.call,
                             "NULL pointer (argument disp_unit)");
    amp_large_run(&L);
    int rc = PMPI_Win_shared_query(win, rank, size, &unit, baseptr);
    if (rc == MPI_SUCCESS)
        *disp_unit = unit;
    return amp_large_end(&L, rc);
}
AMP_WEAK_ALIAS(Win_shared_query_c)
