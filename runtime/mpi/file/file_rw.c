/*
 * Independent reads and writes, blocking and nonblocking (file.h).
 *
 * An access is the memory side (the data in the view's representation,
 * as one contiguous stream: the user's buffer itself when it already is
 * that, else a packed and converted copy) and the file side (a cursor over
 * the view from the access's first byte).  A helper thread runs the
 * transfer (io/rw.c); its end comes back to the rank's PE, which unpacks
 * a read and completes the request.  A blocking call is the same with a
 * request of its own that the rank waits for, letting its PE run the
 * other ranks meanwhile.
 */
#include "mpi/file/file.h"
#include "mpi/stage.h"

#include <stdlib.h>
#include <string.h>

/* A nonblocking (or blocking) operation, from its start to its end. */
struct amp_file_op {
    amp_io_job_t job;
    amp_io_xfer_t x;
    amp_io_cursor_t cur;
    amp_io_view_t view; /* a nonblocking one's copy of the file's view */
    int own_view;
    amp_file_mem_t mem;
    size_t done;        /* bytes of the stream moved */
    amp_p2p_req_t *req; /* completed at the end */
    amp_req_t *r;       /* the MPI request it belongs to, if any */
    int write;
    int owns_mem; /* mem's temporary goes with the operation */
    const amp_dt_t *held[3];
    MPI_File fh;
    amp_file_t *file; /* counts it as pending while it runs, if set */
};

int amp_file_check_mode(amp_rank_t *rank, amp_file_t *f, int write,
                        const char *call)
{
    if (write && (f->amode & MPI_MODE_RDONLY))
        return amp_file_error(rank, f, MPI_ERR_READ_ONLY, call,
                              "the file was opened MPI_MODE_RDONLY");
    if (!write && (f->amode & MPI_MODE_WRONLY))
        return amp_file_error(rank, f, MPI_ERR_ACCESS, call,
                              "the file was opened MPI_MODE_WRONLY");
    return MPI_SUCCESS;
}

void amp_file_status(MPI_Status *status, size_t bytes)
{
    if (status != MPI_STATUS_IGNORE)
        amp_status_set(status, MPI_COMM_NULL, MPI_ANY_SOURCE, MPI_ANY_TAG,
                       bytes, 0);
}

/* ---- the memory side ---- */

static int check_buffer(amp_rank_t *rank, amp_file_t *f, const void *buf,
                        int count, MPI_Datatype dtype, const amp_dt_t *dt,
                        const char *call)
{
    if (!dt || !dt->committed)
        return amp_file_error(rank, f, MPI_ERR_TYPE, call,
                              "%s datatype %#x (argument datatype)",
                              dt ? "uncommitted" : "invalid", (unsigned)dtype);
    if (count < 0)
        return amp_file_error(rank, f, MPI_ERR_COUNT, call,
                              "negative count %d (argument count)", count);
    if (!buf && count > 0 && dt->size > 0 && dt->true_lb == 0)
        return amp_file_error(rank, f, MPI_ERR_BUFFER, call,
                              "NULL buffer with count %d (argument buf)",
                              count);
    if (amp_proc.gpu && count > 0 && amp_gpu_is_device_buf(buf))
        return amp_file_error(rank, f, MPI_ERR_BUFFER, call,
                              "file I/O needs host memory; the buffer is "
                              "CUDA device memory (argument buf)");
    return MPI_SUCCESS;
}

/* Basic values of m in the file's representation: their count, and the
 * bytes each takes there and in memory. */
static void item_sizes(const amp_file_mem_t *m, size_t *n, size_t *file,
                       size_t *mem)
{
    size_t basic = m->dt->basic_size ? m->dt->basic_size : 1;
    *n = m->mbytes / basic;
    *file = *n ? m->bytes / *n : 1;
    *mem = basic;
}

size_t amp_file_mem_bytes(const amp_file_mem_t *m, size_t got)
{
    size_t n, file, mem;
    if (m->bytes == m->mbytes)
        return got;
    item_sizes(m, &n, &file, &mem);
    return got / file * mem;
}

/* For a write: the data in the file's representation, in m->temp. */
static int fill_stream(amp_rank_t *rank, amp_file_mem_t *m)
{
    size_t n, file, mem;
    if (m->rep == AMP_REP_USER && m->user_rep->write_fn) {
        item_sizes(m, &n, &file, &mem);
        return amp_datarep_convert(rank, m->user_rep, 1, m->buf, m->dtype,
                                   (int)n, m->temp, 0);
    }
    if (m->bytes != m->mbytes)
        return MPI_ERR_CONVERSION; /* sizes change, nothing to convert */
    amp_dt_pack(m->dt, m->count, m->buf, m->temp);
    if (m->rep == AMP_REP_EXTERNAL32)
        amp_dt_x32_convert(m->dt, m->count, m->temp, 1, 1);
    return MPI_SUCCESS;
}

