/*
 * The shared file pointer and the calls that use it (file.h).
 *
 * The pointer has one owner: the process of the file's member 0, which
 * keeps it in its amp_io_file_t as an atomic counter of etypes.  The ranks
 * of that process add to it directly; the ranks of other processes ask the
 * owner by an active message (io/shared.c), no lock file anywhere.  An
 * independent access takes its place with one atomic add; an ordered one
 * (collective) has member 0 take the place of the whole group's data in
 * one add, and each member its own part of it in rank order, then all
 * access together (file_coll.c).
 */
#include "mpi/file/file.h"

#include <stdlib.h>

static int is_owner(const amp_file_t *f)
{
    int proc = amp_proc.world.rank_proc ? amp_proc.world.proc : 0;
    return proc == f->owner_proc;
}

/* The pointer's value from before, after adding (or setting) value. */
static int shared_op(amp_rank_t *rank, amp_file_t *f, int set, int64_t value,
                     int64_t *old, const char *call)
{
    if (is_owner(f)) {
        *old = set ? atomic_exchange(&f->io->shared_fp, value)
                   : atomic_fetch_add(&f->io->shared_fp, value);
        return MPI_SUCCESS;
    }
    amp_p2p_req_t req = {0}, *p = &req;
    amp_io_shared_rec_t rec = {.req = &req};
    amp_p2p_req_init_pending(&rank->ep, &req);
    amp_io_shared_remote(amp_pe_self(), f->owner_proc, f->owner_pe,
                         f->owner_file, set, value, &rec);
    rank->call = call;
    amp_p2p_wait_all(&rank->ep, &p, 1);
    *old = rec.result;
    return MPI_SUCCESS;
}

int amp_file_shared_add(amp_rank_t *rank, amp_file_t *f, int64_t delta,
                        int64_t *old, const char *call)
{
    return shared_op(rank, f, 0, delta, old, call);
}

int amp_file_shared_set(amp_rank_t *rank, amp_file_t *f, int64_t value,
                        const char *call)
{
    int64_t old;
    return shared_op(rank, f, 1, value, &old, call);
}

/* ---- independent accesses ---- */

/* The independent access a at the shared file pointer (a->at unused). */
static int shared_access(const amp_file_access_t *a)
{
    const char *call = a->call;
    amp_rank_t *rank;
    amp_file_t *f;
    amp_file_mem_t m;
    size_t moved;
    int64_t at;
    int rc = amp_file_enter(a->fh, call, &rank, &f);
    if (rc == MPI_SUCCESS && a->nonblocking && !a->request)
        rc = amp_file_error(rank, f, MPI_ERR_ARG, call,
                            "NULL pointer (argument request)");
    if (rc == MPI_SUCCESS)
        rc = amp_file_mem_begin(rank, f, a->write, a->buf, a->count, a->dtype,
                                &m, call);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = amp_file_shared_add(rank, f, (int64_t)(m.bytes / f->etype->size), &at,
                             call);
    if (rc != MPI_SUCCESS) {
        amp_file_mem_end(&m);
        return rc;
    }
    return amp_file_independent(rank, f, a, amp_file_stream_pos(f, at), &m,
                                &moved);
}

int PMPI_File_read_shared(MPI_File fh, void *buf, int count,
                          MPI_Datatype datatype, MPI_Status *status)
{
    return shared_access(&(amp_file_access_t){.fh = fh,
                                              .buf = buf,
                                              .count = count,
                                              .dtype = datatype,
                                              .status = status,
                                              .call = "MPI_File_read_shared"});
}
AMP_WEAK_ALIAS(File_read_shared)

int PMPI_File_write_shared(MPI_File fh, const void *buf, int count,
                           MPI_Datatype datatype, MPI_Status *status)
{
    return shared_access(&(amp_file_access_t){.fh = fh,
                                              .buf = (void *)buf,
                                              .count = count,
                                              .dtype = datatype,
                                              .status = status,
                                              .write = 1,
                                              .call = "MPI_File_write_shared"});
}
AMP_WEAK_ALIAS(File_write_shared)

int PMPI_File_iread_shared(MPI_File fh, void *buf, int count,
                           MPI_Datatype datatype, MPI_Request *request)
{
    return shared_access(&(amp_file_access_t){.fh = fh,
                                              .buf = buf,
                                              .count = count,
                                              .dtype = datatype,
                                              .status = MPI_STATUS_IGNORE,
                                              .nonblocking = 1,
                                              .request = request,
                                              .call = "MPI_File_iread_shared"});
}
AMP_WEAK_ALIAS(File_iread_shared)

int PMPI_File_iwrite_shared(MPI_File fh, const void *buf, int count,
                            MPI_Datatype datatype, MPI_Request *request)
{
    return shared_access(
        &(amp_file_access_t){.fh = fh,
                             .buf = (void *)buf,
                             .count = count,
                             .dtype = datatype,
                             .status = MPI_STATUS_IGNORE,
                             .nonblocking = 1,
                             .request = request,
                             .write = 1,
                             .call = "MPI_File_iwrite_shared"});
}
AMP_WEAK_ALIAS(File_iwrite_shared)

/* ---- ordered accesses (collective) ---- */

