/*
 * The boot module's exchange, as the transports will use it: run under a
 * PMIx launcher (mpirun -np N boot_exchange N), every process publishes a
 * blob of its own size and contents, fences, and reads every process's
 * blob back.  Run alone (boot_exchange alone), it is a job of one process
 * without PMIx.  With a second argument "direct" (and AMPI_PMIX_MODEX=direct
 * in the environment) the fence collects nothing and every get must ask
 * the server.  Prints "boot: ... ok" from each process on success.
 */
#include "boot/boot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_EQ(a, b)                                                         \
    do {                                                                       \
        long long check_a_ = (long long)(a), check_b_ = (long long)(b);        \
        if (check_a_ != check_b_) {                                            \
            fprintf(stderr, "%s:%d: check failed: %s == %s (%lld vs %lld)\n",  \
                    __FILE__, __LINE__, #a, #b, check_a_, check_b_);           \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

/* Process p's blob: 64 KiB plus 7 * p bytes, byte i = (31 * p + i) mod 251,
 * so blobs differ in size and in every byte between processes. */
static size_t blob_size(int p)
{
    return 65536 + 7 * (size_t)p;
}

static unsigned char *blob_make(int p)
{
    unsigned char *b = malloc(blob_size(p));
    if (!b)
        exit(2);
    for (size_t i = 0; i < blob_size(p); i++)
        b[i] = (unsigned char)((31 * (size_t)p + i) % 251);
    return b;
}

static void check_blob(amp_boot_t *boot, int p)
{
    void *data = NULL;
    size_t size = 0;
    CHECK_EQ(amp_boot_get(boot, p, "boot-test.addr", &data, &size), AMP_OK);
    CHECK_EQ(size, blob_size(p));
    unsigned char *want = blob_make(p);
    for (size_t i = 0; i < size; i++)
        CHECK_EQ(((unsigned char *)data)[i], want[i]);
    free(want);
    free(data);
}

static void exchange(amp_boot_t *boot, int nprocs)
{
    CHECK_EQ(boot->pmix, 1);
    CHECK_EQ(boot->nprocs, nprocs);
    CHECK_EQ(boot->index >= 0 && boot->index < nprocs, 1);
    unsigned char *mine = blob_make(boot->index);
    CHECK_EQ(amp_boot_put(boot, "boot-test.addr", mine, blob_size(boot->index)),
             AMP_OK);
    free(mine); /* put copied it */
    CHECK_EQ(amp_boot_commit(boot), AMP_OK);
    CHECK_EQ(amp_boot_fence(boot), AMP_OK);
    for (int k = 1; k <= nprocs; k++) /* the others first, then itself */
        check_blob(boot, (boot->index + k) % nprocs);
    void *data = NULL;
    size_t size = 0;
    int other = (boot->index + 1) % nprocs;
    /* A key nobody published: missing (AMP_ERR_ARG), or no answer within
     * the time limit where the server waits for it to be published
     * (AMP_ERR_SYS); never found, and never a hang. */
    boot->timeout = 2;
    amp_status_t none =
        amp_boot_get(boot, other, "boot-test.none", &data, &size);
    CHECK_EQ(none == AMP_ERR_ARG || none == AMP_ERR_SYS, 1);
    CHECK_EQ(amp_boot_get(boot, nprocs, "boot-test.addr", &data, &size),
             AMP_ERR_ARG);
    CHECK_EQ(amp_boot_get(boot, -1, "boot-test.addr", &data, &size),
             AMP_ERR_ARG);
    CHECK_EQ(amp_boot_fence(boot), AMP_OK); /* nobody leaves early */
}

static void alone(amp_boot_t *boot)
{
    CHECK_EQ(boot->pmix, 0);
    CHECK_EQ(boot->nprocs, 1);
    CHECK_EQ(boot->index, 0);
    CHECK_EQ(amp_boot_fence(boot), AMP_OK);
    char byte = 1;
    CHECK_EQ(amp_boot_put(boot, "boot-test.addr", &byte, 1),
             AMP_ERR_UNSUPPORTED);
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: boot_exchange alone | NPROCS [direct]\n");
        return 2;
    }
    amp_boot_t boot;
    CHECK_EQ(amp_boot_init(&boot), AMP_OK);
    CHECK_EQ(boot.direct, argc == 3 && strcmp(argv[2], "direct") == 0);
    if (strcmp(argv[1], "alone") == 0)
        alone(&boot);
    else
        exchange(&boot, atoi(argv[1]));
    printf("boot: process %d of %d ok\n", boot.index, boot.nprocs);
    amp_boot_cleanup(&boot);
    CHECK_EQ(boot.pmix, 0);
    return 0;
}
