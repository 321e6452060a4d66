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
#include <unistd.h>

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
    if (n == strlen("manifest") && strncmp(name, "manifest", n) == 0)
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

int amp_ckpt_dir_prepare(const char *dir, int *made, char *why, size_t len)
{
    char stage[PATH_MAX];
    amp_ckpt_dir_staging(dir, stage, sizeof(stage));
    *made = mkdir(dir, 0777) == 0;
    if (!*made && errno != EEXIST)
        return fail(why, len, "create the checkpoint directory", dir, errno);
    int err = clear(stage, 0); /* a torn one, from a job that died */
    if (err)
        return fail(why, len, "clear the unfinished checkpoint in", stage, err);
    if (mkdir(stage, 0777) != 0 && errno != EEXIST)
        return fail(why, len, "create the checkpoint's staging directory",
                    stage, errno);
    return MPI_SUCCESS;
}

/* Writes DIR's absolute path into the file AMPI_CHECKPOINT_NOTE names. */
static int note(const char *dir, char *why, size_t len)
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
    int err = ferror(f) ? EIO : 0;
    if (fclose(f) != 0 && !err)
        err = errno;
    if (!err && rename(tmp, file) != 0)
        err = errno;
    if (err)
        return fail(why, len, "write (AMPI_CHECKPOINT_NOTE)", file, err);
    return MPI_SUCCESS;
}

int amp_ckpt_dir_commit(const char *dir, char *why, size_t len)
{
    char stage[PATH_MAX];
    amp_ckpt_dir_staging(dir, stage, sizeof(stage));
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
        return note(dir, why, len);
    }
    int err = clear(stage, 1); /* the previous checkpoint now */
    if (err)
        amp_log_error("cannot remove the previous checkpoint from %s: %s",
                      stage, strerror(err));
    return note(dir, why, len);
}

void amp_ckpt_dir_abandon(const char *dir, int made)
{
    char stage[PATH_MAX];
    amp_ckpt_dir_staging(dir, stage, sizeof(stage));
    int err = clear(stage, 1);
    if (err)
        amp_log_error("cannot remove the unfinished checkpoint in %s: %s",
                      stage, strerror(err));
    if (made) /* ENOTEMPTY: something else was put there since */
        (void)rmdir(dir);
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