/* The etype at which this member's part of an ordered access of n etypes
 * starts: after the parts of the members before it, all of them after
 * the shared pointer, which moves past them all. */
static int ordered_place(amp_rank_t *rank, amp_file_t *f, int64_t n,
                         int64_t *at, const char *call)
{
    int64_t *all = malloc((size_t)f->size * sizeof(*all));
    int64_t base = 0, before = 0, total = 0;
    int rc = MPI_SUCCESS;
    if (!all || PMPI_Allgather(&n, 1, MPI_INT64_T, all, 1, MPI_INT64_T,
                               f->comm) != MPI_SUCCESS)
        rc = MPI_ERR_INTERN;
    for (int r = 0; rc == MPI_SUCCESS && r < f->size; r++) {
        before += r < f->rank ? all[r] : 0;
        total += all[r];
    }
    free(all);
    if (rc == MPI_SUCCESS && f->rank == 0)
        rc = amp_file_shared_add(rank, f, total, &base, call);
    if (PMPI_Bcast(&base, 1, MPI_INT64_T, 0, f->comm) != MPI_SUCCESS)
        rc = MPI_ERR_INTERN;
    if (rc != MPI_SUCCESS)
        return amp_file_error(rank, f, MPI_ERR_INTERN, call,
                              "the members could not agree on their places");
    *at = base + before;
    return MPI_SUCCESS;
}

int amp_file_ordered(MPI_File fh, void *buf, int count, MPI_Datatype dtype,
                     MPI_Status *status, int write, const char *call)
{
    amp_rank_t *rank;
    amp_file_t *f;
    amp_file_mem_t m;
    int64_t at = 0;
    int rc = amp_file_enter(fh, call, &rank, &f);
    if (rc == MPI_SUCCESS)
        rc = amp_file_mem_begin(rank, f, write, buf, count, dtype, &m, call);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = ordered_place(rank, f, (int64_t)(m.bytes / f->etype->size), &at, call);
    if (rc != MPI_SUCCESS) {
        amp_file_mem_end(&m);
        return rc;
    }
    size_t moved;
    return amp_file_collective(rank, f, write, amp_file_stream_pos(f, at), &m,
                               &moved, status, call);
}

int PMPI_File_read_ordered(MPI_File fh, void *buf, int count,
                           MPI_Datatype datatype, MPI_Status *status)
{
    return amp_file_ordered(fh, buf, count, datatype, status, 0,
                            "MPI_File_read_ordered");
}
AMP_WEAK_ALIAS(File_read_ordered)

int PMPI_File_write_ordered(MPI_File fh, const void *buf, int count,
                            MPI_Datatype datatype, MPI_Status *status)
{
    return amp_file_ordered(fh, (void *)buf, count, datatype, status, 1,
                            "MPI_File_write_ordered");
}
AMP_WEAK_ALIAS(File_write_ordered)

/* ---- the pointer itself ---- */

int PMPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence)
{
    const char *call = "MPI_File_seek_shared";
    amp_rank_t *rank;
    amp_file_t *f;
    int64_t cur = 0, to = 0;
    int rc = amp_file_enter(fh, call, &rank, &f);
    if (rc != MPI_SUCCESS)
        return rc;
    int64_t v[4] = {offset, -offset, whence, -whence};
    if (PMPI_Allreduce(MPI_IN_PLACE, v, 4, MPI_INT64_T, MPI_MAX, f->comm) !=
            MPI_SUCCESS ||
        v[0] != -v[1] || v[2] != -v[3])
        return amp_file_error(rank, f, MPI_ERR_NOT_SAME, call,
                              "the members gave different offsets or whence "
                              "(arguments offset, whence)");
    /* Member 0 moves it; nobody leaves before (the Bcast). */
    if (f->rank == 0) {
        rc = amp_file_shared_add(rank, f, 0, &cur, call);
        if (rc == MPI_SUCCESS)
            rc = amp_file_seek_target(rank, f, cur, offset, whence, &to, call);
        if (rc == MPI_SUCCESS)
            rc = amp_file_shared_set(rank, f, to, call);
    }
    int cls = rc == MPI_SUCCESS ? 0 : amp_mpi_class_of_code(rank, rc);
    if (PMPI_Bcast(&cls, 1, MPI_INT, 0, f->comm) != MPI_SUCCESS)
        cls = MPI_ERR_INTERN;
    if (f->rank == 0 || cls == 0)
        return rc;
    return amp_file_error(rank, f, cls, call,
                          "member 0 could not move the shared file pointer");
}
AMP_WEAK_ALIAS(File_seek_shared)

int PMPI_File_get_position_shared(MPI_File fh, MPI_Offset *offset)
{
    const char *call = "MPI_File_get_position_shared";
    amp_rank_t *rank;
    amp_file_t *f;
    int64_t at = 0;
    int rc = amp_file_enter(fh, call, &rank, &f);
    if (rc == MPI_SUCCESS && !offset)
        rc = amp_file_error(rank, f, MPI_ERR_ARG, call,
                            "NULL pointer (argument offset)");
    if (rc == MPI_SUCCESS)
        rc = amp_file_shared_add(rank, f, 0, &at, call);
    if (rc == MPI_SUCCESS)
        *offset = at;
    return rc;
}
AMP_WEAK_ALIAS(File_get_position_shared)
