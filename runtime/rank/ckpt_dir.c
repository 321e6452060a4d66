/*
 * A checkpoint directory replaced whole (ckpt_dir.h): the staging
 * directory beside it, the swap, the removal of the previous checkpoint's
 * files, and the note for ampirun.
 */
#define _GNU_SOURCE 1
#include "rank/ckpt_dir.h"

#include "base/base.h"

#include <mpi.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <unistd.h>

/* In DIR.next: which checkpoint it is being written for, and by whom
 * ("<id in hex> <world rank>"). */
#define OWNER "owner"

void amp_ckpt_dir_staging(const char *dir, char *out, size_t len)
{
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    snprintf(out, len, "%.*s.next", (int)n, dir);
}

/* Whether name is one of a checkpoint's files (or their temporary
 * names): the only files the runtime removes. */
static int ckpt_file(const char *name)
{
    size_t n = strlen(name);
    if (n > 4 && strcmp(name + n - 4, ".tmp") == 0)
        n -= 4;
    if ((n == strlen("manifest") && strncmp(name, "manifest", n) == 0) ||
        (n == strlen(OWNER) && strncmp(name, OWNER, n) == 0))
        return 1;
    return n > 10 && strncmp(name, "rank-", 5) == 0 &&
           strncmp(name + n - 5, ".ckpt", 5) == 0 &&
           strspn(name + 5, "0123456789") == n - 10;
}

/* Removes a checkpoint's files from dir, then dir if that empties it.
 * 0, or an errno. */
static int clear(const char *dir, int remove_dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return errno == ENOENT ? 0 : errno;
    int err = 0;
    char path[PATH_MAX];
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (!ckpt_file(e->d_name))
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        if (unlink(path) != 0 && errno != ENOENT && !err)
            err = errno;
    }
    closedir(d);
    /* ENOTEMPTY: files of the user's, left where they are. */
    if (remove_dir && !err && rmdir(dir) != 0 && errno != ENOENT &&
        errno != ENOTEMPTY)
        err = errno;
    return err;
}

static int fail(char *why, size_t len, const char *what, const char *path,
                int err)
{
    snprintf(why, len, "cannot %s %s: %s", what, path, strerror(err));
    return MPI_ERR_IO;
}

/* The owner line of stage into *id, *rank; 0 when it has none. */
static int read_owner(const char *stage, uint64_t *id, int *rank)
{
    char path[PATH_MAX + 16], line[64] = "";
    snprintf(path, sizeof(path), "%s/" OWNER, stage);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, line, sizeof(line) - 1);
    close(fd);
    unsigned long long v;
    if (n <= 0 || sscanf(line, "%llx %d", &v, rank) != 2)
        return 0;
    *id = v;
    return 1;
}

static int write_owner(const char *stage, uint64_t id, int rank)
{
    char path[PATH_MAX + 16], tmp[PATH_MAX + 24];
    snprintf(path, sizeof(path), "%s/" OWNER, stage);
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0)
        return errno;
    int err =
        dprintf(fd, "%llx %d\n", (unsigned long long)id, rank) < 0 ? EIO : 0;
    if (close(fd) != 0 && !err)
        err = errno;
    if (!err && rename(tmp, path) != 0)
        err = errno;
    return err;
}

/* A descriptor of dir holding its lock (closing it unlocks), or -1 with
 * *err. */
static int lock_dir(const char *dir, int *err)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    while (fd >= 0 && flock(fd, LOCK_EX) != 0)
        if (errno != EINTR) {
            *err = errno;
            close(fd);
            return -1;
        }
    if (fd < 0)
        *err = errno;
    return fd;
}

/* Under DIR's lock: DIR.next made ready for checkpoint id, unless it is
 * already. */
static int join_locked(const char *stage, uint64_t id, int me, int *leader,
                       char *why, size_t len)
{
    uint64_t was;
    if (read_owner(stage, &was, leader) && was == id)
        return MPI_SUCCESS;
    int err = clear(stage, 0); /* a torn one, from a job that died */
    if (err)
        return fail(why, len, "clear the unfinished checkpoint in", stage, err);
    if (mkdir(stage, 0777) != 0 && errno != EEXIST)
        return fail(why, len, "create the checkpoint's staging directory",
                    stage, errno);
    err = write_owner(stage, id, me);
    if (err)
        return fail(why, len, "write into the staging directory", stage, err);
    *leader = me;
    return MPI_SUCCESS;
}

