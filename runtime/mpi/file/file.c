/*
 * Files: handles, errors, opening and closing, sizes, hints, atomicity and
 * sync (file.h).
 *
 * MPI_File_open is collective: the members agree on the access mode,
 * split into the members of each process (local) and one leader per
 * process (the member of lowest rank there), member 0 creates the file
 * when asked to, then each leader opens it once for its process, on a
 * helper thread, and hands the open file to the members of its process.
 * Every member returns the same error class: a failure anywhere is
 * everybody's (amp_file_agree).
 */
#define _GNU_SOURCE 1
#include "mpi/file/file.h"
#include "mpi/memkinds.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_CB_BUFFER ((long long)16 << 20)
#define DEFAULT_IND_RD_BUFFER ((long long)4 << 20)
#define DEFAULT_IND_WR_BUFFER ((long long)512 << 10)
#define MAX_CB_BUFFER ((long long)1 << 30)

amp_status_t amp_file_rank_init(amp_rank_t *rank)
{
    amp_table_init(&rank->files, sizeof(amp_file_t), 0);
    rank->file_errh = MPI_ERRORS_RETURN; /* the default for files */
    return AMP_OK;
}

MPI_File amp_file_handle(const amp_file_t *f)
{
    return AMPI_HANDLE(AMPI_HANDLE_FILE, f->obj.idx);
}

static amp_file_t *file_lookup(amp_rank_t *rank, MPI_File fh)
{
    if (AMP_HANDLE_KIND(fh) != AMPI_HANDLE_FILE)
        return NULL;
    return amp_table_lookup(&rank->files, AMP_HANDLE_INDEX(fh));
}

MPI_Errhandler *amp_file_errh_slot(amp_rank_t *rank, MPI_File fh)
{
    if (fh == MPI_FILE_NULL)
        return &rank->file_errh;
    amp_file_t *f = file_lookup(rank, fh);
    return f ? &f->errh : NULL;
}

MPI_File amp_file_first_open(amp_rank_t *rank, const char **path)
{
    amp_table_t *t = &rank->files;
    for (int i = 0; i < amp_table_capacity(t); i++) {
        amp_file_t *f = amp_table_lookup(t, i);
        if (f) {
            *path = f->io->path;
            return amp_file_handle(f);
        }
    }
    return MPI_FILE_NULL;
}

int amp_file_error(amp_rank_t *rank, amp_file_t *f, int errclass,
                   const char *call, const char *fmt, ...)
{
    char detail[AMP_ERRMSG_LEN], msg[AMP_ERRMSG_LEN + 512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof(detail), fmt, ap);
    va_end(ap);
    if (f)
        snprintf(msg, sizeof(msg), "%s: %s (file \"%s\")", call, detail,
                 f->io->path);
    else
        snprintf(msg, sizeof(msg), "%s: %s", call, detail);
    return amp_mpi_error_file(rank, f ? f->errh : rank->file_errh,
                              f ? amp_file_handle(f) : MPI_FILE_NULL, errclass,
                              msg);
}

/* What went wrong: errno's text, or the status's. */
static const char *cause(amp_status_t st, int err, char *buf, size_t len)
{
    if (err)
        return strerror_r(err, buf, len);
    return amp_status_str(st);
}

int amp_file_io_error(amp_rank_t *rank, amp_file_t *f, amp_status_t st, int err,
                      const char *call, const char *what)
{
    char why[128];
    return amp_file_error(rank, f, amp_mpi_class_of(st), call, "%s: %s", what,
                          cause(st, err, why, sizeof(why)));
}

/* The members' (status, errno) pairs agreed over comm: the most negative
 * status wins, and every member learns it. */
static int agree(MPI_Comm comm, amp_status_t *st, int *err)
{
    int64_t mine = amp_file_pair(*st, *err), all = mine;
    int rc = PMPI_Allreduce(&mine, &all, 1, MPI_INT64_T, MPI_MIN, comm);
    if (rc != MPI_SUCCESS) {
        *st = AMP_ERR_INTERN;
        *err = 0;
        return rc;
    }
    *st = (amp_status_t)(all >> 32);
    *err = (int)(uint32_t)all;
    return MPI_SUCCESS;
}