int amp_file_mem_begin(amp_rank_t *rank, amp_file_t *f, int write, void *buf,
                       int count, MPI_Datatype dtype, amp_file_mem_t *m,
                       const char *call)
{
    const amp_dt_t *dt = amp_dt_lookup(rank, dtype);
    const char *why = NULL;
    memset(m, 0, sizeof(*m));
    int rc = amp_file_check_mode(rank, f, write, call);
    if (rc == MPI_SUCCESS)
        rc = check_buffer(rank, f, buf, count, dtype, dt, call);
    if (rc != MPI_SUCCESS)
        return rc;
    long long bytes = amp_file_stream_bytes(rank, f, dt, count, &why);
    if (bytes < 0)
        return amp_file_error(rank, f, MPI_ERR_UNSUPPORTED_DATAREP, call,
                              "in \"%s\" the datatype %s (argument datatype)",
                              f->datarep, why);
    if (bytes % (long long)f->etype->size)
        return amp_file_error(rank, f, MPI_ERR_IO, call,
                              "%lld bytes of data are not a whole number of "
                              "etypes of %zu bytes (arguments count, "
                              "datatype)",
                              bytes, f->etype->size);
    *m = (amp_file_mem_t){.buf = buf,
                          .count = count,
                          .dtype = dtype,
                          .dt = dt,
                          .mbytes = dt->size * (size_t)count,
                          .bytes = (size_t)bytes,
                          .rep = f->rep,
                          .user_rep = f->user_rep};
    int same = f->rep == AMP_REP_NATIVE || f->rep == AMP_REP_INTERNAL;
    if (same && dt->contig) {
        m->stream = amp_dt_data(buf, dt);
        return MPI_SUCCESS;
    }
    if (bytes > 0 && !(m->temp = malloc((size_t)bytes)))
        return amp_file_error(rank, f, MPI_ERR_NO_MEM, call,
                              "out of memory for a %lld-byte copy of the "
                              "data",
                              bytes);
    m->stream = m->temp;
    if (write && (rc = fill_stream(rank, m)) != MPI_SUCCESS) {
        amp_file_mem_end(m);
        return amp_file_error(rank, f, MPI_ERR_CONVERSION, call,
                              "the conversion to \"%s\" failed (code %d)",
                              f->datarep, rc);
    }
    return MPI_SUCCESS;
}

int amp_file_mem_unpack(amp_file_mem_t *m, size_t got, int user_ok)
{
    size_t n, file, mem;
    if (!m->temp || got == 0 || m->unpacked)
        return MPI_SUCCESS;
    if (m->rep == AMP_REP_USER && m->user_rep->read_fn) {
        if (!user_ok)
            return MPI_SUCCESS;
        m->unpacked = 1;
        item_sizes(m, &n, &file, &mem);
        return amp_datarep_convert(amp_rank_self(), m->user_rep, 0, m->buf,
                                   m->dtype, (int)(got / file), m->temp, 0);
    }
    m->unpacked = 1;
    if (m->rep == AMP_REP_EXTERNAL32)
        amp_dt_x32_convert(m->dt, m->count, m->temp, 1, 0);
    amp_dt_unpack(m->dt, m->count, m->buf, m->temp, got);
    return MPI_SUCCESS;
}

void amp_file_mem_end(amp_file_mem_t *m)
{
    free(m->temp);
    m->temp = NULL;
}

/* ---- the operation ---- */

static int cursor_next(void *src, amp_io_seg_t *seg)
{
    return amp_io_cursor_next(src, seg);
}

static void run_op(amp_io_job_t *job)
{
    struct amp_file_op *op = job->arg;
    job->status = amp_io_xfer_run(&op->x, &job->err);
}

/* On the rank's PE: unpacks what a read brought (unless a conversion of
 * the program's must run in the rank) and completes the request. */