int amp_ckpt_dir_join(const char *dir, uint64_t id, int me, int *made,
                      int *leader, char *why, size_t len)
{
    char stage[PATH_MAX];
    amp_ckpt_dir_staging(dir, stage, sizeof(stage));
    *made = mkdir(dir, 0777) == 0;
    if (!*made && errno != EEXIST)
        return fail(why, len, "create the checkpoint directory", dir, errno);
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(why, len, "%s is not a directory", dir);
        return MPI_ERR_IO;
    }
    if (access(dir, W_OK) != 0)
        return fail(why, len, "write into the checkpoint directory", dir,
                    errno);
    int err, fd = lock_dir(dir, &err);
    if (fd < 0)
        return fail(why, len, "lock the checkpoint directory", dir, err);
    int cls = join_locked(stage, id, me, leader, why, len);
    close(fd); /* the lock goes with it */
    return cls;
}

/* Writes DIR's absolute path into the file AMPI_CHECKPOINT_NOTE names,
 * and a second line "nodes RANKS" when copies of it are in several
 * directories of the same name (AMP_CKPT_NOTE_NODES), which ampirun may
 * not see. */
static int note(const char *dir, int noted, int nranks, char *why, size_t len)
{
    const char *file = getenv("AMPI_CHECKPOINT_NOTE");
    if (!file || !file[0])
        return MPI_SUCCESS;
    char abs[PATH_MAX], tmp[PATH_MAX + 8];
    if (!realpath(dir, abs))
        return fail(why, len, "resolve", dir, errno);
    snprintf(tmp, sizeof(tmp), "%s.tmp", file);
    FILE *f = fopen(tmp, "we");
    if (!f)
        return fail(why, len, "create (AMPI_CHECKPOINT_NOTE)", tmp, errno);
    fprintf(f, "%s\n", abs);
    if (noted == AMP_CKPT_NOTE_NODES)
        fprintf(f, "nodes %d\n", nranks);
    int err = ferror(f) ? EIO : 0;
    if (fclose(f) != 0 && !err)
        err = errno;
    if (!err && rename(tmp, file) != 0)
        err = errno;
    if (err)
        return fail(why, len, "write (AMPI_CHECKPOINT_NOTE)", file, err);
    return MPI_SUCCESS;
}

int amp_ckpt_dir_commit(const char *dir, int noted, int nranks, int keep,
                        char *why, size_t len)
{
    char stage[PATH_MAX], owner[PATH_MAX + 16];
    amp_ckpt_dir_staging(dir, stage, sizeof(stage));
    snprintf(owner, sizeof(owner), "%s/" OWNER, stage);
    if (unlink(owner) != 0) /* a checkpoint holds its files alone */
        return fail(why, len, "remove", owner, errno);
    if (renameat2(AT_FDCWD, stage, AT_FDCWD, dir, RENAME_EXCHANGE) != 0) {
        if (errno != EINVAL && errno != ENOSYS)
            return fail(why, len, "swap in the checkpoint", stage, errno);
        /* A file system without the swap: the previous checkpoint goes
         * first, then the new one takes its name (a short moment without
         * DIR, docs/checkpoint.md). */
        int err = clear(dir, 0);
        if (err)
            return fail(why, len, "remove the previous checkpoint from", dir,
                        err);
        if (rename(stage, dir) != 0)
            return fail(why, len, "rename the checkpoint", stage, errno);
        return noted ? note(dir, noted, nranks, why, len) : MPI_SUCCESS;
    }
    if (!keep)
        amp_ckpt_dir_drop_previous(dir);
    return noted ? note(dir, noted, nranks, why, len) : MPI_SUCCESS;
}

void amp_ckpt_dir_drop_previous(const char *dir)
{
    char stage[PATH_MAX];
    amp_ckpt_dir_staging(dir, stage, sizeof(stage));
    int err = clear(stage, 1); /* the previous checkpoint now */
    if (err)
        amp_log_error("cannot remove the previous checkpoint from %s: %s",
                      stage, strerror(err));
}