/* amp_file_agree over comm, for f or (NULL) a file being opened. */
static int agree_report(amp_rank_t *rank, amp_file_t *f, MPI_Comm comm,
                        amp_status_t st, int err, const char *call,
                        const char *what)
{
    amp_status_t mine = st;
    agree(comm, &st, &err);
    if (st == AMP_OK)
        return MPI_SUCCESS;
    if (mine != AMP_OK || err)
        return amp_file_io_error(rank, f, st, err, call, what);
    return amp_file_error(rank, f, amp_mpi_class_of(st), call,
                          "%s: failed on another member: %s", what,
                          amp_status_str(st));
}

int amp_file_agree(amp_rank_t *rank, amp_file_t *f, amp_status_t st, int err,
                   const char *call, const char *what)
{
    return agree_report(rank, f, f->comm, st, err, call, what);
}

int amp_file_enter(MPI_File fh, const char *call, amp_rank_t **rank,
                   amp_file_t **f)
{
    int rc = amp_mpi_enter(rank, call);
    if (rc != MPI_SUCCESS)
        return rc;
    *f = file_lookup(*rank, fh);
    if (*f)
        return MPI_SUCCESS;
    if (fh == MPI_FILE_NULL)
        return amp_file_error(*rank, NULL, MPI_ERR_FILE, call,
                              "MPI_FILE_NULL is not an open file (argument "
                              "fh)");
    return amp_file_error(*rank, NULL, MPI_ERR_FILE, call,
                          "invalid file handle %#x (argument fh)",
                          (unsigned)fh);
}

/* ---- hints ---- */

static long long hint_bytes(const char *v, long long dflt)
{
    char *end;
    long long n = strtoll(v, &end, 10);
    return end != v && *end == '\0' && n > 0 ? n : dflt;
}

static int hint_cb(const char *v, int dflt)
{
    if (strcmp(v, "enable") == 0)
        return AMP_CB_ENABLE;
    if (strcmp(v, "disable") == 0)
        return AMP_CB_DISABLE;
    if (strcmp(v, "automatic") == 0)
        return AMP_CB_AUTO;
    return dflt;
}

/* Processes and nodes that members of comm run on. */
static void count_places(const amp_comm_t *c, int *nprocs, int *nnodes)
{
    const amp_p2p_world_t *w = &amp_proc.world;
    *nprocs = *nnodes = 1;
    if (!w->rank_proc)
        return;
    char *seen = calloc((size_t)w->nprocs * 2, 1);
    if (!seen)
        return;
    *nprocs = *nnodes = 0;
    for (int r = 0; r < c->size; r++) {
        int p = w->rank_proc[amp_comm_world_rank(c, r)];
        int node = w->proc_node ? w->proc_node[p] : p;
        *nprocs += !seen[p];
        *nnodes += !seen[w->nprocs + node];
        seen[p] = seen[w->nprocs + node] = 1;
    }
    free(seen);
}

/* Member 0's reading of info into f's hints, then everybody's. */
static int hints_apply(amp_file_t *f, MPI_Info info, int nnodes);

int amp_file_hints_apply(amp_file_t *f, MPI_Info info)
{
    return hints_apply(f, info, f->hints.cb_nodes);
}