static void op_done(amp_io_job_t *job)
{
    struct amp_file_op *op = job->arg;
    if (!op->write && job->status == AMP_OK)
        amp_file_mem_unpack(&op->mem, op->done, 0);
    amp_p2p_req_t *p = op->req;
    p->error = job->status;
    p->st_bytes = amp_file_mem_bytes(&op->mem, op->done);
    amp_p2p_req_complete(p);
    if (op->file)
        atomic_fetch_sub(&op->file->pending, 1);
    /* MPI_Request_free'd while under way: nobody waits for it. */
    if (op->r && op->r->freed)
        amp_req_release((amp_rank_t *)p->owner->thr, op->r);
}

static void op_free(struct amp_file_op *op);

void amp_file_wait_pending(amp_rank_t *rank, amp_file_t *f, const char *call)
{
    while (atomic_load(&f->pending) > 0)
        amp_mpi_poll(rank, call);
}

static void op_release(amp_rank_t *rank, struct amp_file_op *op)
{
    for (int i = 0; i < 3; i++)
        if (op->held[i])
            amp_type_drop(rank, op->held[i]);
    if (op->owns_mem)
        amp_file_mem_end(&op->mem);
    op_free(op);
}

static void op_free(struct amp_file_op *op)
{
    if (op->own_view)
        amp_io_view_cleanup(&op->view);
    free(op);
}

/* A nonblocking operation walks its own copy of the view, so that it is
 * not disturbed by MPI_File_set_view (which the standard forbids while
 * operations are pending, and some programs do anyway). */
static struct amp_file_op *op_new(amp_file_t *f, int write, int64_t start,
                                  const amp_file_mem_t *m, int copy_view)
{
    struct amp_file_op *op = calloc(1, sizeof(*op));
    if (!op)
        return NULL;
    const amp_io_view_t *v = &f->view;
    if (copy_view) {
        if (amp_io_view_init(&op->view, v->disp, v->etype, v->filetype) !=
            AMP_OK) {
            free(op);
            return NULL;
        }
        op->own_view = 1;
        v = &op->view;
    }
    op->mem = *m;
    op->write = write;
    op->fh = amp_file_handle(f);
    amp_io_cursor_init(&op->cur, v, start, m->bytes, m->stream, 0);
    op->x = (amp_io_xfer_t){
        .file = f->io,
        .write = write,
        .next = cursor_next,
        .src = &op->cur,
        .bounce = (size_t)(write ? f->hints.ind_wr_buffer_size
                                 : f->hints.ind_rd_buffer_size),
        .atomic = f->atomic,
        .done = &op->done,
        .nsrc = 1,
    };
    if (f->atomic && m->bytes) {
        op->x.lo = amp_io_view_offset(&f->view, start);
        op->x.hi =
            amp_io_view_offset(&f->view, start + (int64_t)m->bytes - 1) + 1;
    }
    op->job = (amp_io_job_t){.run = run_op, .done = op_done, .arg = op};
    return op;
}

/* The error of a finished operation, through f's handler. */
static int op_error(amp_rank_t *rank, amp_file_t *f, amp_status_t st, int err,
                    int write, const char *call)
{
    return amp_file_io_error(rank, f, st, err, call,
                             write ? "cannot write" : "cannot read");
}

static int run_blocking(amp_rank_t *rank, amp_file_t *f, struct amp_file_op *op,
                        MPI_Status *status, const char *call)
{
    amp_p2p_req_t req = {0}, *p = &req;
    amp_p2p_req_init_pending(&rank->ep, &req);
    op->req = &req;
    amp_io_submit(amp_proc.io, &op->job);
    rank->call = call;
    amp_p2p_wait_all(&rank->ep, &p, 1);
    int rc = MPI_SUCCESS;
    if (op->job.status != AMP_OK)
        rc = op_error(rank, f, op->job.status, op->job.err, op->write, call);
    else if (!op->write &&
             amp_file_mem_unpack(&op->mem, op->done, 1) != MPI_SUCCESS)
        rc = amp_file_error(rank, f, MPI_ERR_CONVERSION, call,
                            "the conversion from \"%s\" failed", f->datarep);
    if (rc == MPI_SUCCESS)
        amp_file_status(status, req.st_bytes);
    return rc;
}

/* Wait and Test found the file request of op failed: its error through
 * the file's handler. */
static int op_req_error(amp_rank_t *rank, struct amp_file_op *op,
                        const char *call)
{
    amp_file_t *f = amp_table_lookup(&rank->files, AMP_HANDLE_INDEX(op->fh));
    if (f && amp_file_handle(f) != op->fh)
        f = NULL;
    return op_error(rank, f, op->job.status, op->job.err, op->write, call);
}

