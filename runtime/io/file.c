/*
 * One process's open file, and the system calls on whole files, each run
 * on a helper thread while the calling rank waits (io.h).
 */
#define _GNU_SOURCE 1
#include "io/io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct open_args {
    const char *path;
    int flags, mode;
} open_args_t;

static void run_open(amp_io_job_t *job)
{
    const open_args_t *a = job->arg;
    struct stat st;
    int fd;
    do {
        fd = open(a->path, a->flags | O_CLOEXEC, a->mode);
    } while (fd < 0 && errno == EINTR);
    job->err = fd < 0 ? errno : 0;
    if (fd >= 0 && fstat(fd, &st) != 0)
        job->err = errno;
    else if (fd >= 0 && S_ISDIR(st.st_mode))
        job->err = EISDIR;
    if (fd >= 0 && job->err) {
        close(fd);
        fd = -1;
    }
    job->value = fd;
    job->bytes = fd >= 0 && !S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode);
}

amp_status_t amp_io_file_open(amp_io_t *io, const char *path, int flags,
                              int mode, amp_io_file_t **out, int *err)
{
    *err = 0;
    amp_io_file_t *f = calloc(1, sizeof(*f));
    char *copy = strdup(path);
    if (!f || !copy) {
        free(f);
        free(copy);
        return AMP_ERR_NOMEM;
    }
    open_args_t a = {path, flags, mode};
    amp_io_job_t job = {.run = run_open, .arg = &a};
    amp_io_wait(io, &job);
    if (job.err) {
        *err = job.err;
        free(f);
        free(copy);
        return amp_io_status_of_errno(job.err);
    }
    f->fd = (int)job.value;
    f->sequential = job.bytes != 0;
    f->path = copy;
    atomic_init(&f->refs, 1);
    atomic_init(&f->shared_fp, 0);
    pthread_rwlock_init(&f->atomic_lock, NULL);
    *out = f;
    return AMP_OK;
}

void amp_io_file_hold(amp_io_file_t *f)
{
    atomic_fetch_add(&f->refs, 1);
}

static void run_close(amp_io_job_t *job)
{
    const amp_io_file_t *f = job->arg;
    job->err = close(f->fd) != 0 && errno != EINTR ? errno : 0;
}

amp_status_t amp_io_file_release(amp_io_t *io, amp_io_file_t *f, int *err)
{
    *err = 0;
    if (atomic_fetch_sub(&f->refs, 1) != 1)
        return AMP_OK;
    amp_io_job_t job = {.run = run_close, .arg = f};
    amp_io_wait(io, &job);
    *err = job.err;
    pthread_rwlock_destroy(&f->atomic_lock);
    free(f->path);
    free(f);
    return amp_io_status_of_errno(job.err);
}

typedef struct op_args {
    amp_io_file_t *f;
    int op;
} op_args_t;

/* posix_fallocate, or for file systems without it (EOPNOTSUPP) at least
 * the size: data already there is never changed. */
static int allocate(int fd, int64_t size)
{
    struct stat st;
    int rc = posix_fallocate(fd, 0, (off_t)size);
    if (rc != EOPNOTSUPP && rc != EINVAL)
        return rc;
    if (fstat(fd, &st) != 0)
        return errno;
    if (st.st_size >= size)
        return 0;
    return ftruncate(fd, (off_t)size) == 0 ? 0 : errno;
}

static void run_op(amp_io_job_t *job)
{
    const op_args_t *a = job->arg;
    int fd = a->f->fd, rc = 0;
    struct stat st;
    switch (a->op) {
    case AMP_IO_SIZE:
        rc = fstat(fd, &st) == 0 ? 0 : errno;
        job->value = rc ? 0 : (int64_t)st.st_size;
        break;
    case AMP_IO_TRUNCATE:
        rc = ftruncate(fd, (off_t)job->value) == 0 ? 0 : errno;
        break;
    case AMP_IO_ALLOCATE: rc = allocate(fd, job->value); break;
    case AMP_IO_SYNC:
        rc = fsync(fd) == 0 ? 0 : errno;
        if (rc == EINVAL || rc == EROFS) /* a pipe or special file */
            rc = 0;
        break;
    }
    job->err = rc;
}

amp_status_t amp_io_file_op(amp_io_t *io, amp_io_file_t *f, int op,
                            int64_t *value, int *err)
{
    op_args_t a = {f, op};
    amp_io_job_t job = {.run = run_op, .arg = &a, .value = value ? *value : 0};
    amp_io_wait(io, &job);
    *err = job.err;
    if (value)
        *value = job.value;
    return amp_io_status_of_errno(job.err);
}

static void run_unlink(amp_io_job_t *job)
{
    job->err = unlink((const char *)job->arg) == 0 ? 0 : errno;
}

amp_status_t amp_io_unlink(amp_io_t *io, const char *path, int *err)
{
    amp_io_job_t job = {.run = run_unlink, .arg = (void *)path};
    amp_io_wait(io, &job);
    *err = job.err;
    return amp_io_status_of_errno(job.err);
}