static int hints_apply(amp_file_t *f, MPI_Info info, int nnodes)
{
    amp_file_hints_t h = f->hints;
    if (!h.cb_buffer_size)
        h = (amp_file_hints_t){DEFAULT_CB_BUFFER,     nnodes,
                               AMP_CB_AUTO,           AMP_CB_AUTO,
                               DEFAULT_IND_RD_BUFFER, DEFAULT_IND_WR_BUFFER};
    char v[MPI_MAX_INFO_VAL + 1];
    int flag;
#define HINT(key)                                                              \
    (info != MPI_INFO_NULL &&                                                  \
     PMPI_Info_get(info, key, MPI_MAX_INFO_VAL, v, &flag) == MPI_SUCCESS &&    \
     flag)
    if (f->rank == 0) {
        if (HINT("cb_buffer_size"))
            h.cb_buffer_size = hint_bytes(v, h.cb_buffer_size);
        /* A round's counts are ints: at most 1 GiB per aggregator. */
        if (h.cb_buffer_size > MAX_CB_BUFFER)
            h.cb_buffer_size = MAX_CB_BUFFER;
        if (HINT("cb_nodes"))
            h.cb_nodes = (int)hint_bytes(v, h.cb_nodes);
        if (HINT("romio_cb_read"))
            h.cb_read = hint_cb(v, h.cb_read);
        if (HINT("romio_cb_write"))
            h.cb_write = hint_cb(v, h.cb_write);
        if (HINT("ind_rd_buffer_size"))
            h.ind_rd_buffer_size = hint_bytes(v, h.ind_rd_buffer_size);
        if (HINT("ind_wr_buffer_size"))
            h.ind_wr_buffer_size = hint_bytes(v, h.ind_wr_buffer_size);
    }
#undef HINT
    int rc = PMPI_Bcast(&h, (int)sizeof(h), MPI_BYTE, 0, f->comm);
    if (rc == MPI_SUCCESS)
        f->hints = h;
    return rc;
}

static const char *cb_name(int cb)
{
    return cb == AMP_CB_ENABLE    ? "enable"
           : cb == AMP_CB_DISABLE ? "disable"
                                  : "automatic";
}

static int info_put(MPI_Info info, const char *key, long long n)
{
    char v[32];
    snprintf(v, sizeof(v), "%lld", n);
    return PMPI_Info_set(info, key, v);
}

/* ---- opening ---- */

/* What is wrong with amode, or NULL. */
static const char *amode_problem(int amode)
{
    const int known = MPI_MODE_RDONLY | MPI_MODE_WRONLY | MPI_MODE_RDWR |
                      MPI_MODE_CREATE | MPI_MODE_EXCL |
                      MPI_MODE_DELETE_ON_CLOSE | MPI_MODE_UNIQUE_OPEN |
                      MPI_MODE_SEQUENTIAL | MPI_MODE_APPEND;
    int access = amode & (MPI_MODE_RDONLY | MPI_MODE_WRONLY | MPI_MODE_RDWR);
    if (amode & ~known)
        return "has bits that are no MPI_MODE_* of files";
    if (access != MPI_MODE_RDONLY && access != MPI_MODE_WRONLY &&
        access != MPI_MODE_RDWR)
        return "must have exactly one of MPI_MODE_RDONLY, MPI_MODE_WRONLY "
               "and MPI_MODE_RDWR";
    if (access == MPI_MODE_RDONLY &&
        (amode & (MPI_MODE_CREATE | MPI_MODE_EXCL)))
        return "combines MPI_MODE_RDONLY with MPI_MODE_CREATE or "
               "MPI_MODE_EXCL";
    if (access == MPI_MODE_RDWR && (amode & MPI_MODE_SEQUENTIAL))
        return "combines MPI_MODE_RDWR with MPI_MODE_SEQUENTIAL";
    return NULL;
}

static int open_check(amp_rank_t *rank, MPI_Comm comm, const char *filename,
                      int amode, MPI_Info info, const MPI_File *fh,
                      const char *call)
{
    amp_comm_t *c = amp_comm_lookup(rank, comm);
    const char *why = amode_problem(amode);
    if (!c || c->is_inter)
        return amp_file_error(rank, NULL, MPI_ERR_COMM, call,
                              "%s (argument comm)",
                              c ? "an inter-communicator cannot open files"
                                : "invalid communicator");
    if (!filename || !fh)
        return amp_file_error(rank, NULL, MPI_ERR_ARG, call,
                              "NULL pointer (argument %s)",
                              filename ? "fh" : "filename");
    if (why)
        return amp_file_error(rank, NULL, MPI_ERR_AMODE, call,
                              "access mode %#x %s (argument amode)",
                              (unsigned)amode, why);
    if (info != MPI_INFO_NULL && !amp_info_lookup(rank, info))
        return amp_file_error(rank, NULL, MPI_ERR_INFO, call,
                              "invalid info handle %#x (argument info)",
                              (unsigned)info);
    return MPI_SUCCESS;
}