static void req_release(amp_rank_t *rank, amp_req_t *r)
{
    op_release(rank, r->fop);
    r->fop = NULL;
}

static int req_fail(amp_rank_t *rank, const amp_req_t *r, const char *call)
{
    return op_req_error(rank, r->fop, call);
}

static const amp_req_ops_t file_op_ops = {.release = req_release,
                                          .fail = req_fail};

/* A request for op, made pending, or (done set) complete at once. */
static int op_request(amp_rank_t *rank, amp_file_t *f, struct amp_file_op *op,
                      int done, MPI_Request *request, const char *call)
{
    amp_req_t *r = amp_req_new(rank, AMP_REQ_IO);
    if (!r)
        return amp_file_error(rank, f, MPI_ERR_NO_MEM, call,
                              "out of memory for the request");
    amp_p2p_req_init_pending(&rank->ep, &r->p2p);
    r->active = 1;
    r->comm = MPI_COMM_WORLD;
    r->fop = op;
    r->ops = &file_op_ops;
    op->r = r;
    op->owns_mem = 1;
    op->req = &r->p2p;
    op->held[0] = op->mem.dt;
    op->held[1] = f->etype;
    op->held[2] = f->filetype;
    for (int i = 0; i < 3; i++)
        amp_type_hold(op->held[i]);
    if (done) {
        r->p2p.st_bytes = amp_file_mem_bytes(&op->mem, op->done);
        amp_p2p_req_complete(&r->p2p);
    } else {
        op->file = f;
        atomic_fetch_add(&f->pending, 1);
        amp_io_submit(amp_proc.io, &op->job);
    }
    *request = AMPI_HANDLE(AMPI_HANDLE_REQUEST, r->obj.idx);
    return MPI_SUCCESS;
}

int amp_file_independent(amp_rank_t *rank, amp_file_t *f,
                         const amp_file_access_t *a, int64_t start,
                         amp_file_mem_t *m, size_t *moved)
{
    int write = a->write;
    MPI_Request *request = a->nonblocking ? a->request : NULL;
    const char *call = a->call;
    *moved = 0;
    if (m->bytes > 0 && f->view.fsize == 0) {
        amp_file_mem_end(m);
        return amp_file_error(rank, f, MPI_ERR_IO, call,
                              "the view's filetype holds no data");
    }
    struct amp_file_op *op = op_new(f, write, start, m, request != NULL);
    if (!op) {
        amp_file_mem_end(m);
        return amp_file_error(rank, f, MPI_ERR_NO_MEM, call, "out of memory");
    }
    /* A conversion of the program's runs in the rank: such a read is done
     * before the call returns. */
    int now =
        !request || (!write && m->rep == AMP_REP_USER && m->user_rep->read_fn);
    int rc = MPI_SUCCESS;
    if (now)
        rc = run_blocking(rank, f, op, a->status, call);
    *moved = op->done;
    if (request && rc == MPI_SUCCESS)
        rc = op_request(rank, f, op, now, request, call);
    if (!request || rc != MPI_SUCCESS) {
        amp_file_mem_end(&op->mem);
        op_free(op);
    }
    return rc;
}

/* ---- the calls ---- */

/* Enters an independent access on an explicit offset or the individual
 * file pointer. */
static int access_enter(const amp_file_access_t *a, amp_rank_t **rank,
                        amp_file_t **f)
{
    int rc = amp_file_enter(a->fh, a->call, rank, f);
    if (rc != MPI_SUCCESS)
        return rc;
    if ((*f)->amode & MPI_MODE_SEQUENTIAL)
        return amp_file_error(*rank, *f, MPI_ERR_UNSUPPORTED_OPERATION, a->call,
                              "the file was opened MPI_MODE_SEQUENTIAL, which "
                              "allows only the shared file pointer");
    if (a->at && a->offset < 0)
        return amp_file_error(*rank, *f, MPI_ERR_ARG, a->call,
                              "negative offset %lld (argument offset)",
                              a->offset);
    if (a->nonblocking && !a->request)
        return amp_file_error(*rank, *f, MPI_ERR_ARG, a->call,
                              "NULL pointer (argument request)");
    return MPI_SUCCESS;
}