int amp_ckpt_dir_settle(const char *dir, uint64_t id,
                        uint64_t (*id_of)(const char *))
{
    char stage[PATH_MAX];
    amp_ckpt_dir_staging(dir, stage, sizeof(stage));
    int err, fd = lock_dir(dir, &err);
    if (fd < 0)
        return 0;
    int swapped =
        id_of(dir) != id && id_of(stage) == id &&
        renameat2(AT_FDCWD, stage, AT_FDCWD, dir, RENAME_EXCHANGE) == 0;
    close(fd);
    return swapped;
}

void amp_ckpt_dir_abandon(const char *dir)
{
    char stage[PATH_MAX];
    amp_ckpt_dir_staging(dir, stage, sizeof(stage));
    int err = clear(stage, 1);
    if (err)
        amp_log_error("cannot remove the unfinished checkpoint in %s: %s",
                      stage, strerror(err));
}

/* ---- files copied between processes (ckpt_copy.c, ckpt_gather.c) ---- */

void *amp_ckpt_file_map(const char *path, size_t *bytes, int *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    void *p = MAP_FAILED;
    *err = EIO; /* an empty file */
    if (fd < 0 || fstat(fd, &st) != 0)
        *err = errno;
    else if (st.st_size > 0 && (p = mmap(NULL, (size_t)st.st_size, PROT_READ,
                                         MAP_PRIVATE, fd, 0)) == MAP_FAILED)
        *err = errno;
    if (fd >= 0)
        close(fd);
    if (p == MAP_FAILED)
        return NULL;
    *bytes = (size_t)st.st_size;
    return p;
}

void amp_ckpt_incoming_begin(amp_ckpt_incoming_t *in, const char *path,
                             size_t bytes)
{
    snprintf(in->path, sizeof(in->path), "%s", path);
    snprintf(in->tmp, sizeof(in->tmp), "%s.tmp", path);
    in->bytes = bytes;
    in->err = 0;
    in->mem = MAP_FAILED;
    in->fd = open(in->tmp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (in->fd >= 0 && ftruncate(in->fd, (off_t)bytes) == 0)
        in->mem =
            mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, in->fd, 0);
    if (in->mem != MAP_FAILED)
        return;
    in->err = errno ? errno : EIO;
    if (in->fd >= 0) {
        close(in->fd);
        unlink(in->tmp);
    }
    in->fd = -1;
    in->mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (in->mem == MAP_FAILED)
        amp_fatal("cannot take in a checkpoint file of %zu bytes", bytes);
}

int amp_ckpt_incoming_end(amp_ckpt_incoming_t *in)
{
    munmap(in->mem, in->bytes);
    if (in->fd < 0)
        return in->err;
    if (close(in->fd) != 0 || rename(in->tmp, in->path) != 0) {
        in->err = errno;
        unlink(in->tmp);
    }
    return in->err;
}

void amp_ckpt_dir_memory(char *out, size_t len)
{
    const char *set = getenv("AMPI_CHECKPOINT_MEMORY");
    if (set && set[0]) {
        snprintf(out, len, "%s", set);
        return;
    }
    char job[128];
    const char *ns = getenv("PMIX_NAMESPACE");
    if (ns && ns[0])
        snprintf(job, sizeof(job), "%s", ns);
    else
        snprintf(job, sizeof(job), "%ld", (long)getpid());
    for (char *c = job; *c; c++) /* a name in /dev/shm, nothing else */
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                    "0123456789.-_@",
                    *c))
            *c = '_';
    snprintf(out, len, "/dev/shm/ampi-ckpt-%ld-%s", (long)getuid(), job);
}

void amp_ckpt_dir_remove(const char *dir)
{
    char stage[PATH_MAX];
    amp_ckpt_dir_staging(dir, stage, sizeof(stage));
    int err = clear(stage, 1);
    if (!err)
        err = clear(dir, 1);
    if (err)
        amp_log_error("cannot remove the in-memory checkpoint %s: %s", dir,
                      strerror(err));
}