/* open(2)'s flags for amode; create: the member that creates the file. */
static int open_flags(int amode, int create)
{
    int flags = amode & MPI_MODE_RDONLY   ? O_RDONLY
                : amode & MPI_MODE_WRONLY ? O_WRONLY
                                          : O_RDWR;
    if (create && (amode & MPI_MODE_CREATE))
        flags |= O_CREAT;
    if (create && (amode & MPI_MODE_EXCL))
        flags |= O_CREAT | O_EXCL;
    return flags;
}

/* Member 0 creates (or opens) the file, then the other leaders open it;
 * every member learns the outcome. */
static amp_status_t open_shared(amp_file_t *f, const char *path, int *err)
{
    amp_status_t st = AMP_OK;
    int lrank = 0;
    *err = 0;
    PMPI_Comm_rank(f->local, &lrank);
    if (f->rank == 0)
        st = amp_io_file_open(amp_proc.io, path, open_flags(f->amode, 1), 0666,
                              &f->io, err);
    int64_t first = amp_file_pair(st, *err);
    if (PMPI_Bcast(&first, 1, MPI_INT64_T, 0, f->comm) != MPI_SUCCESS)
        return AMP_ERR_INTERN;
    if (first != 0) {
        *err = (int)(uint32_t)first;
        return (amp_status_t)(first >> 32);
    }
    if (lrank == 0 && f->rank != 0)
        st = amp_io_file_open(amp_proc.io, path, open_flags(f->amode, 0), 0666,
                              &f->io, err);
    if (lrank == 0 && f->io)
        f->io->lock_procs = f->nprocs > 1;
    uint64_t shared = (uint64_t)(uintptr_t)f->io;
    if (PMPI_Bcast(&shared, 1, MPI_UINT64_T, 0, f->local) != MPI_SUCCESS)
        return AMP_ERR_INTERN;
    f->io = (amp_io_file_t *)(uintptr_t)shared;
    if (f->io && lrank != 0)
        amp_io_file_hold(f->io);
    return st;
}

/* The private communicators: a duplicate, its members in this process,
 * and the process leaders. */
static amp_status_t open_comms(amp_rank_t *rank, amp_file_t *f, MPI_Comm comm)
{
    int lrank = 0;
    if (PMPI_Comm_dup(comm, &f->comm) != MPI_SUCCESS)
        return AMP_ERR_NOMEM;
    amp_comm_t *c = amp_comm_lookup(rank, f->comm);
    c->errh = MPI_ERRORS_RETURN;
    snprintf(c->name, sizeof(c->name), "file communicator");
    f->rank = c->rank;
    f->size = c->size;
    int nnodes;
    count_places(c, &f->nprocs, &nnodes);
    int proc = amp_proc.world.rank_proc ? amp_proc.world.proc : 0;
    if (PMPI_Comm_split(f->comm, proc, f->rank, &f->local) != MPI_SUCCESS)
        return AMP_ERR_NOMEM;
    PMPI_Comm_rank(f->local, &lrank);
    if (PMPI_Comm_split(f->comm, lrank == 0 ? 0 : MPI_UNDEFINED, f->rank,
                        &f->leaders) != MPI_SUCCESS)
        return AMP_ERR_NOMEM;
    amp_comm_lookup(rank, f->local)->errh = MPI_ERRORS_RETURN;
    if (f->leaders != MPI_COMM_NULL)
        amp_comm_lookup(rank, f->leaders)->errh = MPI_ERRORS_RETURN;
    f->hints.cb_nodes = nnodes;
    return AMP_OK;
}

static void free_comms(amp_file_t *f)
{
    if (f->leaders != MPI_COMM_NULL)
        PMPI_Comm_free(&f->leaders);
    if (f->local != MPI_COMM_NULL)
        PMPI_Comm_free(&f->local);
    if (f->comm != MPI_COMM_NULL)
        PMPI_Comm_free(&f->comm);
}

