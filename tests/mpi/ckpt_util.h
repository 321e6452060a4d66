/* What the checkpoint tests share: removing a checkpoint directory they
 * wrote (its manifest and one file per rank), checking every step. */
#ifndef CKPT_UTIL_H
#define CKPT_UTIL_H

#include "mpitest.h"

#include <unistd.h>

static inline void ckpt_remove_dir(const char *dir, int nranks)
{
    char path[512];
    for (int r = 0; r < nranks; r++) {
        snprintf(path, sizeof(path), "%s/rank-%d.ckpt", dir, r);
        MT_CHECK(unlink(path) == 0);
    }
    snprintf(path, sizeof(path), "%s/manifest", dir);
    MT_CHECK(unlink(path) == 0);
    MT_CHECK(rmdir(dir) == 0);
}

#endif