static int independent(const amp_file_access_t *a)
{
    amp_rank_t *rank;
    amp_file_t *f;
    amp_file_mem_t m;
    size_t moved;
    int rc = access_enter(a, &rank, &f);
    if (rc == MPI_SUCCESS)
        rc = amp_file_mem_begin(rank, f, a->write, a->buf, a->count, a->dtype,
                                &m, a->call);
    if (rc != MPI_SUCCESS)
        return rc;
    int64_t esize = (int64_t)f->etype->size;
    int64_t start = amp_file_stream_pos(f, a->at ? a->offset : f->fp);
    size_t bytes = m.bytes;
    rc = amp_file_independent(rank, f, a, start, &m, &moved);
    /* The individual pointer moves past the data asked for, even when a
     * read meets the end of the file (MPI-4.0 14.4.1: by count, set by the
     * call that starts the access; MPI_Get_count says what was read). */
    if (rc == MPI_SUCCESS && !a->at)
        f->fp += (int64_t)bytes / esize;
    return rc;
}

int PMPI_File_read_at(MPI_File fh, MPI_Offset offset, void *buf, int count,
                      MPI_Datatype datatype, MPI_Status *status)
{
    amp_file_access_t a = {.fh = fh,
                           .at = 1,
                           .offset = offset,
                           .buf = buf,
                           .count = count,
                           .dtype = datatype,
                           .status = status,
                           .call = "MPI_File_read_at"};
    return independent(&a);
}
AMP_WEAK_ALIAS(File_read_at)

int PMPI_File_write_at(MPI_File fh, MPI_Offset offset, const void *buf,
                       int count, MPI_Datatype datatype, MPI_Status *status)
{
    amp_file_access_t a = {.fh = fh,
                           .at = 1,
                           .offset = offset,
                           .buf = (void *)buf,
                           .count = count,
                           .dtype = datatype,
                           .status = status,
                           .write = 1,
                           .call = "MPI_File_write_at"};
    return independent(&a);
}
AMP_WEAK_ALIAS(File_write_at)

int PMPI_File_read(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                   MPI_Status *status)
{
    amp_file_access_t a = {.fh = fh,
                           .buf = buf,
                           .count = count,
                           .dtype = datatype,
                           .status = status,
                           .call = "MPI_File_read"};
    return independent(&a);
}
AMP_WEAK_ALIAS(File_read)

int PMPI_File_write(MPI_File fh, const void *buf, int count,
                    MPI_Datatype datatype, MPI_Status *status)
{
    amp_file_access_t a = {.fh = fh,
                           .buf = (void *)buf,
                           .count = count,
                           .dtype = datatype,
                           .status = status,
                           .write = 1,
                           .call = "MPI_File_write"};
    return independent(&a);
}
AMP_WEAK_ALIAS(File_write)

int PMPI_File_iread_at(MPI_File fh, MPI_Offset offset, void *buf, int count,
                       MPI_Datatype datatype, MPI_Request *request)
{
    amp_file_access_t a = {.fh = fh,
                           .at = 1,
                           .offset = offset,
                           .buf = buf,
                           .count = count,
                           .dtype = datatype,
                           .nonblocking = 1,
                           .request = request,
                           .call = "MPI_File_iread_at"};
    return independent(&a);
}
AMP_WEAK_ALIAS(File_iread_at)

int PMPI_File_iwrite_at(MPI_File fh, MPI_Offset offset, const void *buf,
                        int count, MPI_Datatype datatype, MPI_Request *request)
{
    amp_file_access_t a = {.fh = fh,
                           .at = 1,
                           .offset = offset,
                           .buf = (void *)buf,
                           .count = count,
                           .dtype = datatype,
                           .nonblocking = 1,
                           .request = request,
                           .write = 1,
                           .call = "MPI_File_iwrite_at"};
    return independent(&a);
}
AMP_WEAK_ALIAS(File_iwrite_at)

int PMPI_File_iread(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                    MPI_Request *request)
{
    amp_file_access_t a = {.fh = fh,
                           .buf = buf,
                           .count = count,
                           .dtype = datatype,
                           .nonblocking = 1,
                           .request = request,
                           .call = "MPI_File_iread"};
    return independent(&a);
}
AMP_WEAK_ALIAS(File_iread)

int PMPI_File_iwrite(MPI_File fh, const void *buf, int count,
                     MPI_Datatype datatype, MPI_Request *request)
{
    amp_file_access_t a = {.fh = fh,
                           .buf = (void *)buf,
                           .count = count,
                           .dtype = datatype,
                           .nonblocking = 1,
                           .request = request,
                           .write = 1,
                           .call = "MPI_File_iwrite"};
    return independent(&a);
}
AMP_WEAK_ALIAS(File_iwrite)

int amp_file_access(const amp_file_access_t *a)
{
    return independent(a);
}