/* Where the shared file pointer lives: with member 0; with MPI_MODE_APPEND
 * every file pointer starts at the end of the file. */
static amp_status_t open_pointers(amp_file_t *f, int *err)
{
    int64_t w[4] = {0, 0, 0, 0}; /* proc, pe, file, size */
    amp_status_t st = AMP_OK;
    *err = 0;
    if (f->rank == 0) {
        w[0] = amp_proc.world.rank_proc ? amp_proc.world.proc : 0;
        w[1] = amp_pe_self()->id;
        w[2] = (int64_t)(uintptr_t)f->io;
        if (f->amode & MPI_MODE_APPEND)
            st = amp_io_file_op(amp_proc.io, f->io, AMP_IO_SIZE, &w[3], err);
        atomic_store(&f->io->shared_fp, w[3]);
    }
    if (PMPI_Bcast(w, 4, MPI_INT64_T, 0, f->comm) != MPI_SUCCESS)
        return AMP_ERR_INTERN;
    f->owner_proc = (int)w[0];
    f->owner_pe = (int)w[1];
    f->owner_file = (uint64_t)w[2];
    f->fp = w[3];
    return st;
}

static void file_free(amp_rank_t *rank, amp_file_t *f)
{
    int err;
    if (f->io) /* only after a failed open, which reported why */
        amp_status_ignore(amp_io_file_release(amp_proc.io, f->io, &err));
    amp_file_view_release(rank, f);
    free_comms(f);
    amp_table_free(&rank->files, f);
}

/* The collective part of MPI_File_open. */
static int open_all(amp_rank_t *rank, amp_file_t *f, MPI_Comm comm,
                    const char *path, MPI_Info info, const char *call)
{
    char what[AMP_ERRMSG_LEN / 2];
    int err = 0, modes[2] = {f->amode, -f->amode};
    snprintf(what, sizeof(what), "cannot open \"%s\"", path);
    amp_status_t st = open_comms(rank, f, comm);
    if (st != AMP_OK) /* not collective any more: report here */
        return amp_file_io_error(rank, NULL, st, 0, call, what);
    if (PMPI_Allreduce(MPI_IN_PLACE, modes, 2, MPI_INT, MPI_MAX, f->comm) !=
            MPI_SUCCESS ||
        modes[0] != -modes[1])
        return amp_file_error(rank, NULL, MPI_ERR_NOT_SAME, call,
                              "the members gave different access modes "
                              "(argument amode)");
    if (hints_apply(f, info, f->hints.cb_nodes) != MPI_SUCCESS)
        st = AMP_ERR_INTERN;
    if (st == AMP_OK)
        st = open_shared(f, path, &err);
    int rc = agree_report(rank, NULL, f->comm, st, err, call, what);
    if (rc != MPI_SUCCESS)
        return rc;
    /* The view first: it puts the individual pointer at 0. */
    amp_status_t view =
        amp_file_view_default(rank, f) == MPI_SUCCESS ? AMP_OK : AMP_ERR_NOMEM;
    st = open_pointers(f, &err);
    if (view != AMP_OK) {
        st = view;
        err = 0;
    }
    return agree_report(rank, NULL, f->comm, st, err, call, what);
}

int PMPI_File_open(MPI_Comm comm, const char *filename, int amode,
                   MPI_Info info, MPI_File *fh)
{
    const char *call = "MPI_File_open";
    amp_rank_t *rank;
    int rc = amp_mpi_enter(&rank, call);
    if (rc == MPI_SUCCESS)
        rc = open_check(rank, comm, filename, amode, info, fh, call);
    if (rc != MPI_SUCCESS)
        return rc;
    amp_file_t *f = amp_table_alloc(&rank->files);
    if (!f)
        return amp_file_error(rank, NULL, MPI_ERR_NO_MEM, call,
                              "out of memory for the file object");
    f->comm = f->local = f->leaders = MPI_COMM_NULL;
    f->amode = amode;
    f->errh = rank->file_errh;
    rc = open_all(rank, f, comm, filename, info, call);
    if (rc != MPI_SUCCESS) {
        file_free(rank, f);
        return rc;
    }
    *fh = amp_file_handle(f);
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(File_open)

int PMPI_File_close(MPI_File *fh)
{
    const char *call = "MPI_File_close";
    amp_rank_t *rank;
    amp_file_t *f;
    int rc = amp_mpi_enter(&rank, call);
    if (rc == MPI_SUCCESS && !fh)
        rc = amp_file_error(rank, NULL, MPI_ERR_ARG, call,
                            "NULL pointer (argument fh)");
    if (rc == MPI_SUCCESS)
        rc = amp_file_enter(*fh, call, &rank, &f);
    if (rc != MPI_SUCCESS)
        return rc;
    char path[AMP_ERRMSG_LEN / 2];
    snprintf(path, sizeof(path), "%s", f->io->path);
    /* Every member is done with the file before it goes, accesses whose
     * requests were freed included. */
    amp_file_wait_pending(rank, f, call);
    int err = 0;
    amp_status_t st =
        PMPI_Barrier(f->comm) == MPI_SUCCESS ? AMP_OK : AMP_ERR_INTERN;
    amp_io_file_t *io = f->io;
    f->io = NULL;
    if (st == AMP_OK)
        st = amp_io_file_release(amp_proc.io, io, &err);
    if (f->amode & MPI_MODE_DELETE_ON_CLOSE) {
        int e = 0;
        amp_status_t s =
            PMPI_Barrier(f->comm) == MPI_SUCCESS ? AMP_OK : AMP_ERR_INTERN;
        if (s == AMP_OK && f->rank == 0)
            s = amp_io_unlink(amp_proc.io, path, &e);
        if (st == AMP_OK) {
            st = s;
            err = e;
        }
    }
    rc = agree_report(rank, NULL, f->comm, st, err, call, "cannot close");
    file_free(rank, f);
    *fh = MPI_FILE_NULL;
    return rc;
}
AMP_WEAK_ALIAS(File_close)

int PMPI_File_delete(const char *filename, MPI_Info info)
{
    const char *call = "MPI_File_delete";
    amp_rank_t *rank;
    char what[AMP_ERRMSG_LEN / 2];
    int err;
    int rc = amp_mpi_enter(&rank, call);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!filename)
        return amp_file_error(rank, NULL, MPI_ERR_ARG, call,
                              "NULL pointer (argument filename)");
    if (info != MPI_INFO_NULL && !amp_info_lookup(rank, info))
        return amp_file_error(rank, NULL, MPI_ERR_INFO, call,
                              "invalid info handle %#x (argument info)",
                              (unsigned)info);
    amp_status_t st = amp_io_unlink(amp_proc.io, filename, &err);
    if (st == AMP_OK)
        return MPI_SUCCESS;
    snprintf(what, sizeof(what), "cannot delete \"%s\"", filename);
    return amp_file_io_error(rank, NULL, st, err, call, what);
}
AMP_WEAK_ALIAS(File_delete)

/* ---- size ---- */

/* The size argument of set_size/preallocate: nonnegative, the same on
 * every member (collective). */
static int check_size(amp_rank_t *rank, amp_file_t *f, MPI_Offset size,
                      const char *call)
{
    if (f->amode & MPI_MODE_SEQUENTIAL)
        return amp_file_error(rank, f, MPI_ERR_UNSUPPORTED_OPERATION, call,
                              "the file was opened MPI_MODE_SEQUENTIAL");
    if (f->amode & MPI_MODE_RDONLY)
        return amp_file_error(rank, f, MPI_ERR_READ_ONLY, call,
                              "the file was opened MPI_MODE_RDONLY");
    int64_t v[2] = {size, -size};
    int rc = PMPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_INT64_T, MPI_MAX, f->comm);
    if (rc == MPI_SUCCESS && v[0] != -v[1])
        return amp_file_error(rank, f, MPI_ERR_NOT_SAME, call,
                              "the members gave different sizes (argument "
                              "size)");
    if (rc == MPI_SUCCESS && size < 0)
        return amp_file_error(rank, f, MPI_ERR_ARG, call,
                              "negative size %lld (argument size)", size);
    return rc;
}

static int resize(MPI_File fh, MPI_Offset size, int op, const char *call)
{
    amp_rank_t *rank;
    amp_file_t *f;
    int err = 0;
    int rc = amp_file_enter(fh, call, &rank, &f);
    if (rc == MPI_SUCCESS)
        rc = check_size(rank, f, size, call);
    if (rc != MPI_SUCCESS)
        return rc;
    amp_status_t st = AMP_OK;
    int64_t v = size;
    if (f->rank == 0)
        st = amp_io_file_op(amp_proc.io, f->io, op, &v, &err);
    return amp_file_agree(rank, f, st, err, call,
                          op == AMP_IO_TRUNCATE ? "cannot resize"
                                                : "cannot preallocate");
}

int PMPI_File_set_size(MPI_File fh, MPI_Offset size)
{
    return resize(fh, size, AMP_IO_TRUNCATE, "MPI_File_set_size");
}
AMP_WEAK_ALIAS(File_set_size)

int PMPI_File_preallocate(MPI_File fh, MPI_Offset size)
{
    return resize(fh, size, AMP_IO_ALLOCATE, "MPI_File_preallocate");
}
AMP_WEAK_ALIAS(File_preallocate)

int PMPI_File_get_size(MPI_File fh, MPI_Offset *size)
{
    const char *call = "MPI_File_get_size";
    amp_rank_t *rank;
    amp_file_t *f;
    int err;
    int rc = amp_file_enter(fh, call, &rank, &f);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!size)
        return amp_file_error(rank, f, MPI_ERR_ARG, call,
                              "NULL pointer (argument size)");
    int64_t v = 0;
    amp_status_t st = amp_io_file_op(amp_proc.io, f->io, AMP_IO_SIZE, &v, &err);
    if (st != AMP_OK)
        return amp_file_io_error(rank, f, st, err, call, "cannot stat");
    *size = v;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(File_get_size)

/* ---- the rest of the file's properties ---- */

int PMPI_File_get_group(MPI_File fh, MPI_Group *group)
{
    const char *call = "MPI_File_get_group";
    amp_rank_t *rank;
    amp_file_t *f;
    int rc = amp_file_enter(fh, call, &rank, &f);
    if (rc == MPI_SUCCESS && !group)
        rc = amp_file_error(rank, f, MPI_ERR_ARG, call,
                            "NULL pointer (argument group)");
    if (rc == MPI_SUCCESS && PMPI_Comm_group(f->comm, group) != MPI_SUCCESS)
        rc = amp_file_error(rank, f, MPI_ERR_NO_MEM, call, "out of memory");
    return rc;
}
AMP_WEAK_ALIAS(File_get_group)

int PMPI_File_get_amode(MPI_File fh, int *amode)
{
    const char *call = "MPI_File_get_amode";
    amp_rank_t *rank;
    amp_file_t *f;
    int rc = amp_file_enter(fh, call, &rank, &f);
    if (rc == MPI_SUCCESS && !amode)
        rc = amp_file_error(rank, f, MPI_ERR_ARG, call,
                            "NULL pointer (argument amode)");
    if (rc == MPI_SUCCESS)
        *amode = f->amode;
    return rc;
}
AMP_WEAK_ALIAS(File_get_amode)

int PMPI_File_set_info(MPI_File fh, MPI_Info info)
{
    const char *call = "MPI_File_set_info";
    amp_rank_t *rank;
    amp_file_t *f;
    int rc = amp_file_enter(fh, call, &rank, &f);
    if (rc != MPI_SUCCESS)
        return rc;
    if (info != MPI_INFO_NULL && !amp_info_lookup(rank, info))
        return amp_file_error(rank, f, MPI_ERR_INFO, call,
                              "invalid info handle %#x (argument info)",
                              (unsigned)info);
    if (hints_apply(f, info, f->hints.cb_nodes) != MPI_SUCCESS)
        return amp_file_error(rank, f, MPI_ERR_INTERN, call,
                              "the members could not agree on the hints");
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(File_set_info)

int PMPI_File_get_info(MPI_File fh, MPI_Info *info_used)
{
    const char *call = "MPI_File_get_info";
    amp_rank_t *rank;
    amp_file_t *f;
    int rc = amp_file_enter(fh, call, &rank, &f);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!info_used)
        return amp_file_error(rank, f, MPI_ERR_ARG, call,
                              "NULL pointer (argument info_used)");
    MPI_Info info;
    const amp_file_hints_t *h = &f->hints;
    if (PMPI_Info_create(&info) != MPI_SUCCESS ||
        info_put(info, "cb_buffer_size", h->cb_buffer_size) != MPI_SUCCESS ||
        info_put(info, "cb_nodes", h->cb_nodes) != MPI_SUCCESS ||
        PMPI_Info_set(info, "romio_cb_read", cb_name(h->cb_read)) !=
            MPI_SUCCESS ||
        PMPI_Info_set(info, "romio_cb_write", cb_name(h->cb_write)) !=
            MPI_SUCCESS ||
        info_put(info, "ind_rd_buffer_size", h->ind_rd_buffer_size) !=
            MPI_SUCCESS ||
        info_put(info, "ind_wr_buffer_size", h->ind_wr_buffer_size) !=
            MPI_SUCCESS ||
        amp_info_put(rank, info, "mpi_memory_alloc_kinds",
                     amp_memkinds_of(amp_comm_lookup(rank, f->comm))) !=
            MPI_SUCCESS)
        return amp_file_error(rank, f, MPI_ERR_NO_MEM, call, "out of memory");
    *info_used = info;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(File_get_info)

int PMPI_File_set_atomicity(MPI_File fh, int flag)
{
    const char *call = "MPI_File_set_atomicity";
    amp_rank_t *rank;
    amp_file_t *f;
    int rc = amp_file_enter(fh, call, &rank, &f);
    if (rc != MPI_SUCCESS)
        return rc;
    int v[2] = {flag != 0, -(flag != 0)};
    rc = PMPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_INT, MPI_MAX, f->comm);
    if (rc != MPI_SUCCESS || v[0] != -v[1])
        return amp_file_error(rank, f, MPI_ERR_NOT_SAME, call,
                              "the members gave different flags (argument "
                              "flag)");
    f->atomic = flag != 0;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(File_set_atomicity)

int PMPI_File_get_atomicity(MPI_File fh, int *flag)
{
    const char *call = "MPI_File_get_atomicity";
    amp_rank_t *rank;
    amp_file_t *f;
    int rc = amp_file_enter(fh, call, &rank, &f);
    if (rc == MPI_SUCCESS && !flag)
        rc = amp_file_error(rank, f, MPI_ERR_ARG, call,
                            "NULL pointer (argument flag)");
    if (rc == MPI_SUCCESS)
        *flag = f->atomic;
    return rc;
}
AMP_WEAK_ALIAS(File_get_atomicity)

/* Every member's writes are done when the members of its process meet;
 * then the process's leader flushes the file to the device. */
int PMPI_File_sync(MPI_File fh)
{
    const char *call = "MPI_File_sync";
    amp_rank_t *rank;
    amp_file_t *f;
    int err = 0;
    int rc = amp_file_enter(fh, call, &rank, &f);
    if (rc != MPI_SUCCESS)
        return rc;
    amp_status_t st =
        PMPI_Barrier(f->local) == MPI_SUCCESS ? AMP_OK : AMP_ERR_INTERN;
    if (st == AMP_OK && f->leaders != MPI_COMM_NULL)
        st = amp_io_file_op(amp_proc.io, f->io, AMP_IO_SYNC, NULL, &err);
    return amp_file_agree(rank, f, st, err, call, "cannot sync");
}
AMP_WEAK_ALIAS(File_sync)
